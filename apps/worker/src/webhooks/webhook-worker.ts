// The worker's webhook part (docs/export.md#webhooks): the `webhooks` queue's worker with the
// `webhook` backoff (WEBHOOK_RETRY_SCHEDULE), the outbox the exporter and the night auditor
// announce through, and the sweep's job scheduler.

import { Queue, type Worker } from 'bullmq';
import type { TWorkerConfig } from '@folio-vault/shared/config';
import { quiet } from '@folio-vault/shared/connections';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { queueTelemetry } from '@folio-vault/shared/tracing/spans';
import type { ObjectStorage } from '@folio-vault/shared/storage/object-storage';
import type { TKeyring } from '@folio-vault/shared/vault/crypto/keyring';
import type { TResolver } from '@folio-vault/shared/webhooks/address-guard';
import { scheduleDelayMs, webhookSweepJob } from '@folio-vault/shared/webhooks/webhook-jobs';
import { queueWorker, type TWorkerDeps } from '../jobs/processor-base.js';
import { webhookHandlers } from './delivery-processor.js';
import { WebhookOutbox } from './outbox.js';

/** What tests may change of the webhook part; a worker in service leaves it empty. */
export interface TWebhookInternals {
  /** For tests only: the per-attempt time-out (10 s in service). */
  attemptTimeoutMs?: number;
  /** For tests only: how often the sweep runs (60 s in service). */
  sweepEveryMs?: number;
  /** For tests only: how long past due a pending delivery must be before the sweep re-enqueues it (30 s in service). */
  sweepGraceSeconds?: number;
  /** For tests only: the resolver the address rules check (the system's in service). */
  resolve?: TResolver;
}

export const ATTEMPT_TIMEOUT_MS = 10_000;
const SWEEP_EVERY_MS = 60_000;

export function startWebhookWorker(
  config: TWorkerConfig,
  deps: TWorkerDeps & { storage: ObjectStorage; transitKeys: TKeyring },
  internals: TWebhookInternals = {},
): { worker: Worker; queue: Queue; outbox: WebhookOutbox; schedule(): Promise<void> } {
  const { pool, connection, logger, metrics } = deps;
  const schedule = config.WEBHOOK_RETRY_SCHEDULE;
  const queue = quiet(new Queue(QUEUE_NAMES.webhooks, { connection, prefix: config.QUEUE_PREFIX, ...queueTelemetry() }));
  const handlers = webhookHandlers({
    pool, queue, logger, metrics, schedule,
    transit: deps.transitKeys,
    storage: deps.storage,
    link: { linkKey: config.EXPORT_LINK_KEY, ttlSeconds: config.EXPORT_LINK_TTL_SECONDS },
    rules: { allowInsecure: config.WEBHOOK_ALLOW_INSECURE, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE },
    attemptTimeoutMs: internals.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS,
    resolve: internals.resolve,
    sweepGraceSeconds: internals.sweepGraceSeconds,
  });
  const worker = queueWorker(config, deps, QUEUE_NAMES.webhooks, handlers, {
    // Attempts mostly wait on receivers, so many run at once.
    concurrency: 16,
    // BullMQ's custom backoff: the delay before the next attempt is the schedule's entry for it.
    settings: { backoffStrategy: (attemptsMade: number) => scheduleDelayMs(schedule, attemptsMade) },
  });
  const outbox = new WebhookOutbox(queue, schedule, logger);
  return {
    worker,
    queue,
    outbox,
    schedule: async () => {
      await queue.upsertJobScheduler(webhookSweepJob.name, { every: internals.sweepEveryMs ?? SWEEP_EVERY_MS }, {
        name: webhookSweepJob.name, data: {}, opts: webhookSweepJob.options,
      });
    },
  };
}
