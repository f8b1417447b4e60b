// Prometheus metrics (docs/api.md#operations). One registry per process, made by createMetrics()
// and handed to the API and the worker (prom-client's global default registry is never used, so
// every test world has its own). Label values are route patterns, queue and job names, states,
// outcomes and formats: never a card number, a token, an id or a raw URL.

import { createHash, timingSafeEqual } from 'node:crypto';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { within } from './within.js';

/** Queue states counted by `queue_jobs` on every scrape. */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;

/** A queue as far as the depth gauge needs one (a BullMQ Queue is one). */
export interface TCountableQueue {
  readonly name: string;
  getJobCounts(...states: string[]): Promise<Record<string, number>>;
}

const QUEUE_COUNT_TIMEOUT_MS = 2_000;

export interface TMetrics {
  registry: Registry;
  httpRequestDuration: Histogram<'method' | 'route' | 'status'>;
  queueJobs: Gauge<'queue' | 'state'>;
  jobDuration: Histogram<'queue' | 'name' | 'outcome'>;
  jobsTotal: Counter<'queue' | 'name' | 'outcome'>;
  exportRenderSeconds: Histogram<'format'>;
  exportRowsRendered: Counter<'format'>;
  /** Render processes replaced, by reason: memory (past the RSS limit after a collection), pieces, failure. */
  exportRenderProcessReplacements: Counter<'reason'>;
  /** Forwards to payment gateways by destination and result (2xx…5xx, or the gateway error). */
  forwardDuration: Histogram<'destination' | 'result'>;
  /** Calls to the key provider (an HSM with pkcs11), by provider and operation: wrap, unwrap, hmac. */
  vaultKeyOperations: Counter<'provider' | 'operation'>;
  /** Vault sweep actions: tokens shredded, CVVs destroyed, records re-fingerprinted and re-bound. */
  vaultSweep: Counter<'action'>;
  /** Vault jobs a worker refused for their signature (apps/worker/src/vault/job-gate.ts), by queue, job name and reason. */
  vaultJobsRefused: Counter<'queue' | 'name' | 'reason'>;
  /** Objects the retention sweep deleted, by kind: export, night_audit_file, night_audit_manifest. */
  retentionSweepDeleted: Counter<'kind'>;
  /** Webhook deliveries by event type and outcome: succeeded, failed (for good) or retried (an attempt failed, another is due). */
  webhookDeliveries: Counter<'event' | 'outcome'>;
  /** Every attempt to send a webhook, by event type. */
  webhookAttempts: Counter<'event'>;
  /** Queues whose depth `queue_jobs` reports (read on scrape, each bounded by a timeout). */
  observeQueues(queues: readonly TCountableQueue[]): void;
  /** The exposition text and its content type. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

export interface TMetricsOptions {
  /** process_* and nodejs_* metrics (memory, CPU, event loop); on by default. */
  defaultMetrics?: boolean;
  queueCountTimeoutMs?: number;
}

export function createMetrics(options: TMetricsOptions = {}): TMetrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const observed: TCountableQueue[] = [];
  const timeoutMs = options.queueCountTimeoutMs ?? QUEUE_COUNT_TIMEOUT_MS;

  const queueJobs = new Gauge({
    name: 'queue_jobs',
    help: 'Jobs in each BullMQ queue by state, read when scraped (a queue that does not answer in time is left out).',
    labelNames: ['queue', 'state'] as const,
    registers,
    async collect() {
      this.reset();
      await Promise.all(
        observed.map(async (queue) => {
          try {
            const counts = await within(queue.getJobCounts(...QUEUE_STATES), timeoutMs);
            for (const state of QUEUE_STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
          } catch {
            // Redis does not answer: no sample for this queue rather than a stale or made-up one.
          }
        }),
      );
    },
  });

  return {
    registry,
    httpRequestDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    queueJobs,
    jobDuration: new Histogram({
      name: 'job_duration_seconds',
      help: 'Job attempts by queue, job name and outcome (completed or failed).',
      labelNames: ['queue', 'name', 'outcome'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
      registers,
    }),
    jobsTotal: new Counter({
      name: 'jobs_total',
      help: 'Job attempts by queue, job name and outcome (completed or failed).',
      labelNames: ['queue', 'name', 'outcome'] as const,
      registers,
    }),
    exportRenderSeconds: new Histogram({
      name: 'export_render_seconds',
      help: 'Time a render process took to render one document, by format.',
      labelNames: ['format'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
      registers,
    }),
    exportRowsRendered: new Counter({
      name: 'export_rows_rendered_total',
      help: 'Ledger rows rendered into export documents, by format.',
      labelNames: ['format'] as const,
      registers,
    }),
    exportRenderProcessReplacements: new Counter({
      name: 'export_render_process_replacements_total',
      help: 'Render processes replaced, by reason: memory (RSS past the limit after a garbage collection), pieces (the most a process renders) or failure.',
      labelNames: ['reason'] as const,
      registers,
    }),
    ...vaultMetrics(registers),
    retentionSweepDeleted: new Counter({
      name: 'retention_sweep_deleted_total',
      help: 'Objects the retention sweep deleted past their expiry, by kind (export, night_audit_file, night_audit_manifest); one already gone counts too.',
      labelNames: ['kind'] as const,
      registers,
    }),
    ...webhookMetrics(registers),
    observeQueues(queues) {
      for (const queue of queues) if (!observed.includes(queue)) observed.push(queue);
    },
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/** The vault's own: forwards to payment gateways and what the vault sweep did. */
function vaultMetrics(registers: Registry[]): Pick<TMetrics, 'forwardDuration' | 'vaultKeyOperations' | 'vaultSweep' | 'vaultJobsRefused'> {
  return {
    forwardDuration: new Histogram({
      name: 'vault_forward_duration_seconds',
      help: 'Forwards to payment gateways by destination and result: the status class (2xx…5xx) or the gateway error (unreachable, timeout, too_large).',
      labelNames: ['destination', 'result'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    vaultKeyOperations: new Counter({
      name: 'vault_key_operations_total',
      help: 'Calls to the vault key provider (inside the HSM with VAULT_KEY_PROVIDER=pkcs11) by provider and operation: wrap and unwrap a data key, hmac (fingerprints, request digests).',
      labelNames: ['provider', 'operation'] as const,
      registers,
    }),
    vaultSweep: new Counter({
      name: 'vault_sweep_total',
      help: 'What the vault sweep did: tokens shredded at their end, held CVVs destroyed, records re-fingerprinted and re-bound to their property, old forward answers dropped.',
      labelNames: ['action'] as const,
      registers,
    }),
    vaultJobsRefused: new Counter({
      name: 'vault_jobs_refused_total',
      help: 'Vault jobs a worker refused before reading them, by queue, job name and reason: unsigned, unknown_key, bad_signature, expired.',
      labelNames: ['queue', 'name', 'reason'] as const,
      registers,
    }),
  };
}

/** Webhooks (docs/export.md#webhooks): label values are event types and outcomes, never an endpoint URL. */
function webhookMetrics(registers: Registry[]): Pick<TMetrics, 'webhookDeliveries' | 'webhookAttempts'> {
  return {
    webhookDeliveries: new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery outcomes by event type: succeeded, failed (no attempt left, or its endpoint deleted) or retried (an attempt failed and another is scheduled).',
      labelNames: ['event', 'outcome'] as const,
      registers,
    }),
    webhookAttempts: new Counter({
      name: 'webhook_delivery_attempts_total',
      help: 'Webhook HTTP attempts by event type.',
      labelNames: ['event'] as const,
      registers,
    }),
  };
}

/**
 * True when an Authorization header is `Bearer <secret>`. Both sides are hashed first, so the
 * comparison takes the same time whatever the length or content of the guess.
 */
export function bearerMatches(authorization: string | undefined, secret: string | undefined): boolean {
  if (!secret || !authorization) return false;
  const match = /^Bearer +(\S+)\s*$/i.exec(authorization.trim());
  if (!match?.[1]) return false;
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(match[1]), digest(secret));
}
