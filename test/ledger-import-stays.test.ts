import type request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postImport, transaction } from './support/ledger-fixture.js';
import { createWorld, type TWorld } from './support/world.js';

// POST /accounting/v1.0/import with reservations, users and the richer transaction fields
// (docs/ledger.md#import): what is stored, and every rule of the new fields answered 400
// INVALID_REQUEST with its path and the exact errorDetails sentence, nothing written. Property 1
// takes the accepted imports, property 3 only refused ones.

let world: TWorld;
let token: string;

beforeAll(async () => {
  world = await createWorld({ worker: false });
  token = world.token({ properties: [1, 2, 3] });
});
afterAll(async () => world?.close());

const reservation = (extra: Record<string, unknown> = {}) => ({
  id: '5001',
  identifier: 'R-5001',
  guestName: 'Zoë Łukasiewicz',
  status: 'checked_in',
  checkinDate: '2026-03-09',
  checkoutDate: '2026-03-12',
  adults: 2,
  children: 1,
  rooms: [{ id: '7001', roomName: '101', roomTypeName: 'Double' }, { id: '7002', roomName: '102', archived: true }],
  ...extra,
});
const user = (extra: Record<string, unknown> = {}) => ({ id: '42', firstName: 'Ana', lastName: 'Pérez', email: 'ana@example.com', ...extra });
const payment = (extra: Record<string, unknown> = {}, paymentFields: Record<string, unknown> = {}) =>
  transaction({
    id: '2',
    internalTransactionCode: 'PAY',
    internalCodeGroup: 'PAYMENT',
    description: 'Card payment',
    amount: '-120.00',
    payment: { paymentId: '9001', transactionType: 'Purchase', ...paymentFields },
    ...extra,
  });

const send = (propertyId: number, body: unknown) => postImport(world, token, propertyId, body);

async function rowCounts(propertyId: number) {
  const result = await world.pool.query(
    `SELECT (SELECT count(*)::int FROM reservations WHERE property_id = $1) AS reservations,
            (SELECT count(*)::int FROM reservation_rooms WHERE property_id = $1) AS rooms,
            (SELECT count(*)::int FROM users WHERE property_id = $1) AS users,
            (SELECT count(*)::int FROM folios WHERE property_id = $1) AS folios,
            (SELECT count(*)::int FROM transactions WHERE property_id = $1) AS transactions`,
    [propertyId],
  );
  return result.rows[0];
}
const NOTHING = { reservations: 0, rooms: 0, users: 0, folios: 0, transactions: 0 };

function expectRefused(res: request.Response, path: string, errorDetails: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.errorCode).toBe('INVALID_REQUEST');
  expect(res.body.fieldErrors[0].path).toBe(path);
  expect(res.body.errorDetails).toBe(errorDetails);
}

describe('accepted', () => {
  it('stores reservations with their rooms, users and the richer transaction fields, and counts them', async () => {
    const res = await send(1, {
      reservations: [reservation(), reservation({ id: '5002', identifier: null, status: 'no_show', adults: null, children: null, rooms: null, propertyId: 1 })],
      users: [user(), user({ id: '007', firstName: 'Night', lastName: 'Auditor', email: null, propertyId: '1' })],
      folios: [{ id: '101', sourceKind: 'RESERVATION', sourceId: '5001', name: 'Guest folio' }],
      transactions: [
        transaction({
          customTransactionCode: 'C-1', generalLedgerCustomCode: 'GL-700', customerId: '77', externalRelationId: '88', externalRelationKind: 'ROOM_REVENUE',
          account: { id: '400', name: 'Room revenue', description: 'Rooms', chartOfAccountType: 'REVENUE' }, userId: 42,
        }),
        payment(
          { foreignCurrency: 'USD', foreignCurrencyAmount: '-130.50', account: { id: '200', name: 'Deposits', category: 'DEPOSITS', chartOfAccountType: 'LIABILITIES' } },
          { gateway: 'Stripe', creditCardType: 'master', cardTrailingDigits: '4444', amountPaid: '120.00', amountRefunded: 0, processingStatus: 'confirmed' },
        ),
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ property: 0, recipients: 0, reservations: 2, users: 2, folios: 1, transactions: 2 });
    expect(await rowCounts(1)).toEqual({ reservations: 2, rooms: 2, users: 2, folios: 1, transactions: 2 });

    const stays = await world.pool.query(
      `SELECT id::text, identifier, guest_name, status, checkin_date::text, checkout_date::text, adults, children FROM reservations WHERE property_id = 1 ORDER BY id`,
    );
    expect(stays.rows).toEqual([
      { id: '5001', identifier: 'R-5001', guest_name: 'Zoë Łukasiewicz', status: 'checked_in', checkin_date: '2026-03-09', checkout_date: '2026-03-12', adults: 2, children: 1 },
      { id: '5002', identifier: null, guest_name: 'Zoë Łukasiewicz', status: 'no_show', checkin_date: '2026-03-09', checkout_date: '2026-03-12', adults: null, children: null },
    ]);
    const rooms = await world.pool.query('SELECT id::text, reservation_id::text, room_name, room_type_name, archived, position FROM reservation_rooms WHERE property_id = 1 ORDER BY position');
    expect(rooms.rows).toEqual([
      { id: '7001', reservation_id: '5001', room_name: '101', room_type_name: 'Double', archived: false, position: 0 },
      { id: '7002', reservation_id: '5001', room_name: '102', room_type_name: null, archived: true, position: 1 },
    ]);
    const users = await world.pool.query('SELECT id, first_name, last_name, email FROM users WHERE property_id = 1 ORDER BY id');
    expect(users.rows).toEqual([
      { id: '42', first_name: 'Ana', last_name: 'Pérez', email: 'ana@example.com' },
      // "007" and 7 name one user: ids are stored without leading zeros.
      { id: '7', first_name: 'Night', last_name: 'Auditor', email: null },
    ]);
    const rows = await world.pool.query(
      `SELECT id::text, custom_transaction_code, general_ledger_custom_code, customer_id::text, external_relation_id::text, external_relation_kind,
              account, foreign_currency, foreign_currency_amount::text, payment, user_id
         FROM transactions WHERE property_id = 1 ORDER BY id`,
    );
    expect(rows.rows).toEqual([
      {
        id: '1', custom_transaction_code: 'C-1', general_ledger_custom_code: 'GL-700', customer_id: '77', external_relation_id: '88', external_relation_kind: 'ROOM_REVENUE',
        account: { id: '400', name: 'Room revenue', description: 'Rooms', chartOfAccountType: 'REVENUE' }, foreign_currency: null, foreign_currency_amount: null, payment: null, user_id: '42',
      },
      {
        id: '2', custom_transaction_code: null, general_ledger_custom_code: null, customer_id: null, external_relation_id: null, external_relation_kind: null,
        account: { id: '200', name: 'Deposits', category: 'DEPOSITS', chartOfAccountType: 'LIABILITIES' }, foreign_currency: 'USD', foreign_currency_amount: '-130.50',
        payment: { paymentId: '9001', transactionType: 'Purchase', gateway: 'Stripe', creditCardType: 'master', cardTrailingDigits: '4444', amountPaid: '120.00', amountRefunded: '0', processingStatus: 'confirmed' },
        user_id: null,
      },
    ]);
  });

  it('upserts: a reservation imported again replaces its rooms', async () => {
    const first = await send(2, { reservations: [reservation()] });
    expect(first.status).toBe(200);
    const second = await send(2, { reservations: [reservation({ status: 'checked_out', rooms: [{ id: '7003', roomName: '201' }] })] });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const stored = await world.pool.query(
      `SELECT r.status, (SELECT json_agg(m.id::text) FROM reservation_rooms m WHERE m.property_id = 2 AND m.reservation_id = r.id) AS rooms
         FROM reservations r WHERE r.property_id = 2`,
    );
    expect(stored.rows).toEqual([{ status: 'checked_out', rooms: ['7003'] }]);
  });

  it('upserts: a reservation imported again without rooms keeps them; an empty list clears them', async () => {
    const stay = (extra: Record<string, unknown>) => reservation({ id: '5009', rooms: [{ id: '7091', roomName: '101' }, { id: '7092', roomName: '102' }], ...extra });
    expect((await send(2, { reservations: [stay({})] })).status).toBe(200);
    const again = await send(2, { reservations: [stay({ status: 'checked_out', rooms: undefined })] });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const rooms = async () =>
      (await world.pool.query('SELECT id::text FROM reservation_rooms WHERE property_id = 2 AND reservation_id = 5009 ORDER BY position')).rows.map((row) => row.id);
    expect(await rooms()).toEqual(['7091', '7092']);
    expect((await send(2, { reservations: [stay({ rooms: [] })] })).status).toBe(200);
    expect(await rooms()).toEqual([]);
  });
});

const RESERVATION_STATUSES = 'checked_out, checked_in, confirmed, canceled, not_confirmed, inquiry, deleted, no_show';
const RELATION_KINDS =
  'ROOM, PAYMENT, ITEM, ITEM_POS, ADDON, RESERVATION, ACCOUNTS_RECEIVABLE, ROOM_REVENUE, TAX, FEE, ADJUSTMENT, PAYMENT_FEE, BOOKABLE_RESOURCE, ' +
  'CHANNEL_COMMISSION, CITY_LEDGER, GRATUITY, CHECK_ITEM, CHECK_SERVICE_CHARGE, CHECK_DISCOUNT, CHANNEL_COMMISSION_MANUAL';

describe('every rule of the new fields: 400 at its path, errorDetails naming it, nothing written', () => {
  const cases: Array<[string, Record<string, unknown>, string, string]> = [
    ['reservation status unknown', { reservations: [reservation({ status: 'arrived' })] }, 'reservations.0.status', `reservations.0.status: must be one of ${RESERVATION_STATUSES}.`],
    ['reservation checkinDate not a date', { reservations: [reservation({ checkinDate: '2026-02-30' })] }, 'reservations.0.checkinDate', 'reservations.0.checkinDate: must be a date YYYY-MM-DD.'],
    ['reservation checkoutDate day-first', { reservations: [reservation({ checkoutDate: '12/03/2026' })] }, 'reservations.0.checkoutDate', 'reservations.0.checkoutDate: must be a date YYYY-MM-DD.'],
    ['checkout before checkin', { reservations: [reservation({ checkoutDate: '2026-03-08' })] }, 'reservations.0.checkoutDate', 'reservations.0.checkoutDate: must not be before checkinDate.'],
    ['adults 100', { reservations: [reservation({ adults: 100 })] }, 'reservations.0.adults', 'reservations.0.adults: must be 0-99.'],
    ['children -1', { reservations: [reservation({ children: -1 })] }, 'reservations.0.children', 'reservations.0.children: must be 0-99.'],
    ['children 1.5', { reservations: [reservation({ children: 1.5 })] }, 'reservations.0.children', 'reservations.0.children: must be a whole number.'],
    ['guestName missing', { reservations: [reservation({ guestName: undefined })] }, 'reservations.0.guestName', 'reservations.0.guestName: is required.'],
    ['a room id twice in one reservation', { reservations: [reservation({ rooms: [{ id: '7001', roomName: '101' }, { id: 7001, roomName: '102' }] })] }, 'reservations.0.rooms.1.id', 'reservations.0.rooms.1.id: appears twice in this reservation.'],
    ['a room without roomName', { reservations: [reservation({ rooms: [{ id: '7001' }] })] }, 'reservations.0.rooms.0.roomName', 'reservations.0.rooms.0.roomName: is required.'],
    ['a room archived "yes"', { reservations: [reservation({ rooms: [{ id: '7001', roomName: '101', archived: 'yes' }] })] }, 'reservations.0.rooms.0.archived', 'reservations.0.rooms.0.archived: must be a boolean.'],
    ['unknown reservation field', { reservations: [reservation({ nights: 3 })] }, 'reservations.0.nights', 'reservations.0.nights: is not a known field.'],
    ['reservation of another property', { reservations: [reservation({ propertyId: 2 })] }, 'reservations.0.propertyId', 'reservations.0.propertyId: belongs to another property than X-Property-Id.'],
    ['a room id under two reservations', { reservations: [reservation(), reservation({ id: '5002', rooms: [{ id: '7002', roomName: '102' }] })] }, 'reservations.1.rooms.0.id', 'reservations.1.rooms.0.id: is a room of reservations.0 too.'],
    ['user id 0 (the system)', { users: [user({ id: 0 })] }, 'users.0.id', 'users.0.id: must not be 0 (that is the system user).'],
    ['sourceKind missing', { transactions: [transaction({ sourceKind: undefined })] }, 'transactions.0.sourceKind', 'transactions.0.sourceKind: is required.'],
    ['a reservation id twice', { reservations: [reservation(), reservation({ id: 5001, guestName: 'Other' })] }, 'reservations.1.id', 'reservations.1.id: appears twice in this request.'],
    ['user email not an e-mail', { users: [user({ email: 'ana.example.com' })] }, 'users.0.email', 'users.0.email: must be an e-mail address.'],
    ['user id not an id', { users: [user({ id: 'abc' })] }, 'users.0.id', 'users.0.id: must be a user id (digits).'],
    ['user firstName empty', { users: [user({ firstName: ' ' })] }, 'users.0.firstName', 'users.0.firstName: must not be empty.'],
    ['user of another property', { users: [user({ propertyId: '2' })] }, 'users.0.propertyId', 'users.0.propertyId: belongs to another property than X-Property-Id.'],
    ['a user id twice', { users: [user(), user({ id: 42, firstName: 'Other' })] }, 'users.1.id', 'users.1.id: appears twice in this request.'],
    ['foreignCurrency without foreignCurrencyAmount', { transactions: [transaction({ foreignCurrency: 'USD' })] }, 'transactions.0.foreignCurrencyAmount', 'transactions.0.foreignCurrencyAmount: is required with foreignCurrency.'],
    ['foreignCurrencyAmount without foreignCurrency', { transactions: [transaction({ foreignCurrencyAmount: '130.50' })] }, 'transactions.0.foreignCurrency', 'transactions.0.foreignCurrency: is required with foreignCurrencyAmount.'],
    ['foreignCurrency the same as currency', { transactions: [transaction({ foreignCurrency: 'EUR', foreignCurrencyAmount: '120.00' })] }, 'transactions.0.foreignCurrency', 'transactions.0.foreignCurrency: must differ from currency (it names the currency tendered).'],
    ['foreignCurrencyAmount of the opposite sign', { transactions: [transaction({ foreignCurrency: 'USD', foreignCurrencyAmount: '-130.50' })] }, 'transactions.0.foreignCurrencyAmount', 'transactions.0.foreignCurrencyAmount: must carry the same sign as amount.'],
    ['foreignCurrency not ISO 4217', { transactions: [transaction({ foreignCurrency: 'XYZ', foreignCurrencyAmount: '130.50' })] }, 'transactions.0.foreignCurrency', 'transactions.0.foreignCurrency: must be an ISO 4217 currency code such as "EUR".'],
    ['payment on a row that is not a PAYMENT', { transactions: [transaction({ payment: { paymentId: '9001', transactionType: 'Purchase' } })] }, 'transactions.0.payment', 'transactions.0.payment: is only for transactions of internalCodeGroup PAYMENT.'],
    ['cardTrailingDigits of three digits', { transactions: [payment({}, { cardTrailingDigits: '111' })] }, 'transactions.0.payment.cardTrailingDigits', 'transactions.0.payment.cardTrailingDigits: must be the last four digits of the card.'],
    ['creditCardType in capitals', { transactions: [payment({}, { creditCardType: 'VISA' })] }, 'transactions.0.payment.creditCardType', 'transactions.0.payment.creditCardType: must be a card brand code such as "visa", "master" or "amex".'],
    ['transactionType unknown', { transactions: [payment({}, { transactionType: 'Sale' })] }, 'transactions.0.payment.transactionType', 'transactions.0.payment.transactionType: must be one of Purchase, Capture, Refund, Authorize, Void, Record.'],
    ['processingStatus unknown', { transactions: [payment({}, { processingStatus: 'pending' })] }, 'transactions.0.payment.processingStatus', 'transactions.0.payment.processingStatus: must be one of unconfirmed, confirmed.'],
    ['cardTokenId not a UUID', { transactions: [payment({}, { cardTokenId: 'tok_123' })] }, 'transactions.0.payment.cardTokenId', 'transactions.0.payment.cardTokenId: must be a card token id (UUID).'],
    ['paymentId missing', { transactions: [payment({}, { paymentId: undefined })] }, 'transactions.0.payment.paymentId', 'transactions.0.payment.paymentId: is required.'],
    ['amountPaid not a decimal', { transactions: [payment({}, { amountPaid: '12,00' })] }, 'transactions.0.payment.amountPaid', 'transactions.0.payment.amountPaid: must be a decimal of at most 15 significant digits, 6 of them after the point.'],
    ['unknown payment field', { transactions: [payment({}, { cardNumber: '4111111111111111' })] }, 'transactions.0.payment.cardNumber', 'transactions.0.payment.cardNumber: is not a known field.'],
    ['externalRelationKind unknown', { transactions: [transaction({ externalRelationKind: 'HOTEL' })] }, 'transactions.0.externalRelationKind', `transactions.0.externalRelationKind: must be one of ${RELATION_KINDS}.`],
    ['account category unknown', { transactions: [transaction({ account: { id: '200', name: 'Deposits', category: 'LOANS' } })] }, 'transactions.0.account.category', 'transactions.0.account.category: must be DEPOSITS.'],
    ['account chartOfAccountType unknown', { transactions: [transaction({ account: { id: '200', name: 'Deposits', chartOfAccountType: 'INCOME' } })] }, 'transactions.0.account.chartOfAccountType', 'transactions.0.account.chartOfAccountType: must be one of LIABILITIES, REVENUE, ASSETS, EQUITY, EXPENSES.'],
    ['account without a name', { transactions: [transaction({ account: { id: '200' } })] }, 'transactions.0.account.name', 'transactions.0.account.name: is required.'],
    ['customTransactionCode of 51 characters', { transactions: [transaction({ customTransactionCode: 'x'.repeat(51) })] }, 'transactions.0.customTransactionCode', 'transactions.0.customTransactionCode: must be at most 50 characters.'],
    ['sourceKind unknown', { transactions: [transaction({ sourceKind: 'ROOM' })] }, 'transactions.0.sourceKind', 'transactions.0.sourceKind: must be one of RESERVATION, HOUSE_ACCOUNT, GROUP_PROFILE, ACCOUNTS_RECEIVABLE_LEDGER.'],
  ];

  it.each(cases)('%s', async (_name, invalid, path, errorDetails) => {
    // Valid records ride along: the whole request is refused.
    const body = {
      reservations: [reservation({ id: '6001' })],
      users: [user({ id: '7' })],
      folios: [{ id: '101', sourceKind: 'RESERVATION', sourceId: '6001', name: 'Guest folio' }],
      transactions: [transaction({ id: '99' })],
      ...invalid,
    };
    const res = await send(3, body);
    expectRefused(res, path, errorDetails);
    expect(res.body.fieldErrors).toHaveLength(1);
    expect(await rowCounts(3)).toEqual(NOTHING);
  });

  it('names the first problem and how many more when there are several', async () => {
    const res = await send(3, {
      reservations: [reservation({ status: 'arrived', adults: 100 })],
      users: [user({ email: 'nope' })],
    });
    expectRefused(res, 'reservations.0.status', `reservations.0.status: must be one of ${RESERVATION_STATUSES} (and 2 more field errors).`);
    expect(res.body.fieldErrors).toEqual([
      { path: 'reservations.0.status', message: `must be one of ${RESERVATION_STATUSES}` },
      { path: 'reservations.0.adults', message: 'must be 0-99' },
      { path: 'users.0.email', message: 'must be an e-mail address' },
    ]);
    expect(await rowCounts(3)).toEqual(NOTHING);
  });

  it('says "1 more field error" for two', async () => {
    const res = await send(3, { reservations: [reservation({ propertyId: 2 }), reservation()] });
    expectRefused(res, 'reservations.0.propertyId', 'reservations.0.propertyId: belongs to another property than X-Property-Id (and 1 more field error).');
    expect(res.body.fieldErrors.map((error: { path: string }) => error.path)).toEqual(['reservations.0.propertyId', 'reservations.1.id']);
    expect(await rowCounts(3)).toEqual(NOTHING);
  });
});
