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

/** Polls `check` every 50 ms until it answers a value; fails naming `what` after `timeoutMs`. */
export async function until<T>(check: () => Promise<T | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
