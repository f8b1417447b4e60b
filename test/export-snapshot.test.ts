import type pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZFolioExportRequest } from '@folio-vault/shared/exports/schemas';
import { buildFolioDocument } from '@folio-vault/worker/exports/build-document';
import { createWorld, type TWorld } from './support/world.js';

/**
 * An export reads its document from one snapshot of the ledger (docs/export.md#flow): an import
 * that commits while the rows are being read in keyset batches is not in the document, whatever
 * it moved. The import is made to land exactly between the first and the second batch: the pool the
 * document reads through runs it (through the real API, committed) before it sends the second
 * batch's statement.
 */
const SOURCE = { sourceKind: 'RESERVATION', sourceId: '100' } as const;

const tx = (id: number, hour: number) => ({
  id, folioId: 11, sourceKind: 'RESERVATION', sourceId: 100, transactionDatetime: `2026-11-21T${String(hour).padStart(2, '0')}:00:00Z`,
  serviceDate: '2026-11-21', internalTransactionCode: '1000', internalCodeGroup: 'ROOM_REVENUE_RATE', description: `Night ${id}`,
  quantity: 1, amount: '100.00', currency: 'EUR', posted: true,
});

const LEDGER = {
  property: { id: 1, name: 'Hotel Instantánea', currency: 'EUR', timezone: 'UTC', gatewayMode: 'test', language: 'en' },
  folios: [{ id: 11, sourceKind: 'RESERVATION', sourceId: 100, name: 'Guest folio' }],
  // Six rows of 100.00, one an hour from 10:00.
  transactions: [1, 2, 3, 4, 5, 6].map((id) => tx(id, 9 + id)),
};

const isBatchStatement = (query: unknown) => {
  const text = typeof query === 'string' ? query : (query as { text?: unknown } | undefined)?.text;
  return typeof text === 'string' && text.includes('FROM (SELECT * FROM transactions t WHERE');
};

/**
 * `pool`, with `hook` run (and awaited) once, before the second batch statement of the rows is sent,
 * whether the statement goes through the pool or a client it lent.
 */
function hookBeforeSecondBatch(pool: pg.Pool, hook: () => Promise<void>): pg.Pool {
  let batches = 0;
  const gate = async (query: unknown) => {
    if (isBatchStatement(query) && ++batches === 2) await hook();
  };
  const gated = <T extends object>(target: T, extra: (prop: string | symbol) => unknown): T =>
    new Proxy(target, {
      get(object, prop) {
        const special = extra(prop);
        if (special) return special;
        if (prop === 'query') {
          return async (...args: unknown[]) => {
            await gate(args[0]);
            return (object as unknown as { query: (...a: unknown[]) => Promise<unknown> }).query(...args);
          };
        }
        const value = Reflect.get(object, prop) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(object) : value;
      },
    });
  return gated(pool, (prop) =>
    prop === 'connect' ? async () => gated(await pool.connect(), () => undefined) : undefined,
  );
}

describe('an export reads one snapshot of the ledger', () => {
  let world: TWorld;
  const auth = () => ({ Authorization: `Bearer ${world.token()}`, 'X-Property-Id': '1' });

  beforeAll(async () => {
    world = await createWorld({ worker: false });
    const res = await request(world.url).post('/accounting/v1.0/import').set(auth()).send(LEDGER);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
  afterAll(async () => world?.close());

  it('leaves out an import that moved a row already read between two batches: 6 rows and 600.00, as the ledger was', async () => {
    let imported = false;
    const pool = hookBeforeSecondBatch(world.pool, async () => {
      // Row 1 (read in the first batch, at 10:00) moves after every other row.
      const res = await request(world.url).post('/accounting/v1.0/import').set(auth()).send({ transactions: [tx(1, 18)] });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      imported = true;
    });
    const document = await buildFolioDocument(pool, '1', 'en', ZFolioExportRequest.parse(SOURCE), new Date(), undefined, { batchRows: 2 });
    expect(imported).toBe(true);
    const rows = document.folios.flatMap((folio) => folio.sections.flatMap((section) => section.rows));
    expect(rows.map((row) => [row.id, row.transactionDatetime])).toEqual([
      ['1', '2026-11-21T10:00:00.000Z'],
      ['2', '2026-11-21T11:00:00.000Z'],
      ['3', '2026-11-21T12:00:00.000Z'],
      ['4', '2026-11-21T13:00:00.000Z'],
      ['5', '2026-11-21T14:00:00.000Z'],
      ['6', '2026-11-21T15:00:00.000Z'],
    ]);
    expect(document.folios.map((folio) => folio.totals)).toEqual([{ charges: '600', payments: '0', balance: '600' }]);

    // The import did commit: the next document reads row 1 at its new place, still six rows.
    const after = await buildFolioDocument(world.pool, '1', 'en', ZFolioExportRequest.parse(SOURCE), new Date(), undefined, { batchRows: 2 });
    const afterRows = after.folios.flatMap((folio) => folio.sections.flatMap((section) => section.rows));
    expect(afterRows.map((row) => row.id)).toEqual(['2', '3', '4', '5', '6', '1']);
    expect(after.folios.map((folio) => folio.totals)).toEqual([{ charges: '600', payments: '0', balance: '600' }]);
  });
});
