import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { FlowProducer, Queue } from 'bullmq';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNightAudit } from '@folio-vault/shared/night-audit/batches';
import { selectAuditSources, previousLocalDate } from '@folio-vault/shared/night-audit/selection';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { createPgPool } from '@folio-vault/shared/connections';
import { startWorker, type TRunningWorker } from '@folio-vault/worker/worker';
import { expectError, expectRetryAfter } from './support/abuse.js';
import { createWorld, type TWorld } from './support/world.js';

/**
 * Night-audit batches (docs/night-audit.md) through the real API, flow, workers and storage: which sources
 * (local day, midnight and DST), objects and manifest, re-runs, a batch in flight shared, a
 * failing source recorded without the batch hanging, the daily schedule.
 */
const run = promisify(execFile);
let world: TWorld;
let idle: TWorld;
let lateWorker: TRunningWorker | undefined;
/** Starts of one property at once: no worker at first, low start limit (CROWD_LIMIT a window). */
let crowd: TWorld;
let crowdWorker: TRunningWorker | undefined;
const CROWD_LIMIT = 12;
const CROWD_WINDOW_SECONDS = 600;

const tx = (id: number, sourceKind: string, sourceId: number, folioId: number, when: string, extra: Record<string, unknown> = {}) => ({
  id, folioId, sourceKind, sourceId, transactionDatetime: when, serviceDate: when.slice(0, 10), internalTransactionCode: '1000',
  internalCodeGroup: 'ROOM_REVENUE_RATE', description: `Row ${id}`, quantity: 1, amount: '10.00', currency: 'EUR', posted: true, ...extra,
});

/** Madrid (UTC+1 in November): 22:59Z on the 21st is 23:59 local on the 21st; 23:30Z is 00:30 on the 22nd. */
const LEDGER = {
  property: { id: 1, name: 'Hotel Auditoría', currency: 'EUR', timezone: 'Europe/Madrid', gatewayMode: 'test', language: 'es' },
  folios: [
    { id: 11, sourceKind: 'RESERVATION', sourceId: 100, name: 'Late night guest' },
    { id: 12, sourceKind: 'RESERVATION', sourceId: 200, name: 'After midnight guest' },
    { id: 13, sourceKind: 'HOUSE_ACCOUNT', sourceId: 900, name: 'Lobby bar' },
    { id: 14, sourceKind: 'RESERVATION', sourceId: 300, name: 'Quiet guest' },
  ],
  transactions: [
    tx(1, 'RESERVATION', 100, 11, '2026-11-19T10:00:00Z'),
    tx(2, 'RESERVATION', 100, 11, '2026-11-21T22:59:00Z'),
    tx(3, 'RESERVATION', 100, 11, '2026-11-22T10:00:00Z', { description: 'Next day charge' }),
    tx(4, 'RESERVATION', 200, 12, '2026-11-21T23:30:00Z'),
    tx(5, 'HOUSE_ACCOUNT', 900, 13, '2026-11-20T12:00:00Z', { description: 'Bar day before', internalCodeGroup: 'ITEM_SERVICE' }),
    tx(6, 'HOUSE_ACCOUNT', 900, 13, '2026-11-21T12:00:00Z', { description: 'Bar audited day', internalCodeGroup: 'ITEM_SERVICE' }),
    tx(7, 'RESERVATION', 300, 14, '2026-11-18T12:00:00Z'),
  ],
};

/** Another property's ledger: what its front desk reads while property 1 starts night audits. */
const PROPERTY_TWO = {
  property: { id: 2, name: 'Hotel Vecino', currency: 'EUR', timezone: 'Europe/Madrid', gatewayMode: 'test' },
  folios: [{ id: 21, sourceKind: 'RESERVATION', sourceId: 500, name: 'Neighbour guest' }],
  transactions: [tx(21, 'RESERVATION', 500, 21, '2026-11-21T10:00:00Z')],
};

async function importLedger(target: TWorld, body: object, property = '1') {
  const res = await request(target.url).post('/accounting/v1.0/import').set('Authorization', `Bearer ${target.token({ properties: [1, 2, 3] })}`).set('X-Property-Id', property).send(body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const auth = (target: TWorld, property = '1') => ({ Authorization: `Bearer ${target.token({ properties: [1, 2, 3] })}`, 'X-Property-Id': property });

async function untilFinished(target: TWorld, batchId: string, property = '1') {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const res = await request(target.url).get(`/fiscal-document/v1/night-audit/exports/${batchId}`).set(auth(target, property));
    expect(res.status).toBe(200);
    if (!['queued', 'running'].includes(res.body.status)) return res.body;
    await new Promise((r) => setTimeout(r, Math.min(50 * (attempt + 1), 250)));
  }
  throw new Error('the batch did not finish');
}

const objectPath = (target: TWorld, key: string) => join(resolve(target.config.STORAGE_DIR), key);

beforeAll(async () => {
  world = await createWorld({ env: { EXPORT_CONCURRENCY: '1' } });
  idle = await createWorld({ worker: false });
  crowd = await createWorld({
    worker: false,
    env: { NIGHT_AUDIT_RATE_LIMIT_PER_PROPERTY: String(CROWD_LIMIT), RATE_LIMIT_WINDOW_MS: String(CROWD_WINDOW_SECONDS * 1000) },
  });
  await importLedger(world, LEDGER);
  await importLedger(idle, LEDGER);
  await importLedger(crowd, LEDGER);
  await importLedger(crowd, PROPERTY_TWO, '2');
});
afterAll(async () => {
  await lateWorker?.close();
  await crowdWorker?.close();
  await crowd?.close();
  await world?.close();
  await idle?.close();
});

describe('which sources a business date selects', () => {
  it('takes the property-local day: 23:59 local is in, 00:30 the next day is out', async () => {
    expect(await selectAuditSources(world.pool, '1', '2026-11-21', 'Europe/Madrid')).toEqual([
      { sourceKind: 'HOUSE_ACCOUNT', sourceId: '900' },
      { sourceKind: 'RESERVATION', sourceId: '100' },
    ]);
    expect(await selectAuditSources(world.pool, '1', '2026-11-22', 'Europe/Madrid')).toEqual([
      { sourceKind: 'RESERVATION', sourceId: '100' },
      { sourceKind: 'RESERVATION', sourceId: '200' },
    ]);
  });

  it('counts the 25-hour day of a DST change whole (New York, 1 November 2026)', async () => {
    // 04:30Z on 2 November is 23:30 EST on 1 November (clocks went back at 06:00Z).
    expect(await selectAuditSources(world.pool, '1', '2026-11-01', 'America/New_York')).toEqual([]);
    await world.pool.query(
      `INSERT INTO transactions (property_id, id, folio_id, source_kind, source_id, transaction_datetime, service_date, internal_transaction_code,
         internal_code_group, description, quantity, amount, currency, posted, root_id)
       VALUES (7, 70, 71, 'RESERVATION', 700, '2026-11-02T04:30:00Z', '2026-11-01', '1000', 'ROOM_REVENUE_RATE', 'DST night', 1, 1, 'USD', true, 70),
              (7, 72, 71, 'RESERVATION', 701, '2026-11-01T04:10:00Z', '2026-11-01', '1000', 'ROOM_REVENUE_RATE', 'Just after midnight EDT', 1, 1, 'USD', true, 72)`,
    );
    expect(await selectAuditSources(world.pool, '7', '2026-11-01', 'America/New_York')).toEqual([
      { sourceKind: 'RESERVATION', sourceId: '700' },
      { sourceKind: 'RESERVATION', sourceId: '701' },
    ]);
    expect(await selectAuditSources(world.pool, '7', '2026-11-02', 'America/New_York')).toEqual([]);
    expect(await selectAuditSources(world.pool, '7', '2026-10-31', 'America/New_York')).toEqual([]);
  });

  it('names the previous local date for a scheduled run', () => {
    expect(previousLocalDate(new Date('2026-11-22T02:00:00Z'), 'Europe/Madrid')).toBe('2026-11-21');
    expect(previousLocalDate(new Date('2026-11-22T02:00:00Z'), 'America/Los_Angeles')).toBe('2026-11-20');
    expect(previousLocalDate(new Date('2026-03-01T12:00:00Z'), 'UTC')).toBe('2026-02-28');
  });
});

describe('a night-audit batch', () => {
  let batchId: string;
  let first: { files: Array<{ key: string; sha256: string; size: number; folioIds: string[]; pages: number; rows: number; sourceKind: string; sourceId: string }> };

  it('answers 202 with a status URL, exports every selected source and writes the manifest', async () => {
    const res = await request(world.url).post('/fiscal-document/v1/night-audit/exports').set(auth(world)).send({ businessDate: '2026-11-21' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    batchId = res.body.batchId;
    expect(res.body.statusUrl).toBe(`/fiscal-document/v1/night-audit/exports/${batchId}`);
    expect(res.headers.location).toBe(res.body.statusUrl);
    const status = await untilFinished(world, batchId);
    expect(status).toEqual({
      batchId, businessDate: '2026-11-21', format: 'PDF', status: 'completed', total: 2, completed: 2, failed: 0,
      manifestKey: 'night-audit/1/2026-11-21/manifest.json',
      // Kept NIGHT_AUDIT_RETENTION_DAYS (test/export-delivery.test.ts checks the span).
      expiresAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    first = JSON.parse(readFileSync(objectPath(world, status.manifestKey), 'utf8'));
    expect(first.files.map((f) => f.key)).toEqual(['night-audit/1/2026-11-21/HOUSE_ACCOUNT-900.pdf', 'night-audit/1/2026-11-21/RESERVATION-100.pdf']);
    for (const file of first.files) {
      const body = readFileSync(objectPath(world, file.key));
      expect(file.size).toBe(body.length);
      expect(file.sha256).toBe(createHash('sha256').update(body).digest('hex'));
      expect(file.pages).toBeGreaterThanOrEqual(1);
    }
    expect(first.files.find((f) => f.sourceKind === 'RESERVATION')).toMatchObject({ folioIds: ['11'], rows: 2 });
    expect(first.files.find((f) => f.sourceKind === 'HOUSE_ACCOUNT')).toMatchObject({ folioIds: ['13'], rows: 1 });
  });

  it('exports a reservation whole up to the end of the date, and a house account for that date only', async () => {
    const text = async (key: string) => (await run('pdftotext', ['-layout', objectPath(world, key), '-'])).stdout;
    const reservation = await text('night-audit/1/2026-11-21/RESERVATION-100.pdf');
    expect(reservation).toContain('Row 1');
    expect(reservation).toContain('Row 2');
    expect(reservation).not.toContain('Next day charge');
    expect(reservation).toContain('Reserva'); // the property's language (es)
    const house = await text('night-audit/1/2026-11-21/HOUSE_ACCOUNT-900.pdf');
    expect(house).toContain('Bar audited day');
    expect(house).not.toContain('Bar day before');
  });

  it('re-runs into the same keys: same batch id, no extra objects, nothing lost', async () => {
    const res = await request(world.url).post('/fiscal-document/v1/night-audit/exports').set(auth(world)).send({ businessDate: '2026-11-21' });
    expect(res.status).toBe(202);
    expect(res.body.batchId).toBe(batchId);
    const status = await untilFinished(world, batchId);
    expect(status).toMatchObject({ status: 'completed', total: 2, completed: 2, failed: 0 });
    const folder = objectPath(world, 'night-audit/1/2026-11-21');
    expect(readdirSync(folder).filter((name) => !name.endsWith('.tmp')).sort()).toEqual(['HOUSE_ACCOUNT-900.pdf', 'RESERVATION-100.pdf', 'manifest.json']);
    const second = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8'));
    expect(second.run).toBe(2);
    expect(second.files.map((f: { key: string }) => f.key)).toEqual(first.files.map((f) => f.key));
  });

  it("hides another property's batch (404) and checks the request (400 with paths)", async () => {
    expect((await request(world.url).get(`/fiscal-document/v1/night-audit/exports/${batchId}`).set(auth(world, '2'))).status).toBe(404);
    const bad = await request(world.url).post('/fiscal-document/v1/night-audit/exports').set(auth(world)).send({ businessDate: '2026-13-01', format: 'DOC', extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.fieldErrors.map((e: { path: string }) => e.path).sort()).toEqual(['businessDate', 'extra', 'format']);
    const notUuid = await request(world.url).get('/fiscal-document/v1/night-audit/exports/nope').set(auth(world));
    expect(notUuid.status).toBe(400);
  });
});

describe('a batch in flight, and a source that fails', () => {
  it('answers the same batch while it is queued, and records a failing source without hanging', async () => {
    // The object key of source 200's file is taken by a folder: its upload fails on every attempt.
    mkdirSync(join(objectPath(idle, 'night-audit/1/2026-11-22/RESERVATION-200.pdf'), 'blocker'), { recursive: true });
    const one = await request(idle.url).post('/fiscal-document/v1/night-audit/exports').set(auth(idle)).send({ businessDate: '2026-11-22' });
    const two = await request(idle.url).post('/fiscal-document/v1/night-audit/exports').set(auth(idle)).send({ businessDate: '2026-11-22' });
    expect(one.status).toBe(202);
    expect(two.body).toEqual({ ...one.body, status: 'queued' });
    const queue = new Queue(QUEUE_NAMES.nightAuditExport, { connection: idle.redis, prefix: idle.config.QUEUE_PREFIX });
    expect(await queue.getWaitingCount()).toBe(2);
    await queue.close();

    lateWorker = await startWorker(idle.config, idle.logger, { warmRenderProcesses: false });
    const status = await untilFinished(idle, one.body.batchId);
    expect(status).toMatchObject({ status: 'completed_with_failures', total: 2, completed: 1, failed: 1 });
    const manifest = JSON.parse(readFileSync(objectPath(idle, status.manifestKey), 'utf8'));
    expect(manifest.files.map((f: { key: string }) => f.key)).toEqual(['night-audit/1/2026-11-22/RESERVATION-100.pdf']);
    expect(manifest.failures).toEqual([
      { key: 'night-audit/1/2026-11-22/RESERVATION-200.pdf', sourceKind: 'RESERVATION', sourceId: '200', error: expect.any(String) },
    ]);
  });
});

describe('a job of several sources', () => {
  it('exports the good ones once, retries only the failing one, and records it failed after its attempts', async () => {
    // One job for both sources of 2026-11-22; source 200's key is taken by a folder, so its upload
    // fails on each of the job's 3 attempts, while source 100 is exported on the first.
    mkdirSync(join(objectPath(world, 'night-audit/1/2026-11-22/RESERVATION-200.pdf'), 'blocker'), { recursive: true });
    const flows = new FlowProducer({ connection: world.redis, prefix: world.config.QUEUE_PREFIX });
    const exports = new Queue(QUEUE_NAMES.nightAuditExport, { connection: world.redis, prefix: world.config.QUEUE_PREFIX });
    try {
      const { batchId } = await startNightAudit(world.pool, flows, '1', '2026-11-22', 'PDF', { chunkSize: 2 });
      const status = await untilFinished(world, batchId);
      expect(status).toMatchObject({ status: 'completed_with_failures', total: 2, completed: 1, failed: 1 });
      const manifest = JSON.parse(readFileSync(objectPath(world, status.manifestKey), 'utf8'));
      expect(manifest.files.map((f: { key: string }) => f.key)).toEqual(['night-audit/1/2026-11-22/RESERVATION-100.pdf']);
      expect(manifest.failures).toEqual([
        { key: 'night-audit/1/2026-11-22/RESERVATION-200.pdf', sourceKind: 'RESERVATION', sourceId: '200', error: expect.any(String) },
      ]);

      const job = await exports.getJob(`na-${batchId}-1-1`);
      expect(job?.data.sources).toEqual([{ sourceKind: 'RESERVATION', sourceId: '100' }, { sourceKind: 'RESERVATION', sourceId: '200' }]);
      expect(job?.attemptsMade).toBe(3);
      expect(await job?.getState()).toBe('failed');
      expect(job?.failedReason).toMatch(/^1 of 1 night-audit sources failed: /);
      // Source 100 was rendered by the first attempt only; source 200 by each attempt.
      const rendered = (key: string) => world.logs.filter((line) => line.includes('"msg":"document rendered"') && line.includes(`"key":"${key}"`)).length;
      expect(rendered('night-audit/1/2026-11-22/RESERVATION-100.pdf')).toBe(1);
      expect(rendered('night-audit/1/2026-11-22/RESERVATION-200.pdf')).toBe(3);
    } finally {
      await flows.close();
      await exports.close();
    }
  });
});

describe('a re-run that selects fewer sources, and a manifest that cannot be written', () => {
  it('deletes the objects of sources the re-run no longer lists', async () => {
    await importLedger(world, {
      transactions: [tx(30, 'RESERVATION', 100, 11, '2026-11-25T10:00:00Z'), tx(31, 'HOUSE_ACCOUNT', 900, 13, '2026-11-25T11:00:00Z', { internalCodeGroup: 'ITEM_SERVICE' })],
    });
    const start = () => request(world.url).post('/fiscal-document/v1/night-audit/exports').set(auth(world)).send({ businessDate: '2026-11-25' });
    const first = await start();
    expect(first.status).toBe(202);
    expect(await untilFinished(world, first.body.batchId)).toMatchObject({ status: 'completed', total: 2, completed: 2 });
    const folder = objectPath(world, 'night-audit/1/2026-11-25');
    const files = () => readdirSync(folder).filter((name) => !name.endsWith('.tmp')).sort();
    expect(files()).toEqual(['HOUSE_ACCOUNT-900.pdf', 'RESERVATION-100.pdf', 'manifest.json']);

    // The house account's row moves to the next day: the re-run lists the reservation alone.
    await importLedger(world, { transactions: [tx(31, 'HOUSE_ACCOUNT', 900, 13, '2026-11-26T11:00:00Z', { internalCodeGroup: 'ITEM_SERVICE' })] });
    const second = await start();
    expect(second.body.batchId).toBe(first.body.batchId);
    expect(await untilFinished(world, second.body.batchId)).toMatchObject({ status: 'completed', total: 1, completed: 1, failed: 0 });
    expect(files()).toEqual(['RESERVATION-100.pdf', 'manifest.json']);
    const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8'));
    expect(manifest.files.map((f: { key: string }) => f.key)).toEqual(['night-audit/1/2026-11-25/RESERVATION-100.pdf']);
    const items = await world.pool.query('SELECT source_kind, status FROM night_audit_items WHERE batch_id = $1 ORDER BY source_kind', [second.body.batchId]);
    expect(items.rows).toEqual([{ source_kind: 'RESERVATION', status: 'completed' }]);
  });

  it('ends the batch failed with night_audit.failed when its manifest job fails for good', async () => {
    await importLedger(world, {
      property: { ...LEDGER.property, id: 3, name: 'Hotel Manifiesto' },
      folios: [{ id: 31, sourceKind: 'RESERVATION', sourceId: 310, name: 'Manifest guest' }],
      transactions: [tx(41, 'RESERVATION', 310, 31, '2026-11-21T10:00:00Z')],
    }, '3');
    await world.pool.query(
      `INSERT INTO webhook_endpoints (id, property_id, url, events, secret_ct) VALUES (gen_random_uuid(), 3, 'https://hooks.example.com/folio', $1, $2)`,
      [['night_audit.completed', 'night_audit.failed'], Buffer.alloc(48)],
    );
    // The manifest's key is taken by a folder: its upload fails on each of the job's 3 attempts.
    mkdirSync(join(objectPath(world, 'night-audit/3/2026-11-21/manifest.json'), 'blocker'), { recursive: true });
    const res = await request(world.url).post('/fiscal-document/v1/night-audit/exports').set(auth(world, '3')).send({ businessDate: '2026-11-21' });
    expect(res.status).toBe(202);
    const status = await untilFinished(world, res.body.batchId, '3');
    expect(status).toMatchObject({ status: 'failed', total: 1, completed: 1, failed: 0, manifestKey: null });
    const deliveries = await world.pool.query<{ type: string; payload: { data: Record<string, unknown> } }>('SELECT type, payload FROM webhook_deliveries WHERE property_id = 3');
    expect(deliveries.rows.map((row) => row.type)).toEqual(['night_audit.failed']);
    expect(deliveries.rows[0]!.payload.data).toMatchObject({ batchId: res.body.batchId, propertyId: '3', status: 'failed', error: expect.stringMatching(/^The manifest could not be written: /) });
  });
});

describe('night-audit starts of one property at once', () => {
  const start = (businessDate: string) => request(crowd.url).post('/fiscal-document/v1/night-audit/exports').set(auth(crowd)).send({ businessDate });
  const inFlight = async () =>
    (
      await crowd.pool.query<{ dispatched: number; waiting: number }>(
        `SELECT count(*) FILTER (WHERE dispatched)::int AS dispatched, count(*) FILTER (WHERE NOT dispatched)::int AS waiting
           FROM night_audit_batches WHERE property_id = 1 AND status IN ('queued', 'running')`,
      )
    ).rows[0]!;

  it('answers 40 starts 202 or 429 with Retry-After (never 5xx), keeps another property readable, and runs at most 4 batches at once', async () => {
    const dates = Array.from({ length: 40 }, (_, i) => new Date(Date.UTC(2026, 9, 1 + i)).toISOString().slice(0, 10));
    const read = () =>
      request(crowd.url).post('/accounting/v1.0/folios/transactions').set(auth(crowd, '2')).send({ sourceKind: 'RESERVATION', sourceId: '500' });
    const [starts, reads] = await Promise.all([Promise.all(dates.map(start)), Promise.all(Array.from({ length: 8 }, read))]);

    expect(reads.map((res) => res.status)).toEqual(Array.from({ length: 8 }, () => 200));
    expect(starts.filter((res) => res.status >= 500).map((res) => `${res.status} ${JSON.stringify(res.body)}`)).toEqual([]);
    const accepted = starts.filter((res) => res.status === 202);
    const limited = starts.filter((res) => res.status === 429);
    expect(accepted).toHaveLength(CROWD_LIMIT);
    expect(limited).toHaveLength(40 - CROWD_LIMIT);
    for (const res of limited) {
      expectError(res, 429, 'RATE_LIMITED');
      expectRetryAfter(res, CROWD_WINDOW_SECONDS);
    }
    expect(accepted.map((res) => res.body.status)).toEqual(Array.from({ length: CROWD_LIMIT }, () => 'queued'));
    // NIGHT_AUDIT_MAX_RUNNING_PER_PROPERTY (4): four batches handed to the queue, the others wait.
    expect(await inFlight()).toEqual({ dispatched: 4, waiting: CROWD_LIMIT - 4 });
    const manifests = new Queue(QUEUE_NAMES.nightAudit, { connection: crowd.redis, prefix: crowd.config.QUEUE_PREFIX });
    try {
      const counts = await manifests.getJobCounts('waiting', 'waiting-children', 'prioritized', 'active', 'delayed');
      expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(4);
    } finally {
      await manifests.close();
    }

    // A worker runs them: each batch that ends hands its place to the next one waiting.
    crowdWorker = await startWorker(crowd.config, crowd.logger, { warmRenderProcesses: false });
    const batchIds = accepted.map((res) => res.body.batchId as string);
    for (let attempt = 0; attempt < 600; attempt += 1) {
      expect((await inFlight()).dispatched).toBeLessThanOrEqual(4);
      const done = await crowd.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM night_audit_batches WHERE id = ANY($1::uuid[]) AND status = 'completed'`,
        [batchIds],
      );
      if (done.rows[0]!.n === CROWD_LIMIT) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await inFlight()).toEqual({ dispatched: 0, waiting: 0 });
    for (const batchId of batchIds) expect((await untilFinished(crowd, batchId)).status).toBe('completed');
  });

  it("waits for a property's own earlier start without a pool connection: one held connection however many starts", async () => {
    // Another dispatcher of property 2 (a worker handing out its next batch) holds the property's lock.
    const holder = await crowd.pool.connect();
    const advisoryWaiters = async () =>
      (
        await crowd.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
        )
      ).rows[0]!.n;
    let starts: Promise<request.Response[]> | undefined;
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', ['night-audit-property:2']);
      const dates = Array.from({ length: 11 }, (_, i) => new Date(Date.UTC(2026, 6, 1 + i)).toISOString().slice(0, 10));
      starts = Promise.all(dates.map((businessDate) => request(crowd.url).post('/fiscal-document/v1/night-audit/exports').set(auth(crowd, '2')).send({ businessDate })));
      while ((await advisoryWaiters()) === 0) await new Promise((r) => setTimeout(r, 20));
      // Eleven starts of one property wait on one connection, not on ten (the API's whole pool):
      // another property's request still gets one.
      await new Promise((r) => setTimeout(r, 300));
      expect(await advisoryWaiters()).toBe(1);
      const other = await request(crowd.url).get('/fiscal-document/v1/night-audit/exports/00000000-0000-4000-8000-000000000000').set(auth(crowd, '1'));
      expect(other.status).toBe(404);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect((await starts!).map((res) => res.status)).toEqual(Array.from({ length: 11 }, () => 202));
  });

  it('starts on a pool of one connection: the start reads its sources on its own transaction', async () => {
    const single = createPgPool(world.ownerUrl, { max: 1 });
    const flows = new FlowProducer({ connection: world.redis, prefix: world.config.QUEUE_PREFIX });
    try {
      const started = await startNightAudit(single, flows, '1', '2026-11-19', 'PDF');
      expect(started).toMatchObject({ status: 'queued', started: true });
      expect(await untilFinished(world, started.batchId)).toMatchObject({ status: 'completed', total: 1, completed: 1, failed: 0 });
    } finally {
      await flows.close();
      await single.end();
    }
  });
});

describe('a night-audit-only worker (WORKER_QUEUES=night-audit)', () => {
  it('runs batches and never takes an on-demand export; a worker with folio-export does', async () => {
    const fleet = await createWorld({ env: { WORKER_QUEUES: 'night-audit', EXPORT_CONCURRENCY: '1' } });
    let exportWorker: TRunningWorker | undefined;
    const exports = new Queue(QUEUE_NAMES.export, { connection: fleet.redis, prefix: fleet.config.QUEUE_PREFIX });
    try {
      await importLedger(fleet, LEDGER);
      const exported = await request(fleet.url).post('/fiscal-document/v1/folios/export').set(auth(fleet)).set('Prefer', 'respond-async')
        .send({ sourceKind: 'RESERVATION', sourceId: '100' });
      expect(exported.status, JSON.stringify(exported.body)).toBe(202);
      const exportStatus = async () => (await request(fleet.url).get(`/fiscal-document/v1/folios/exports/${exported.body.exportId}`).set(auth(fleet))).body.status;

      // The worker runs a whole batch (its sources and its manifest) while the export waits.
      const batch = await request(fleet.url).post('/fiscal-document/v1/night-audit/exports').set(auth(fleet)).send({ businessDate: '2026-11-21' });
      expect(await untilFinished(fleet, batch.body.batchId)).toMatchObject({ status: 'completed', total: 2, completed: 2 });
      expect(await exportStatus()).toBe('queued');
      expect((await exports.getWaiting()).filter((job) => job.name === 'export-folio')).toHaveLength(1);

      exportWorker = await startWorker({ ...fleet.config, WORKER_QUEUES: ['folio-export'] }, fleet.logger, { warmRenderProcesses: false });
      for (let attempt = 0; attempt < 300 && (await exportStatus()) !== 'completed'; attempt += 1) await new Promise((r) => setTimeout(r, 100));
      expect(await exportStatus()).toBe('completed');
    } finally {
      await exports.close();
      await exportWorker?.close();
      await fleet.close();
    }
  }, 120_000);
});

describe('the daily schedule', () => {
  it('keeps one scheduler per property with its nightAuditTime and time zone, and removes it with the time', async () => {
    const queue = new Queue(QUEUE_NAMES.nightAudit, { connection: world.redis, prefix: world.config.QUEUE_PREFIX });
    try {
      await importLedger(world, { property: { ...LEDGER.property, nightAuditTime: '03:15' } });
      await importLedger(world, { property: { ...LEDGER.property, nightAuditTime: '03:15' } });
      const schedulers = await queue.getJobSchedulers();
      expect(schedulers).toHaveLength(1);
      expect(schedulers[0]).toMatchObject({ key: 'night-audit-1', pattern: '15 3 * * *', tz: 'Europe/Madrid' });
      await importLedger(world, { property: LEDGER.property });
      expect(await queue.getJobSchedulers()).toHaveLength(0);
    } finally {
      await queue.close();
    }
  });
});
