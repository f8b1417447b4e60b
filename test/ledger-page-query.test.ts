import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importLedger } from '@folio-vault/shared/ledger/import-ledger';
import { pageOfTransactions } from '@folio-vault/shared/ledger/ledger-store';
import { ZImportRequest } from '@folio-vault/shared/ledger/schemas';
import type { TTransactionFilter } from '@folio-vault/shared/ledger/transaction-filter';
import { createDatabase } from './support/world.js';

/**
 * The ledger's page query (pageOfTransactions), built from parts (filters, sort keys, a keyset
 * position), run again and again on one connection: it answers the same rows on every run.
 */
let pool: pg.Pool;

const row = (id: number, minute: number, group: string, amount: string, posted: boolean) => ({
  id, folioId: 1, sourceKind: 'RESERVATION', sourceId: 7, transactionDatetime: `2026-03-27T10:${String(minute).padStart(2, '0')}:00Z`,
  serviceDate: '2026-03-27', internalTransactionCode: 'X', internalCodeGroup: group, description: `Row ${id}`, quantity: '1', amount,
  currency: 'EUR', posted, ...(group === 'PAYMENT' ? { paymentMethod: 'cash' } : {}),
});

beforeAll(async () => {
  const database = await createDatabase();
  // One connection: every call below runs where the previous ones ran.
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

describe("the ledger's page query", () => {
  const filter: TTransactionFilter = { propertyId: '1', sourceKind: 'RESERVATION', sourceId: '7', includeVoided: true };
  const byTime = [{ field: 'transaction_datetime' as const, direction: 'asc' as const }, { field: 'id' as const, direction: 'asc' as const }];
  const ids = async (f: TTransactionFilter) => (await pageOfTransactions(pool, f, 'UTC', byTime, undefined, 10)).map((r) => r.id);

  it('answers the same rows on every run, for two filters on one connection', async () => {
    for (let run = 0; run < 8; run += 1) {
      expect(await ids(filter)).toEqual(['2', '4', '1', '3']);
      expect(await ids({ ...filter, posted: true })).toEqual(['2', '4', '1']);
    }
  });

  it('continues after a keyset position', async () => {
    const page = await pageOfTransactions(pool, filter, 'UTC', byTime, undefined, 2);
    const after = byTime.map((_, i) => page[1]![`sort_${i}`] ?? null);
    for (let run = 0; run < 7; run += 1) {
      expect((await pageOfTransactions(pool, filter, 'UTC', byTime, after, 10)).map((r) => r.id)).toEqual(['1', '3']);
    }
  });
});
