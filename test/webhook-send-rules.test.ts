import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import type { TWorkerConfig } from '@folio-vault/shared/config';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { webhookEvent } from '@folio-vault/shared/webhooks/events';
import { insertDeliveries } from '@folio-vault/shared/webhooks/store';
import { deliveryJobOptions, webhookDeliveryJob } from '@folio-vault/shared/webhooks/webhook-jobs';
import { until } from './support/faults.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { createWorld, startTestWorker, type TWorld } from './support/world.js';

/**
 * The address rules hold at every send, not only at creation (docs/export.md#webhooks): an endpoint
 * created while WEBHOOK_ALLOW_INSECURE and WEBHOOK_ALLOW_PRIVATE were on (an http URL on 127.0.0.1,
 * the real receiver) gets nothing from a worker started with either setting off; each attempt is
 * refused before any connection, recorded with its reason, and the delivery ends failed after the
 * schedule. A worker with both on still delivers to it (the control).
 */
const ENDPOINTS = '/webhooks/v1/endpoints';
const SCHEDULE = [1];

let world: TWorld;
let queue: Queue;
const receiver = new WebhookReceiver();
let endpointId: string;
let events = 0;

const auth = () => ({ Authorization: `Bearer ${world.token({ properties: [1] })}`, 'X-Property-Id': '1' });

/** Records one night_audit.failed for property 1 and adds its job, as the outbox does after a commit. */
async function announce(): Promise<string> {
  events += 1;
  const event = webhookEvent('night_audit.failed', `send-rules-${events}`, { batchId: '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b', propertyId: '1', status: 'failed', error: 'test' });
  const [deliveryId] = await insertDeliveries(world.pool, event);
  await queue.add(webhookDeliveryJob.name, { deliveryId: deliveryId! }, deliveryJobOptions(deliveryId!, SCHEDULE));
  return deliveryId!;
}

/** Runs a worker with these settings until the delivery of one new event has ended; answers its row. */
async function deliverWith(settings: Partial<TWorkerConfig>) {
  const worker = await startTestWorker({ ...world.config, ...settings }, world.logger);
  try {
    const deliveryId = await announce();
    return await until(async () => {
      const result = await world.pool.query('SELECT status, attempts, last_status_code, last_error FROM webhook_deliveries WHERE id = $1', [deliveryId]);
      return result.rows[0]?.status === 'pending' ? undefined : result.rows[0];
    }, 30_000, 'the delivery to end');
  } finally {
    await worker.close();
  }
}

beforeAll(async () => {
  await receiver.start();
  world = await createWorld({ worker: false, env: { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: SCHEDULE.join(',') } });
  queue = new Queue(QUEUE_NAMES.webhooks, { connection: world.redis, prefix: world.config.QUEUE_PREFIX });
  const created = await request(world.url).post(ENDPOINTS).set(auth()).send({ url: receiver.url('/hook'), events: ['night_audit.failed'] });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  receiver.register('/hook', created.body.secret);
  endpointId = created.body.id;
});
afterAll(async () => {
  await queue?.close();
  await world?.close();
  await receiver.close();
});

describe('an endpoint created under looser settings', () => {
  it('gets nothing once WEBHOOK_ALLOW_INSECURE is off: every attempt is refused for its http URL', async () => {
    const row = await deliverWith({ WEBHOOK_ALLOW_INSECURE: false });
    expect(row).toEqual({ status: 'failed', attempts: 2, last_status_code: null, last_error: 'the endpoint URL must be an https URL' });
    expect(receiver.at('/hook')).toEqual([]);
  });

  it('gets nothing once WEBHOOK_ALLOW_PRIVATE is off: every attempt is refused for its loopback address', async () => {
    const before = receiver.at('/hook').length;
    const row = await deliverWith({ WEBHOOK_ALLOW_PRIVATE: false });
    expect(row).toEqual({
      status: 'failed', attempts: 2, last_status_code: null,
      last_error: '127.0.0.1 is a private, loopback or link-local address; webhooks go to public addresses only',
    });
    expect(receiver.at('/hook')).toHaveLength(before);
  });

  it('control: with both settings on, the same endpoint receives the event', async () => {
    const before = receiver.at('/hook').length;
    const row = await deliverWith({});
    expect(row).toEqual({ status: 'succeeded', attempts: 1, last_status_code: 200, last_error: null });
    const received = receiver.at('/hook');
    expect(received).toHaveLength(before + 1);
    expect(received.at(-1)!.verified).toBe(true);
    const listed = await request(world.url).get(`${ENDPOINTS}/${endpointId}/deliveries`).set(auth());
    expect(listed.body.deliveries.map((d: { status: string }) => d.status)).toEqual(['succeeded', 'failed', 'failed']);
  });
});
