// Jobs of the `webhooks` queue (docs/export.md#webhooks).

import { z } from 'zod';
import { QUEUE_NAMES } from '../queues.js';
import type { TJobDefinition } from '../jobs/definition.js';

/**
 * One delivery's attempts. Its id is the delivery's and its data only the delivery id: the body and
 * the secret are read from PostgreSQL at each attempt, so Redis never holds a secret. Attempts
 * follow WEBHOOK_RETRY_SCHEDULE (the worker's custom backoff `webhook`), so `attempts` is set by the
 * producer from the schedule (deliveryJobOptions).
 */
export const webhookDeliveryJob = {
  name: 'webhook-delivery',
  queue: QUEUE_NAMES.webhooks,
  version: 1,
  payload: z.object({ deliveryId: z.uuid() }),
  result: z.object({ outcome: z.enum(['succeeded', 'failed', 'skipped']), statusCode: z.int().nullable() }),
  options: {
    attempts: 1,
    backoff: { type: 'webhook' },
    // The delivery log is webhook_deliveries; a finished job is removed so its id can be added again (a manual retry).
    removeOnComplete: true,
    removeOnFail: true,
  },
} as const satisfies TJobDefinition;

/** Every minute: re-enqueues pending deliveries whose job was lost (a crash between commit and enqueue). */
export const webhookSweepJob = {
  name: 'webhook-sweep',
  queue: QUEUE_NAMES.webhooks,
  version: 1,
  housekeeping: true,
  payload: z.object({}).passthrough(),
  result: z.object({ requeued: z.int().min(0) }),
  options: { attempts: 1, removeOnComplete: { count: 10 }, removeOnFail: { count: 100 } },
} as const satisfies TJobDefinition;

/** A delivery's job options: one attempt more than the schedule has delays. */
export function deliveryJobOptions(deliveryId: string, schedule: readonly number[]) {
  return { ...webhookDeliveryJob.options, attempts: schedule.length + 1, jobId: deliveryId };
}

/** The custom backoff: the delay before attempt n+1 is the schedule's n-th entry (BullMQ passes attempts made, from 1). */
export function scheduleDelayMs(schedule: readonly number[], attemptsMade: number): number {
  const seconds = schedule[Math.min(Math.max(attemptsMade, 1), schedule.length) - 1] ?? 60;
  return seconds * 1000;
}
