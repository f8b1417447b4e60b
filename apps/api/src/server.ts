import { createServer, type Server, type ServerResponse } from 'node:http';
import type { TApiConfig } from '@folio-vault/shared/config';
import type { Logger } from '@folio-vault/shared/logger';
import { createMetrics, type TMetrics } from '@folio-vault/shared/metrics';
import { ConnectionLog } from '@folio-vault/shared/connection-log';
import { createCloser } from '@folio-vault/shared/shutdown';
import { openApiResources } from './api-resources.js';
import { createApp } from './app.js';
import { createJwtVerifier } from './auth/jwt-verifier.js';
import { JobWaiter } from './jobs/job-waiter.js';
import { ExportService } from './exports/export-service.js';
import { propertyRateLimit, vaultRateLimits } from './http/rate-limit.js';
import { RouteAudit } from './http/route-audit.js';
import { AuditLog } from '@folio-vault/shared/vault/audit-log';
import { measureOn } from '@folio-vault/shared/performance-measures';
import { PropertyShares } from '@folio-vault/shared/db/property-share';
import { findPropertyGatewayMode } from '@folio-vault/shared/properties/property-store';
import { buildOpenApiDocument } from './openapi.js';
import { VaultClient } from './vault/vault-client.js';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { WebhookService } from './webhooks/webhook-service.js';
import { InvoiceService } from './fiscal/invoice-service.js';
import { useNativeHpke } from '@folio-vault/shared/vault/crypto/transit';
import type { TJobSigner } from '@folio-vault/shared/vault/job-signature';
import { KeySetupError } from '@folio-vault/shared/vault/keys/key-provider';
import { openJobSigningKey, type TJobSigningKey } from '@folio-vault/shared/vault/keys/open-key-provider';
import type { TResolver } from '@folio-vault/shared/webhooks/address-guard';

export interface TRunningApi {
  server: Server;
  port: number;
  /** Each property's share of the PostgreSQL pool: what it holds and what waits (the tests look). */
  shares: Pick<PropertyShares, 'usage'>;
  /** Stops accepting, lets in-flight requests finish, then closes connections. */
  close(): Promise<void>;
}

export interface TStartApiOptions {
  port?: number;
  metrics?: TMetrics;
  /** The process's connection log when the worker runs in it too (scripts/run-together.ts); its owner closes it. */
  connections?: ConnectionLog;
  /** How a webhook endpoint's host name is resolved at creation; the system's resolver when absent. */
  webhookResolver?: TResolver;
  /** The job signing key of the worker's provider in the same process (`npm start`); else the API opens its own. */
  jobSigner?: TJobSigner;
}

const SETTING_OF_PROVIDER = { pkcs11: 'PKCS11_TOKEN_LABEL', components: 'VAULT_KEY_COMPONENTS', local: 'VAULT_KEY_PROVIDER' } as const;

/**
 * The API's signing-only view of its own key provider (docs/security.md#key-custody). Under
 * NODE_ENV=production an API process refuses, with one line, a provider that also holds vault keys:
 * those belong to the workers, and the API gets a component set or a token of its own that holds
 * the job signing key only.
 */
export async function openApiJobSigningKey(config: TApiConfig): Promise<TJobSigningKey> {
  const key = await openJobSigningKey(config);
  if (config.role === 'api' && config.NODE_ENV === 'production' && key.vaultKeys.length > 0) {
    await key.close();
    throw new KeySetupError(
      `${SETTING_OF_PROVIDER[config.VAULT_KEY_PROVIDER]}: the API's key provider also holds vault keys (${key.vaultKeys.join(', ')}); ` +
        'under NODE_ENV=production give the API a component set or token of its own that holds the job signing key only',
    );
  }
  return key;
}

/** Builds the API's connections once (no per-request clients) and listens. */
export async function startApi(config: TApiConfig, logger: Logger, options: TStartApiOptions = {}): Promise<TRunningApi> {
  // loadConfig requires it of an API; `npm start` fills it from its own worker's keys.
  const transit = config.VAULT_TRANSIT_PUBLIC_KEYS;
  if (!transit) throw new Error('VAULT_TRANSIT_PUBLIC_KEYS: the workers\' public transit keys are required to start the API');
  // Before any connection: keys that do not open (or a production provider holding vault keys) stop the start.
  const signingKey = options.jobSigner ? undefined : await openApiJobSigningKey(config);
  const signer = options.jobSigner ?? signingKey!.signer;
  logger.info({ provider: config.VAULT_KEY_PROVIDER, jobSigning: signer.keyId }, 'job signing key opened');
  const connections = options.connections ?? new ConnectionLog(logger);
  const resources = await openApiResources(config, connections);
  const { redis, pool, storage, queues, flows, nightAuditQueue } = resources;
  const metrics = options.metrics ?? createMetrics();
  metrics.observeQueues(queues);
  const measures = config.PERFORMANCE_MEASURES_OFF;
  useNativeHpke(measureOn(measures, 'hpke-native'));
  // Every query made for one property goes through its share of the pool (docs/operations.md#a-database-share-per-property);
  // the audit trail's writes and the operator's panel serve no one property and use the pool itself.
  const shares = new PropertyShares(pool, { poolSize: config.PG_POOL_SIZE, share: config.DB_SHARE_PER_PROPERTY, waitMs: config.PG_POOL_WAIT_MS });
  const auditLog = new AuditLog(pool);
  const routeAudit = new RouteAudit(auditLog);
  const vault = new VaultClient({
    waiter: new JobWaiter(resources.vaultQueue, resources.vaultEvents),
    forwardWaiter: new JobWaiter(resources.forwardQueue, resources.forwardEvents),
    transit,
    signer,
    waitMs: config.TOKENIZE_WAIT_MS,
    cvvHoldSeconds: config.VAULT_CVV_HOLD_SECONDS,
    shredAfterExpiryDays: config.VAULT_SHRED_AFTER_EXPIRY_DAYS,
    destinations: config.forwardDestinations,
    gatewayModeOf: (id) => findPropertyGatewayMode(shares.of(id), id),
  });
  // One listener on the export queue's events for both: on-demand exports and invoices waited for.
  const exportWaiter = new JobWaiter(resources.exportQueue, resources.exportEvents);
  const limits = { perSubject: config.TOKENIZE_RATE_LIMIT_PER_SUBJECT, perProperty: config.TOKENIZE_RATE_LIMIT_PER_PROPERTY, windowMs: config.RATE_LIMIT_WINDOW_MS };

  const app = createApp({
    metrics,
    queues,
    metricsToken: config.METRICS_TOKEN,
    secureCookies: config.NODE_ENV === 'production',
    trustProxy: config.TRUST_PROXY,
    logger,
    verifier: createJwtVerifier(config),
    routeAudit,
    vault,
    invoices: new InvoiceService(shares, resources.exportQueue, exportWaiter, storage, vault, logger),
    exports: new ExportService(shares, exportWaiter, storage, config.EXPORT_QUEUE_CAP_PER_PROPERTY, {
      linkKey: config.EXPORT_LINK_KEY,
      ttlSeconds: config.EXPORT_LINK_TTL_SECONDS,
    }, config.EXPORT_MAX_ROWS),
    tokenizeLimits: vaultRateLimits(redis, config.QUEUE_PREFIX, limits, 'tokenize'),
    forwardLimits: vaultRateLimits(redis, config.QUEUE_PREFIX, limits, 'forward'),
    nightAuditStartLimits: propertyRateLimit(redis, config.QUEUE_PREFIX, 'night-audit', { perProperty: config.NIGHT_AUDIT_RATE_LIMIT_PER_PROPERTY, windowMs: config.RATE_LIMIT_WINDOW_MS }),
    nightAuditMaxRunning: config.NIGHT_AUDIT_MAX_RUNNING_PER_PROPERTY,
    importLimits: propertyRateLimit(redis, config.QUEUE_PREFIX, 'import', { perProperty: config.IMPORT_RATE_LIMIT_PER_PROPERTY, windowMs: config.RATE_LIMIT_WINDOW_MS }),
    exportWaitMs: config.EXPORT_WAIT_MS,
    flows,
    nightAuditQueue,
    webhooks: new WebhookService({
      shares,
      queue: queues.find((queue) => queue.name === QUEUE_NAMES.webhooks)!,
      transit,
      rules: { allowInsecure: config.WEBHOOK_ALLOW_INSECURE, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE },
      schedule: config.WEBHOOK_RETRY_SCHEDULE,
      ...(options.webhookResolver ? { resolve: options.webhookResolver } : {}),
    }),
    openApiDocument: buildOpenApiDocument(),
    redis,
    queuePrefix: config.QUEUE_PREFIX,
    pool,
    shares,
    pgProbe: resources.pgProbe,
    storage,
  });

  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? config.PORT, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  logger.info({ port }, 'api listening');

  // Once closing, every answer still to be sent says `Connection: close`, so a keep-alive client
  // that goes on sending is not served for the whole grace period over a connection opened before
  // the close: each connection ends with its answer in flight (or its next request).
  let closing = false;
  const unanswered = new Set<ServerResponse>();
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (closing) res.setHeader('Connection', 'close');
    unanswered.add(res);
    res.once('close', () => unanswered.delete(res));
  });

  return {
    server,
    port,
    shares,
    async close() {
      // In-flight requests finish (a tokenize wait is bounded); past the grace period the
      // remaining connections are cut so the process does end.
      const closer = createCloser(logger);
      closing = true;
      for (const res of unanswered) if (!res.headersSent) res.setHeader('Connection', 'close');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await closer.graceThenForce('http connections', () => closed, config.SHUTDOWN_GRACE_MS, () => {
        server.closeAllConnections();
        return closed;
      });
      // The last answers' audit events are written before the pool closes.
      await routeAudit.flush();
      if (!options.connections) connections.close();
      await resources.close(closer);
      await signingKey?.close();
      closer.report();
    },
  };
}
