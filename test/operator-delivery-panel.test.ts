import { randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type TWorld } from './support/world.js';

/**
 * The operator's delivery panel (apps/api/src/ops/delivery-panel.ts) at /admin/queues/delivery,
 * behind the dashboard's admin check: webhook deliveries by event type and status, attempts, each
 * pending and failed delivery (endpoint, property, last error, next attempt), and what retention
 * has expired, read from PostgreSQL. The world runs the API without a worker, so
 * the API's own registry counts nothing: the figures can only come from the rows, written here
 * with SQL as the workers of any process would have left them.
 */
const METRICS_TOKEN = randomBytes(24).toString('base64url');

let world: TWorld;
let admin: string;
let payments: string;

function expectError(res: request.Response, status: number, errorCode: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({ id: res.headers['x-request-id'], timestamp: expect.any(String), errorCode, errorDetails: expect.any(String) });
}

const panelJson = () => request(world.url).get('/admin/queues/delivery').set('Authorization', `Bearer ${admin}`).set('Accept', 'application/json');

const counts = (pending: number, succeeded: number, failed: number, attempts: number) => ({ pending, succeeded, failed, attempts });
const ZERO = counts(0, 0, 0, 0);

async function insertEndpoint(propertyId: number, url: string): Promise<string> {
  const id = randomUUID();
  await world.pool.query(
    `INSERT INTO webhook_endpoints (id, property_id, url, events, secret_ct) VALUES ($1, $2, $3, $4, $5)`,
    [id, propertyId, url, ['export.completed', 'export.failed', 'night_audit.completed'], randomBytes(48)],
  );
  return id;
}

/**
 * A delivery as a worker leaves it: `ageHours` ago, in `status` after `attempts` attempts, with the
 * last attempt's outcome and, pending, its next attempt.
 */
async function insertDelivery(
  endpointId: string, propertyId: number, type: string, status: string, attempts: number, ageHours: number,
  last: { statusCode?: number; error?: string; nextAttempt?: string } = {},
): Promise<string> {
  const id = randomUUID();
  await world.pool.query(
    `INSERT INTO webhook_deliveries (id, endpoint_id, property_id, event_id, type, payload, status, attempts, created_at, updated_at,
                                     last_status_code, last_error, next_attempt_at)
     VALUES ($1, $2, $3, $4, $5, '{}', $6, $7, now() - make_interval(hours => $8), now() - make_interval(hours => $8), $9, $10, $11)`,
    [id, endpointId, propertyId, `evt_${randomUUID()}`, type, status, attempts, ageHours, last.statusCode ?? null, last.error ?? null, last.nextAttempt ?? null],
  );
  return id;
}

/** An export in `status` whose retention ends (or ended) `expiresInHours` from now. */
async function insertExport(propertyId: number, status: string, expiresInHours: number | null) {
  await world.pool.query(
    `INSERT INTO exports (id, property_id, request_digest, request, language, format, status, expires_at)
     VALUES ($1, $2, $3, '{}', 'en', 'PDF', $4, CASE WHEN $5::int IS NULL THEN NULL ELSE now() + make_interval(hours => $5::int) END)`,
    [randomUUID(), propertyId, randomUUID(), status, expiresInHours],
  );
}

async function insertBatch(propertyId: number, businessDate: string, status: string, expiresInHours: number) {
  await world.pool.query(
    `INSERT INTO night_audit_batches (id, property_id, business_date, format, status, expires_at)
     VALUES ($1, $2, $3, 'PDF', $4, now() + make_interval(hours => $5))`,
    [randomUUID(), propertyId, businessDate, status, expiresInHours],
  );
}

beforeAll(async () => {
  world = await createWorld({ worker: false, env: { METRICS_TOKEN } });
  admin = world.token({ scope: 'admin', properties: ['*'] });
  payments = world.token({ properties: [1] });
});
afterAll(async () => world?.close());

describe('/admin/queues/delivery (the delivery panel)', () => {
  it('is behind the dashboard check: 401 without a token, 403 without the admin scope, the panel with the cookie', async () => {
    expectError(await request(world.url).get('/admin/queues/delivery'), 401, 'UNAUTHENTICATED');
    expectError(await request(world.url).get('/admin/queues/delivery').set('Authorization', `Bearer ${payments}`), 403, 'ACCESS_DENIED');
    expectError(await request(world.url).get('/admin/queues/delivery').set('Authorization', `Bearer ${METRICS_TOKEN}`), 401, 'UNAUTHENTICATED');
    const page = await request(world.url).get('/admin/queues/delivery').set('Cookie', `folio_admin_token=${admin}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain('<section id="webhook-deliveries">');
    expect(page.text).toContain('<section id="retention">');
    // The dashboard links to it from its header.
    const board = await request(world.url).get('/admin/queues').set('Authorization', `Bearer ${admin}`);
    expect(board.text).toContain('"miscLinks":[{"text":"Delivery panel","url":"delivery"}]');
  });

  it('lists every event type and both retention kinds at 0 while the tables are empty', async () => {
    const res = await panelJson();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      webhookDeliveries: {
        events: ['export.completed', 'export.failed', 'night_audit.completed', 'night_audit.failed', 'invoice.issued', 'invoice.failed'].map((event) => ({ event, all: ZERO, last24h: ZERO })),
        total: { all: ZERO, last24h: ZERO },
        pending: [],
        failed: [],
      },
      retention: { exports: { all: 0, last24h: 0 }, nightAuditBatches: { all: 0, last24h: 0 } },
    });
  });

  it("shows the rows' figures over every property, all and the last 24 hours, though this process counted nothing", async () => {
    const [first, second] = [await insertEndpoint(1, 'https://hooks.example.com/folio'), await insertEndpoint(2, 'https://pms.example.org/hooks?site=<b>')];
    await insertDelivery(first, 1, 'export.completed', 'succeeded', 1, 1, { statusCode: 204 });
    await insertDelivery(first, 1, 'export.completed', 'succeeded', 3, 48, { statusCode: 204 });
    const oldFailure = await insertDelivery(second, 2, 'export.completed', 'failed', 8, 50, { statusCode: 500, error: 'answered 500' });
    const pending = await insertDelivery(second, 2, 'export.completed', 'pending', 2, 0, { error: 'connect ECONNREFUSED 10.0.0.7:443', nextAttempt: '2026-11-28T10:05:00Z' });
    const failure = await insertDelivery(first, 1, 'export.failed', 'failed', 8, 3, { error: 'the endpoint secret cannot be opened' });
    await insertDelivery(second, 2, 'night_audit.completed', 'succeeded', 1, 2, { statusCode: 200 });
    // Expired: two due an hour ago, one three days ago; a completed and a failed export are not.
    await insertExport(1, 'expired', -1);
    await insertExport(2, 'expired', -1);
    await insertExport(1, 'expired', -72);
    await insertExport(1, 'completed', 24);
    await insertExport(2, 'failed', null);
    await insertBatch(1, '2026-01-10', 'expired', -48);
    await insertBatch(2, '2026-01-11', 'expired', -2);
    await insertBatch(2, '2026-01-12', 'completed', 100);

    const res = await panelJson();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      webhookDeliveries: {
        events: [
          { event: 'export.completed', all: counts(1, 2, 1, 14), last24h: counts(1, 1, 0, 3) },
          { event: 'export.failed', all: counts(0, 0, 1, 8), last24h: counts(0, 0, 1, 8) },
          { event: 'night_audit.completed', all: counts(0, 1, 0, 1), last24h: counts(0, 1, 0, 1) },
          { event: 'night_audit.failed', all: ZERO, last24h: ZERO },
          { event: 'invoice.issued', all: ZERO, last24h: ZERO },
          { event: 'invoice.failed', all: ZERO, last24h: ZERO },
        ],
        total: { all: counts(1, 3, 2, 23), last24h: counts(1, 2, 1, 12) },
        // One by one: the pending with their next attempt, the failed the latest first.
        pending: [
          {
            id: pending, event: 'export.completed', propertyId: '2', endpoint: { id: second, url: 'https://pms.example.org/hooks?site=<b>' }, attempts: 2,
            lastStatusCode: null, lastError: 'connect ECONNREFUSED 10.0.0.7:443', nextAttemptAt: '2026-11-28T10:05:00.000Z', updatedAt: expect.any(String),
          },
        ],
        failed: [
          {
            id: failure, event: 'export.failed', propertyId: '1', endpoint: { id: first, url: 'https://hooks.example.com/folio' }, attempts: 8,
            lastStatusCode: null, lastError: 'the endpoint secret cannot be opened', nextAttemptAt: null, updatedAt: expect.any(String),
          },
          {
            id: oldFailure, event: 'export.completed', propertyId: '2', endpoint: { id: second, url: 'https://pms.example.org/hooks?site=<b>' }, attempts: 8,
            lastStatusCode: 500, lastError: 'answered 500', nextAttemptAt: null, updatedAt: expect.any(String),
          },
        ],
      },
      retention: { exports: { all: 3, last24h: 2 }, nightAuditBatches: { all: 2, last24h: 1 } },
    });

    const html = await request(world.url).get('/admin/queues/delivery').set('Authorization', `Bearer ${admin}`);
    const cells = (...values: number[]) => values.map((value) => `<td class="n">${value}</td>`).join('');
    expect(html.text).toContain(`<tr><td>export.completed</td>${cells(1, 2, 1, 14, 1, 1, 0, 3)}</tr>`);
    expect(html.text).toContain(`<tr><td>total</td>${cells(1, 3, 2, 23, 1, 2, 1, 12)}</tr>`);
    expect(html.text).toContain(`<tr><td>exports</td>${cells(3, 2)}</tr>`);
    expect(html.text).toContain(`<tr><td>night-audit batches</td>${cells(2, 1)}</tr>`);
    // Each unfinished delivery: status, event, endpoint (escaped), property, attempts, last error, next attempt.
    expect(html.text).toContain('<p>1 pending, 2 failed: the pending by their next attempt, the failed the latest first. Times in UTC.</p>');
    expect(html.text).toContain(
      '<tr><td>pending</td><td>export.completed</td><td class="url">https://pms.example.org/hooks?site=&#60;b&#62;</td><td class="n">2</td><td class="n">2</td>' +
        '<td>connect ECONNREFUSED 10.0.0.7:443</td><td>2026-11-28T10:05:00.000Z</td></tr>',
    );
    expect(html.text).toContain(
      '<tr><td>failed</td><td>export.failed</td><td class="url">https://hooks.example.com/folio</td><td class="n">1</td><td class="n">8</td>' +
        '<td>the endpoint secret cannot be opened</td><td>—</td></tr>',
    );

    // The API's own registry has no delivery sample: the counters live in the worker that sends.
    const metrics = await request(world.url).get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    expect(metrics.status).toBe(200);
    expect(metrics.text).not.toMatch(/^webhook_deliveries_total\{/m);
  });
});
