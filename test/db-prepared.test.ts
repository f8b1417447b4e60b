import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NAMED_TEXTS, namePreparedStatements, prepared } from '@folio-vault/shared/db/prepared';
import { importLedger } from '@folio-vault/shared/ledger/import-ledger';
import { pageOfTransactions } from '@folio-vault/shared/ledger/ledger-store';
import { ZImportRequest } from '@folio-vault/shared/ledger/schemas';
import type { TTransactionFilter } from '@folio-vault/shared/ledger/transaction-filter';
import { createDatabase } from './support/world.js';

/**
 * Named statements (packages/shared/src/db/prepared.ts, a kept performance measure): one name per
 * distinct text, so statements built from parts share a connection without node-postgres refusing
 * a name reused for another text; none while the measure is off; and the ledger's page query,
 * prepared once per connection, answers the same rows after PostgreSQL switches it to a generic
 * plan (after five executions) as on its first run.
 */
let pool: pg.Pool;

const row = (id: number, minute: number, group: string, amount: string, posted: boolean) => ({
  id, folioId: 1, sourceKind: 'RESERVATION', sourceId: 7, transactionDatetime: `2026-03-27T10:${String(minute).padStart(2, '0')}:00Z`,
  serviceDate: '2026-03-27', internalTransactionCode: 'X', internalCodeGroup: group, description: `Row ${id}`, quantity: '1', amount,
  currency: 'EUR', posted, ...(group === 'PAYMENT' ? { paymentMethod: 'cash' } : {}),
});

beforeAll(async () => {
  const database = await createDatabase();
  // One connection: every call below meets the statements the previous ones prepared.
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
  await importLedger(
    pool,
    '1',
    ZImportRequest.parse({
      property: { id: 1, name: 'Hotel', currency: 'EUR', timezone: 'UTC', gatewayMode: 'test' },
      folios: [{ id: 1, sourceKind: 'RESERVATION', sourceId: 7, name: 'Main' }],
      transactions: [
        row(1, 5, 'ROOM_REVENUE_RATE', '100.10', true),
        row(2, 1, 'PAYMENT', '-50.05', true),
        row(3, 9, 'ITEM_SERVICE', '4.20', false),
        row(4, 3, 'ROOM_REVENUE_RATE', '100.10', true),
      ],
    }),
    async () => new Map(),
  );
});
afterAll(async () => {
  await pool?.end();
});

describe('prepared()', () => {
  it('names a text the same way each time, and two texts two ways, under the given prefix', () => {
    const first = prepared('test', 'SELECT 1 WHERE $1::int = 1', [1]);
    expect(prepared('test', 'SELECT 1 WHERE $1::int = 1', [2]).name).toBe(first.name);
    expect(prepared('test', 'SELECT 2 WHERE $1::int = 1', [1]).name).not.toBe(first.name);
    expect(first.name).toMatch(/^test-[\w-]{16}$/);
    expect(first.values).toEqual([1]);
  });

  it('names nothing while the measure is off (PERFORMANCE_MEASURES_OFF=prepared-statements)', () => {
    namePreparedStatements(false);
    try {
      expect(prepared('test', 'SELECT 1 WHERE $1::int = 1', [3])).toEqual({ text: 'SELECT 1 WHERE $1::int = 1', values: [3] });
    } finally {
      namePreparedStatements(true);
    }
    expect(prepared('test', 'SELECT 1 WHERE $1::int = 1', [3]).name).toMatch(/^test-[\w-]{16}$/);
  });

});

describe("the ledger's page query, prepared", () => {
  const filter: TTransactionFilter = { propertyId: '1', sourceKind: 'RESERVATION', sourceId: '7', includeVoided: true };
  const byTime = [{ field: 'transaction_datetime' as const, direction: 'asc' as const }, { field: 'id' as const, direction: 'asc' as const }];
  const ids = async (f: TTransactionFilter) => (await pageOfTransactions(pool, f, 'UTC', byTime, undefined, 10)).map((r) => r.id);

  it('answers the same rows on every run, past the switch to a generic plan, for two filters on one connection', async () => {
    for (let run = 0; run < 8; run += 1) {
      expect(await ids(filter)).toEqual(['2', '4', '1', '3']);
      expect(await ids({ ...filter, posted: true })).toEqual(['2', '4', '1']);
    }
    const statements = await pool.query<{ name: string }>(`SELECT name FROM pg_prepared_statements WHERE name LIKE 'ledger-page-%' ORDER BY name`);
    // Two filters, two texts: two statements, each prepared once on this connection.
    expect(statements.rows).toHaveLength(2);
  });

  it('continues after a keyset position with its own statement', async () => {
    const page = await pageOfTransactions(pool, filter, 'UTC', byTime, undefined, 2);
    const after = byTime.map((_, i) => page[1]![`sort_${i}`] ?? null);
    for (let run = 0; run < 7; run += 1) {
      expect((await pageOfTransactions(pool, filter, 'UTC', byTime, after, 10)).map((r) => r.id)).toEqual(['1', '3']);
    }
  });
});

// Last: it fills the process's memo of named texts.
describe('prepared() past its bound', () => {
  it(`names the first ${NAMED_TEXTS} distinct texts of a process and runs later ones unnamed`, () => {
    const named = prepared('test', 'SELECT 0', []).name;
    for (let i = 1; i <= NAMED_TEXTS; i += 1) prepared('test', `SELECT ${i}`, []);
    const late = prepared('test', 'SELECT -1', [7]);
    expect(late).toEqual({ text: 'SELECT -1', values: [7] });
    expect(late.name).toBeUndefined();
    // A text named before keeps its name.
    expect(prepared('test', 'SELECT 0', []).name).toBe(named);
  });
});
