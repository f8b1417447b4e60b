// A French hotel's ledger for the fiscal-document tests (docs/fiscal-documents.md): the property
// with its seller data and taxes, a company and a guest to invoice, and stays written out by hand
// so that every total can be checked by reading it.

import request from 'supertest';
import { expect } from 'vitest';
import type { TWorld } from './world.js';

export const SELLER_PROPERTY = {
  id: 1,
  name: 'Hôtel Miramar Lyon',
  currency: 'EUR',
  timezone: 'Europe/Paris',
  language: 'fr',
  gatewayMode: 'test',
  legalName: 'Miramar Hôtellerie SAS',
  vatId: 'FR32123456789',
  companyId: '123456789',
  iban: 'FR7630006000011234567890189',
  phone: '+33 4 72 00 00 00',
  postalAddress: { lines: ['12 rue de la République'], city: 'Lyon', postcode: '69002', countryCode: 'FR' },
  electronicAddress: { scheme: '0225', id: '123456789' },
  taxes: [
    { id: 11, name: 'TVA 10 %', kind: 'VAT', rate: '10', category: 'S' },
    { id: 12, name: 'TVA 20 %', kind: 'VAT', rate: '20', category: 'S' },
    { id: 21, name: 'Taxe de séjour', kind: 'CITY_TAX', rate: '0', category: 'E', exemptionReason: 'Taxe de séjour perçue pour la commune (débours)' },
  ],
};

export const COMPANY = {
  type: 'COMPANY',
  id: 1001,
  name: 'ACME Conseil SAS',
  vatId: 'FR61987654321',
  companyId: '987654321',
  email: 'factures@acme.example',
  postalAddress: { lines: ['8 avenue de l’Opéra'], city: 'Paris', postcode: '75001', countryCode: 'FR' },
  electronicAddress: { scheme: '0225', id: '987654321' },
};
/** A guest with no address: an invoice to them lacks the buyer's address. */
export const GUEST = { type: 'GUEST', id: 2001, name: 'Zoë Ryder' };

type TRecord = Record<string, unknown>;

/**
 * Reservation `sourceId`, folio `sourceId * 10`, transaction ids from `sourceId * 100 + 1`: three
 * nights at 100.00 with VAT 10 % beside each (10.00) and a city tax of 2.00, two minibar drinks
 * (5.00, VAT 20 % 1.00), a champagne voided, a Visa deposit of 100.00 (…1111) before arrival.
 * Net 311.00, VAT 31.00, gross 342.00, prepaid 100.00, due 242.00.
 */
export function frenchStay(sourceId: number): { folios: TRecord[]; reservations: TRecord[]; transactions: TRecord[] } {
  const folioId = String(sourceId * 10);
  let next = sourceId * 100;
  const base = { folioId, sourceKind: 'RESERVATION', sourceId: String(sourceId), sourceIdentifier: `RES-${sourceId}`, currency: 'EUR', posted: true, quantity: '1' };
  const transactions: TRecord[] = [];
  const tx = (fields: TRecord) => {
    next += 1;
    const record = { ...base, id: String(next), ...fields };
    transactions.push(record);
    return String(next);
  };
  tx({ transactionDatetime: '2026-11-15T10:00:00Z', serviceDate: '2026-11-15', internalTransactionCode: '9000', internalCodeGroup: 'PAYMENT', paymentMethod: 'cards_visa', description: 'Acompte carte', amount: '-100.00', payment: { paymentId: `pay-${sourceId}`, transactionType: 'Purchase', creditCardType: 'visa', cardTrailingDigits: '1111' } });
  for (const night of [0, 1, 2]) {
    const date = `2026-11-2${night}`;
    const room = tx({ transactionDatetime: `${date}T22:00:00Z`, serviceDate: date, internalTransactionCode: '1000', internalCodeGroup: 'ROOM_REVENUE_RATE', description: 'Chambre Supérieure', amount: '100.00' });
    tx({ transactionDatetime: `${date}T22:00:00Z`, serviceDate: date, internalTransactionCode: '3000', internalCodeGroup: 'TAX', originId: '11', parentId: room, rootId: room, description: 'TVA 10 %', amount: '10.00' });
    tx({ transactionDatetime: `${date}T22:00:00Z`, serviceDate: date, internalTransactionCode: '4000', internalCodeGroup: 'TAX', originId: '21', parentId: room, rootId: room, description: 'Taxe de séjour', amount: '2.00' });
  }
  const minibar = tx({ transactionDatetime: '2026-11-21T20:00:00Z', serviceDate: '2026-11-21', internalTransactionCode: '2000', internalCodeGroup: 'ITEM_SERVICE', description: 'Minibar', quantity: '2', amount: '5.00' });
  tx({ transactionDatetime: '2026-11-21T20:00:00Z', serviceDate: '2026-11-21', internalTransactionCode: '3000', internalCodeGroup: 'TAX', originId: '12', parentId: minibar, rootId: minibar, description: 'TVA 20 %', amount: '1.00' });
  const champagne = tx({ transactionDatetime: '2026-11-21T21:00:00Z', serviceDate: '2026-11-21', internalTransactionCode: '2000', internalCodeGroup: 'ITEM_SERVICE', description: 'Champagne', amount: '95.00', vat: { category: 'S', rate: '20' } });
  tx({ transactionDatetime: '2026-11-21T21:30:00Z', serviceDate: '2026-11-21', internalTransactionCode: '2000', internalCodeGroup: 'ITEM_SERVICE', description: 'Champagne (annulé)', amount: '-95.00', isVoid: true, parentId: champagne, rootId: champagne });
  return {
    folios: [{ id: folioId, sourceKind: 'RESERVATION', sourceId: String(sourceId), sourceIdentifier: `RES-${sourceId}`, name: 'Folio principal' }],
    reservations: [{ id: String(sourceId), identifier: `RES-${sourceId}`, guestName: 'Zoë Ryder', status: 'checked_out', checkinDate: '2026-11-20', checkoutDate: '2026-11-23' }],
    transactions,
  };
}

/** The ids of a frenchStay's rows an invoice holds: every row but the voided champagne's two (the last two). */
export function invoicedIds(sourceId: number): string[] {
  return Array.from({ length: 12 }, (_, i) => String(sourceId * 100 + 1 + i));
}

/** Imports the property, both recipients and the stays of `sourceIds` for property `propertyId`. */
export async function importFrenchHotel(world: TWorld, token: string, sourceIds: number[], propertyId = 1): Promise<void> {
  const stays = sourceIds.map(frenchStay);
  const res = await request(world.url)
    .post('/accounting/v1.0/import')
    .set('Authorization', `Bearer ${token}`)
    .set('X-Property-Id', String(propertyId))
    .send({
      property: { ...SELLER_PROPERTY, id: propertyId },
      recipients: [COMPANY, GUEST],
      folios: stays.flatMap((stay) => stay.folios),
      reservations: stays.flatMap((stay) => stay.reservations),
      transactions: stays.flatMap((stay) => stay.transactions),
    });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** Stay `sourceId` of frenchStay with a breakfast sold VAT-inclusive (22.00 at 10 %) and 50.00 paid in US dollar cash. */
export function frenchStayWithExtras(sourceId: number): ReturnType<typeof frenchStay> {
  const stay = frenchStay(sourceId);
  const base = { folioId: String(sourceId * 10), sourceKind: 'RESERVATION', sourceId: String(sourceId), currency: 'EUR', posted: true, quantity: '1' };
  stay.transactions.push(
    { ...base, id: String(sourceId * 100 + 50), transactionDatetime: '2026-11-21T07:30:00Z', serviceDate: '2026-11-21', internalTransactionCode: '2100', internalCodeGroup: 'ADDON', description: 'Petit-déjeuner', amount: '22.00', vat: { category: 'S', rate: '10' } },
    { ...base, id: String(sourceId * 100 + 51), transactionDatetime: '2026-11-23T09:00:00Z', serviceDate: '2026-11-23', internalTransactionCode: '9001', internalCodeGroup: 'PAYMENT', paymentMethod: 'cash', description: 'Cash payment in USD', amount: '-50.00', foreignCurrency: 'USD', foreignCurrencyAmount: '-54.00' },
  );
  return stay;
}

/** A German hotel (property 3): 7 % for rooms and breakfast, 19 % for drinks. */
export const GERMAN_PROPERTY = {
  id: 3,
  name: 'Hotel Spree Berlin',
  currency: 'EUR',
  timezone: 'Europe/Berlin',
  language: 'de',
  gatewayMode: 'test',
  vatId: 'DE123456789',
  iban: 'DE89370400440532013000',
  postalAddress: { lines: ['Friedrichstraße 100'], city: 'Berlin', postcode: '10117', countryCode: 'DE' },
  taxes: [
    { id: 11, name: 'MwSt. 7 %', kind: 'VAT', rate: '7', category: 'S' },
    { id: 12, name: 'MwSt. 19 %', kind: 'VAT', rate: '19', category: 'S' },
  ],
};
export const GERMAN_COMPANY = { type: 'COMPANY', id: 3001, name: 'Muster GmbH', vatId: 'DE987654321', postalAddress: { lines: ['Leopoldstraße 1'], city: 'München', postcode: '80802', countryCode: 'DE' } };
export const GERMAN_GUEST = { type: 'GUEST', id: 3002, name: 'Jürgen Müller', postalAddress: { lines: ['Jungfernstieg 7'], city: 'Hamburg', postcode: '20354', countryCode: 'DE' } };

/**
 * Reservation 530 split over two folios — 5300: two nights at 100.00 with 7 % beside (7.00), a
 * breakfast of 15.00 with its 7 % inside, a card deposit of 50.00; 5301: two minibar drinks (8.00,
 * 19 % beside: 1.52) and a bar bill of 12.00 with its 19 % inside — and house account 540 (folio
 * 5400): three coffees at 2.50 with 0.48 of VAT each (per-line rounding: 1.44 against 7.50 × 19 % =
 * 1.43) paid 8.94 in cash.
 */
export function germanLedger(): { property: TRecord; recipients: TRecord[]; folios: TRecord[]; reservations: TRecord[]; transactions: TRecord[] } {
  const transactions: TRecord[] = [];
  const row = (folioId: string, sourceKind: string, sourceId: string, id: string, fields: TRecord) =>
    transactions.push({ id, folioId, sourceKind, sourceId, currency: 'EUR', posted: true, quantity: '1', ...fields });
  const stay = (folioId: string, id: string, fields: TRecord) => row(folioId, 'RESERVATION', '530', id, fields);
  stay('5300', '53001', { transactionDatetime: '2026-10-01T12:00:00Z', serviceDate: '2026-10-01', internalTransactionCode: '9000', internalCodeGroup: 'PAYMENT', paymentMethod: 'cards_visa', description: 'Anzahlung', amount: '-50.00', payment: { paymentId: 'pay-530', transactionType: 'Purchase', creditCardType: 'visa', cardTrailingDigits: '4242' } });
  for (const [n, date] of [['1', '2026-10-05'], ['2', '2026-10-06']] as const) {
    stay('5300', `5301${n}`, { transactionDatetime: `${date}T21:00:00Z`, serviceDate: date, internalTransactionCode: '1000', internalCodeGroup: 'ROOM_REVENUE_RATE', description: 'Doppelzimmer', amount: '100.00' });
    stay('5300', `5302${n}`, { transactionDatetime: `${date}T21:00:00Z`, serviceDate: date, internalTransactionCode: '3000', internalCodeGroup: 'TAX', originId: '11', parentId: `5301${n}`, rootId: `5301${n}`, description: 'MwSt. 7 %', amount: '7.00' });
  }
  stay('5300', '53030', { transactionDatetime: '2026-10-06T07:00:00Z', serviceDate: '2026-10-06', internalTransactionCode: '2100', internalCodeGroup: 'ADDON', description: 'Frühstück', amount: '15.00', vat: { category: 'S', rate: '7' } });
  stay('5301', '53040', { transactionDatetime: '2026-10-05T22:00:00Z', serviceDate: '2026-10-05', internalTransactionCode: '2000', internalCodeGroup: 'ITEM_SERVICE', description: 'Minibar', quantity: '2', amount: '8.00' });
  stay('5301', '53041', { transactionDatetime: '2026-10-05T22:00:00Z', serviceDate: '2026-10-05', internalTransactionCode: '3000', internalCodeGroup: 'TAX', originId: '12', parentId: '53040', rootId: '53040', description: 'MwSt. 19 %', amount: '1.52' });
  stay('5301', '53050', { transactionDatetime: '2026-10-06T23:00:00Z', serviceDate: '2026-10-06', internalTransactionCode: '2000', internalCodeGroup: 'ITEM_SERVICE', description: 'Hotelbar', amount: '12.00', vat: { category: 'S', rate: '19' } });
  for (const n of ['1', '2', '3']) {
    row('5400', 'HOUSE_ACCOUNT', '540', `5400${n}`, { transactionDatetime: `2026-10-07T0${n}:00:00Z`, serviceDate: '2026-10-07', internalTransactionCode: '2300', internalCodeGroup: 'ITEM_SERVICE', description: 'Kaffee', amount: '2.50' });
    row('5400', 'HOUSE_ACCOUNT', '540', `5401${n}`, { transactionDatetime: `2026-10-07T0${n}:00:00Z`, serviceDate: '2026-10-07', internalTransactionCode: '3000', internalCodeGroup: 'TAX', originId: '12', parentId: `5400${n}`, rootId: `5400${n}`, description: 'MwSt. 19 %', amount: '0.48' });
  }
  row('5400', 'HOUSE_ACCOUNT', '540', '54020', { transactionDatetime: '2026-10-07T09:00:00Z', serviceDate: '2026-10-07', internalTransactionCode: '9001', internalCodeGroup: 'PAYMENT', paymentMethod: 'cash', description: 'Bar', amount: '-8.94' });
  return {
    property: GERMAN_PROPERTY,
    recipients: [GERMAN_COMPANY, GERMAN_GUEST],
    folios: [
      { id: '5300', sourceKind: 'RESERVATION', sourceId: '530', sourceIdentifier: 'RES-530', name: 'Zimmer' },
      { id: '5301', sourceKind: 'RESERVATION', sourceId: '530', sourceIdentifier: 'RES-530', name: 'Extras' },
      { id: '5400', sourceKind: 'HOUSE_ACCOUNT', sourceId: '540', sourceIdentifier: 'HA-BAR', name: 'Hotelbar' },
    ],
    reservations: [{ id: '530', identifier: 'RES-530', guestName: 'Jürgen Müller', status: 'checked_out', checkinDate: '2026-10-05', checkoutDate: '2026-10-07' }],
    transactions,
  };
}
