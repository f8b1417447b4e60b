import type { Queue } from 'bullmq';
import type { PoolClient } from 'pg';
import type { TAnnounced, TStoredResult } from '@folio-vault/shared/exports/export-store';
import type { Logger } from '@folio-vault/shared/logger';
import { batchRunSubject, webhookEvent, type TWebhookEventRecord } from '@folio-vault/shared/webhooks/events';
import { insertDeliveries } from '@folio-vault/shared/webhooks/store';
import { deliveryJobOptions, webhookDeliveryJob } from '@folio-vault/shared/webhooks/webhook-jobs';

/**
 * The worker's side of the webhook outbox (docs/export.md#webhooks). A status change announces
 * itself in two steps: its deliveries, one per subscribed endpoint, are written with the change —
 * by the change's own statement (ExportStore.complete/fail take the `event` and report the ids to
 * `recorded`) or inside its transaction (`publish`, closeBatch) — and `enqueue`, after the commit,
 * adds their jobs. A crash between the two leaves pending rows the sweep re-enqueues.
 * export.completed is recorded without a download link: the delivery processor signs a fresh one
 * at each attempt, as a link signed here would die long before the retries end.
 */
export interface TAnnouncement extends TAnnounced {
  /** Records the deliveries inside the caller's transaction (closeBatch). */
  publish(client: PoolClient): Promise<void>;
  /** Adds the jobs of the deliveries written; never throws (the sweep catches up). */
  enqueue(): Promise<void>;
}

export interface TOutboxSettings {
  schedule: readonly number[];
}

export class WebhookOutbox {
  constructor(
    private readonly queue: Queue,
    private readonly settings: TOutboxSettings,
    private readonly logger: Logger,
  ) {}

  announce(event: TWebhookEventRecord): TAnnouncement {
    let ids: string[] = [];
    return {
      event,
      publish: async (client) => {
        ids = await insertDeliveries(client, event);
      },
      recorded: (deliveryIds) => {
        ids = deliveryIds;
      },
      enqueue: () => this.enqueue(ids),
    };
  }

  async enqueue(deliveryIds: readonly string[]): Promise<void> {
    if (deliveryIds.length === 0) return;
    try {
      await this.queue.addBulk(
        deliveryIds.map((deliveryId) => ({ name: webhookDeliveryJob.name, data: { deliveryId }, opts: deliveryJobOptions(deliveryId, this.settings.schedule) })),
      );
    } catch (error) {
      this.logger.warn({ err: { message: (error as Error).message }, deliveries: deliveryIds.length }, 'webhook deliveries not enqueued; the sweep will');
    }
  }

  /** export.completed, stored without its download link (added at each attempt, delivery-processor.ts). */
  exportCompleted(exportId: string, propertyId: string, result: TStoredResult): Promise<TAnnouncement> {
    return Promise.resolve(
      this.announce(webhookEvent('export.completed', exportId, { exportId, propertyId, status: 'completed', size: result.size, pages: result.pages, sha256: result.sha256 })),
    );
  }

  exportFailed(exportId: string, propertyId: string, error: string): TAnnouncement {
    return this.announce(webhookEvent('export.failed', exportId, { exportId, propertyId, status: 'failed', error }));
  }

  nightAuditCompleted(
    batch: { batchId: string; run: number; propertyId: string },
    outcome: { manifestKey: string; total: number; completed: number; failed: number },
  ): TAnnouncement {
    const status = outcome.failed > 0 ? 'completed_with_failures' : 'completed';
    return this.announce(
      webhookEvent('night_audit.completed', batchRunSubject(batch.batchId, batch.run), { batchId: batch.batchId, propertyId: batch.propertyId, status, ...outcome }),
    );
  }
}
