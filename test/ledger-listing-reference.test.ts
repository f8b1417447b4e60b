import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listingValidator } from './support/folio-transaction-schema.js';
import { importOk } from './support/ledger-fixture.js';
import { HOUSE_SOURCE, OFFSET_IMPORTS, REFUND_SOURCE, STAY_IMPORT, STAY_SOURCE, TYPE_OF_GROUP } from './support/stay-fixture.js';
import { createWorld, type TWorld } from './support/world.js';

// The listing answers every field of the reference accounting API's FolioTransactionResponse
// (docs/ledger.md#listing), on the ledger of test/support/stay-fixture.ts. Every answer of this
// file is validated against the reference's schema (test/support/folio-transaction-schema.ts)
// besides the /openapi.json check every test answer gets.

let world: TWorld;
let token: string;
const validate = listingValidator();

type TRow = Record<string, unknown> & { id: string };
interface TBody {
  groups: Record<string, { transactions: TRow[]; totals: Record<string, number> }>;
  nextPageToken: string | null;
  totals?: Record<string, unknown>;
  foreignCurrencyTotals?: { debit: Record<string, number>; credit: Record<string, number> };
}

beforeAll(async () => {
  world = await createWorld({ worker: false });
  token = world.token({ properties: [1, 2, 3, 4] });
  await importOk(world, token, 1, STAY_IMPORT);
  for (const { propertyId, body } of OFFSET_IMPORTS) await importOk(world, token, propertyId, body);
});
afterAll(async () => world?.close());

/** One page of up to 1100 rows, checked against the reference's schema. */
async function listing(body: Record<string, unknown>, property = '1'): Promise<TBody> {
  const res = await request(world.url)
    .post('/accounting/v1.0/folios/transactions')
    .set('Authorization', `Bearer ${token}`)
    .set('X-Property-Id', property)
    .send({ limit: 1100, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(validate(res.body), JSON.stringify(validate.errors)).toBe(true);
  return res.body as TBody;
}

const STAY = { sourceKind: 'RESERVATION', sourceId: STAY_SOURCE };
const HOUSE = { sourceKind: 'HOUSE_ACCOUNT', sourceId: HOUSE_SOURCE };
const rowsOf = (body: TBody) => Object.values(body.groups).flatMap((group) => group.transactions);
const byId = async (body: Record<string, unknown>, property = '1') => new Map(rowsOf(await listing(body, property)).map((row) => [row.id, row]));
// The routing fields (routedFrom, routingContext) are left out: toEqual below would name them if answered.
const EMPTIES = { readOnly: false, locked: false, lockedByFiscalDocuments: [], actions: [] };
const STAY_FIELDS = { reservationName: 'Ana García', checkinDate: '2026-03-28', checkoutDate: '2026-04-02', reservationStatus: 'checked_in' };

describe('the reference shape', () => {
  it('answers a reservation row with its stay, guest, user, account, codes and external relation', async () => {
    const rows = await byId(STAY);
    expect(rows.get('6101')).toEqual({
      id: '6101',
      propertyId: '1',
      folioId: '601',
      sourceKind: 'RESERVATION',
      sourceId: '6001',
      sourceIdentifier: 'RES-6001',
      subSourceId: '8001',
      subSourceIdentifier: 'Room 201',
      subSourceArchived: false,
      transactionDatetime: '2026-03-29T00:30:00.000Z',
      transactionDatetimePropertyTime: '2026-03-29T01:30:00+01:00',
      serviceDate: '2026-03-28',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      internalTransactionCode: 'RR',
      internalCodeGroup: 'ROOM_REVENUE_RATE',
      transactionType: 'rate',
      customTransactionCode: 'CUST-RR',
      generalLedgerCustomCode: 'GL-4000',
      description: 'Room rate — Deluxe',
      notes: 'first night',
      quantity: 1,
      amount: 100,
      currency: 'EUR',
      currencyScale: 2,
      posted: true,
      rootId: '6101',
      isVoid: false,
      ...EMPTIES,
      customerId: '950',
      guestName: 'Zoë Łukasiewicz',
      userId: '21',
      user: { id: '21', firstName: 'Lucía', lastName: 'Pérez', email: 'lucia@example.com', type: 'REAL_USER' },
      externalRelationId: '7701',
      externalRelationKind: 'ROOM_REVENUE',
      account: { id: '3001', name: 'Room revenue', description: 'Rooms sold', chartOfAccountType: 'REVENUE' },
      ...STAY_FIELDS,
      roomName: 'Room 201',
    });
  });

  it('answers a card payment with its paymentDetails and an empty allocatedPayments', async () => {
    const rows = await byId(STAY);
    expect(rows.get('6104')).toEqual({
      id: '6104',
      propertyId: '1',
      folioId: '601',
      sourceKind: 'RESERVATION',
      sourceId: '6001',
      sourceIdentifier: 'RES-6001',
      subSourceArchived: false,
      transactionDatetime: '2026-03-30T10:00:00.000Z',
      transactionDatetimePropertyTime: '2026-03-30T12:00:00+02:00',
      serviceDate: '2026-03-30',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      internalTransactionCode: 'PAY-VIS',
      internalCodeGroup: 'PAYMENT',
      transactionType: 'payment',
      description: 'Payment Visa ****1111',
      quantity: 1,
      amount: -139,
      currency: 'EUR',
      currencyScale: 2,
      posted: true,
      rootId: '6104',
      isVoid: false,
      ...EMPTIES,
      guestName: null,
      userId: '99',
      user: { id: '99', firstName: '', lastName: '', email: '', type: 'UNKNOWN_USER' },
      externalRelationId: '5501',
      externalRelationKind: 'PAYMENT',
      account: { id: '3100', name: 'Guest deposits', category: 'DEPOSITS', chartOfAccountType: 'LIABILITIES' },
      ...STAY_FIELDS,
      paymentDetails: {
        paymentMethod: 'cards_visa',
        paymentId: '5501',
        transactionType: 'Capture',
        gateway: 'adyen',
        creditCardType: 'visa',
        cardTrailingDigits: '1111',
        amountPaid: 139,
        amountRefunded: 0,
        processingStatus: 'confirmed',
      },
      allocatedPayments: [],
    });
  });

  it('answers the tendered currency of a foreign payment, the archived room, and leaves out what was not imported', async () => {
    const rows = await byId(STAY);
    expect(rows.get('6105')).toMatchObject({ amount: -100, currency: 'EUR', foreignCurrency: 'USD', foreignCurrencyAmount: -108.5 });
    expect(rows.get('6105')!.paymentDetails).toEqual({ paymentMethod: 'cash', paymentId: '5502', transactionType: 'Record' });
    expect(rows.get('6102')).toMatchObject({ subSourceId: '8002', roomName: 'Room 202', subSourceArchived: true, quantity: 3, originId: '123' });
    // Room 8099 was never imported: no roomName, not archived; the stay fields still come from the reservation.
    expect(rows.get('6111')).toMatchObject({ subSourceId: '8099', subSourceArchived: false, ...STAY_FIELDS });
    expect(rows.get('6111')).not.toHaveProperty('roomName');
    const absent = ['notes', 'originId', 'parentId', 'customTransactionCode', 'generalLedgerCustomCode', 'customerId', 'userId', 'externalRelationId', 'externalRelationKind', 'account', 'foreignCurrency', 'foreignCurrencyAmount', 'state'];
    for (const name of absent) expect(rows.get('6108'), name).not.toHaveProperty(name);
    for (const name of ['paymentDetails', 'allocatedPayments', 'subSourceId', 'roomName']) expect(rows.get('6108'), name).not.toHaveProperty(name);
    expect(rows.get('6108')).toMatchObject({ guestName: null, subSourceArchived: false, ...STAY_FIELDS });
  });

  it('marks every row of a chain holding a void VOIDED, and no other', async () => {
    const rows = await byId(STAY);
    expect(rows.get('6106')).toMatchObject({ state: 'VOIDED', isVoid: false, rootId: '6106' });
    expect(rows.get('6107')).toMatchObject({ state: 'VOIDED', isVoid: true, parentId: '6106', rootId: '6106' });
    const stated = [...rows.values()].filter((row) => 'state' in row).map((row) => row.id);
    expect(stated).toEqual(['6106', '6107']);
  });

  it('leaves out routedFrom and routingContext (the reference types them not nullable; this service routes nothing)', async () => {
    const rows = [...(await byId(STAY)).values(), ...(await byId(HOUSE)).values()];
    expect(rows).toHaveLength(29);
    for (const row of rows) {
      expect(row, row.id).not.toHaveProperty('routedFrom');
      expect(row, row.id).not.toHaveProperty('routingContext');
    }
  });

  it('answers no stay on a house account, even for a sub-source id that is a booked room elsewhere', async () => {
    const rows = await byId(HOUSE);
    expect(rows.size).toBe(18);
    const payment = rows.get('6501')!;
    expect(payment).toMatchObject({ sourceKind: 'HOUSE_ACCOUNT', subSourceId: '8001', subSourceArchived: false, paymentDetails: { paymentMethod: 'cash' }, allocatedPayments: [] });
    for (const row of rows.values()) {
      for (const name of ['reservationName', 'checkinDate', 'checkoutDate', 'reservationStatus', 'roomName']) expect(row, `${row.id} ${name}`).not.toHaveProperty(name);
    }
  });
});

describe('transactionType', () => {
  it.each(TYPE_OF_GROUP.map(([group, type], index) => [group, type, String(6501 + index)]))('%s → %s', async (group, type, id) => {
    const row = (await byId(HOUSE)).get(id)!;
    expect(row).toMatchObject({ internalCodeGroup: group, transactionType: type });
  });

  it('is adjustment for a code ending in "A", whatever its group', async () => {
    const rows = await byId(STAY);
    expect(rows.get('6109')).toMatchObject({ internalTransactionCode: '1000A', internalCodeGroup: 'ROOM_REVENUE_RATE', transactionType: 'adjustment' });
    expect(rows.get('6108')).toMatchObject({ internalCodeGroup: 'N_A', transactionType: 'adjustment' });
  });
});

describe('transactionDatetimePropertyTime', () => {
  it('carries the offset in force at the instant across the March change in Madrid', async () => {
    const rows = await byId(STAY);
    expect(rows.get('6101')!.transactionDatetimePropertyTime).toBe('2026-03-29T01:30:00+01:00');
    expect(rows.get('6102')!.transactionDatetimePropertyTime).toBe('2026-03-29T03:30:00+02:00');
  });

  it('tells apart the two 02:30 of the October change in Madrid', async () => {
    const rows = await byId(HOUSE);
    expect(rows.get('6517')!.transactionDatetimePropertyTime).toBe('2026-10-25T02:30:00+02:00');
    expect(rows.get('6518')!.transactionDatetimePropertyTime).toBe('2026-10-25T02:30:00+01:00');
    expect(rows.get('6510')!.transactionDatetimePropertyTime).toBe('2026-01-19T13:00:00+01:00');
  });

  it('writes a negative offset with its minutes and a zero offset as +00:00', async () => {
    expect((await byId(HOUSE, '2')).get('6601')!.transactionDatetimePropertyTime).toBe('2026-01-15T08:30:00-03:30');
    expect((await byId(HOUSE, '3')).get('6601')!.transactionDatetimePropertyTime).toBe('2026-01-15T12:00:00+00:00');
  });
});

describe('user', () => {
  it('is the imported user, an unknown user, or the system for "0" and for none', async () => {
    const rows = await byId(STAY);
    expect(rows.get('6102')!.user).toEqual({ id: '22', firstName: 'Marc', lastName: 'Soler', email: '', type: 'REAL_USER' });
    expect(rows.get('6104')!.user).toEqual({ id: '99', firstName: '', lastName: '', email: '', type: 'UNKNOWN_USER' });
    const system = { id: '0', firstName: '', lastName: '', email: '', type: 'SYSTEM_USER' };
    expect(rows.get('6103')).toMatchObject({ userId: '0', user: system });
    expect(rows.get('6105')!.user).toEqual(system);
    expect(rows.get('6105')).not.toHaveProperty('userId');
  });
});

describe('groupBy the stay', () => {
  it('reservation_name groups by the guest of the reservation, "none" without one', async () => {
    const stay = await listing({ ...STAY, groupBy: 'reservation_name' });
    expect(Object.keys(stay.groups)).toEqual(['Ana García']);
    expect(stay.groups['Ana García']!.totals).toEqual({ count: 11, quantity: 5, totalDebit: 131.5, totalCredit: 259 });
    const walkIn = await listing({ sourceKind: 'RESERVATION', sourceId: REFUND_SOURCE, groupBy: 'reservation_name' });
    expect(Object.keys(walkIn.groups)).toEqual(['none']);
    expect(walkIn.groups.none!.totals).toEqual({ count: 3, quantity: 0, totalDebit: 0, totalCredit: -10 });
  });

  it('room_name groups by the booked room, "none" without an imported one, with the page totals and item quantities', async () => {
    const body = await listing({ ...STAY, groupBy: 'room_name' });
    expect(Object.keys(body.groups)).toEqual(['Room 201', 'Room 202', 'none']);
    const ids = (key: string) => body.groups[key]!.transactions.map((row) => row.id);
    expect(ids('Room 201')).toEqual(['6101', '6103', '6106', '6107', '6109']);
    expect(ids('Room 202')).toEqual(['6102']);
    expect(ids('none')).toEqual(['6104', '6105', '6108', '6110', '6111']);
    // Quantities of items only: breakfast 2 + water 1 − its void 1 (the rates' and the city tax's do not count).
    expect(body.groups['Room 201']!.totals).toEqual({ count: 5, quantity: 2, totalDebit: 120, totalCredit: 0 });
    expect(body.groups['Room 202']!.totals).toEqual({ count: 1, quantity: 3, totalDebit: 9, totalCredit: 0 });
    expect(body.groups.none!.totals).toEqual({ count: 5, quantity: 0, totalDebit: 2.5, totalCredit: 259 });
  });
});

describe('group keys are data', () => {
  it('a guest named "__proto__" is a group like any other', async () => {
    const source = '6900';
    await importOk(world, token, 2, {
      reservations: [{ id: source, guestName: '__proto__', status: 'confirmed', checkinDate: '2026-05-01', checkoutDate: '2026-05-02' }],
      transactions: [{
        id: '6901', folioId: '6909', sourceKind: 'RESERVATION', sourceId: source, transactionDatetime: '2026-05-01T12:00:00Z', serviceDate: '2026-05-01',
        internalTransactionCode: '1000', internalCodeGroup: 'ROOM_REVENUE_RATE', description: 'Nightly rate', quantity: '1', amount: '80.00', currency: 'EUR', posted: true,
      }],
    });
    const body = await listing({ sourceKind: 'RESERVATION', sourceId: source, groupBy: 'reservation_name' }, '2');
    expect(Object.keys(body.groups)).toEqual(['__proto__']);
    expect(body.groups['__proto__']!.transactions.map((row) => row.id)).toEqual(['6901']);
  });
});

describe('totals', () => {
  it('leaves out the currency of a property whose own record was never imported (the reference types it not nullable)', async () => {
    await importOk(world, token, 4, { transactions: [{ ...STAY_IMPORT.transactions[0]!, id: '6901', folioId: '6909' }] });
    const body = await listing({ ...STAY, includeTotal: true }, '4');
    expect(body.totals).toEqual({ count: 1, totalDebit: 100, totalCredit: 0, currencyScale: 2 });
  });
});

describe('foreignCurrencyTotals', () => {
  it('breaks totalCredit down by tender currency when a payment was tendered in a foreign currency', async () => {
    const body = await listing({ ...STAY, includeTotal: true });
    expect(body.totals).toEqual({ count: 11, totalDebit: 131.5, totalCredit: 259, currency: 'EUR', currencyScale: 2 });
    // USD: the 108.50 tendered; EUR: the card payment 139 and the transfer to the company ledger 20.
    expect(body.foreignCurrencyTotals).toEqual({ debit: {}, credit: { USD: 108.5, EUR: 159 } });
  });

  it('nets refunds: a zero net is left out, a negative one answered', async () => {
    const body = await listing({ sourceKind: 'RESERVATION', sourceId: REFUND_SOURCE, includeTotal: true });
    expect(body.totals).toEqual({ count: 3, totalDebit: 0, totalCredit: -10, currency: 'EUR', currencyScale: 2 });
    expect(body.foreignCurrencyTotals).toEqual({ debit: {}, credit: { EUR: -10 } });
  });

  it('covers every matching row across pages and follows the filters', async () => {
    const paged = await listing({ ...STAY, includeTotal: true, limit: 2 });
    expect(rowsOf(paged)).toHaveLength(2);
    expect(paged.foreignCurrencyTotals).toEqual({ debit: {}, credit: { USD: 108.5, EUR: 159 } });
    const payments = await listing({ ...STAY, includeTotal: true, descriptionFilters: ['cash'] });
    expect(payments.foreignCurrencyTotals).toEqual({ debit: {}, credit: { USD: 108.5 } });
  });

  it('is left out without a foreign-tendered payment among the matching rows, and without includeTotal', async () => {
    const card = await listing({ ...STAY, includeTotal: true, descriptionFilters: ['cards_visa'] });
    expect(card.totals).toEqual({ count: 1, totalDebit: 0, totalCredit: 139, currency: 'EUR', currencyScale: 2 });
    expect(card).not.toHaveProperty('foreignCurrencyTotals');
    expect(await listing({ ...HOUSE, includeTotal: true })).not.toHaveProperty('foreignCurrencyTotals');
    const untotalled = await listing({ ...STAY });
    expect(untotalled).not.toHaveProperty('foreignCurrencyTotals');
    expect(untotalled).not.toHaveProperty('totals');
  });
});

describe('the reference schema itself', () => {
  it('refuses a row missing a required field, with a wrong enum or format, or a fractional quantity', async () => {
    const body = await listing(STAY);
    const row = body.groups.default!.transactions[0]!;
    const withRow = (changed: Record<string, unknown>) => ({ ...body, groups: { default: { ...body.groups.default!, transactions: [changed] } } });
    expect(validate(withRow(row))).toBe(true);
    const { user: _user, ...withoutUser } = row;
    expect(validate(withRow(withoutUser))).toBe(false);
    expect(validate(withRow({ ...row, transactionType: 'charge' }))).toBe(false);
    expect(validate(withRow({ ...row, transactionDatetimePropertyTime: '2026-03-29T01:30:00' }))).toBe(false);
    expect(validate(withRow({ ...row, quantity: 1.5 }))).toBe(false);
    expect(validate(withRow({ ...row, user: { ...(row.user as object), type: 'ROBOT' } }))).toBe(false);
  });

  it('refuses null where the reference type is not nullable: the routing fields, an id, the totals currency', async () => {
    const body = await listing({ ...STAY, includeTotal: true });
    const row = body.groups.default!.transactions[0]!;
    const withRow = (changed: Record<string, unknown>) => ({ ...body, groups: { default: { ...body.groups.default!, transactions: [changed] } } });
    expect(validate(withRow({ ...row, routedFrom: null }))).toBe(false);
    expect(validate(withRow({ ...row, routingContext: null }))).toBe(false);
    expect(validate(withRow({ ...row, customerId: null }))).toBe(false);
    expect(validate({ ...body, totals: { ...body.totals, currency: null } })).toBe(false);
    // Left out, they are valid: the reference requires none of them.
    const { customerId: _customerId, ...withoutCustomer } = row;
    expect(validate(withRow(withoutCustomer))).toBe(true);
    const { currency: _currency, ...totalsWithoutCurrency } = body.totals!;
    expect(validate({ ...body, totals: totalsWithoutCurrency })).toBe(true);
    // The reference's types, when answered: a string and an object of strings.
    expect(validate(withRow({ ...row, routedFrom: '42', routingContext: { reservationId: '6001' } }))).toBe(true);
  });
});
