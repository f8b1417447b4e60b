// The API's side of webhooks (docs/export.md#webhooks): endpoints of the caller's property, their
// delivery log, and a manual retry. An endpoint of another property, or a deleted one, is not
// found, in the same words as an unknown id.

import { randomUUID } from 'node:crypto';
import type { Queue } from 'bullmq';
import type { PropertyShares } from '@folio-vault/shared/db/property-share';
import { inTransaction } from '@folio-vault/shared/db/transaction';
import { AppError } from '@folio-vault/shared/errors';
import type { TKeyring } from '@folio-vault/shared/vault/crypto/keyring';
import { endpointUrlProblems, type TAddressRules, type TResolver } from '@folio-vault/shared/webhooks/address-guard';
import type { TDelivery, TEndpoint, TWebhookEvent } from '@folio-vault/shared/webhooks/schemas';
import { generateSecret, sealSecret } from '@folio-vault/shared/webhooks/secrets';
import { deleteEndpoint, findEndpoint, insertEndpoint, listDeliveries, listEndpoints, requeueDelivery } from '@folio-vault/shared/webhooks/store';
import { deliveryJobOptions, webhookDeliveryJob } from '@folio-vault/shared/webhooks/webhook-jobs';

export interface TWebhookServiceOptions {
  /** The API's pool, within each property's share (db/property-share.ts). */
  shares: PropertyShares;
  queue: Queue;
  /** The worker's public transit keys: a secret stored here opens only in a worker. */
  transit: TKeyring;
  rules: TAddressRules;
  schedule: readonly number[];
  resolve?: TResolver;
}

const NOT_FOUND = 'The webhook endpoint';

export class WebhookService {
  constructor(private readonly options: TWebhookServiceOptions) {}

  async create(propertyId: string, body: { url: string; events: TWebhookEvent[]; description?: string }): Promise<TEndpoint & { secret: string }> {
    const problems = await endpointUrlProblems(body.url, this.options.rules, this.options.resolve);
    // errorDetails gives every reason (each names the setting that lifts it), not the first alone.
    if (problems.length > 0) throw AppError.invalid(problems.map((message) => ({ path: 'url', message })), `url: ${problems.join('; ')}.`);
    const id = randomUUID();
    const secret = generateSecret();
    const endpoint = await insertEndpoint(this.options.shares.of(propertyId), {
      id, propertyId, url: body.url, events: body.events, description: body.description, secretCt: await sealSecret(this.options.transit, id, secret),
    });
    return { ...endpoint, secret };
  }

  list(propertyId: string): Promise<TEndpoint[]> {
    return listEndpoints(this.options.shares.of(propertyId), propertyId);
  }

  async get(propertyId: string, id: string): Promise<TEndpoint> {
    const endpoint = await findEndpoint(this.options.shares.of(propertyId), propertyId, id);
    if (!endpoint) throw AppError.notFound(NOT_FOUND);
    return endpoint;
  }

  /** Its pending deliveries are failed in the same transaction: none of them is sent afterwards. */
  async delete(propertyId: string, id: string): Promise<void> {
    const deleted = await inTransaction(this.options.shares.of(propertyId), (client) => deleteEndpoint(client, propertyId, id));
    if (!deleted) throw AppError.notFound(NOT_FOUND);
  }

  async deliveries(propertyId: string, id: string): Promise<TDelivery[]> {
    await this.get(propertyId, id);
    return listDeliveries(this.options.shares.of(propertyId), id);
  }

  /**
   * Pending again (attempts kept) and queued now. A job still waiting for its next attempt is
   * brought forward; otherwise a new job with the delivery's id is added. Should Redis refuse, the
   * row is pending and due: the worker's sweep enqueues it.
   */
  async retry(propertyId: string, id: string, deliveryId: string): Promise<void> {
    await this.get(propertyId, id);
    if (!(await requeueDelivery(this.options.shares.of(propertyId), id, deliveryId))) throw AppError.notFound('The webhook delivery');
    const { queue, schedule } = this.options;
    try {
      const existing = await queue.getJob(deliveryId);
      const state = existing ? await existing.getState() : undefined;
      if (existing && state === 'delayed') await existing.promote();
      if (existing && (state === 'completed' || state === 'failed')) await existing.remove();
      if (!existing || state === 'completed' || state === 'failed') {
        await queue.add(webhookDeliveryJob.name, { deliveryId }, deliveryJobOptions(deliveryId, schedule));
      }
    } catch {
      // The sweep re-enqueues a due pending delivery without a job.
    }
  }
}
