import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoLedger, type TDemoLedger } from '@folio-vault/test-kit/demo-ledger';
import { ZImportRequest } from '@folio-vault/shared/ledger/schemas';
import { cardBody } from '@folio-vault/test-kit/cards';
import { tokenize } from './support/forward.js';
import { createWorld, type TWorld } from './support/world.js';

// The demo ledger (packages/test-kit/src/demo-ledger.ts, demo-stays.ts) that `npm run demo`,
// `npm run ledger:demo` and the benchmarks import: its stays, users, card and foreign-currency
// payments are consistent with its transactions and pass the import's validation; and imported
// through the API with a real vault token, its visa payments come out labelled from the token.

type TRow = Record<string, unknown>;
type TPaymentObject = Record<string, unknown>;
const NOW = new Date('2026-11-24T10:00:00Z');
const TODAY = '2026-11-24';
const TOKEN_ID = '0196b7a2-1c3d-7e4f-8a5b-6c7d8e9f0a1b';
const demo = (extra: Partial<Parameters<typeof generateDemoLedger>[0]> = {}): TDemoLedger =>
  generateDemoLedger({ propertyId: 1, folios: 12, now: NOW, ...extra });
const paymentOf = (row: TRow) => row.payment as TPaymentObject | undefined;

describe('demo ledger: the stay behind every reservation', () => {
  it('has one reservation per RESERVATION source, with the folio identifier and guest', () => {
    const ledger = demo();
    const sources = ledger.folios.filter((f) => f.sourceKind === 'RESERVATION');
    expect(sources).toHaveLength(11);
    expect(ledger.reservations.map((r) => r.id)).toEqual(sources.map((f) => f.sourceId));
    expect(ledger.reservations.map((r) => r.identifier)).toEqual(sources.map((f) => f.sourceIdentifier));
    expect(ledger.reservations[0]).toMatchObject({ id: '100001', identifier: 'RES-100001', guestName: 'Zoë Łukasiewicz', checkinDate: '2026-11-19', checkoutDate: '2026-11-22' });
  });

  it('books rooms that cover every subSourceId its transactions use, with their names and types', () => {
    const ledger = demo({ folios: 40 });
    for (const reservation of ledger.reservations) {
      const rooms = reservation.rooms as Array<{ id: string; roomName: string; roomTypeName: string }>;
      const used = new Set(ledger.transactions.filter((t) => t.sourceId === reservation.id && t.subSourceId).map((t) => t.subSourceId));
      expect(new Set(rooms.map((room) => room.id))).toEqual(used);
      for (const row of ledger.transactions.filter((t) => t.sourceId === reservation.id && t.subSourceId)) {
        expect(row.subSourceIdentifier).toBe(rooms.find((room) => room.id === row.subSourceId)!.roomName);
      }
    }
    const types = new Set(ledger.reservations.flatMap((r) => (r.rooms as Array<{ roomTypeName: string }>).map((room) => room.roomTypeName)));
    expect([...types].sort()).toEqual(['Double Deluxe', 'Double Standard', 'Junior Suite', 'Ocean View Suite', 'Twin Standard']);
  });

  it('gives each stay the status of its dates relative to now, and 1-3 adults and 0-2 children', () => {
    const ledger = demo({ folios: 40 });
    for (const r of ledger.reservations) {
      const [checkin, checkout] = [r.checkinDate as string, r.checkoutDate as string];
      const expected = checkin > TODAY ? 'confirmed' : checkout <= TODAY ? 'checked_out' : 'checked_in';
      expect(r.status, `${String(r.id)} ${checkin}..${checkout}`).toBe(expected);
      expect(checkout > checkin).toBe(true);
      expect([1, 2, 3]).toContain(r.adults);
      expect([0, 1, 2]).toContain(r.children);
    }
    expect(new Set(ledger.reservations.map((r) => r.status))).toEqual(new Set(['checked_out', 'checked_in', 'confirmed']));
    // A stay still to come has posted nothing yet but its deposit.
    const future = ledger.reservations.filter((r) => r.status === 'confirmed').map((r) => r.id);
    const postedFuture = ledger.transactions.filter((t) => future.includes(t.sourceId) && t.posted && t.internalCodeGroup !== 'PAYMENT');
    expect(postedFuture).toEqual([]);
  });
});

describe('demo ledger: who posted', () => {
  it('lists 3 or 4 front-desk users that cover every userId but the system "0"', () => {
    for (const propertyId of [1, 2]) {
      const ledger = demo({ propertyId });
      expect(ledger.users).toHaveLength(propertyId === 1 ? 4 : 3);
      const userIds = new Set(ledger.users.map((u) => u.id));
      const posted = new Set(ledger.transactions.map((t) => t.userId).filter((id) => id !== '0'));
      expect([...posted].every((id) => userIds.has(id))).toBe(true);
      expect(posted.size).toBe(ledger.users.length);
    }
    expect(demo().users[0]).toEqual({ id: '1', firstName: 'Lucía', lastName: 'Gómez', email: 'lucia.gomez@frontdesk-1.example' });
  });

  it('posts room revenue, its VAT and city tax as the system (the night audit), the rest as users', () => {
    const ledger = demo();
    const system = ledger.transactions.filter((t) => t.userId === '0');
    expect(system).toHaveLength(108);
    expect(new Set(system.map((t) => t.internalCodeGroup))).toEqual(new Set(['ROOM_REVENUE_RATE', 'TAX', 'FEE']));
    expect(ledger.transactions.filter((t) => t.internalCodeGroup === 'ROOM_REVENUE_RATE' && t.userId !== '0')).toEqual([]);
  });
});

describe('demo ledger: payments', () => {
  it('labels card payments of the demo gateway with the brand and last four of the public test cards', () => {
    const payments = demo().transactions.filter((t) => t.paymentMethod === 'cards_visa' || t.paymentMethod === 'cards_master');
    expect(payments).toHaveLength(11);
    for (const row of payments) {
      const visa = row.paymentMethod === 'cards_visa';
      expect(paymentOf(row)).toEqual({
        paymentId: row.externalRelationId, transactionType: 'Purchase', gateway: 'DemoGateway', processingStatus: 'confirmed',
        amountPaid: (row.amount as string).slice(1), creditCardType: visa ? 'visa' : 'master', cardTrailingDigits: visa ? '1111' : '4444',
      });
      expect(row).toMatchObject({ customTransactionCode: 'DEPOSIT', generalLedgerCustomCode: '2400', externalRelationKind: 'PAYMENT', account: { id: '2400', category: 'DEPOSITS', chartOfAccountType: 'LIABILITIES' } });
    }
  });

  it('names the card token on visa payments when given one, and leaves the brand and last four to the import', () => {
    const ledger = demo({ cardTokenId: TOKEN_ID });
    const visa = ledger.transactions.filter((t) => t.paymentMethod === 'cards_visa');
    expect(visa).toHaveLength(6);
    // The first stay's folio (the one `npm run demo` exports) shows the vault's card.
    expect(visa[0]!.sourceId).toBe('100001');
    for (const row of visa) {
      expect(paymentOf(row)).toMatchObject({ transactionType: 'Purchase', gateway: 'DemoGateway', cardTokenId: TOKEN_ID });
      expect(paymentOf(row)).not.toHaveProperty('creditCardType');
      expect(paymentOf(row)).not.toHaveProperty('cardTrailingDigits');
    }
    for (const row of ledger.transactions.filter((t) => t.paymentMethod === 'cards_master')) {
      expect(paymentOf(row)).toMatchObject({ creditCardType: 'master', cardTrailingDigits: '4444' });
      expect(paymentOf(row)).not.toHaveProperty('cardTokenId');
    }
  });

  it('records cash at the desk, and the first stay pays part of it in USD at the EUR property', () => {
    const ledger = demo();
    const cash = ledger.transactions.filter((t) => t.paymentMethod === 'cash' && t.sourceKind === 'RESERVATION');
    expect(cash.map((t) => paymentOf(t)!.transactionType)).toEqual(['Record', 'Record', 'Record', 'Record', 'Record']);
    const foreign = ledger.transactions.filter((t) => t.foreignCurrency !== undefined);
    expect(foreign.map((t) => [t.sourceId, t.description, t.amount, t.currency, t.foreignCurrencyAmount, t.foreignCurrency])).toEqual([
      ['100001', 'Cash payment in USD', '-72.00', 'EUR', '-77.90', 'USD'],
      ['100006', 'Cash payment in USD', '-139.00', 'EUR', '-150.40', 'USD'],
    ]);
  });

  it('tenders a currency other than the property\'s at every demo property, with the sign of the amount', () => {
    const tendered = [1, 3, 4, 5, 6].map((propertyId) => {
      const ledger = demo({ propertyId });
      const row = ledger.transactions.find((t) => t.foreignCurrency !== undefined)!;
      return [ledger.property.currency, row.amount, row.foreignCurrency, row.foreignCurrencyAmount];
    });
    expect(tendered).toEqual([
      ['EUR', '-72.00', 'USD', '-77.90'],
      ['USD', '-44.00', 'MXN', '-759.00'],
      ['BRL', '-134.00', 'USD', '-24.12'],
      ['CHF', '-252.00', 'EUR', '-264.60'],
      ['JPY', '-4930', 'USD', '-33.03'],
    ]);
  });
});

describe('demo ledger: as the import validates it', () => {
  it('passes ZImportRequest at every demo property, with and without a card token', () => {
    for (const propertyId of [1, 2, 3, 4, 5, 6]) {
      for (const cardTokenId of [undefined, TOKEN_ID]) {
        const parsed = ZImportRequest.safeParse(demo({ propertyId, folios: 30, cardTokenId }));
        expect(parsed.success, JSON.stringify(parsed.error?.issues.slice(0, 3))).toBe(true);
      }
    }
  });

  it('carries the codes, accounts and relations the listing shows', () => {
    const ledger = demo();
    const rate = ledger.transactions.find((t) => t.internalCodeGroup === 'ROOM_REVENUE_RATE')!;
    expect(rate).toMatchObject({ customTransactionCode: 'BAR', generalLedgerCustomCode: '4000', externalRelationKind: 'ROOM_REVENUE', externalRelationId: rate.subSourceId, account: { id: '4000', chartOfAccountType: 'REVENUE' }, customerId: '1100' });
    const vat = ledger.transactions.find((t) => t.internalCodeGroup === 'TAX')!;
    expect(vat).toMatchObject({ customTransactionCode: 'VAT10', generalLedgerCustomCode: '2310', externalRelationKind: 'TAX', externalRelationId: '11' });
    // Every reservation row names its guest; the house account has none.
    const guests = new Set(ledger.recipients.filter((r) => r.type === 'GUEST').map((r) => String(r.id)));
    expect(ledger.transactions.filter((t) => t.sourceKind === 'RESERVATION').every((t) => guests.has(t.customerId as string))).toBe(true);
    expect(ledger.transactions.filter((t) => t.sourceKind === 'HOUSE_ACCOUNT' && t.customerId !== undefined)).toEqual([]);
  });

  it('is the same for the same seed, and another for another seed', () => {
    expect(demo({ seed: 42 })).toEqual(demo({ seed: 42 }));
    expect(demo({ seed: 43 }).transactions.map((t) => t.amount)).not.toEqual(demo({ seed: 42 }).transactions.map((t) => t.amount));
  });
});

describe('demo ledger: imported through the API with a vault token', () => {
  let world: TWorld;
  let bearer: string;
  beforeAll(async () => {
    world = await createWorld();
    bearer = world.token({ properties: [1], scope: 'read:payment write:payment' });
  });
  afterAll(async () => world?.close());

  it('imports every record, and the visa payments take the brand and last four of the token', async () => {
    const tokenId = await tokenize(world, cardBody({ card_number: '4111 1111 1111 1111' }), { property: '1', bearer });
    const ledger = demo({ cardTokenId: tokenId });
    const res = await request(world.url).post('/accounting/v1.0/import').set('Authorization', `Bearer ${bearer}`).set('X-Property-Id', '1').send(ledger);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ property: 1, recipients: 12, reservations: 11, users: 4, folios: 12, transactions: 171 });
    const stored = await world.pool.query<{ payment: TPaymentObject }>(
      "SELECT payment FROM transactions WHERE property_id = 1 AND payment->>'cardTokenId' = $1 ORDER BY id",
      [tokenId],
    );
    expect(stored.rows).toHaveLength(6);
    for (const { payment } of stored.rows) expect(payment).toMatchObject({ cardTokenId: tokenId, creditCardType: 'visa', cardTrailingDigits: '1111' });
    const stays = await world.pool.query('SELECT status, count(*)::int AS n FROM reservations WHERE property_id = 1 GROUP BY status ORDER BY status');
    expect(stays.rows).toEqual([{ status: 'checked_in', n: 3 }, { status: 'checked_out', n: 6 }, { status: 'confirmed', n: 2 }]);
  });
});
