import type { Server } from 'node:http';
import { FlowProducer, Queue, QueueEvents } from 'bullmq';
import { transitKey, type TConfig } from '@folio-vault/shared/config';
import { createPgPool, createRedis } from '@folio-vault/shared/connections';
import type { Logger } from '@folio-vault/shared/logger';
import { createMetrics, type TMetrics } from '@folio-vault/shared/metrics';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { createStorage } from '@folio-vault/shared/storage/create-storage';
import { createApp } from './app.js';
import { createJwtVerifier } from './auth/jwt-verifier.js';
import { JobWaiter } from './jobs/job-waiter.js';
import { ExportService } from './exports/export-service.js';
import { tokenizeRateLimits } from './http/rate-limit.js';
import { buildOpenApiDocument } from './openapi.js';
import { VaultClient } from './vault/vault-client.js';

export interface TRunningApi {
  server: Server;
  port: number;
  /** Stops accepting, lets in-flight requests finish, then closes connections. */
  close(): Promise<void>;
}

/** Builds the API's connections once (no per-request clients) and listens. */
export async function startApi(config: TConfig, logger: Logger, options: { port?: number; metrics?: TMetrics } = {}): Promise<TRunningApi> {
  const redis = createRedis(config.REDIS_URL, 'producer');
  redis.on('error', () => undefined); // reported per request as 503 and by /readyz
  // QueueEvents read with a blocking XREAD: each gets a connection of its own.
  const eventConnections = [createRedis(config.REDIS_URL, 'events'), createRedis(config.REDIS_URL, 'events')] as const;
  for (const connection of eventConnections) connection.on('error', () => undefined);
  const pool = createPgPool(config.DATABASE_URL);
  const storage = createStorage(config);

  const vaultQueue = new Queue(QUEUE_NAMES.vault, { connection: redis, prefix: config.QUEUE_PREFIX });
  vaultQueue.on('error', () => undefined);
  const vaultEvents = new QueueEvents(QUEUE_NAMES.vault, { connection: eventConnections[0], prefix: config.QUEUE_PREFIX });
  vaultEvents.on('error', () => undefined);
  await vaultEvents.waitUntilReady();
  const exportQueue = new Queue(QUEUE_NAMES.export, { connection: redis, prefix: config.QUEUE_PREFIX });
  exportQueue.on('error', () => undefined);
  const exportEvents = new QueueEvents(QUEUE_NAMES.export, { connection: eventConnections[1], prefix: config.QUEUE_PREFIX });
  exportEvents.on('error', () => undefined);
  await exportEvents.waitUntilReady();
  const flows = new FlowProducer({ connection: redis, prefix: config.QUEUE_PREFIX });
  flows.on('error', () => undefined);
  const nightAuditQueue = new Queue(QUEUE_NAMES.nightAudit, { connection: redis, prefix: config.QUEUE_PREFIX });
  nightAuditQueue.on('error', () => undefined);

  // /admin/queues and queue_jobs show every queue of QUEUE_NAMES (the one list): the producer
  // queues above are reused, the others opened on the same connection.
  const opened: Queue[] = [];
  const queues = Object.values(QUEUE_NAMES).map((name) => {
    const existing = [vaultQueue, exportQueue].find((queue) => queue.name === name);
    if (existing) return existing;
    const queue = new Queue(name, { connection: redis, prefix: config.QUEUE_PREFIX });
    queue.on('error', () => undefined);
    opened.push(queue);
    return queue;
  });
  const metrics = options.metrics ?? createMetrics();
  metrics.observeQueues(queues);

  const app = createApp({
    metrics,
    queues,
    metricsToken: config.METRICS_TOKEN,
    secureCookies: config.NODE_ENV === 'production',
    logger,
    verifier: createJwtVerifier(config),
    vault: new VaultClient(new JobWaiter(vaultQueue, vaultEvents), pool, transitKey(config), config.TOKENIZE_WAIT_MS),
    exports: new ExportService(pool, new JobWaiter(exportQueue, exportEvents), storage, config.EXPORT_QUEUE_CAP_PER_PROPERTY),
    tokenizeLimits: tokenizeRateLimits(
      redis,
      config.QUEUE_PREFIX,
      { perSubject: config.TOKENIZE_RATE_LIMIT_PER_SUBJECT, perProperty: config.TOKENIZE_RATE_LIMIT_PER_PROPERTY, windowMs: config.RATE_LIMIT_WINDOW_MS },
      logger,
    ),
    exportWaitMs: config.EXPORT_WAIT_MS,
    flows,
    nightAuditQueue,
    openApiDocument: buildOpenApiDocument(),
    redis,
    pool,
    storage,
  });

  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(options.port ?? config.PORT, (error?: Error) => (error ? reject(error) : resolve(listening)));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  logger.info({ port }, 'api listening');

  return {
    server,
    port,
    async close() {
      // In-flight requests finish (a tokenize wait is bounded); past the grace period the
      // remaining connections are cut so the process does end.
      const cutOff = setTimeout(() => server.closeAllConnections(), config.SHUTDOWN_GRACE_MS);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      clearTimeout(cutOff);
      await Promise.all([vaultEvents.close(), exportEvents.close()]);
      await Promise.all([vaultQueue.close(), exportQueue.close(), nightAuditQueue.close(), flows.close()]);
      await Promise.all(opened.map((queue) => queue.close()));
      redis.disconnect();
      for (const connection of eventConnections) connection.disconnect();
      await pool.end();
    },
  };
}
