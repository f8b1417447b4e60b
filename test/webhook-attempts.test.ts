import { createHash } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { exportCompletedEvent, webhookEvent } from '@folio-vault/shared/webhooks/events';
import { insertDeliveries } from '@folio-vault/shared/webhooks/store';
import { deliveryJobOptions, webhookDeliveryJob } from '@folio-vault/shared/webhooks/webhook-jobs';
import type { TRunningWorker } from '@folio-vault/worker/worker';
import { binaryBody } from './support/binary-body.js';
import { until } from './support/faults.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { createWorld, startTestWorker, type TWorld } from './support/world.js';

/**
 * What each webhook attempt sends (docs/export.md#webhooks), through the real API, queue, worker,
 * PostgreSQL and a verifying receiver: an export.completed retried after its first link expired
 * carries a fresh link that works (the stored body has none); an export expired meanwhile is
 * announced without a link; a delivery whose sealed secret does not open fails at once instead of
 * being retried. Links live 4 s here and the one retry comes 5 s later, so the first link has
 * expired when the second attempt is signed.
 */
const ENDPOINTS = '/webhooks/v1/endpoints';
const EXPORT = '/fiscal-document/v1/folios/export';
const STATUS = '/fiscal-document/v1/folios/exports';
const TTL_SECONDS = 4;
const SCHEDULE = [5];

const LEDGER = {
  property: { id: 1, name: 'Hotel Aviso', currency: 'EUR', timezone: 'Europe/Madrid', gatewayMode: 'test', language: 'en' },
  folios: [{ id: 11, sourceKind: 'RESERVATION', sourceId: 100, name: 'Guest folio' }],
  transactions: [{
    id: 1, folioId: 11, sourceKind: 'RESERVATION', sourceId: 100, transactionDatetime: '2026-11-21T12:00:00Z', serviceDate: '2026-11-21',
    internalTransactionCode: '1000', internalCodeGroup: 'ROOM_REVENUE_RATE', description: 'Night 1', quantity: 1, amount: '110.00', currency: 'EUR', posted: true,
  }],
} as const;

let world: TWorld;
let worker: TRunningWorker;
let queue: Queue;
const receiver = new WebhookReceiver();
let completed: { exportId: string; size: number; pages: number; sha256: string };

const auth = () => ({ Authorization: `Bearer ${world.token({ properties: [1] })}`, 'X-Property-Id': '1' });

async function createEndpoint(path: string, events: string[], behaviour?: Parameters<WebhookReceiver['register']>[2]) {
  const res = await request(world.url).post(ENDPOINTS).set(auth()).send({ url: receiver.url(path), events });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  receiver.register(path, res.body.secret, behaviour);
  return res.body as { id: string };
}

/** Records an event for the property's endpoints and adds its jobs, as the outbox does after a commit. */
async function announce(event: ReturnType<typeof webhookEvent>): Promise<string> {
  const [deliveryId] = await insertDeliveries(world.pool, event);
  expect(deliveryId).toEqual(expect.any(String));
  await queue.add(webhookDeliveryJob.name, { deliveryId: deliveryId! }, deliveryJobOptions(deliveryId!, SCHEDULE));
  return deliveryId!;
}

const fetchLink = (url: unknown) => request(world.url).get(String(url)).buffer(true).parse(binaryBody);

beforeAll(async () => {
  await receiver.start();
  world = await createWorld({
    worker: false,
    env: { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: SCHEDULE.join(','), EXPORT_LINK_TTL_SECONDS: String(TTL_SECONDS) },
  });
  worker = await startTestWorker(world.config, world.logger, { webhookInternals: { attemptTimeoutMs: 2_000 } });
  queue = new Queue(QUEUE_NAMES.webhooks, { connection: world.redis, prefix: world.config.QUEUE_PREFIX });
  const imported = await request(world.url).post('/accounting/v1.0/import').set(auth()).send(LEDGER);
  expect(imported.status, JSON.stringify(imported.body)).toBe(200);
});
afterAll(async () => {
  await queue?.close();
  await worker?.close();
  await world?.close();
  await receiver.close();
});

describe('export.completed links', () => {
  it('signs a fresh link at each attempt: the retry, after the first link expired, carries one that fetches the file', async () => {
    const endpoint = await createEndpoint('/fresh', ['export.completed'], { kind: 'fail-first', times: 1 });
    const started = await request(world.url).post(EXPORT).set(auth()).set('Prefer', 'respond-async').send({ sourceKind: 'RESERVATION', sourceId: '100', format: 'PDF' });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const [first, second] = await until(async () => (receiver.at('/fresh').length >= 2 ? receiver.at('/fresh') : undefined), 60_000, 'two attempts');
    // The second link first: it lives TTL_SECONDS from its attempt.
    const file = await fetchLink(second!.body!.data.downloadUrl);
    expect(file.status).toBe(200);
    const status = await request(world.url).get(`${STATUS}/${started.body.exportId}`).set(auth());
    expect(status.body.status).toBe('completed');
    expect(createHash('sha256').update(file.body as Buffer).digest('hex')).toBe(status.body.sha256);
    completed = { exportId: started.body.exportId, size: status.body.size, pages: status.body.pages, sha256: status.body.sha256 };

    expect([first!.verified, second!.verified]).toEqual([true, true]);
    expect(second!.webhookId).toBe(first!.webhookId);
    const linkless = (data: Record<string, unknown>) => ({ ...data, downloadUrl: undefined, downloadUrlExpiresAt: undefined });
    expect(linkless(second!.body!.data)).toEqual(linkless(first!.body!.data));
    expect(second!.body!.data.downloadUrl).not.toBe(first!.body!.data.downloadUrl);
    expect(Date.parse(String(second!.body!.data.downloadUrlExpiresAt))).toBeGreaterThan(Date.parse(String(first!.body!.data.downloadUrlExpiresAt)));
    // The first link was signed for TTL_SECONDS, less than the retry's delay: it no longer works.
    const stale = await fetchLink(first!.body!.data.downloadUrl);
    expect(stale.status).toBe(403);
    expect(stale.body.errorCode).toBe('ACCESS_DENIED');

    const stored = await world.pool.query('SELECT payload, status, attempts FROM webhook_deliveries WHERE endpoint_id = $1', [endpoint.id]);
    expect(stored.rows).toEqual([{ payload: { type: 'export.completed', timestamp: first!.body!.timestamp, data: linkless(first!.body!.data) }, status: 'succeeded', attempts: 2 }]);
    expect(Object.keys(stored.rows[0].payload.data)).not.toContain('downloadUrl');
  });

  it('announces an export that expired meanwhile without a link', async () => {
    await createEndpoint('/expired', ['export.completed']);
    await world.pool.query(`UPDATE exports SET status = 'expired' WHERE id = $1`, [completed.exportId]);
    await announce(exportCompletedEvent(completed.exportId, '1', completed));
    const [got] = await until(async () => (receiver.at('/expired').length ? receiver.at('/expired') : undefined), 30_000, 'the delivery');
    expect(got!.verified).toBe(true);
    expect(got!.body!.data).toEqual({ exportId: completed.exportId, propertyId: '1', status: 'completed', size: completed.size, pages: completed.pages, sha256: completed.sha256 });
  });
});

describe('secrets', () => {
  it('fails a delivery whose sealed secret does not open at once, without sending or retrying it', async () => {
    const endpoint = await createEndpoint('/corrupt', ['night_audit.failed']);
    // One bit of the GCM tag flipped: the secret no longer opens.
    await world.pool.query(
      `UPDATE webhook_endpoints SET secret_ct = set_byte(secret_ct, length(secret_ct) - 1, get_byte(secret_ct, length(secret_ct) - 1) # 1) WHERE id = $1`,
      [endpoint.id],
    );
    const deliveryId = await announce(
      webhookEvent('night_audit.failed', 'corrupt-secret-test', { batchId: '0d7c1f6e-2b8a-4c55-9e1d-3a6b5c4d2e10', propertyId: '1', status: 'failed', error: 'test' }),
    );
    const row = await until(async () => {
      const result = await world.pool.query('SELECT status, last_error, attempts, next_attempt_at FROM webhook_deliveries WHERE id = $1', [deliveryId]);
      return result.rows[0]?.status === 'failed' ? result.rows[0] : undefined;
    }, 30_000, 'the delivery to fail');
    expect(row).toEqual({ status: 'failed', last_error: 'the endpoint secret cannot be opened', attempts: 0, next_attempt_at: null });
    // The job ended (completed and removed), not waiting for a retry.
    await until(async () => !(await queue.getJob(deliveryId)), 10_000, 'the job to end');
    expect(receiver.at('/corrupt')).toEqual([]);
  });
});
