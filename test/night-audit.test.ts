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
import { startWorker, type TRunningWorker } from '@folio-vault/worker/worker';
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

async function importLedger(target: TWorld, body: object) {
  const res = await request(target.url).post('/accounting/v1.0/import').set('Authorization', `Bearer ${target.token({ properties: [1, 2] })}`).set('X-Property-Id', '1').send(body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const auth = (target: TWorld, property = '1') => ({ Authorization: `Bearer ${target.token({ properties: [1, 2] })}`, 'X-Property-Id': property });

async function untilFinished(target: TWorld, batchId: string) {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const res = await request(target.url).get(`/fiscal-document/v1/night-audit/exports/${batchId}`).set(auth(target));
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
  await importLedger(world, LEDGER);
  await importLedger(idle, LEDGER);
});
afterAll(async () => {
  await lateWorker?.close();
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
    const queue = new Queue(QUEUE_NAMES.export, { connection: idle.redis, prefix: idle.config.QUEUE_PREFIX });
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
    const exports = new Queue(QUEUE_NAMES.export, { connection: world.redis, prefix: world.config.QUEUE_PREFIX });
    try {
      const { batchId } = await startNightAudit(world.pool, flows, '1', '2026-11-22', 'PDF', undefined, 2);
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
