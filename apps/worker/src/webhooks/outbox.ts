// The worker's side of the webhook outbox (docs/export.md#webhooks). A status change records its
// event's deliveries, one per subscribed endpoint, in its own transaction (ExportStore.complete and
// fail, closeBatch: packages/shared/src/webhooks/store.ts insertDeliveries) and answers their ids;
// `enqueue`, after the commit, adds their jobs. A crash between the two leaves pending rows that
// the webhook sweep enqueues.

import type { Queue } from 'bullmq';
import type { Logger } from '@folio-vault/shared/logger';
import { deliveryJobOptions, webhookDeliveryJob } from '@folio-vault/shared/webhooks/webhook-jobs';

export class WebhookOutbox {
  constructor(
    private readonly queue: Queue,
    /** WEBHOOK_RETRY_SCHEDULE: each delivery job's attempts and delays. */
    private readonly schedule: readonly number[],
    private readonly logger: Logger,
  ) {}

  /** Adds the jobs of recorded deliveries; never throws (the sweep catches up). */
  async enqueue(deliveryIds: readonly string[]): Promise<void> {
    if (deliveryIds.length === 0) return;
    try {
      await this.queue.addBulk(
        deliveryIds.map((deliveryId) => ({ name: webhookDeliveryJob.name, data: { deliveryId }, opts: deliveryJobOptions(deliveryId, this.schedule) })),
      );
    } catch (error) {
      this.logger.warn({ err: { message: (error as Error).message }, deliveries: deliveryIds.length }, 'webhook deliveries not enqueued; the sweep will');
    }
  }
}
