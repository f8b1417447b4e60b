import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FOLIO_A,
  FOLIO_B,
  SOURCE_ID,
  SUB_ROOM_101,
  SUB_ROOM_102,
  ids,
  importLedgerFixture,
  importOk,
  ledgerFolios,
  ledgerTransactions,
  type TLedgerTransaction,
} from './support/ledger-fixture.js';
import type { PoolClient } from 'pg';
import { exportFilter } from '@folio-vault/shared/exports/export-filter';
import { ZFolioExportRequest } from '@folio-vault/shared/exports/schemas';
import { selectTransactions } from '@folio-vault/shared/ledger/ledger-store';
import { withTieBreak } from '@folio-vault/shared/ledger/sort';
import { generatedPan } from '@folio-vault/test-kit/cards';
import { createWorld, type TWorld } from './support/world.js';

// POST /accounting/v1.0/folios/transactions (docs/ledger.md#listing) on the hand-made ledger of
// test/support/ledger-fixture.ts. Row numbers `n` name rows; their ids are 1000 + n.

let world: TWorld;
let token: string;

const BASE = 1000;
const id = (...numbers: number[]) => ids(BASE, ...numbers);
const FIXTURE = ledgerTransactions();
const ALL = FIXTURE.map((row) => row.id);
const SOURCE = { sourceId: SOURCE_ID, sourceKind: 'RESERVATION' };

/** A source with ids above 2^53, sent only as digit strings. */
const BIG_SOURCE = '9007199254740993';
const BIG_FOLIO = '9223372036854775807';
const BIG_SUB = '9223372036854775806';
const BIG_IDS = ['9007199254740993', '9007199254740995', '9223372036854775807'];

/** A second source of property 1 for the walk that inserts rows between pages. */
const INSERT_SOURCE = '5003';
const INSERT_BASE = 3000;

beforeAll(async () => {
  world = await createWorld({ worker: false });
  token = world.token({ properties: [1, 2] });
  await importLedgerFixture(world, token);
  await importOk(world, token, 1, {
    folios: [{ id: BIG_FOLIO, sourceKind: 'RESERVATION', sourceId: BIG_SOURCE, name: 'Big folio' }],
    transactions: BIG_IDS.map((bigId, index) => ({
      ...FIXTURE[0]!,
      id: bigId,
      folioId: BIG_FOLIO,
      sourceId: BIG_SOURCE,
      subSourceId: BIG_SUB,
      subSourceIdentifier: 'Big room',
      userId: '9223372036854775807',
      transactionDatetime: `2026-04-0${index + 1}T10:00:00Z`,
    })),
  });
  await importOk(world, token, 1, {
    folios: ledgerFolios({ sourceId: INSERT_SOURCE, folioA: '301', folioB: '302' }),
    transactions: ledgerTransactions({ sourceId: INSERT_SOURCE, idBase: INSERT_BASE, folioA: '301', folioB: '302' }),
  });
});
afterAll(async () => world?.close());

interface TView {
  id: string;
  propertyId: string;
  folioId: string;
  sourceId: string;
  subSourceId?: string;
  transactionDatetime: string;
  serviceDate: string;
  internalCodeGroup: string;
  description: string;
  notes?: string;
  quantity: number;
  amount: number;
  currency: string;
  posted: boolean;
  parentId?: string;
  rootId: string;
  isVoid: boolean;
  state?: string;
  userId?: string;
}
interface TTotals {
  count: number;
  totalDebit: number;
  totalCredit: number;
}
type TGroupTotals = TTotals & { quantity: number };
interface TListingBody {
  groups: Record<string, { transactions: TView[]; totals: TGroupTotals }>;
  nextPageToken: string | null;
  totals?: TTotals & { currency: string; currencyScale: number };
}

function list(body: Record<string, unknown>, options: { property?: string; token?: string } = {}) {
  return request(world.url)
    .post('/accounting/v1.0/folios/transactions')
    .set('Authorization', `Bearer ${options.token ?? token}`)
    .set('X-Property-Id', options.property ?? '1')
    .send(body);
}

const rowsOf = (body: TListingBody): TView[] => Object.values(body.groups).flatMap((group) => group.transactions);
const sorted = (values: string[]) => [...values].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));

/** One page with every matching row (limit 1100) of property 1's main source. */
async function listing(extra: Record<string, unknown> = {}, options: { property?: string } = {}): Promise<TListingBody> {
  const res = await list({ ...SOURCE, limit: 1100, ...extra }, options);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect((res.body as TListingBody).nextPageToken).toBeNull();
  return res.body as TListingBody;
}

async function idsOf(extra: Record<string, unknown>): Promise<string[]> {
  return sorted(rowsOf(await listing(extra)).map((row) => row.id));
}

function expectInvalid(res: request.Response, path: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.errorCode).toBe('INVALID_REQUEST');
  expect(res.body.id).toBe(res.headers['x-request-id']);
  expect(typeof res.body.errorDetails).toBe('string');
  expect(res.body.fieldErrors.map((error: { path: string }) => error.path)).toContain(path);
}

// --- an independent model of the contract, for orders and totals ---

type TSortField = 'transaction_datetime' | 'service_date' | 'id' | 'internal_code' | 'description' | 'notes' | 'quantity' | 'amount';
const SORT_FIELDS: TSortField[] = ['transaction_datetime', 'service_date', 'id', 'internal_code', 'description', 'notes', 'quantity', 'amount'];

const bytes = (value: string) => Buffer.from(value, 'utf8');
const sign = (value: number | bigint) => (value < 0 ? -1 : value > 0 ? 1 : 0);
/** Byte order for text (the contract's listing is the same on every server), numeric order for numbers. */
const COMPARE: Record<TSortField, (a: TLedgerTransaction, b: TLedgerTransaction) => number> = {
  transaction_datetime: (a, b) => sign(Date.parse(a.transactionDatetime) - Date.parse(b.transactionDatetime)),
  service_date: (a, b) => (a.serviceDate < b.serviceDate ? -1 : a.serviceDate > b.serviceDate ? 1 : 0),
  id: (a, b) => sign(BigInt(a.id) - BigInt(b.id)),
  internal_code: (a, b) => Buffer.compare(bytes(a.internalTransactionCode), bytes(b.internalTransactionCode)),
  description: (a, b) => Buffer.compare(bytes(a.description), bytes(b.description)),
  notes: (a, b) => Buffer.compare(bytes(a.notes ?? ''), bytes(b.notes ?? '')),
  quantity: (a, b) => sign(Number(a.quantity) - Number(b.quantity)),
  amount: (a, b) => sign(Number(a.amount) - Number(b.amount)),
};

function expectedOrder(rows: TLedgerTransaction[], keys: Array<{ field: TSortField; direction: 'asc' | 'desc' }>): string[] {
  return [...rows]
    .sort((a, b) => {
      for (const key of keys) {
        const c = COMPARE[key.field](a, b);
        if (c !== 0) return key.direction === 'asc' ? c : -c;
      }
      return COMPARE.id(a, b);
    })
    .map((row) => row.id);
}

const cents = (amount: string) => {
  const negative = amount.startsWith('-');
  const [whole = '0', fraction = ''] = amount.replace('-', '').split('.');
  const value = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return negative ? -value : value;
};
const CREDIT = new Set(['PAYMENT', 'ACCOUNTS_RECEIVABLE']);
function expectedTotals(rows: TLedgerTransaction[]): TTotals {
  let debit = 0;
  let credit = 0;
  for (const row of rows) {
    if (CREDIT.has(row.internalCodeGroup)) credit -= cents(row.amount);
    else debit += cents(row.amount);
  }
  return { count: rows.length, totalDebit: debit / 100, totalCredit: credit / 100 };
}
/** A group's totals add the quantity of its items (ITEM_SERVICE and ADDON rows; whole numbers in this fixture). */
const ITEMS = new Set(['ITEM_SERVICE', 'ADDON']);
function expectedGroupTotals(rows: TLedgerTransaction[]): TGroupTotals {
  const quantity = rows.filter((row) => ITEMS.has(row.internalCodeGroup)).reduce((sum, row) => sum + Number(row.quantity), 0);
  return { ...expectedTotals(rows), quantity };
}

const byNumber = (n: number) => FIXTURE.find((row) => row.id === String(BASE + n))!;
const madridDate = (instant: string) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Madrid', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(instant));

describe('the answer', () => {
  it('lists every row of the source in one default group, ids as strings, in the default order', async () => {
    const body = await listing();
    expect(Object.keys(body.groups)).toEqual(['default']);
    const rows = body.groups.default!.transactions;
    expect(rows.map((row) => row.id)).toEqual(expectedOrder(FIXTURE, [{ field: 'transaction_datetime', direction: 'asc' }]));
    for (const row of rows) {
      expect(typeof row.id).toBe('string');
      expect(typeof row.folioId).toBe('string');
      expect(typeof row.sourceId).toBe('string');
      expect(typeof row.rootId).toBe('string');
      expect(row.propertyId).toBe('1');
    }
    expect(body.totals).toBeUndefined();
  });

  it('answers a transaction with its fields, ids as strings and amounts as numbers', async () => {
    const row = rowsOf(await listing()).find((view) => view.id === id(19)[0]);
    expect(row).toEqual({
      id: '1019',
      propertyId: '1',
      folioId: FOLIO_A,
      sourceKind: 'RESERVATION',
      sourceId: SOURCE_ID,
      sourceIdentifier: 'RES-5001',
      subSourceId: SUB_ROOM_101,
      subSourceIdentifier: 'Room 101',
      // No stay was imported for this source: no reservation fields, the room is not archived.
      subSourceArchived: false,
      transactionDatetime: '2026-03-13T10:10:00.000Z',
      transactionDatetimePropertyTime: '2026-03-13T11:10:00+01:00',
      serviceDate: '2026-03-13',
      internalTransactionCode: 'PAY-VIS',
      internalCodeGroup: 'PAYMENT',
      transactionType: 'payment',
      paymentDetails: { paymentMethod: 'cards_visa' },
      allocatedPayments: [],
      description: 'Payment Visa ****1111',
      quantity: 1,
      amount: -150,
      currency: 'EUR',
      currencyScale: 2,
      posted: true,
      rootId: '1019',
      isVoid: false,
      readOnly: false,
      locked: false,
      lockedByFiscalDocuments: [],
      actions: [],
      guestName: null,
      userId: '12',
      // User 12 was never imported.
      user: { id: '12', firstName: '', lastName: '', email: '', type: 'UNKNOWN_USER' },
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('answers an empty default group when nothing matches', async () => {
    const res = await list({ ...SOURCE, searchQuery: 'no such description' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ groups: { default: { transactions: [], totals: { count: 0, quantity: 0, totalDebit: 0, totalCredit: 0 } } }, nextPageToken: null });
  });
});

describe('filters, each alone', () => {
  it('folioId keeps the rows of that folio', async () => {
    expect(await idsOf({ folioId: FOLIO_A })).toEqual(id(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 17, 18, 19, 20, 22, 30, 31));
    expect(await idsOf({ folioId: Number(FOLIO_B) })).toEqual(id(12, 13, 14, 15, 16, 21, 23, 40, 41));
    expect(await idsOf({ folioId: '999' })).toEqual([]);
  });

  it('posted is tri-state: true, false, absent and null', async () => {
    const pending = id(3, 9, 15, 20);
    expect(await idsOf({ posted: false })).toEqual(pending);
    expect(await idsOf({ posted: true })).toEqual(sorted(ALL.filter((row) => !pending.includes(row))));
    expect(await idsOf({})).toEqual(sorted(ALL));
    expect(await idsOf({ posted: null })).toEqual(sorted(ALL));
  });

  it.each<[string, number[]]>([
    ['product_123', [7, 8]],
    ['product_124', [9]],
    ['product_125', [30, 31]],
    ['product_999', []],
    ['tax_4', [4, 5]],
    ['tax_5', []],
    ['fee_9', [6]],
    ['fee_4', []],
    ['addon_55', [10]],
    ['custom_item_77', [11]],
    ['custom_item_78', [23]],
    ['bookable_resource_88', [12]],
    ['rate', [1, 2, 3]],
    ['roomRevenue_manual', [13]],
    ['roomRevenue_cancellation', [14]],
    ['roomRevenue_no_show', [15]],
    ['accountsReceivable', [16]],
    ['cash', [17, 40, 41]],
    ['ebanking', [18]],
    ['cards_visa', [19]],
    ['cards_master', [20]],
    ['pay_pal', [21]],
  ])('descriptionFilters [%s]', async (filter, expected) => {
    expect(await idsOf({ descriptionFilters: [filter] })).toEqual(id(...expected));
  });

  it('several descriptionFilters are OR-ed; an empty list or null filters nothing', async () => {
    expect(await idsOf({ descriptionFilters: ['rate', 'tax_4'] })).toEqual(id(1, 2, 3, 4, 5));
    expect(await idsOf({ descriptionFilters: ['cards_visa', 'pay_pal', 'product_123', 'bookable_resource_88'] })).toEqual(id(7, 8, 12, 19, 21));
    expect(await idsOf({ descriptionFilters: [] })).toEqual(sorted(ALL));
    expect(await idsOf({ descriptionFilters: null })).toEqual(sorted(ALL));
  });

  it('transactionDateFrom is inclusive at the exact instant, whatever the offset it is written in', async () => {
    expect(await idsOf({ transactionDateFrom: '2026-03-13T10:00:00Z' })).toEqual(id(16, 17, 18, 19, 20, 21));
    expect(await idsOf({ transactionDateFrom: '2026-03-13T11:00:00+01:00' })).toEqual(id(16, 17, 18, 19, 20, 21));
    expect(await idsOf({ transactionDateFrom: '2026-03-13T10:00:00.001Z' })).toEqual(id(18, 19, 20, 21));
  });

  it('transactionDateTo is inclusive at the exact instant', async () => {
    expect(await idsOf({ transactionDateTo: '2026-03-10T14:00:00Z' })).toEqual(id(1, 4, 6));
    expect(await idsOf({ transactionDateTo: '2026-03-10T15:00:00+01:00' })).toEqual(id(1, 4, 6));
    expect(await idsOf({ transactionDateTo: '2026-03-10T13:59:59.999Z' })).toEqual([]);
    expect(await idsOf({ transactionDateFrom: '2026-03-10T14:00:00Z', transactionDateTo: '2026-03-10T14:00:00Z' })).toEqual(id(1, 4, 6));
  });

  it('serviceDateFrom and serviceDateTo are inclusive', async () => {
    expect(await idsOf({ serviceDateFrom: '2026-03-13' })).toEqual(id(16, 17, 18, 19, 20, 21));
    expect(await idsOf({ serviceDateTo: '2026-03-10' })).toEqual(id(1, 4, 6, 7, 8));
    expect(await idsOf({ serviceDateFrom: '2026-03-12', serviceDateTo: '2026-03-12' })).toEqual(id(3, 13, 14, 15, 23, 40, 41));
  });

  it('subSourceIds keeps rows of those sub-sources', async () => {
    expect(await idsOf({ subSourceIds: [SUB_ROOM_101] })).toEqual(id(1, 2, 3, 4, 5, 7, 8, 19, 30, 31));
    expect(await idsOf({ subSourceIds: [Number(SUB_ROOM_102)] })).toEqual(id(9, 10, 13, 22));
    expect(await idsOf({ subSourceIds: [SUB_ROOM_101, SUB_ROOM_102] })).toEqual(id(1, 2, 3, 4, 5, 7, 8, 9, 10, 13, 19, 22, 30, 31));
    expect(await idsOf({ subSourceIds: ['424242'] })).toEqual([]);
  });

  it.each<[string, number[]]>([
    ['payment', [17, 18, 19, 20, 21, 40, 41]],
    ['PAYMENT', [17, 18, 19, 20, 21, 40, 41]],
    ['rOoM rAtE', [1, 2, 3]],
    ['ÑANDÚ', [11]],
    ['ñandú', [11]],
    ['РИТУАЛ', [9]],
    ['ωμέγα', [12]],
    ['朝食', [10]],
    ['50%', [30, 31]],
    ['100%', [14]],
    ['charge_late', [15]],
    ['****1111', [19]],
  ])('searchQuery %s is a case-insensitive, literal substring of the description', async (query, expected) => {
    expect(await idsOf({ searchQuery: query })).toEqual(id(...expected));
  });
});

describe('filters combined', () => {
  it('folioId + posted + searchQuery', async () => {
    expect(await idsOf({ folioId: FOLIO_A, posted: true, searchQuery: 'payment' })).toEqual(id(17, 18, 19));
  });

  it('descriptionFilters + posted', async () => {
    expect(await idsOf({ descriptionFilters: ['cash', 'cards_master'], posted: false })).toEqual(id(20));
  });

  it('serviceDate + subSourceIds', async () => {
    expect(await idsOf({ serviceDateFrom: '2026-03-11', serviceDateTo: '2026-03-11', subSourceIds: [SUB_ROOM_102] })).toEqual(id(9, 10, 22));
  });

  it('transaction date range + includeVoided false', async () => {
    const range = { transactionDateFrom: '2026-03-11T00:00:00Z', transactionDateTo: '2026-03-11T23:59:59Z' };
    expect(await idsOf(range)).toEqual(id(2, 5, 9, 10, 11, 12, 22, 30, 31));
    expect(await idsOf({ ...range, includeVoided: false })).toEqual(id(2, 5, 9, 10, 11, 12, 22));
  });

  it('folioId + descriptionFilters + transactionDateFrom', async () => {
    expect(await idsOf({ folioId: FOLIO_B, descriptionFilters: ['cash', 'pay_pal', 'accountsReceivable'], transactionDateFrom: '2026-03-13T00:00:00Z' })).toEqual(id(16, 21));
  });
});

describe('void chains', () => {
  it('asks "does this chain hold a void?" of the partial index of voids (migration 009)', async () => {
    // The chain_voided and includeVoided=false subquery, as transaction-view.ts and
    // transaction-filter.ts write it. With scans off the planner must take an index: the one it
    // takes is the index it would cost cheapest, the partial one of voids. The index this replaced
    // lost to the folio index before a table's first ANALYZE, at 10x the time per 1,000 rows.
    const client = await world.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      await client.query('SET LOCAL enable_bitmapscan = off');
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        'EXPLAIN SELECT t.id, EXISTS (SELECT 1 FROM transactions v WHERE v.property_id = t.property_id AND v.root_id = t.root_id AND v.is_void) FROM transactions t WHERE t.property_id = 1',
      );
      const subPlan = plan.rows.map((row) => row['QUERY PLAN']).filter((line) => / on transactions v\b/.test(line));
      expect(subPlan).toHaveLength(1);
      expect(subPlan[0]).toMatch(/Index Only Scan using transactions_voided_chains on transactions v/);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('includeVoided false leaves out whole chains: the voided original and the void', async () => {
    const kept = await idsOf({ includeVoided: false });
    expect(kept).toEqual(sorted(ALL.filter((row) => !id(30, 31, 40, 41).includes(row))));
  });

  it('includeVoided true (the default) keeps them; every row of the chain is VOIDED, the void names its chain', async () => {
    for (const extra of [{}, { includeVoided: true }, { includeVoided: null }]) {
      const rows = rowsOf(await listing(extra));
      expect(sorted(rows.map((row) => row.id))).toEqual(sorted(ALL));
      const byId = new Map(rows.map((row) => [row.id, row]));
      expect(byId.get('1030')).toMatchObject({ state: 'VOIDED', isVoid: false, rootId: '1030' });
      expect(byId.get('1031')).toMatchObject({ state: 'VOIDED', isVoid: true, parentId: '1030', rootId: '1030' });
      // The void with only a parentId joins the chain of what it voids.
      expect(byId.get('1040')).toMatchObject({ state: 'VOIDED', isVoid: false, rootId: '1040' });
      expect(byId.get('1041')).toMatchObject({ state: 'VOIDED', isVoid: true, parentId: '1040', rootId: '1040' });
      for (const row of rows.filter((view) => !id(30, 31, 40, 41).includes(view.id))) expect(row.state).toBeUndefined();
    }
  });

  it('includeVoided false drops a chain even when a filter keeps only its original', async () => {
    expect(await idsOf({ searchQuery: 'Payment cash deposit', posted: true })).toEqual(id(40, 41));
    expect(await idsOf({ transactionDateTo: '2026-03-12T18:00:00Z', descriptionFilters: ['cash'] })).toEqual(id(40));
    expect(await idsOf({ transactionDateTo: '2026-03-12T18:00:00Z', descriptionFilters: ['cash'], includeVoided: false })).toEqual([]);
  });
});

describe('validation', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['sourceId missing', { sourceId: undefined }, 'sourceId'],
    ['sourceKind missing', { sourceKind: undefined }, 'sourceKind'],
    ['sourceKind unknown', { sourceKind: 'ROOM' }, 'sourceKind'],
    ['sourceKind in lower case', { sourceKind: 'reservation' }, 'sourceKind'],
    ['sourceId 0', { sourceId: 0 }, 'sourceId'],
    ['sourceId with letters', { sourceId: '50a1' }, 'sourceId'],
    ['sourceId above int64', { sourceId: '9223372036854775808' }, 'sourceId'],
    ['folioId negative', { folioId: -1 }, 'folioId'],
    ['posted not a boolean', { posted: 'yes' }, 'posted'],
    ['limit 0', { limit: 0 }, 'limit'],
    ['limit 1101', { limit: 1101 }, 'limit'],
    ['limit fractional', { limit: 2.5 }, 'limit'],
    ['limit as a string', { limit: '10' }, 'limit'],
    ['transactionDateFrom not a date', { transactionDateFrom: 'yesterday' }, 'transactionDateFrom'],
    ['transactionDateFrom a date without a time', { transactionDateFrom: '2026-03-10' }, 'transactionDateFrom'],
    ['transactionDateTo without a time zone', { transactionDateTo: '2026-03-10T10:00:00' }, 'transactionDateTo'],
    ['serviceDateFrom month 13', { serviceDateFrom: '2026-13-01' }, 'serviceDateFrom'],
    ['serviceDateTo 30 February', { serviceDateTo: '2026-02-30' }, 'serviceDateTo'],
    ['serviceDateTo with a time', { serviceDateTo: '2026-03-10T00:00:00Z' }, 'serviceDateTo'],
    ['transactionDateFrom after transactionDateTo', { transactionDateFrom: '2026-03-11T00:00:00Z', transactionDateTo: '2026-03-10T23:59:59Z' }, 'transactionDateTo'],
    ['serviceDateFrom after serviceDateTo', { serviceDateFrom: '2026-03-12', serviceDateTo: '2026-03-11' }, 'serviceDateTo'],
    ['sort field unknown', { sort: [{ field: 'price', direction: 'asc' }] }, 'sort.0.field'],
    ['sort direction unknown', { sort: [{ field: 'amount', direction: 'up' }] }, 'sort.0.direction'],
    ['sort direction missing', { sort: [{ field: 'amount' }] }, 'sort.0.direction'],
    ['sort field twice', { sort: [{ field: 'amount', direction: 'asc' }, { field: 'amount', direction: 'desc' }] }, 'sort.1.field'],
    ['sort not a list', { sort: 'amount' }, 'sort'],
    ['sort key with an unknown field', { sort: [{ field: 'amount', direction: 'asc', nulls: 'first' }] }, 'sort.0.nulls'],
    ['unknown field', { folio: '101' }, 'folio'],
    ['groupBy unknown', { groupBy: 'room' }, 'groupBy'],
    ['groupBy in camelCase', { groupBy: 'serviceDate' }, 'groupBy'],
    ['subSourceIds with a non-id', { subSourceIds: ['7001', 'x'] }, 'subSourceIds.1'],
    ['includeVoided not a boolean', { includeVoided: 'no' }, 'includeVoided'],
    ['includeTotal not a boolean', { includeTotal: 1 }, 'includeTotal'],
    ['searchQuery over 200 characters', { searchQuery: 'x'.repeat(201) }, 'searchQuery'],
    ['searchQuery holding a card number', { searchQuery: generatedPan('51', 16) }, 'searchQuery'],
    ['descriptionFilters not a list', { descriptionFilters: 'rate' }, 'descriptionFilters'],
    ['pageToken malformed', { pageToken: 'not-a-token' }, 'pageToken'],
    ['pageToken of base64 garbage', { pageToken: Buffer.from('{"v":1}').toString('base64url') }, 'pageToken'],
  ])('%s → 400 at its path', async (_name, change, path) => {
    expectInvalid(await list({ ...SOURCE, ...change }), path);
  });

  it.each([
    'product_',
    'product_abc',
    'product_0',
    'product_9223372036854775808',
    'tax',
    'Rate',
    'RATE',
    'cash ',
    'Cash',
    'cards_amex',
    'paypal',
    'bookable_resource',
    'custom_item',
    'room_1',
    'fee_-1',
    '',
    'accounts_receivable',
    'roomRevenue_noshow',
  ])('descriptionFilter %j → 400 at descriptionFilters.<index>', async (filter) => {
    expectInvalid(await list({ ...SOURCE, descriptionFilters: ['rate', 'cash', filter] }), 'descriptionFilters.2');
  });

  it('reports every invalid descriptionFilter with its own index', async () => {
    const res = await list({ ...SOURCE, descriptionFilters: ['nope', 'rate', 'tax_x'] });
    expectInvalid(res, 'descriptionFilters.0');
    expectInvalid(res, 'descriptionFilters.2');
    expect(res.body.fieldErrors.map((error: { path: string }) => error.path)).not.toContain('descriptionFilters.1');
  });

  it('refuses a JSON number id above 2^53 (precision already lost) but takes it as a digit string', async () => {
    const res = await request(world.url)
      .post('/accounting/v1.0/folios/transactions')
      .set('Authorization', `Bearer ${token}`)
      .set('X-Property-Id', '1')
      .set('Content-Type', 'application/json')
      .send(`{"sourceId": ${BIG_SOURCE}, "sourceKind": "RESERVATION"}`);
    expectInvalid(res, 'sourceId');
    expect((await list({ sourceId: BIG_SOURCE, sourceKind: 'RESERVATION' })).status).toBe(200);
  });

  it('takes a JSON integer id as well as a digit string', async () => {
    const res = await list({ sourceId: Number(SOURCE_ID), sourceKind: 'RESERVATION', limit: 1100 });
    expect(res.status).toBe(200);
    expect(rowsOf(res.body)).toHaveLength(ALL.length);
  });

  it('refuses a pageToken of another query (filters, sort or property)', async () => {
    const first = await list({ ...SOURCE, limit: 3, sort: [{ field: 'amount', direction: 'asc' }] });
    const pageToken = first.body.nextPageToken as string;
    expect(pageToken).toEqual(expect.any(String));
    // The same query continues…
    expect((await list({ ...SOURCE, limit: 3, sort: [{ field: 'amount', direction: 'asc' }], pageToken })).status).toBe(200);
    // …other queries do not.
    expectInvalid(await list({ ...SOURCE, limit: 3, sort: [{ field: 'amount', direction: 'desc' }], pageToken }), 'pageToken');
    expectInvalid(await list({ ...SOURCE, limit: 3, pageToken }), 'pageToken');
    expectInvalid(await list({ ...SOURCE, limit: 3, sort: [{ field: 'amount', direction: 'asc' }], posted: true, pageToken }), 'pageToken');
    expectInvalid(await list({ ...SOURCE, limit: 3, sort: [{ field: 'amount', direction: 'asc' }], folioId: FOLIO_A, pageToken }), 'pageToken');
    expectInvalid(await list({ ...SOURCE, limit: 3, sort: [{ field: 'amount', direction: 'asc' }], pageToken }, { property: '2' }), 'pageToken');
  });

  it('refuses a pageToken whose sort values were tampered with (400, never a 500)', async () => {
    const body = { ...SOURCE, limit: 3 };
    const first = await list(body);
    const decoded = JSON.parse(Buffer.from(first.body.nextPageToken as string, 'base64url').toString('utf8')) as { v: number; q: string; k: unknown[] };
    expect(decoded.k).toHaveLength(2);
    for (const k of [['not a time', '1'], ['2026-03-10 14:00:00+00', 'x'], [null, '1'], ['2026-03-10 14:00:00+00', '99999999999999999999'], [1, '1']]) {
      const pageToken = Buffer.from(JSON.stringify({ ...decoded, k })).toString('base64url');
      expectInvalid(await list({ ...body, pageToken }), 'pageToken');
    }
  });
});

describe('sort', () => {
  const directions = ['asc', 'desc'] as const;
  const cases = SORT_FIELDS.flatMap((field) => directions.map((direction) => [field, direction] as const));

  it.each(cases)('sorts on %s %s, ties broken by id ascending', async (field, direction) => {
    const rows = rowsOf(await listing({ sort: [{ field, direction }] }));
    expect(rows.map((row) => row.id)).toEqual(expectedOrder(FIXTURE, [{ field, direction }]));
    // The fixture has ties on every field but id; within each tie the ids ascend.
    const fixtureOf = (view: TView) => FIXTURE.find((row) => row.id === view.id)!;
    let ties = 0;
    for (let i = 1; i < rows.length; i += 1) {
      const previous = fixtureOf(rows[i - 1]!);
      const current = fixtureOf(rows[i]!);
      if (COMPARE[field](previous, current) === 0) {
        ties += 1;
        expect(BigInt(previous.id) < BigInt(current.id), `${previous.id} before ${current.id}`).toBe(true);
      }
    }
    if (field !== 'id') expect(ties).toBeGreaterThan(0);
  });

  it('sorts on several keys in order', async () => {
    const keys = [
      { field: 'service_date', direction: 'desc' },
      { field: 'amount', direction: 'asc' },
    ] as const;
    const rows = rowsOf(await listing({ sort: keys }));
    expect(rows.map((row) => row.id)).toEqual(expectedOrder(FIXTURE, [...keys]));
  });

  it('accepts the direction in upper case', async () => {
    const upper = rowsOf(await listing({ sort: [{ field: 'amount', direction: 'DESC' }] })).map((row) => row.id);
    expect(upper).toEqual(expectedOrder(FIXTURE, [{ field: 'amount', direction: 'desc' }]));
    const mixed = rowsOf(await listing({ sort: [{ field: 'description', direction: 'Asc' }] })).map((row) => row.id);
    expect(mixed).toEqual(expectedOrder(FIXTURE, [{ field: 'description', direction: 'asc' }]));
  });

  it('puts rows of equal instants in id order by default', async () => {
    const rows = rowsOf(await listing()).map((row) => row.id);
    expect(rows.slice(0, 3)).toEqual(id(1, 4, 6));
    const at16 = rows.indexOf('1016');
    expect(rows[at16 + 1]).toBe('1017');
  });
});

describe('groupBy', () => {
  const KEY: Record<string, (row: TLedgerTransaction) => string> = {
    transaction_date: (row) => madridDate(row.transactionDatetime),
    service_date: (row) => row.serviceDate,
    internal_code_group: (row) => row.internalCodeGroup,
    description: (row) => row.description,
    sub_source_identifier: (row) => row.subSourceIdentifier ?? 'none',
    folio_id: (row) => row.folioId,
    user_id: (row) => row.userId ?? 'none',
    // This fixture imports no reservation: every row is in "none" (ledger-listing-reference.test.ts has stays).
    reservation_name: () => 'none',
    room_name: () => 'none',
  };

  it.each(Object.keys(KEY))('groups by %s with per-group totals', async (groupBy) => {
    const body = await listing({ groupBy });
    const expected = new Map<string, TLedgerTransaction[]>();
    for (const row of FIXTURE) expected.set(KEY[groupBy]!(row), [...(expected.get(KEY[groupBy]!(row)) ?? []), row]);
    expect(Object.keys(body.groups).sort()).toEqual([...expected.keys()].sort());
    for (const [key, rows] of expected) {
      const group = body.groups[key]!;
      expect(sorted(group.transactions.map((row) => row.id)), key).toEqual(sorted(rows.map((row) => row.id)));
      expect(group.totals, key).toEqual(expectedGroupTotals(rows));
      // Inside a group the rows keep the listing's order.
      expect(group.transactions.map((row) => row.id)).toEqual(expectedOrder(rows, [{ field: 'transaction_datetime', direction: 'asc' }]));
    }
  });

  it('groups transaction_date by the property-local day (Madrid), not the UTC day', async () => {
    const body = await listing({ groupBy: 'transaction_date' });
    expect(byNumber(8).transactionDatetime).toBe('2026-03-10T23:30:00Z');
    expect(body.groups['2026-03-11']!.transactions.map((row) => row.id)).toContain('1008');
    expect(body.groups['2026-03-10']!.transactions.map((row) => row.id)).toEqual(id(1, 4, 6, 7));
  });

  it('spells out the known groups and their totals', async () => {
    const body = await listing({ groupBy: 'folio_id' });
    expect(body.groups[FOLIO_B]!.totals).toEqual({ count: 9, quantity: 0, totalDebit: 398, totalCredit: 320 });
    // Items of folio A: rows 7 (3), 8, 9, 10 (addon, 2), 22, 30 and the void 31 (−1).
    expect(body.groups[FOLIO_A]!.totals).toEqual({ count: 18, quantity: 8, totalDebit: 472.45, totalCredit: 375.25 });
    const byUser = await listing({ groupBy: 'user_id' });
    expect(Object.keys(byUser.groups).sort()).toEqual(['11', '12', 'none']);
    const bySub = await listing({ groupBy: 'sub_source_identifier' });
    expect(Object.keys(bySub.groups).sort()).toEqual(['Room 101', 'Room 102', 'none']);
  });

  it('without groupBy, or with groupBy null, answers a single default group', async () => {
    for (const extra of [{}, { groupBy: null }]) {
      const body = await listing(extra);
      expect(Object.keys(body.groups)).toEqual(['default']);
      expect(body.groups.default!.totals).toEqual(expectedGroupTotals(FIXTURE));
    }
  });
});

describe('cursor pagination', () => {
  async function walk(body: Record<string, unknown>, limit: number, between?: (page: number) => Promise<void>): Promise<string[]> {
    const seen: string[] = [];
    let pageToken: string | undefined;
    let pages = 0;
    do {
      const res = await list({ ...body, limit, ...(pageToken ? { pageToken } : {}) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const rows = rowsOf(res.body as TListingBody);
      pageToken = (res.body as TListingBody).nextPageToken ?? undefined;
      if (pageToken) expect(rows).toHaveLength(limit);
      else expect(rows.length).toBeLessThanOrEqual(limit);
      seen.push(...rows.map((row) => row.id));
      pages += 1;
      expect(pages).toBeLessThan(100);
      if (between) await between(pages);
    } while (pageToken);
    return seen;
  }

  it('walks the default order with limit 3: every row exactly once, in order, then no token', async () => {
    const seen = await walk(SOURCE, 3);
    expect(seen).toEqual(expectedOrder(FIXTURE, [{ field: 'transaction_datetime', direction: 'asc' }]));
    expect(new Set(seen).size).toBe(ALL.length);
  });

  it.each(SORT_FIELDS.flatMap((field) => (['asc', 'desc'] as const).map((direction) => [field, direction] as const)))(
    'walks the order of %s %s with limit 3 across ties',
    async (field, direction) => {
      const seen = await walk({ ...SOURCE, sort: [{ field, direction }] }, 3);
      expect(seen).toEqual(expectedOrder(FIXTURE, [{ field, direction }]));
    },
  );

  it('walks a filtered, grouped listing with limit 4', async () => {
    const seen = await walk({ ...SOURCE, folioId: FOLIO_A, groupBy: 'service_date', sort: [{ field: 'amount', direction: 'desc' }] }, 4);
    const folioA = FIXTURE.filter((row) => row.folioId === FOLIO_A);
    expect(sorted(seen)).toEqual(sorted(folioA.map((row) => row.id)));
    expect(new Set(seen).size).toBe(folioA.length);
  });

  it('walks a sort whose keys all descend, id included, with limit 3', async () => {
    const keys = [
      { field: 'amount', direction: 'desc' },
      { field: 'id', direction: 'desc' },
    ] as const;
    const seen = await walk({ ...SOURCE, sort: keys }, 3);
    expect(seen).toEqual(expectedOrder(FIXTURE, [...keys]));
  });

  it('continues an export read inside the source index: the keyset is an index condition, not a filter', async () => {
    // An export reads its rows in keyset batches (selectTransactions). With the keyset written as
    // (a > x) OR (a = x AND id > y) the index gives only the source, and batch k of a folio first
    // reads and drops k batches' rows: a 50,000-row read was quadratic. A row comparison of keys
    // that share one direction is a range of transactions_by_source (migration 002).
    const client = await world.pool.connect();
    const sent: Array<{ text: string; values: unknown[] }> = [];
    try {
      const query = client.query.bind(client) as (text: string, values: unknown[]) => Promise<unknown>;
      const recording = Object.assign(Object.create(client) as PoolClient, {
        query: (text: string, values: unknown[]) => {
          sent.push({ text, values });
          return query(text, values);
        },
      });
      const request = ZFolioExportRequest.parse({ sourceKind: 'RESERVATION', sourceId: SOURCE_ID });
      const read: string[] = [];
      for await (const batch of selectTransactions(recording, exportFilter('1', request, 'Europe/Madrid'), withTieBreak(request.sort), 3)) read.push(...batch.map((row) => row.id));
      expect(read).toEqual(expectedOrder(FIXTURE, [{ field: 'transaction_datetime', direction: 'asc' }]));
      expect(sent.length).toBeGreaterThan(2);

      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      await client.query('SET LOCAL enable_bitmapscan = off');
      const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sent[1]!.text}`, sent[1]!.values);
      const lines = plan.rows.map((row) => row['QUERY PLAN']);
      const scan = lines.findIndex((line) => /Index Scan using transactions_by_source on transactions/.test(line));
      expect(scan, lines.join('\n')).toBeGreaterThanOrEqual(0);
      expect(lines[scan + 1], lines.join('\n')).toMatch(/Index Cond: .*source_id = .*\(ROW\(transaction_datetime, id\) > ROW\(/);
      expect(lines.filter((line) => /Filter: .*transaction_datetime/.test(line)), lines.join('\n')).toEqual([]);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('stays stable when rows are inserted between pages, before and after the cursor', async () => {
    const source = { sourceId: INSERT_SOURCE, sourceKind: 'RESERVATION' };
    const existing = ledgerTransactions({ sourceId: INSERT_SOURCE, idBase: INSERT_BASE, folioA: '301', folioB: '302' });
    const template = existing[0]!;
    const at = (newId: string, transactionDatetime: string, description: string) => ({ ...template, id: newId, transactionDatetime, description });
    // After two pages of 3 the cursor is row 10 (2026-03-11T08:00:00Z, id 3010).
    const before = [
      at('3101', '2026-03-10T15:00:00Z', 'Inserted before the cursor'),
      at('3103', '2026-03-09T00:00:00Z', 'Inserted before everything'),
      at('3000', '2026-03-11T08:00:00Z', 'Same instant as the cursor, smaller id'),
    ];
    const after = [
      at('3102', '2026-03-11T08:00:00Z', 'Same instant as the cursor, larger id'),
      at('3104', '2026-03-14T00:00:00Z', 'Inserted after everything'),
      at('3105', '2026-03-12T09:15:00Z', 'Inserted in the middle'),
    ];
    const seen = await walk(source, 3, async (page) => {
      if (page === 2) await importOk(world, token, 1, { transactions: [...before, ...after] });
    });
    expect(seen.slice(0, 6)).toEqual(ids(INSERT_BASE, 1, 4, 6, 7, 8, 10));
    // Every pre-existing row exactly once, nothing twice.
    for (const row of existing) expect(seen.filter((seenId) => seenId === row.id), row.id).toHaveLength(1);
    expect(new Set(seen).size).toBe(seen.length);
    // Rows inserted behind the cursor are not seen; rows ahead of it are, in their place.
    for (const row of before) expect(seen).not.toContain(row.id);
    for (const row of after) expect(seen).toContain(row.id);
    expect(seen).toEqual(expectedOrder([...existing, ...after], [{ field: 'transaction_datetime', direction: 'asc' }]));
  });
});

describe('totals', () => {
  it('includeTotal answers count, totalDebit, totalCredit, currency and currencyScale over every matching row', async () => {
    const body = await listing({ includeTotal: true });
    expect(body.totals).toEqual({ count: 27, totalDebit: 870.45, totalCredit: 695.25, currency: 'EUR', currencyScale: 2 });
    expect(body.totals).toEqual({ ...expectedTotals(FIXTURE), currency: 'EUR', currencyScale: 2 });
  });

  it('sums exactly: 0.10 + 0.20 is the JSON number 0.3', async () => {
    const res = await list({ ...SOURCE, descriptionFilters: ['product_123'], includeTotal: true });
    expect(res.status).toBe(200);
    expect(res.body.totals).toEqual({ count: 2, totalDebit: 0.3, totalCredit: 0, currency: 'EUR', currencyScale: 2 });
    expect(res.body.groups.default.totals).toEqual({ count: 2, quantity: 4, totalDebit: 0.3, totalCredit: 0 });
    expect(res.text).toContain('"totalDebit":0.3,');
    expect(res.text).not.toContain('0.30000000000000004');
    expect(res.body.groups.default.transactions.map((row: TView) => row.amount)).toEqual([0.1, 0.2]);
  });

  it('covers all pages while the groups total only the page', async () => {
    const res = await list({ ...SOURCE, limit: 3, includeTotal: true });
    expect(res.status).toBe(200);
    expect(rowsOf(res.body)).toHaveLength(3);
    expect(res.body.groups.default.totals).toEqual(expectedGroupTotals([byNumber(1), byNumber(4), byNumber(6)]));
    expect(res.body.totals).toMatchObject({ count: 27, totalDebit: 870.45, totalCredit: 695.25 });
    const next = await list({ ...SOURCE, limit: 3, includeTotal: true, pageToken: res.body.nextPageToken });
    expect(next.body.totals).toMatchObject({ count: 27, totalDebit: 870.45, totalCredit: 695.25 });
  });

  it('respects the filters', async () => {
    expect((await listing({ includeTotal: true, posted: false })).totals).toEqual({ count: 4, totalDebit: 200.5, totalCredit: 75.25, currency: 'EUR', currencyScale: 2 });
    expect((await listing({ includeTotal: true, folioId: FOLIO_B })).totals).toMatchObject({ count: 9, totalDebit: 398, totalCredit: 320 });
    expect((await listing({ includeTotal: true, includeVoided: false })).totals).toMatchObject({ count: 23, totalDebit: 870.45, totalCredit: 695.25 });
    expect((await listing({ includeTotal: true, descriptionFilters: ['cash'] })).totals).toMatchObject({ count: 3, totalDebit: 0, totalCredit: 50 });
    expect((await listing({ includeTotal: true, descriptionFilters: ['cash'], includeVoided: false })).totals).toMatchObject({ count: 1, totalDebit: 0, totalCredit: 50 });
    expect((await listing({ includeTotal: true, searchQuery: 'nothing like this' })).totals).toEqual({ count: 0, totalDebit: 0, totalCredit: 0, currency: 'EUR', currencyScale: 2 });
  });

  it('is left out unless asked for', async () => {
    expect((await listing({ includeTotal: false })).totals).toBeUndefined();
    expect((await listing({ includeTotal: null })).totals).toBeUndefined();
  });
});

describe('property isolation and access', () => {
  it("never shows property 2's rows for property 1's source and folio ids", async () => {
    const rows = rowsOf(await listing());
    expect(rows).toHaveLength(27);
    for (const row of rows) {
      expect(row.propertyId).toBe('1');
      expect(row.description).not.toMatch(/Property two/);
      expect(row.currency).toBe('EUR');
    }
    expect(rows.find((row) => row.id === '1001')!.amount).toBe(120);
    expect(await idsOf({ searchQuery: 'Property two' })).toEqual([]);
    expect(await idsOf({ folioId: FOLIO_B, descriptionFilters: ['product_123'] })).toEqual([]);
  });

  it("shows property 2 only its own rows and totals in its own currency", async () => {
    const body = await listing({ includeTotal: true }, { property: '2' });
    const rows = rowsOf(body);
    expect(sorted(rows.map((row) => row.id))).toEqual(['1001', '1017', '2050']);
    for (const row of rows) {
      expect(row.propertyId).toBe('2');
      expect(row.description).toMatch(/^Property two/);
    }
    expect(rows.find((row) => row.id === '1001')!.amount).toBe(999.99);
    expect(body.totals).toEqual({ count: 3, totalDebit: 1007.76, totalCredit: 500, currency: 'USD', currencyScale: 2 });
  });

  it('answers 403 to a token of property 1 asking for property 2', async () => {
    const res = await list(SOURCE, { property: '2', token: world.token({ properties: [1] }) });
    expect(res.status).toBe(403);
    expect(res.body.errorCode).toBe('ACCESS_DENIED');
    expect(JSON.stringify(res.body)).not.toContain('Property two');
  });

  it('answers 403 without the read:payment scope', async () => {
    const res = await list(SOURCE, { token: world.token({ properties: [1], scope: 'write:payment' }) });
    expect(res.status).toBe(403);
    expect(res.body.errorCode).toBe('ACCESS_DENIED');
  });

  it('answers 401 without a token', async () => {
    const res = await request(world.url).post('/accounting/v1.0/folios/transactions').set('X-Property-Id', '1').send(SOURCE);
    expect(res.status).toBe(401);
    expect(res.body.errorCode).toBe('UNAUTHENTICATED');
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an unknown source id', { sourceId: '424242', sourceKind: 'RESERVATION' }, '1'],
    ['a known id of another kind', { sourceId: SOURCE_ID, sourceKind: 'HOUSE_ACCOUNT' }, '1'],
    ["a source of property 1 asked as property 2", { sourceId: BIG_SOURCE, sourceKind: 'RESERVATION' }, '2'],
  ])('answers 404 ENTITY_NOT_FOUND for %s', async (_name, body, property) => {
    const res = await list(body, { property });
    expect(res.status).toBe(404);
    expect(res.body.errorCode).toBe('ENTITY_NOT_FOUND');
    expect(res.body.id).toBe(res.headers['x-request-id']);
  });
});

describe('int64 ids', () => {
  it('round-trips ids above 2^53 sent as digit strings, exactly', async () => {
    const res = await list({ sourceId: BIG_SOURCE, sourceKind: 'RESERVATION', folioId: BIG_FOLIO, subSourceIds: [BIG_SUB], sort: [{ field: 'id', direction: 'desc' }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const rows = rowsOf(res.body);
    expect(rows.map((row) => row.id)).toEqual(['9223372036854775807', '9007199254740995', '9007199254740993']);
    for (const row of rows) {
      expect(row.sourceId).toBe(BIG_SOURCE);
      expect(row.folioId).toBe(BIG_FOLIO);
      expect(row.subSourceId).toBe(BIG_SUB);
      expect(row.userId).toBe('9223372036854775807');
      expect(row.rootId).toBe(row.id);
    }
    expect(res.text).toContain('"id":"9007199254740993"');
    expect(res.text).toContain('"id":"9223372036854775807"');
  });

  it('keeps neighbouring ids above 2^53 apart in the keyset walk', async () => {
    const first = await list({ sourceId: BIG_SOURCE, sourceKind: 'RESERVATION', sort: [{ field: 'id', direction: 'asc' }], limit: 1 });
    expect(rowsOf(first.body).map((row) => row.id)).toEqual(['9007199254740993']);
    const second = await list({ sourceId: BIG_SOURCE, sourceKind: 'RESERVATION', sort: [{ field: 'id', direction: 'asc' }], limit: 1, pageToken: first.body.nextPageToken });
    expect(rowsOf(second.body).map((row) => row.id)).toEqual(['9007199254740995']);
  });
});
