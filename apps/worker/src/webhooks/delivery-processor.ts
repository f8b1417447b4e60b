// Handlers of the `webhooks` queue (docs/export.md#webhooks). One attempt per job run, signed with
// standardwebhooks under the endpoint's secret; webhook-id is the event id, the same on every
// attempt. An export.completed body gets a download link signed at each attempt, so a retry a day
// later still carries one that works (the stored body has none). A secret that does not open fails
// the delivery at once: no attempt could ever be signed. A non-2xx answer or no answer is recorded
// and thrown, so BullMQ runs the job again after the schedule's delay (the `webhook` backoff,
// webhook-worker.ts); the last attempt marks the delivery failed instead. An attempt during which
// a manual retry came in ends neither way: the retry wins and the job runs again at once. The sweep
// re-enqueues pending deliveries that lost their job.

import { WaitingError, type Job, type Queue } from 'bullmq';
import { Webhook } from 'standardwebhooks';
import type { TPgPool } from '@folio-vault/shared/connections';
import { downloadLink } from '@folio-vault/shared/exports/download-links';
import type { TWebhookJobName } from '@folio-vault/shared/jobs/registry';
import type { Logger } from '@folio-vault/shared/logger';
import type { TMetrics } from '@folio-vault/shared/metrics';
import type { ObjectStorage } from '@folio-vault/shared/storage/object-storage';
import type { TKeyring } from '@folio-vault/shared/vault/crypto/keyring';
import type { TAddressRules, TResolver } from '@folio-vault/shared/webhooks/address-guard';
import { openSecret, secretKeyId } from '@folio-vault/shared/webhooks/secrets';
import { deliveryToSend, failDelivery, liveExportFile, overdueDeliveries, recordAttempt, type TDeliveryToSend } from '@folio-vault/shared/webhooks/store';
import { deliveryJobOptions, scheduleDelayMs, webhookDeliveryJob } from '@folio-vault/shared/webhooks/webhook-jobs';
import type { THandlers } from '../jobs/processor-base.js';
import { sendWebhook } from './http-client.js';
import { inSpan, spanFailed } from '@folio-vault/shared/tracing/spans';

export interface TWebhookDeliveryDeps {
  pool: TPgPool;
  queue: Queue;
  transit: TKeyring;
  /** Where export files live and how their download links are signed (EXPORT_LINK_KEY, EXPORT_LINK_TTL_SECONDS). */
  storage: ObjectStorage;
  link: { linkKey: Buffer; ttlSeconds: number };
  schedule: readonly number[];
  /** WEBHOOK_ALLOW_INSECURE and WEBHOOK_ALLOW_PRIVATE as this worker has them: applied at every attempt. */
  rules: TAddressRules;
  attemptTimeoutMs: number;
  logger: Logger;
  metrics?: TMetrics;
  resolve?: TResolver;
  /** How long past due a pending delivery with no job waits for the sweep (SWEEP_GRACE_SECONDS; tests shorten it). */
  sweepGraceSeconds?: number;
}

type TOutcome = { outcome: 'succeeded' | 'failed' | 'skipped'; statusCode: number | null };

/** An attempt failed and another is scheduled: BullMQ retries the job after the backoff. */
class WebhookAttemptFailed extends Error {
  override name = 'WebhookAttemptFailed';
}

/** A pending delivery this long past due with no job has lost it (attempts run ≤ 10 s). */
const SWEEP_GRACE_SECONDS = 30;

/** The error a delivery whose sealed secret does not open ends with. */
export const SECRET_UNOPENABLE = 'the endpoint secret cannot be opened';

/**
 * The body of this attempt. export.completed gets a fresh download link, valid EXPORT_LINK_TTL_SECONDS
 * from now, while its export is completed; once retention expired it, the body goes without one.
 * The stored body never holds a link (exportCompletedEvent).
 */
async function bodyOf(deps: TWebhookDeliveryDeps, delivery: TDeliveryToSend): Promise<string> {
  if (delivery.type !== 'export.completed') return JSON.stringify(delivery.payload);
  const stored = delivery.payload as { data: { exportId: string } };
  const file = await liveExportFile(deps.pool, stored.data.exportId);
  const link = file ? await downloadLink(deps.storage, deps.link, { exportId: stored.data.exportId, ...file }) : {};
  return JSON.stringify({ ...stored, data: { ...stored.data, ...link } });
}

async function attempt(deps: TWebhookDeliveryDeps, delivery: TDeliveryToSend, webhook: Webhook) {
  const body = await bodyOf(deps, delivery);
  // One reading of the clock: the signed timestamp and the header must be the same second.
  const now = new Date();
  const signature = webhook.sign(delivery.eventId, now, body);
  const headers = { 'webhook-id': delivery.eventId, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signature };
  deps.metrics?.webhookAttempts.inc({ event: delivery.type });
  try {
    const { statusCode } = await sendWebhook(delivery.url, headers, body, { timeoutMs: deps.attemptTimeoutMs, rules: deps.rules, resolve: deps.resolve });
    return { statusCode, error: statusCode >= 200 && statusCode < 300 ? null : `answered ${statusCode}` };
  } catch (error) {
    return { statusCode: null, error: (error as Error).message.slice(0, 500) };
  }
}

/**
 * The endpoint's signer, or undefined when its sealed secret does not open. Sealed to a transit key
 * this worker does not hold (another key provider's, before keys:rotate moved it), the worker's
 * one line about its keys has said so (vault/key-coverage.ts): a debug line here. Otherwise (a
 * corrupt row, a key with the right id and other bytes) an error.
 */
async function signerOf(deps: TWebhookDeliveryDeps, delivery: TDeliveryToSend): Promise<Webhook | undefined> {
  try {
    return new Webhook(await openSecret(deps.transit, delivery.endpointId, delivery.secretCt));
  } catch (error) {
    const keyId = secretKeyId(delivery.secretCt);
    const fields = { err: { message: (error as Error).message }, deliveryId: delivery.id, endpointId: delivery.endpointId };
    if (keyId !== undefined && !deps.transit.keys.has(keyId)) deps.logger.debug(fields, 'webhook secret sealed to a key this worker does not hold');
    else deps.logger.error(fields, 'webhook secret does not open');
    return undefined;
  }
}

export async function deliver(deps: TWebhookDeliveryDeps, deliveryId: string, job: Pick<Job, 'attemptsMade' | 'opts' | 'token' | 'moveToWait'>): Promise<TOutcome> {
  const delivery = await deliveryToSend(deps.pool, deliveryId);
  // Succeeded, failed, or failed by its endpoint's deletion: nothing to send.
  if (!delivery || delivery.status !== 'pending') return { outcome: 'skipped', statusCode: null };
  if (delivery.endpointDeleted) {
    await failDelivery(deps.pool, deliveryId, 'endpoint deleted');
    return { outcome: 'skipped', statusCode: null };
  }
  const event = delivery.type;
  const webhook = await signerOf(deps, delivery);
  if (!webhook) {
    // Retrying cannot help (the sweep would re-add it every minute): failed now, the job ends.
    await failDelivery(deps.pool, deliveryId, SECRET_UNOPENABLE);
    deps.metrics?.webhookDeliveries.inc({ event, outcome: 'failed' });
    return { outcome: 'failed', statusCode: null };
  }
  // With tracing on, each attempt is a span: the event, the delivery, the endpoint, the attempt's
  // number and its answer's status, never the URL, the body or the signature.
  const attributes = {
    'folio.webhook.event': event, 'folio.webhook.delivery_id': deliveryId, 'folio.webhook.endpoint_id': delivery.endpointId,
    'folio.webhook.attempt': job.attemptsMade + 1,
  };
  const { statusCode, error } = await inSpan('webhook delivery attempt', attributes, async (span) => {
    const sent = await attempt(deps, delivery, webhook);
    if (sent.statusCode !== null) span.setAttribute('http.response.status_code', sent.statusCode);
    if (sent.error !== null) spanFailed(span, sent.statusCode === null ? 'no answer' : 'not 2xx');
    return sent;
  });
  const record = (next: Parameters<typeof recordAttempt>[3]['next']) => recordAttempt(deps.pool, deliveryId, delivery.version, { statusCode, error, next });
  if (error === null) {
    await record('succeeded');
    deps.metrics?.webhookDeliveries.inc({ event, outcome: 'succeeded' });
    return { outcome: 'succeeded', statusCode };
  }
  const attemptsMade = job.attemptsMade + 1;
  const last = attemptsMade >= (job.opts.attempts ?? 1);
  const recorded = await record(last ? 'failed' : { retryAt: new Date(Date.now() + scheduleDelayMs(deps.schedule, attemptsMade)) });
  if (recorded === 'superseded') {
    // A manual retry came in during this attempt and wants the delivery sent now: the job goes
    // back to waiting without using up an attempt (BullMQ's WaitingError), and runs again.
    deps.metrics?.webhookDeliveries.inc({ event, outcome: 'retried' });
    await job.moveToWait(job.token);
    throw new WaitingError();
  }
  if (last) {
    deps.metrics?.webhookDeliveries.inc({ event, outcome: 'failed' });
    return { outcome: 'failed', statusCode };
  }
  deps.metrics?.webhookDeliveries.inc({ event, outcome: 'retried' });
  throw new WebhookAttemptFailed(`webhook attempt ${attemptsMade} failed: ${error}`);
}

/** Re-adds the job of every overdue pending delivery that has none (a job id is the delivery id). */
export async function sweep(deps: Pick<TWebhookDeliveryDeps, 'pool' | 'queue' | 'schedule' | 'sweepGraceSeconds'>): Promise<number> {
  let requeued = 0;
  for (const deliveryId of await overdueDeliveries(deps.pool, deps.sweepGraceSeconds ?? SWEEP_GRACE_SECONDS)) {
    if (await deps.queue.getJob(deliveryId)) continue;
    await deps.queue.add(webhookDeliveryJob.name, { deliveryId }, deliveryJobOptions(deliveryId, deps.schedule));
    requeued += 1;
  }
  return requeued;
}

export function webhookHandlers(deps: TWebhookDeliveryDeps): THandlers<TWebhookJobName> {
  return {
    'webhook-delivery': (payload, job) => deliver(deps, payload.deliveryId, job),
    'webhook-sweep': async () => {
      const requeued = await sweep(deps);
      if (requeued > 0) deps.logger.info({ requeued }, 'webhook deliveries re-enqueued');
      return { requeued };
    },
  };
}
