import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listingValidator } from './support/folio-transaction-schema.js';
import { importOk, postImport, transaction } from './support/ledger-fixture.js';
import { createWorld, type TWorld } from './support/world.js';

// The identifiers the reference accounting API types as plain strings — a payment's paymentId, an
// account's id, customerId and externalRelationId (docs/ledger.md#import) — through the real import
// and listing: 1-255 characters without control characters, stored and answered exactly as given;
// anything else refused with 400 INVALID_REQUEST at the field's path, nothing written. Property 1
// takes the accepted imports, property 2 only refused ones.

let world: TWorld;
let token: string;
const validate = listingValidator();

beforeAll(async () => {
  world = await createWorld({ worker: false });
  token = world.token({ properties: [1, 2] });
});
afterAll(async () => world?.close());

type TRow = Record<string, unknown> & { id: string };

/** 255 characters (code points): an astral one counts once, as JSON Schema's maxLength counts. */
const LONGEST = `${'a'.repeat(250)}-😀ü_9`;
const ACCEPTED: Array<[string, string | number, string]> = [
  ['a payment service id', 'pay_3NqABC-12_x', 'pay_3NqABC-12_x'],
  ['255 characters', LONGEST, LONGEST],
  ['digits with leading zeros (not made canonical)', '0042', '0042'],
  ['spaces and other scripts, not trimmed', ' Réf 12/B · 王 ', ' Réf 12/B · 王 '],
  ['a JSON integer (taken as its digits)', 5502, '5502'],
];
const REFUSED: Array<[string, unknown, string]> = [
  ['256 characters', `${LONGEST}x`, 'must be at most 255 characters'],
  ['an empty string', '', 'must not be empty'],
  ['a BEL control character', 'pay\u0007x', 'must not contain control characters'],
  ['a tab', 'pay\tx', 'must not contain control characters'],
  ['a line break', 'pay\nx', 'must not contain control characters'],
  ['DEL', 'pay\u007f', 'must not contain control characters'],
  ['a C1 control character', 'pay\u0085x', 'must not contain control characters'],
  ['half a surrogate pair', 'pay\ud83d', 'must be well-formed text (no unpaired surrogate)'],
  ['a boolean', true, 'must be a string'],
  ['a fractional number', 1.5, 'must be a string'],
];

const SOURCE = { sourceKind: 'RESERVATION', sourceId: '5001' };
const paymentRow = (extra: Record<string, unknown>) =>
  transaction({ internalTransactionCode: 'PAY', internalCodeGroup: 'PAYMENT', paymentMethod: 'cards_visa', description: 'Card payment', amount: '-120.00', ...extra });

interface TField {
  /** The field's path inside a transaction, as fieldErrors name it. */
  path: string;
  /** A transaction of `id` carrying `value` in the field. */
  row(id: string, value: unknown): Record<string, unknown>;
  /** The field as the listing answers it. */
  answered(row: TRow): unknown;
  /** The field as stored (SQL over transactions t). */
  column: string;
}
const FIELDS: TField[] = [
  {
    path: 'payment.paymentId',
    row: (id, value) => paymentRow({ id, payment: { paymentId: value, transactionType: 'Capture' } }),
    answered: (row) => (row.paymentDetails as Record<string, unknown>).paymentId,
    column: "t.payment->>'paymentId'",
  },
  {
    path: 'account.id',
    row: (id, value) => transaction({ id, account: { id: value, name: 'Room revenue' } }),
    answered: (row) => (row.account as Record<string, unknown>).id,
    column: "t.account->>'id'",
  },
  { path: 'customerId', row: (id, value) => transaction({ id, customerId: value }), answered: (row) => row.customerId, column: 't.customer_id' },
  {
    path: 'externalRelationId',
    row: (id, value) => transaction({ id, externalRelationId: value, externalRelationKind: 'ROOM_REVENUE' }),
    answered: (row) => row.externalRelationId,
    column: 't.external_relation_id',
  },
];

async function listing(property = '1'): Promise<{ rows: Map<string, TRow>; body: Record<string, unknown> }> {
  const res = await request(world.url)
    .post('/accounting/v1.0/folios/transactions')
    .set('Authorization', `Bearer ${token}`)
    .set('X-Property-Id', property)
    .send({ ...SOURCE, limit: 1100, includeTotal: true });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(validate(res.body), JSON.stringify(validate.errors)).toBe(true);
  const groups = res.body.groups as Record<string, { transactions: TRow[] }>;
  return { rows: new Map(Object.values(groups).flatMap((group) => group.transactions).map((row) => [row.id, row])), body: res.body };
}

async function transactionCount(propertyId: number): Promise<number> {
  const result = await world.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM transactions WHERE property_id = $1', [propertyId]);
  return result.rows[0]!.n;
}

describe.each(FIELDS.map((field, index) => [field.path, field, index] as const))('%s', (_path, field, index) => {
  // Transaction ids 1<field><value>: one row per accepted value of each field.
  const idOf = (valueIndex: number) => String(1000 + index * 100 + valueIndex);

  it('is kept and answered exactly as given: a payment service id, 255 characters, leading zeros, spaces, a JSON integer', async () => {
    await importOk(world, token, 1, { transactions: ACCEPTED.map(([, value], i) => field.row(idOf(i), value)) });
    const { rows } = await listing();
    ACCEPTED.forEach(([name, , expected], i) => expect(field.answered(rows.get(idOf(i))!), name).toBe(expected));
    const stored = await world.pool.query<{ id: string; value: string }>(
      `SELECT t.id::text AS id, ${field.column} AS value FROM transactions t WHERE t.property_id = 1 AND t.id = ANY($1::bigint[]) ORDER BY t.id`,
      [ACCEPTED.map((_, i) => idOf(i))],
    );
    expect(stored.rows).toEqual(ACCEPTED.map(([, , expected], i) => ({ id: idOf(i), value: expected })));
  });

  it.each(REFUSED)('refuses %s: 400 INVALID_REQUEST at its path, nothing written', async (_name, value, message) => {
    // A valid transaction rides along: the whole request is refused.
    const res = await postImport(world, token, 2, { transactions: [transaction({ id: '1' }), field.row('2', value)] });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.errorCode).toBe('INVALID_REQUEST');
    expect(res.body.fieldErrors).toEqual([{ path: `transactions.1.${field.path}`, message }]);
    expect(res.body.errorDetails).toBe(`transactions.1.${field.path}: ${message}.`);
    expect(await transactionCount(2)).toBe(0);
  });
});

describe('customerId and the guest it names', () => {
  it('names a GUEST recipient only when it is that recipient id as the service writes it', async () => {
    await importOk(world, token, 1, {
      recipients: [{ type: 'GUEST', id: '950', name: 'Zoë Łukasiewicz' }],
      transactions: [
        transaction({ id: '2001', customerId: '950' }),
        transaction({ id: '2002', customerId: 950 }),
        transaction({ id: '2003', customerId: '0950' }),
        transaction({ id: '2004', customerId: 'cus_950' }),
        // Digits beyond int64 name no recipient (and break nothing).
        transaction({ id: '2005', customerId: '99999999999999999999' }),
      ],
    });
    const { rows } = await listing();
    expect(['2001', '2002', '2003', '2004', '2005'].map((id) => [rows.get(id)!.customerId, rows.get(id)!.guestName])).toEqual([
      ['950', 'Zoë Łukasiewicz'],
      ['950', 'Zoë Łukasiewicz'],
      ['0950', null],
      ['cus_950', null],
      ['99999999999999999999', null],
    ]);
  });
});
