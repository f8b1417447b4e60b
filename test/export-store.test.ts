import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExportStore, type TNewExport } from '@folio-vault/shared/exports/export-store';
import { webhookEvent } from '@folio-vault/shared/webhooks/events';
import { createDatabase } from './support/world.js';

/**
 * The export record's statements (packages/shared/src/exports/export-store.ts) that decide between
 * outcomes: queue() (queued, joined or full, under the property's lock), start() (running, or the
 * stored result of an export a previous delivery completed), and the ends, which record their
 * webhook deliveries in the same transaction.
 */
let pool: pg.Pool;
let store: ExportStore;

beforeAll(async () => {
  const database = await createDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  store = new ExportStore(pool);
});
afterAll(async () => {
  await pool?.end();
});

const request = (sourceId: string) => ({ sourceKind: 'RESERVATION' as const, sourceId, format: 'PDF' as const });
const record = (propertyId: string, sourceId: string): TNewExport => ({ exportId: randomUUID(), propertyId, digest: `digest-${sourceId}`, language: 'en', request: request(sourceId) as TNewExport['request'] });
const statusOf = async (exportId: string) => (await pool.query<{ status: string }>('SELECT status FROM exports WHERE id = $1', [exportId])).rows[0]?.status;

describe('ExportStore.queue', () => {
  it('queues a new export, joins an identical one in flight even at the cap, and refuses a different one past the cap', async () => {
    const first = record('71', 'a');
    expect(await store.queue(first, 2)).toEqual({ kind: 'queued', exportId: first.exportId, status: 'queued' });
    expect(await statusOf(first.exportId)).toBe('queued');

    const identical = { ...record('71', 'a'), exportId: randomUUID() };
    expect(await store.queue(identical, 2)).toEqual({ kind: 'joined', exportId: first.exportId, status: 'queued' });
    expect(await statusOf(identical.exportId)).toBeUndefined();

    const second = record('71', 'b');
    expect(await store.queue(second, 2)).toEqual({ kind: 'queued', exportId: second.exportId, status: 'queued' });
    // At the cap of 2: an identical request still joins, a different one is refused and not recorded.
    await store.start(second.exportId);
    expect(await store.queue({ ...record('71', 'b'), exportId: randomUUID() }, 2)).toEqual({ kind: 'joined', exportId: second.exportId, status: 'running' });
    const third = record('71', 'c');
    expect(await store.queue(third, 2)).toEqual({ kind: 'full' });
    expect(await statusOf(third.exportId)).toBeUndefined();
    // Another property has its own cap.
    const elsewhere = record('72', 'c');
    expect(await store.queue(elsewhere, 2)).toEqual({ kind: 'queued', exportId: elsewhere.exportId, status: 'queued' });
  });

  it("waits for the property's lock and then counts the export committed while it waited", async () => {
    // Another API process holds the lock and inserts the property's only slot, not yet committed.
    const other = await pool.connect();
    const held = record('75', 'held');
    try {
      await other.query('BEGIN');
      await other.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', ['exports-in-flight:75']);
      await other.query(`INSERT INTO exports (id, property_id, request_digest, request, language, format, status) VALUES ($1, 75, $2, '{}', 'en', 'PDF', 'queued')`, [
        held.exportId,
        held.digest,
      ]);
      const waiting = store.queue(record('75', 'late'), 1);
      // Still waiting for the lock: nothing decided yet.
      const early = await Promise.race([waiting, new Promise((resolve) => setTimeout(() => resolve('waiting'), 200))]);
      expect(early).toBe('waiting');
      await other.query('COMMIT');
      // The count runs after the lock is granted, so it sees the committed row: the cap of 1 is full.
      expect(await waiting).toEqual({ kind: 'full' });
    } finally {
      other.release();
    }
    expect((await pool.query('SELECT count(*)::int AS n FROM exports WHERE property_id = 75')).rows[0].n).toBe(1);
  });
});

describe('ExportStore.start', () => {
  it('marks a queued export running, and answers the stored result of one a previous delivery completed without touching it', async () => {
    const queued = record('73', 'a');
    await store.queue(queued, 10);
    expect(await store.start(queued.exportId)).toBeUndefined();
    expect(await statusOf(queued.exportId)).toBe('running');

    const result = { key: 'exports/73/x.pdf', filename: 'folio.pdf', size: 1234, sha256: 'ab'.repeat(32), pages: 2, rows: 30 };
    await store.complete(queued.exportId, result, 3600, webhookEvent('export.completed', queued.exportId, { exportId: queued.exportId, propertyId: '73', status: 'completed' }));
    expect(await store.start(queued.exportId)).toEqual(result);
    expect(await statusOf(queued.exportId)).toBe('completed');

    expect(await store.start(randomUUID())).toBeUndefined();
  });
});

describe('ExportStore.complete and fail with their webhook deliveries', () => {
  const endpoint = async (propertyId: number, events: string[], deleted = false) => {
    const id = randomUUID();
    await pool.query(`INSERT INTO webhook_endpoints (id, property_id, url, events, secret_ct, deleted_at) VALUES ($1, $2, 'https://hooks.example.com/x', $3, $4, $5)`, [
      id,
      propertyId,
      events,
      Buffer.alloc(48),
      deleted ? new Date() : null,
    ]);
    return id;
  };
  const eventOf = (type: 'export.completed' | 'export.failed', exportId: string, propertyId = '76') =>
    webhookEvent(type, exportId, { exportId, propertyId, status: type === 'export.completed' ? 'completed' : 'failed' });
  const deliveriesOf = async (eventId: string) =>
    (await pool.query<{ id: string; endpoint_id: string; type: string; status: string }>('SELECT id, endpoint_id, type, status FROM webhook_deliveries WHERE event_id = $1', [eventId])).rows;

  it('records one delivery per live subscribed endpoint with the status, once however often it runs, and none for a failure that changed nothing', async () => {
    const subscribed = await endpoint(76, ['export.completed', 'export.failed']);
    await endpoint(76, ['night_audit.completed']);
    await endpoint(76, ['export.completed'], true);
    await endpoint(77, ['export.completed']);
    const queued = record('76', 'a');
    await store.queue(queued, 10);
    await store.start(queued.exportId);
    const result = { key: 'exports/76/x.pdf', filename: 'folio.pdf', size: 1234, sha256: 'cd'.repeat(32), pages: 1, rows: 30 };

    const completed = eventOf('export.completed', queued.exportId);
    const recorded = await store.complete(queued.exportId, result, 3600, completed);
    expect(await deliveriesOf(completed.eventId)).toEqual([{ id: recorded.deliveryIds[0], endpoint_id: subscribed, type: 'export.completed', status: 'pending' }]);
    expect(recorded.deliveryIds).toHaveLength(1);
    expect(await statusOf(queued.exportId)).toBe('completed');

    // A second delivery of the job completes again: the event is the same, nothing more to send.
    expect(await store.complete(queued.exportId, result, 3600, eventOf('export.completed', queued.exportId))).toEqual({ deliveryIds: [] });
    expect(await deliveriesOf(completed.eventId)).toHaveLength(1);

    // A late failure of a completed export changes nothing and announces nothing.
    const failed = eventOf('export.failed', queued.exportId);
    expect(await store.fail(queued.exportId, 'late', failed)).toEqual({ deliveryIds: [] });
    expect(await deliveriesOf(failed.eventId)).toEqual([]);
    expect(await statusOf(queued.exportId)).toBe('completed');
  });

  it('fails an export in flight and records its export.failed in the same transaction', async () => {
    const subscribed = await endpoint(78, ['export.failed']);
    const queued = record('78', 'b');
    await store.queue(queued, 10);
    const failed = eventOf('export.failed', queued.exportId, '78');
    const recorded = await store.fail(queued.exportId, 'The file could not be written.', failed);
    expect(await statusOf(queued.exportId)).toBe('failed');
    expect((await deliveriesOf(failed.eventId)).map((row) => [row.id, row.endpoint_id])).toEqual([[recorded.deliveryIds[0], subscribed]]);
  });
});
