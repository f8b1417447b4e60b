import { FlowProducer, Queue } from 'bullmq';
import type { TWorkerConfig } from '@folio-vault/shared/config';
import { ConnectionLog, watchPgPool, watchRedis, watchStorage } from '@folio-vault/shared/connection-log';
import { createPgPool, createRedis, pgBudgetOf, quiet } from '@folio-vault/shared/connections';
import { workerPoolSize } from '@folio-vault/shared/connection-budget';
import type { Logger } from '@folio-vault/shared/logger';
import { createMetrics, type TMetrics } from '@folio-vault/shared/metrics';
import { QUEUE_NAMES, queuesOf, type TQueueName } from '@folio-vault/shared/queues';
import { createStorage } from '@folio-vault/shared/storage/create-storage';
import { queueTelemetry } from '@folio-vault/shared/tracing/spans';
import { ExportStore } from '@folio-vault/shared/exports/export-store';
import { measureOn } from '@folio-vault/shared/performance-measures';
import type { TKeyring } from '@folio-vault/shared/vault/crypto/keyring';
import { publicKeyring, useNativeHpke } from '@folio-vault/shared/vault/crypto/transit';
import { openKeyProvider } from '@folio-vault/shared/vault/keys/open-key-provider';
import { KeySetupError } from '@folio-vault/shared/vault/keys/key-provider';
import { jobVerifyKeyring, type TJobSigner } from '@folio-vault/shared/vault/job-signature';
import { FolioExporter } from './exports/folio-exporter.js';
import { RenderPool } from './exports/render-pool.js';
import { startWorkerHealthServer } from './health-server.js';
import { logWorkerError } from './jobs/worker-errors.js';
import { startExportWorker, startNightAuditExportWorker } from './exports/export-processor.js';
import { nightAuditSourceHandler, startNightAuditWorker } from './night-audit/night-audit-processor.js';
import { scheduleVaultSweep, startVaultWorkers } from './vault/vault-workers.js';
import { RetentionSweep, scheduleRetentionSweep } from './exports/retention-sweep.js';
import { NightAuditor } from './night-audit/night-auditor.js';
import { syncAllNightAuditSchedules } from '@folio-vault/shared/night-audit/schedules';
import { closeWorkerParts } from './worker-shutdown.js';
import { startWebhookWorker, type TWebhookInternals } from './webhooks/webhook-worker.js';
import { startKeyHealthReporter } from './vault/key-health-reporter.js';
import { countedKeys } from './vault/counted-keys.js';
import { KeyCoverage } from './vault/key-coverage.js';
import { FiscalRenderer, scheduleFiscalRenderSweep } from './fiscal/fiscal-renderer.js';
import { fiscalFileBuilders } from './fiscal/file-builders.js';

export interface TRunningWorker {
  /** The port of the health server (WORKER_HEALTH_PORT; "ephemeral" gives a free one), when it runs. */
  healthPort?: number;
  /** The public keys of this worker's transit keys: what an API in the same process seals to. */
  transitPublicKeys: TKeyring;
  /** The job signing key of this worker's key provider, when it holds one: what an API in the same process signs with. */
  jobSigner?: TJobSigner;
  /** Finishes active jobs (up to `graceMs`, SHUTDOWN_GRACE_MS when not given), then closes connections. */
  close(graceMs?: number): Promise<void>;
}

export interface TStartWorkerOptions {
  metrics?: TMetrics;
  /** The process's connection log when the API runs in it too (scripts/run-together.ts); its owner closes it. */
  connections?: ConnectionLog;
  /** Tests only: shorter webhook time-outs and sweeps, an injected resolver (webhooks/webhook-worker.ts). */
  webhookInternals?: TWebhookInternals;
  /**
   * Tests only: false starts no render process until the first render needs one, and draws no
   * warm-up document. Most test worlds never export, and a warm pool would cost each of them its
   * render processes loading React-PDF and drawing the warm-up document. A real worker always warms
   * (test/render-warm-start.test.ts checks it on one started as in production).
   */
  warmRenderProcesses?: boolean;
  /**
   * Tests only: the render pool to use, which the caller owns and closes (the worker leaves it
   * open). The test worlds of one vitest fork share one (test/support/world.ts). Without it the
   * worker makes its own of EXPORT_CONCURRENCY processes and closes it when it stops.
   */
  renderer?: RenderPool;
}

/** A render pool the worker's caller owns (TStartWorkerOptions.renderer): the worker's close leaves it open. */
const leftOpen = { close: () => Promise.resolve() };

export async function startWorker(config: TWorkerConfig, logger: Logger, options: TStartWorkerOptions = {}): Promise<TRunningWorker> {
  // First: a key provider that cannot open (no HSM, a wrong PIN, a bad component) stops the start
  // before the worker takes any job.
  const keys = await openKeyProvider(config);
  // The APIs' public job keys; `npm start` (role all) checks what its own provider's key signs.
  const jobKeys = config.VAULT_JOB_VERIFY_KEYS ?? (keys.jobSigner ? jobVerifyKeyring(keys.jobSigner) : undefined);
  if (!jobKeys) {
    await keys.close();
    throw new KeySetupError('VAULT_JOB_VERIFY_KEYS: is required: the key provider holds no job signing key to check jobs against (npm run keys:public prints the API\'s)');
  }
  logger.info(
    { provider: keys.kind, kek: { test: keys.kekIds.test[0], live: keys.kekIds.live[0] }, transit: keys.transitKeys.activeId, jobKeys: [...jobKeys.keys.keys()] },
    'vault keys opened',
  );
  const metrics = options.metrics ?? createMetrics();
  useNativeHpke(measureOn(config.PERFORMANCE_MEASURES_OFF, 'hpke-native'));
  // An outage of Redis, PostgreSQL or storage is logged once, not per error of every connection.
  const connections = options.connections ?? new ConnectionLog(logger);
  // As the workers' role (docs/operations.md#database-roles). Budgets for exports, night audits and
  // sweeps as well as the vault's jobs: longer than a request's.
  const pool = watchPgPool(createPgPool(config.WORKER_DATABASE_URL, { max: workerPoolSize(config.WORKER_CONCURRENCY), budget: pgBudgetOf(config, 'worker') }), connections);
  const connection = watchRedis(createRedis(config, 'worker'), connections);
  // What these keys cannot open of what is stored (another provider's records and webhook
  // secrets), in one line before any job runs; a database away at start leaves it to the vault sweep.
  const coverage = new KeyCoverage(pool, keys, logger);
  await coverage.report().catch(() => undefined);

  // WORKER_QUEUES: the queues this process takes jobs from; the others' workers are closed at once.
  const taken = queuesOf(config.WORKER_QUEUES);
  const renders = taken.has(QUEUE_NAMES.export) || taken.has(QUEUE_NAMES.nightAuditExport);
  // A worker taking on-demand exports keeps a render process for them (render-pool.ts, frontDesk).
  const renderer =
    options.renderer ??
    new RenderPool(config.EXPORT_CONCURRENCY, {
      metrics,
      frontDesk: taken.has(QUEUE_NAMES.export),
      shapingCache: measureOn(config.PERFORMANCE_MEASURES_OFF, 'shaping-cache'),
    });
  // The render processes warm up while the rest starts; the export and night-audit workers are made
  // (and take jobs) only once they have: the first export then costs what later ones do. A process
  // that renders nothing (WORKER_QUEUES) starts none.
  const warmStarted = performance.now();
  const warming =
    renders && (options.warmRenderProcesses ?? true)
      ? renderer.warm().then(() => logger.info({ ms: Math.round(performance.now() - warmStarted), processes: config.EXPORT_CONCURRENCY }, 'render processes warm'))
      : Promise.resolve();
  const exportStore = new ExportStore(pool);
  const storage = watchStorage(createStorage(config), connections);
  // A worker that dies leaves its jobs locked until the lock lapses; then the stalled check of any
  // other worker (every WORKER_LOCK_MS) hands them out again: delivery is at least once.
  const locking = { lockDuration: config.WORKER_LOCK_MS, stalledInterval: config.WORKER_LOCK_MS };
  const deps = { pool, connection, logger, metrics, locking };
  // Webhook deliveries (their own queue); export and night-audit ends are announced through its outbox.
  const webhooks = startWebhookWorker(config, { ...deps, storage, transitKeys: keys.transitKeys }, options.webhookInternals);
  const exporter = new FolioExporter(pool, exportStore, storage, renderer, config.EXPORT_RETENTION_SECONDS, webhooks.outbox, config.EXPORT_MAX_ROWS);
  const flows = quiet(new FlowProducer({ connection, prefix: config.QUEUE_PREFIX, ...queueTelemetry() }));
  const auditor = new NightAuditor(pool, exporter, storage, flows, webhooks.outbox, config.NIGHT_AUDIT_RETENTION_DAYS, config.NIGHT_AUDIT_MAX_RUNNING_PER_PROPERTY);

  const nightAuditSource = nightAuditSourceHandler(auditor, logger);
  // The render sweep queues fiscal renders on the export queue: a producer of its own for the worker's life.
  const fiscalQueue = quiet(new Queue(QUEUE_NAMES.export, { connection, prefix: config.QUEUE_PREFIX, ...queueTelemetry() }));
  const fiscal = new FiscalRenderer(pool, storage, fiscalFileBuilders(renderer), webhooks.outbox, fiscalQueue);

  const vault = startVaultWorkers(config, deps, countedKeys(keys, metrics), jobKeys, coverage);
  await warming;
  const exportWorker = startExportWorker(config, {
    ...deps,
    exporter,
    store: exportStore,
    outbox: webhooks.outbox,
    retention: new RetentionSweep(pool, storage, logger, metrics),
    nightAuditSource,
    fiscal,
  });
  const nightAuditSourceWorker = startNightAuditExportWorker(config, { ...deps, nightAuditSource });
  const nightAuditWorker = startNightAuditWorker(config, { ...deps, auditor });
  const made = [...vault.workers, exportWorker, nightAuditSourceWorker, nightAuditWorker, webhooks.worker];
  // Workers of queues outside WORKER_QUEUES never ran (autorun: processor-base.ts): closed now. The
  // webhook outbox needs no running worker: it only adds jobs.
  const workers = made.filter((worker) => taken.has(worker.name as TQueueName));
  await Promise.all(made.filter((worker) => !workers.includes(worker)).map((worker) => worker.close()));
  for (const worker of workers) {
    worker.on('error', (error) => logWorkerError(error, worker.name, logger, connections));
  }
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  // Every property's daily night audit, as the properties table says (also kept in step on import),
  // and the vault sweep: job schedulers, upserted from here on every worker start.
  const schedulerConnection = watchRedis(createRedis(config, 'producer'), connections);
  // With tracing on, the scheduled runs are marked untraced from the first (tracing/bullmq-telemetry.ts).
  const schedulerOptions = { connection: schedulerConnection, prefix: config.QUEUE_PREFIX, ...queueTelemetry() };
  const nightAuditQueue = new Queue(QUEUE_NAMES.nightAudit, schedulerOptions);
  const vaultQueue = new Queue(QUEUE_NAMES.vault, schedulerOptions);
  const exportQueue = new Queue(QUEUE_NAMES.export, schedulerOptions);
  const warnNotSynced = (what: string) => (error: unknown) => {
    logger.warn({ err: { message: (error as Error).message } }, `${what} not synced`);
    return 0;
  };
  const scheduled = await syncAllNightAuditSchedules(pool, nightAuditQueue).catch(warnNotSynced('night-audit schedules'));
  await scheduleVaultSweep(vaultQueue, config.VAULT_SWEEP_SECONDS).catch(warnNotSynced('vault sweep schedule'));
  await webhooks.schedule().catch(warnNotSynced('webhook sweep schedule'));
  await scheduleRetentionSweep(exportQueue, config.RETENTION_SWEEP_SECONDS).catch(warnNotSynced('retention sweep schedule'));
  await scheduleFiscalRenderSweep(exportQueue).catch(warnNotSynced('fiscal render sweep schedule'));
  await Promise.all([nightAuditQueue.close(), vaultQueue.close(), exportQueue.close()]);
  schedulerConnection.disconnect();
  logger.info({ queues: workers.map((worker) => worker.name), workerQueues: config.WORKER_QUEUES, concurrency: config.WORKER_CONCURRENCY, exportConcurrency: config.EXPORT_CONCURRENCY }, 'worker ready');
  if (scheduled) logger.info({ properties: scheduled }, 'night-audit schedules synced');

  const health = await startWorkerHealthServer(config, { workers, metrics, logger, keys });
  const keyHealth = startKeyHealthReporter(keys, connection, config.QUEUE_PREFIX, logger);

  return {
    healthPort: health?.port,
    transitPublicKeys: publicKeyring(keys.transitKeys),
    ...(keys.jobSigner ? { jobSigner: keys.jobSigner } : {}),
    close: (graceMs = config.SHUTDOWN_GRACE_MS) => {
      if (!options.connections) connections.close();
      keyHealth.stop();
      return closeWorkerParts({ health, workers, renderer: options.renderer ? leftOpen : renderer, flows: { close: async () => void (await Promise.all([flows.close(), webhooks.queue.close(), fiscalQueue.close()])) }, gateways: vault.gateways, keys, connection, pool }, graceMs, logger);
    },
  };
}
