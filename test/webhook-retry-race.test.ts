import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { webhookEvent } from '@folio-vault/shared/webhooks/events';
import { insertDeliveries } from '@folio-vault/shared/webhooks/store';
import { deliveryJobOptions, webhookDeliveryJob } from '@folio-vault/shared/webhooks/webhook-jobs';
import type { TRunningWorker } from '@folio-vault/worker/worker';
import { until } from './support/faults.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { createWorld, startTestWorker, type TWorld } from './support/world.js';

/**
 * A manual retry that arrives while the delivery's last attempt is in flight wins over that
 * attempt's failure (docs/export.md#webhooks): the receiver holds the last attempt's answer until the
 * retry has been accepted, then answers 500; the delivery is not marked failed but sent again, and
 * succeeds. The order is forced by the receiver, not by timing: the attempt time-out is long.
 */
const ENDPOINTS = '/webhooks/v1/endpoints';
const SCHEDULE = [1];

let world: TWorld;
let worker: TRunningWorker;
let queue: Queue;
const receiver = new WebhookReceiver();

const auth = () => ({ Authorization: `Bearer ${world.token({ properties: [1] })}`, 'X-Property-Id': '1' });

beforeAll(async () => {
  await receiver.start();
  world = await createWorld({ worker: false, env: { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: SCHEDULE.join(',') } });
  worker = await startTestWorker(world.config, world.logger, { webhookInternals: { attemptTimeoutMs: 60_000 } });
  queue = new Queue(QUEUE_NAMES.webhooks, { connection: world.redis, prefix: world.config.QUEUE_PREFIX });
});
afterAll(async () => {
  await queue?.close();
  await worker?.close();
  await world?.close();
  await receiver.close();
});

describe('a manual retry during the last attempt', () => {
  it('is not overwritten by that attempt failing: the delivery is sent again and succeeds', async () => {
    const created = await request(world.url).post(ENDPOINTS).set(auth()).send({ url: receiver.url('/race'), events: ['night_audit.failed'] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    receiver.register('/race', created.body.secret, { kind: 'hold' });
    const event = webhookEvent('night_audit.failed', 'retry-race', { batchId: '6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d', propertyId: '1', status: 'failed', error: 'test' });
    const [deliveryId] = await insertDeliveries(world.pool, event);
    await queue.add(webhookDeliveryJob.name, { deliveryId: deliveryId! }, deliveryJobOptions(deliveryId!, SCHEDULE));

    // Attempt 1 of 2 fails; attempt 2, the last, is held at the receiver.
    await until(async () => receiver.at('/race').length === 1, 30_000, 'the first attempt');
    expect(receiver.release('/race', 500)).toBe(1);
    await until(async () => receiver.at('/race').length === 2, 30_000, 'the last attempt');

    const retried = await request(world.url).post(`${ENDPOINTS}/${created.body.id}/deliveries/${deliveryId}/retry`).set(auth());
    expect(retried.status).toBe(202);
    expect(retried.body).toEqual({ id: deliveryId, status: 'pending' });
    receiver.behave('/race', { kind: 'ok' });
    expect(receiver.release('/race', 500)).toBe(1);

    const row = await until(async () => {
      const result = await world.pool.query('SELECT status, attempts, last_status_code, last_error FROM webhook_deliveries WHERE id = $1', [deliveryId]);
      return result.rows[0]?.status === 'pending' ? undefined : result.rows[0];
    }, 30_000, 'the delivery to end');
    expect(row).toEqual({ status: 'succeeded', attempts: 3, last_status_code: 200, last_error: null });
    const received = receiver.at('/race');
    expect(received).toHaveLength(3);
    expect(received.map((entry) => [entry.webhookId, entry.verified])).toEqual(Array.from({ length: 3 }, () => [event.eventId, true]));
  });
});
