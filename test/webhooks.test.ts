import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { createMetrics, type TMetrics } from '@folio-vault/shared/metrics';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { webhookEvent } from '@folio-vault/shared/webhooks/events';
import { insertDeliveries } from '@folio-vault/shared/webhooks/store';
import type { TRunningWorker } from '@folio-vault/worker/worker';
import { binaryBody } from './support/binary-body.js';
import { until } from './support/faults.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { createWorld, startTestWorker, type TWorld } from './support/world.js';

/**
 * Webhooks (docs/export.md#webhooks) through the real API, queue, worker, PostgreSQL and a real
 * receiver that verifies every delivery with standardwebhooks: export.completed (its link fetches
 * the file with no JWT), export.failed, night_audit.completed, retries with one webhook-id, a
 * receiver that never answers, deletion, another property's endpoints, a manual retry, and the
 * address rules with production-like settings.
 */
const ENDPOINTS = '/webhooks/v1/endpoints';
const EXPORT = '/fiscal-document/v1/folios/export';
const STATUS = '/fiscal-document/v1/folios/exports';

const tx = (id: number, folioId: number, sourceId: number, when: string) => ({
  id, folioId, sourceKind: 'RESERVATION', sourceId, transactionDatetime: when, serviceDate: when.slice(0, 10), internalTransactionCode: '1000',
  internalCodeGroup: 'ROOM_REVENUE_RATE', description: `Night ${id}`, quantity: 1, amount: '110.00', currency: 'EUR', posted: true,
});
const LEDGERS = {
  '1': {
    property: { id: 1, name: 'Hotel Aviso', currency: 'EUR', timezone: 'Europe/Madrid', gatewayMode: 'test', language: 'en' },
    folios: [{ id: 11, sourceKind: 'RESERVATION', sourceId: 100, name: 'Guest folio' }],
    transactions: [tx(1, 11, 100, '2026-11-21T12:00:00Z')],
  },
  '2': {
    property: { id: 2, name: 'Hotel Dos', currency: 'EUR', timezone: 'Europe/Madrid', gatewayMode: 'test', language: 'en' },
    folios: [{ id: 21, sourceKind: 'RESERVATION', sourceId: 200, name: 'Other guest' }],
    transactions: [tx(2, 21, 200, '2026-11-21T12:00:00Z')],
  },
} as const;

let world: TWorld, strict: TWorld;
let worker: TRunningWorker;
let metrics: TMetrics;
const receiver = new WebhookReceiver();

const auth = (target: TWorld, property = '1') => ({ Authorization: `Bearer ${target.token({ properties: [1, 2] })}`, 'X-Property-Id': property });

async function createEndpoint(path: string, events: string[], property = '1', behaviour?: Parameters<WebhookReceiver['register']>[2]) {
  const res = await request(world.url).post(ENDPOINTS).set(auth(world, property)).send({ url: receiver.url(path), events, description: path });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  receiver.register(path, res.body.secret, behaviour);
  return res.body as { id: string; secret: string; url: string; events: string[] };
}

/** Starts an export (respond-async) for a property and waits for it to end. */
async function runExport(property: '1' | '2', format = 'PDF') {
  const sourceId = property === '1' ? '100' : '200';
  const started = await request(world.url).post(EXPORT).set(auth(world, property)).set('Prefer', 'respond-async').send({ sourceKind: 'RESERVATION', sourceId, format });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  return until(async () => {
    const res = await request(world.url).get(`${STATUS}/${started.body.exportId}`).set(auth(world, property));
    return ['completed', 'failed'].includes(res.body.status) ? (res.body as Record<string, unknown>) : undefined;
  }, 60_000, 'the export to end');
}

const deliveries = async (endpointId: string, property = '1') => {
  const res = await request(world.url).get(`${ENDPOINTS}/${endpointId}/deliveries`).set(auth(world, property));
  expect(res.status).toBe(200);
  return res.body.deliveries as Array<{
    id: string; eventId: string; type: string; status: string; attempts: number; lastStatusCode: number | null; lastError: string | null; nextAttemptAt: string | null; createdAt: string;
  }>;
};

async function counter(name: string, labels: string): Promise<number> {
  const text = await metrics.registry.metrics();
  const line = text.split('\n').find((entry) => entry.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

beforeAll(async () => {
  await receiver.start();
  world = await createWorld({ worker: false, env: { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '1,1,1', EXPORT_LINK_TTL_SECONDS: '600' } });
  metrics = createMetrics({ defaultMetrics: false });
  // A short attempt time-out and sweep for the "never answers" and "lost job" cases (internal options, not settings).
  worker = await startTestWorker(world.config, world.logger, { metrics, webhookInternals: { attemptTimeoutMs: 1_000, sweepEveryMs: 500, sweepGraceSeconds: 1 } });
  strict = await createWorld({ worker: false });
  for (const [property, ledger] of Object.entries(LEDGERS)) {
    const res = await request(world.url).post('/accounting/v1.0/import').set(auth(world, property)).send(ledger);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
});
afterAll(async () => {
  await worker?.close();
  await world?.close();
  await strict?.close();
  await receiver.close();
});

describe('events, signed and verified', () => {
  it('announces export.completed with a link that fetches the exact file without a JWT; the secret is shown once and sealed', async () => {
    const endpoint = await createEndpoint('/completed', ['export.completed']);
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const done = await runExport('1');
    expect(done.status).toBe('completed');
    const [got] = await until(async () => (receiver.at('/completed').length ? receiver.at('/completed') : undefined), 30_000, 'export.completed');
    expect(got!.verified).toBe(true);
    expect(got!.body!.type).toBe('export.completed');
    const data = got!.body!.data;
    expect(data).toMatchObject({ exportId: done.exportId, propertyId: '1', status: 'completed', size: done.size, pages: done.pages, sha256: done.sha256 });
    expect(String(data.downloadUrl)).toMatch(new RegExp(`^/fiscal-document/v1/folios/exports/${String(done.exportId)}/file\\?expires=\\d+&signature=[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(String(data.downloadUrlExpiresAt))).toBeGreaterThan(Date.now());
    const file = await request(world.url).get(String(data.downloadUrl)).buffer(true).parse(binaryBody);
    expect(file.status).toBe(200);
    expect(createHash('sha256').update(file.body as Buffer).digest('hex')).toBe(done.sha256);

    const log = await until(async () => {
      const list = await deliveries(endpoint.id);
      return list[0]?.status === 'succeeded' ? list : undefined;
    }, 10_000, 'the delivery to be recorded');
    expect(log).toEqual([
      { id: expect.any(String), eventId: got!.webhookId, type: 'export.completed', status: 'succeeded', attempts: 1, lastStatusCode: 200, lastError: null, nextAttemptAt: null, createdAt: expect.any(String) },
    ]);
    expect(await counter('webhook_deliveries_total', 'event="export.completed",outcome="succeeded"')).toBeGreaterThanOrEqual(1);
    expect(await counter('webhook_delivery_attempts_total', 'event="export.completed"')).toBeGreaterThanOrEqual(1);
    // Shown once: neither read carries it, and PostgreSQL holds it sealed only.
    const one = await request(world.url).get(`${ENDPOINTS}/${endpoint.id}`).set(auth(world));
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ id: endpoint.id, url: receiver.url('/completed'), events: ['export.completed'], description: '/completed', createdAt: expect.any(String) });
    const all = await request(world.url).get(ENDPOINTS).set(auth(world));
    expect(JSON.stringify(all.body)).not.toContain(endpoint.secret.slice(6));
    const stored = await world.pool.query<{ secret_ct: Buffer }>('SELECT secret_ct FROM webhook_endpoints WHERE id = $1', [endpoint.id]);
    const sealed = stored.rows[0]!.secret_ct;
    for (const clear of [Buffer.from(endpoint.secret), Buffer.from(endpoint.secret.slice(6), 'base64'), Buffer.from(endpoint.secret.slice(6))]) {
      expect(sealed.includes(clear)).toBe(false);
    }
    await request(world.url).delete(`${ENDPOINTS}/${endpoint.id}`).set(auth(world)).expect(204);
  });

  it('announces export.failed when an export fails for good', async () => {
    const endpoint = await createEndpoint('/failed', ['export.failed'], '2');
    // A file where property 2's export folder would go: every upload of its exports fails.
    const root = resolve(world.config.STORAGE_DIR, 'exports');
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, '2'), 'not a folder');
    const done = await runExport('2');
    expect(done.status).toBe('failed');
    const [got] = await until(async () => (receiver.at('/failed').length ? receiver.at('/failed') : undefined), 30_000, 'export.failed');
    expect(got!.verified).toBe(true);
    expect(got!.body).toEqual({ type: 'export.failed', timestamp: expect.any(String), data: { exportId: done.exportId, propertyId: '2', status: 'failed', error: done.error } });
    await request(world.url).delete(`${ENDPOINTS}/${endpoint.id}`).set(auth(world, '2')).expect(204);
  });

  it('announces night_audit.completed when a batch ends', async () => {
    await createEndpoint('/audit', ['night_audit.completed']);
    const started = await request(world.url).post('/fiscal-document/v1/night-audit/exports').set(auth(world)).send({ businessDate: '2026-11-21' });
    expect(started.status).toBe(202);
    const [got] = await until(async () => (receiver.at('/audit').length ? receiver.at('/audit') : undefined), 60_000, 'night_audit.completed');
    expect(got!.verified).toBe(true);
    expect(got!.body).toEqual({
      type: 'night_audit.completed',
      timestamp: expect.any(String),
      data: { batchId: started.body.batchId, propertyId: '1', status: 'completed', manifestKey: 'night-audit/1/2026-11-21/manifest.json', total: 1, completed: 1, failed: 0 },
    });
  });
});

describe('retries', () => {
  it('sends the same webhook-id again after 500s until a 2xx', async () => {
    const endpoint = await createEndpoint('/flaky', ['export.completed'], '1', { kind: 'fail-first', times: 2 });
    await runExport('1', 'XLSX');
    const got = await until(async () => (receiver.at('/flaky').length >= 3 ? receiver.at('/flaky') : undefined), 30_000, 'three attempts');
    expect(got.map((entry) => entry.verified)).toEqual([true, true, true]);
    expect(new Set(got.map((entry) => entry.webhookId)).size).toBe(1);
    const [log] = await until(async () => {
      const list = await deliveries(endpoint.id);
      return list[0]?.status === 'succeeded' ? list : undefined;
    }, 10_000, 'success recorded');
    expect(log).toMatchObject({ eventId: got[0]!.webhookId, status: 'succeeded', attempts: 3, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
    expect(await counter('webhook_deliveries_total', 'event="export.completed",outcome="retried"')).toBeGreaterThanOrEqual(2);
    await request(world.url).delete(`${ENDPOINTS}/${endpoint.id}`).set(auth(world)).expect(204);
  });

  it('lists a delivery whose receiver answered 500 to every attempt as failed, with its last error', async () => {
    const endpoint = await createEndpoint('/broken', ['export.completed'], '1', { kind: 'fail-first', times: 100 });
    await runExport('1');
    const [failed] = await until(async () => {
      const list = await deliveries(endpoint.id);
      return list[0]?.status === 'failed' ? list : undefined;
    }, 30_000, 'the delivery to fail');
    const sent = receiver.at('/broken');
    // WEBHOOK_RETRY_SCHEDULE 1,1,1: the first attempt and three retries.
    expect(sent).toHaveLength(4);
    expect(failed).toEqual({
      id: expect.any(String), eventId: sent[0]!.webhookId, type: 'export.completed', status: 'failed', attempts: 4,
      lastStatusCode: 500, lastError: 'answered 500', nextAttemptAt: null, createdAt: expect.any(String),
    });
    await request(world.url).delete(`${ENDPOINTS}/${endpoint.id}`).set(auth(world)).expect(204);
  });

  it('retries a receiver that never answers, pending in between, then marks it failed; a manual retry sends it again', async () => {
    const endpoint = await createEndpoint('/silent', ['export.completed'], '1', { kind: 'hang' });
    await runExport('1');
    const pending = await until(async () => {
      const [first] = await deliveries(endpoint.id);
      return first && first.attempts >= 2 && first.status === 'pending' ? first : undefined;
    }, 30_000, 'two attempts, still pending');
    expect(pending.lastStatusCode).toBeNull();
    expect(pending.lastError).toBe('no answer within 1 s');
    expect(pending.nextAttemptAt).not.toBeNull();
    const failed = await until(async () => {
      const [first] = await deliveries(endpoint.id);
      return first?.status === 'failed' ? first : undefined;
    }, 30_000, 'the delivery to fail');
    expect(failed).toMatchObject({ status: 'failed', attempts: 4, lastStatusCode: null, lastError: 'no answer within 1 s', nextAttemptAt: null });
    expect(receiver.at('/silent').length).toBe(4);
    // The receiver is fixed; a manual retry sends the same event again, attempts kept.
    receiver.behave('/silent', { kind: 'ok' });
    const retried = await request(world.url).post(`${ENDPOINTS}/${endpoint.id}/deliveries/${failed.id}/retry`).set(auth(world));
    expect(retried.status).toBe(202);
    expect(retried.body).toEqual({ id: failed.id, status: 'pending' });
    const done = await until(async () => {
      const [first] = await deliveries(endpoint.id);
      return first?.status === 'succeeded' ? first : undefined;
    }, 30_000, 'the retried delivery to succeed');
    expect(done).toMatchObject({ attempts: 5, lastStatusCode: 200, lastError: null, eventId: failed.eventId });
    const last = receiver.at('/silent').at(-1)!;
    expect(last.verified).toBe(true);
    expect(last.webhookId).toBe(failed.eventId);
    await request(world.url).delete(`${ENDPOINTS}/${endpoint.id}`).set(auth(world)).expect(204);
  });
});

describe('endpoints', () => {
  it('stops the deliveries of a deleted endpoint', async () => {
    const endpoint = await createEndpoint('/deleted', ['export.completed'], '1', { kind: 'fail-first', times: 100 });
    await runExport('1');
    const [first] = await until(async () => {
      const list = await deliveries(endpoint.id);
      return list[0] && list[0].attempts >= 1 ? list : undefined;
    }, 30_000, 'a first attempt');
    await request(world.url).delete(`${ENDPOINTS}/${endpoint.id}`).set(auth(world)).expect(204);
    const sent = receiver.at('/deleted').length;
    // Its job runs once more at most, finds the delivery failed and ends without sending.
    const queue = new Queue(QUEUE_NAMES.webhooks, { connection: world.redis, prefix: world.config.QUEUE_PREFIX });
    await until(async () => !(await queue.getJob(first!.id)), 20_000, 'the job to end');
    await queue.close();
    const row = await world.pool.query('SELECT status, last_error FROM webhook_deliveries WHERE id = $1', [first!.id]);
    expect(row.rows[0]).toEqual({ status: 'failed', last_error: 'endpoint deleted' });
    expect(receiver.at('/deleted').length).toBe(sent);
    const gone = await request(world.url).get(`${ENDPOINTS}/${endpoint.id}`).set(auth(world));
    expect(gone.status).toBe(404);
    expect(gone.body.errorCode).toBe('ENTITY_NOT_FOUND');
  });

  it("answers 404 for another property's endpoint, on every route", async () => {
    const endpoint = await createEndpoint('/other', ['night_audit.failed'], '2');
    const asOne = auth(world, '1');
    const answers = await Promise.all([
      request(world.url).get(`${ENDPOINTS}/${endpoint.id}`).set(asOne),
      request(world.url).get(`${ENDPOINTS}/${endpoint.id}/deliveries`).set(asOne),
      request(world.url).delete(`${ENDPOINTS}/${endpoint.id}`).set(asOne),
      request(world.url).post(`${ENDPOINTS}/${endpoint.id}/deliveries/${endpoint.id}/retry`).set(asOne),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ errorCode: 'ENTITY_NOT_FOUND', errorDetails: 'The webhook endpoint was not found.' });
    }
    const list = await request(world.url).get(ENDPOINTS).set(asOne);
    expect(list.body.endpoints.map((e: { id: string }) => e.id)).not.toContain(endpoint.id);
    await request(world.url).delete(`${ENDPOINTS}/${endpoint.id}`).set(auth(world, '2')).expect(204);
  });

  it('sends a delivery whose job was lost (committed, never enqueued) through the sweep', async () => {
    const endpoint = await createEndpoint('/swept', ['night_audit.failed'], '2');
    const event = webhookEvent('night_audit.failed', 'lost-job-test', { batchId: '5b0e7a4e-4f3f-4c36-9a53-6d9f0cf1d1aa', propertyId: '2', status: 'failed', error: 'test' });
    // Written as a status change would, and no job added: only the sweep can send it.
    expect(await insertDeliveries(world.pool, event)).toHaveLength(1);
    const [got] = await until(async () => (receiver.at('/swept').length ? receiver.at('/swept') : undefined), 30_000, 'the swept delivery');
    expect(got!.verified).toBe(true);
    expect(got!.webhookId).toBe(event.eventId);
    expect(got!.body!.data).toEqual(event.payload.data);
    await request(world.url).delete(`${ENDPOINTS}/${endpoint.id}`).set(auth(world, '2')).expect(204);
  });

  it('refuses bodies that do not validate, at their paths', async () => {
    const res = await request(world.url).post(ENDPOINTS).set(auth(world)).send({ url: 'not a url', events: ['export.done'], extra: 1 });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('INVALID_REQUEST');
    expect(res.body.fieldErrors.map((e: { path: string }) => e.path).sort()).toEqual(['events.0', 'extra', 'url']);
  });
});

describe('address rules with production-like settings', () => {
  // A refusal names the setting that lifts its rule, for a developer whose receiver is local.
  const INSECURE = ' (WEBHOOK_ALLOW_INSECURE=true allows http:// in development)';
  const PRIVATE = ' (WEBHOOK_ALLOW_PRIVATE=true allows it in development)';
  const privateAddress = (address: string) => `${address} is a private, loopback or link-local address; webhooks go to public addresses only${PRIVATE}`;

  it.each([
    ['https://127.0.0.1/hook', '127.0.0.1'],
    ['https://10.1.2.3/hook', '10.1.2.3'],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254'],
    ['https://[::1]/hook', '::1'],
    // IPv6 forms that lead to private, loopback or link-local IPv4, and non-global IPv6 (URL prints the literal compressed).
    ['https://[::ffff:127.0.0.1]/hook', '::ffff:7f00:1'],
    ['https://[::127.0.0.1]/hook', '::7f00:1'],
    ['https://[64:ff9b::7f00:1]/hook', '64:ff9b::7f00:1'],
    ['https://[64:ff9b:1::a00:1]/hook', '64:ff9b:1::a00:1'],
    ['https://[2002:7f00:1::]/hook', '2002:7f00:1::'],
    ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
    ['https://[fec0::1]/hook', 'fec0::1'],
    ['https://[fd00::1]/hook', 'fd00::1'],
    ['https://[100::1]/hook', '100::1'],
    ['https://[fe80::1]/hook', 'fe80::1'],
  ])('refuses %s at url, naming WEBHOOK_ALLOW_PRIVATE', async (url, address) => {
    const res = await request(strict.url).post(ENDPOINTS).set(auth(strict)).send({ url, events: ['export.completed'] });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('INVALID_REQUEST');
    expect(res.body.fieldErrors).toEqual([{ path: 'url', message: privateAddress(address) }]);
    expect(res.body.errorDetails).toBe(`url: ${privateAddress(address)}.`);
  });

  it('refuses an http:// URL at url, naming WEBHOOK_ALLOW_INSECURE', async () => {
    const res = await request(strict.url).post(ENDPOINTS).set(auth(strict)).send({ url: 'http://example.com/hook', events: ['export.completed'] });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('INVALID_REQUEST');
    expect(res.body.fieldErrors).toEqual([{ path: 'url', message: 'must be an https URL (WEBHOOK_ALLOW_INSECURE=true allows http:// in development)' }]);
    expect(res.body.errorDetails).toBe('url: must be an https URL (WEBHOOK_ALLOW_INSECURE=true allows http:// in development).');
  });

  it('refuses a local http:// receiver for both rules at once, naming both settings', async () => {
    const res = await request(strict.url).post(ENDPOINTS).set(auth(strict)).send({ url: 'http://127.0.0.1:9000/folio-vault', events: ['export.completed'] });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('INVALID_REQUEST');
    expect(res.body.fieldErrors).toEqual([
      { path: 'url', message: `must be an https URL${INSECURE}` },
      { path: 'url', message: privateAddress('127.0.0.1') },
    ]);
    expect(res.body.errorDetails).toBe(
      'url: must be an https URL (WEBHOOK_ALLOW_INSECURE=true allows http:// in development); ' +
        '127.0.0.1 is a private, loopback or link-local address; webhooks go to public addresses only (WEBHOOK_ALLOW_PRIVATE=true allows it in development).',
    );
  });

  it('names no setting where none would help: another scheme, a user name in the URL', async () => {
    for (const [url, message] of [['ftp://example.com/hook', 'must be an https URL'], ['https://user:pw@93.184.216.34/hook', 'must not carry a user name or password']]) {
      const res = await request(strict.url).post(ENDPOINTS).set(auth(strict)).send({ url, events: ['export.completed'] });
      expect(res.status).toBe(400);
      expect(res.body.errorCode).toBe('INVALID_REQUEST');
      expect(res.body.fieldErrors).toEqual([{ path: 'url', message }]);
    }
  });

  it('refuses a hostname that resolves to loopback (localhost)', async () => {
    const res = await request(strict.url).post(ENDPOINTS).set(auth(strict)).send({ url: 'https://localhost/hook', events: ['export.completed'] });
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('INVALID_REQUEST');
    expect(res.body.fieldErrors).toHaveLength(1);
    expect(res.body.fieldErrors[0].path).toBe('url');
    expect(res.body.fieldErrors[0].message).toMatch(
      /^localhost resolves to (127\.0\.0\.1|::1), a private, loopback or link-local address; webhooks go to public addresses only \(WEBHOOK_ALLOW_PRIVATE=true allows it in development\)$/,
    );
  });
});
