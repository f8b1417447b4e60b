import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TRunningWorker } from '@folio-vault/worker/worker';
import { until } from './support/faults.js';
import { createWorld, startTestWorker, type TWorld } from './support/world.js';

/**
 * An export has a size bound (EXPORT_MAX_ROWS, docs/export.md#size-bound): a request whose filter
 * selects more rows is refused at once with 413, and an export that was within the bound when
 * asked for but is past it when the worker reads its rows fails with that reason, before any
 * rendering.
 */
const EXPORT = '/fiscal-document/v1/folios/export';
const STATUS = '/fiscal-document/v1/folios/exports';
const SOURCE = { sourceKind: 'RESERVATION', sourceId: '100' } as const;

const tx = (id: number) => ({
  id, folioId: 11, sourceKind: 'RESERVATION', sourceId: 100, transactionDatetime: `2026-11-21T${String(9 + id).padStart(2, '0')}:00:00Z`,
  serviceDate: '2026-11-21', internalTransactionCode: '1000', internalCodeGroup: 'ROOM_REVENUE_RATE', description: `Night ${id}`,
  quantity: 1, amount: '100.00', currency: 'EUR', posted: true,
});

const ledger = (ids: number[]) => ({
  property: { id: 1, name: 'Hotel Cota', currency: 'EUR', timezone: 'UTC', gatewayMode: 'test', language: 'en' },
  folios: [{ id: 11, sourceKind: 'RESERVATION', sourceId: 100, name: 'Guest folio' }],
  transactions: ids.map(tx),
});

describe('the size bound of an export (EXPORT_MAX_ROWS=5)', () => {
  let world: TWorld;
  let worker: TRunningWorker | undefined;
  const auth = () => ({ Authorization: `Bearer ${world.token()}`, 'X-Property-Id': '1' });
  const importRows = async (ids: number[]) => {
    const res = await request(world.url).post('/accounting/v1.0/import').set(auth()).send(ledger(ids));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };

  beforeAll(async () => {
    // No worker at first: the second test starts one once the ledger has grown.
    world = await createWorld({ worker: false, env: { EXPORT_MAX_ROWS: '5' } });
    await importRows([1, 2, 3, 4, 5]);
  });
  afterAll(async () => {
    await worker?.close();
    await world?.close();
  });

  it('accepts a request that selects the bound, and the worker fails it with the reason when the ledger grew past it meanwhile', async () => {
    const started = await request(world.url).post(EXPORT).set(auth()).set('Prefer', 'respond-async').send(SOURCE);
    expect(started.status).toBe(202);
    await importRows([6]);
    worker = await startTestWorker(world.config, world.logger);
    const ended = await until(async () => {
      const res = await request(world.url).get(`${STATUS}/${started.body.exportId}`).set(auth());
      return ['completed', 'failed'].includes(res.body.status) ? (res.body as Record<string, unknown>) : undefined;
    }, 60_000, 'the export to end');
    expect([ended.status, ended.error]).toEqual([
      'failed',
      'The export selects 6 transactions; one document holds at most 5 (EXPORT_MAX_ROWS): narrow it with dateFrom/dateTo, folioIds or another filter. ' +
        'Gave up after 1 of 3 attempt(s).',
    ]);
    expect(world.logs.some((line) => line.includes('document rendered') && line.includes(String(started.body.exportId)))).toBe(false);
  });

  it('refuses a request whose filter selects more rows with 413 PAYLOAD_TOO_LARGE naming the count and the bound', async () => {
    const res = await request(world.url).post(EXPORT).set(auth()).send(SOURCE);
    expect([res.status, res.body.errorCode, res.body.errorDetails]).toEqual([
      413,
      'PAYLOAD_TOO_LARGE',
      'The export selects 6 transactions; one document holds at most 5 (EXPORT_MAX_ROWS): narrow it with dateFrom/dateTo, folioIds or another filter.',
    ]);
    // The count is the request's own filter: a narrower one is within the bound.
    const narrow = await request(world.url).post(EXPORT).set(auth()).set('Prefer', 'respond-async').send({ ...SOURCE, searchQuery: 'Night 6' });
    expect(narrow.status).toBe(202);
  });
});
