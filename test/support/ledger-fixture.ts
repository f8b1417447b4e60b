// A hand-made ledger for the accounting tests (docs/ledger.md). Property 1 (EUR, Europe/Madrid) has
// one RESERVATION source with two folios and rows of nearly every code group; property 2 reuses
// the same source id, folio ids and even transaction ids with other rows, so any leak between
// properties shows. Every row is written out by hand: the tests name rows by their number `n`
// (id = idBase + n) and state the expected answers explicitly.

import request from 'supertest';
import { expect } from 'vitest';
import type { TWorld } from './world.js';

export const PROPERTY_1 = {
  id: 1,
  name: 'Hotel Sol de Madrid',
  address: 'Calle Mayor 1, 28013 Madrid',
  currency: 'EUR',
  timezone: 'Europe/Madrid',
  language: 'es',
  gatewayMode: 'test',
  nightAuditTime: '03:00',
} as const;

export const PROPERTY_2 = {
  id: 2,
  name: 'Harbor Inn Boston',
  currency: 'USD',
  timezone: 'America/New_York',
  gatewayMode: 'test',
} as const;

export const SOURCE_ID = '5001';
export const FOLIO_A = '101';
export const FOLIO_B = '102';
export const SUB_ROOM_101 = '7001';
export const SUB_ROOM_102 = '7002';

export interface TLedgerTransaction {
  id: string;
  folioId: string;
  sourceKind: 'RESERVATION' | 'HOUSE_ACCOUNT' | 'GROUP_PROFILE' | 'ACCOUNTS_RECEIVABLE_LEDGER';
  sourceId: string;
  sourceIdentifier?: string;
  subSourceId?: string;
  subSourceIdentifier?: string;
  transactionDatetime: string;
  serviceDate: string;
  internalTransactionCode: string;
  internalCodeGroup: string;
  originId?: string;
  paymentMethod?: string;
  description: string;
  notes?: string;
  quantity: string;
  amount: string;
  currency: string;
  posted: boolean;
  parentId?: string;
  rootId?: string;
  isVoid?: boolean;
  userId?: string;
}

/** One row of the table below: the parts that vary; `n` is the row number. */
interface TRowSpec {
  n: number;
  folio: 'A' | 'B';
  at: string;
  service: string;
  code: string;
  group: string;
  origin?: string;
  pm?: string;
  description: string;
  notes?: string;
  qty: string;
  amount: string;
  posted: boolean;
  sub?: '7001' | '7002';
  user?: string;
  voids?: { parent: number; root?: number };
}

/**
 * Property 1's rows. Ties on purpose: rows 1, 4 and 6 share an instant (and 16 and 17 another);
 * 1 and 2 share code, description and amount; most rows have no notes and quantity 1.
 * Row 8 is on 10 March in UTC but on 11 March in Madrid. '%' and '_' appear in descriptions
 * (rows 14, 15, 30), with decoys (22 "Parking 50m", 23 "Chargeslate") that an unescaped LIKE
 * pattern would also match. Chain 30/31: a void with rootId given; chain 40/41: a void with only
 * parentId.
 */
const ROWS: TRowSpec[] = [
  { n: 1, folio: 'A', at: '2026-03-10T14:00:00Z', service: '2026-03-10', code: 'RR-DLX', group: 'ROOM_REVENUE_RATE', description: 'Room rate — Deluxe', qty: '1', amount: '120.00', posted: true, sub: '7001', user: '11' },
  { n: 2, folio: 'A', at: '2026-03-11T14:00:00Z', service: '2026-03-11', code: 'RR-DLX', group: 'ROOM_REVENUE_RATE', description: 'Room rate — Deluxe', qty: '1', amount: '120.00', posted: true, sub: '7001', user: '11' },
  { n: 3, folio: 'A', at: '2026-03-12T14:00:00Z', service: '2026-03-12', code: 'RR-DLX', group: 'ROOM_REVENUE_RATE', description: 'Room rate — Deluxe', notes: 'pending night audit', qty: '1', amount: '95.50', posted: false, sub: '7001' },
  { n: 4, folio: 'A', at: '2026-03-10T14:00:00Z', service: '2026-03-10', code: 'VAT10', group: 'TAX', origin: '4', description: 'IVA 10%', qty: '1', amount: '12.00', posted: true, sub: '7001', user: '11' },
  { n: 5, folio: 'A', at: '2026-03-11T14:00:00Z', service: '2026-03-11', code: 'VAT10', group: 'TAX', origin: '4', description: 'IVA 10%', qty: '1', amount: '12.00', posted: true, sub: '7001', user: '11' },
  { n: 6, folio: 'A', at: '2026-03-10T14:00:00Z', service: '2026-03-10', code: 'CITY', group: 'FEE', origin: '9', description: 'Tasa turística', notes: '2 adults', qty: '2', amount: '4.40', posted: true, user: '11' },
  { n: 7, folio: 'A', at: '2026-03-10T20:15:00Z', service: '2026-03-10', code: 'MINI', group: 'ITEM_SERVICE', origin: '123', description: 'Minibar — agua', qty: '3', amount: '0.10', posted: true, sub: '7001', user: '12' },
  { n: 8, folio: 'A', at: '2026-03-10T23:30:00Z', service: '2026-03-10', code: 'MINI', group: 'ITEM_SERVICE', origin: '123', description: 'Minibar — agua', notes: 'late night', qty: '1', amount: '0.20', posted: true, sub: '7001', user: '12' },
  { n: 9, folio: 'A', at: '2026-03-11T09:00:00Z', service: '2026-03-11', code: 'SPA1', group: 'ITEM_SERVICE', origin: '124', description: 'Spa ритуал', qty: '1', amount: '45.00', posted: false, sub: '7002', user: '12' },
  { n: 10, folio: 'A', at: '2026-03-11T08:00:00Z', service: '2026-03-11', code: 'BRK', group: 'ADDON', origin: '55', description: '朝食 Breakfast', qty: '2', amount: '30.00', posted: true, sub: '7002' },
  { n: 11, folio: 'A', at: '2026-03-11T10:00:00Z', service: '2026-03-11', code: 'GIFT', group: 'CUSTOM_ITEM', origin: '77', description: 'Ñandú souvenir', notes: 'gift wrap', qty: '1', amount: '18.25', posted: true, user: '12' },
  { n: 12, folio: 'B', at: '2026-03-11T12:00:00Z', service: '2026-03-11', code: 'MEET', group: 'SPACE', origin: '88', description: 'Sala Ωμέγα', qty: '1', amount: '200.00', posted: true },
  { n: 13, folio: 'B', at: '2026-03-12T09:00:00Z', service: '2026-03-12', code: 'RR-MAN', group: 'ROOM_REVENUE_MANUAL', description: 'Manual room charge', qty: '1', amount: '50.00', posted: true, sub: '7002', user: '11' },
  { n: 14, folio: 'B', at: '2026-03-12T09:30:00Z', service: '2026-03-12', code: 'RR-CXL', group: 'ROOM_REVENUE_CANCELLATION', description: 'Cancellation fee 100%', qty: '1', amount: '80.00', posted: true, user: '11' },
  { n: 15, folio: 'B', at: '2026-03-12T09:45:00Z', service: '2026-03-12', code: 'RR-NS', group: 'ROOM_REVENUE_NO_SHOW', description: 'No-show charge_late', qty: '1', amount: '60.00', posted: false },
  { n: 16, folio: 'B', at: '2026-03-13T10:00:00Z', service: '2026-03-13', code: 'AR', group: 'ACCOUNTS_RECEIVABLE', description: 'Transfer to company ledger', notes: 'ACME Corp', qty: '1', amount: '-300.00', posted: true, user: '11' },
  { n: 17, folio: 'A', at: '2026-03-13T10:00:00Z', service: '2026-03-13', code: 'PAY-CASH', group: 'PAYMENT', pm: 'cash', description: 'Payment cash', qty: '1', amount: '-50.00', posted: true, user: '12' },
  { n: 18, folio: 'A', at: '2026-03-13T10:05:00Z', service: '2026-03-13', code: 'PAY-EB', group: 'PAYMENT', pm: 'ebanking', description: 'Payment bank transfer', qty: '1', amount: '-100.00', posted: true, user: '12' },
  { n: 19, folio: 'A', at: '2026-03-13T10:10:00Z', service: '2026-03-13', code: 'PAY-VIS', group: 'PAYMENT', pm: 'cards_visa', description: 'Payment Visa ****1111', qty: '1', amount: '-150.00', posted: true, sub: '7001', user: '12' },
  { n: 20, folio: 'A', at: '2026-03-13T10:15:00Z', service: '2026-03-13', code: 'PAY-MC', group: 'PAYMENT', pm: 'cards_master', description: 'Payment Mastercard', qty: '1', amount: '-75.25', posted: false },
  { n: 21, folio: 'B', at: '2026-03-13T10:20:00Z', service: '2026-03-13', code: 'PAY-PP', group: 'PAYMENT', pm: 'pay_pal', description: 'PayPal payment', qty: '1', amount: '-20.00', posted: true, user: '11' },
  { n: 22, folio: 'A', at: '2026-03-11T19:00:00Z', service: '2026-03-11', code: 'PARK', group: 'ITEM_SERVICE', origin: '126', description: 'Parking 50m garage', qty: '1', amount: '15.00', posted: true, sub: '7002' },
  { n: 23, folio: 'B', at: '2026-03-12T11:00:00Z', service: '2026-03-12', code: 'COAST', group: 'CUSTOM_ITEM', origin: '78', description: 'Chargeslate coaster', qty: '4', amount: '8.00', posted: true },
  { n: 30, folio: 'A', at: '2026-03-11T21:00:00Z', service: '2026-03-11', code: 'RS', group: 'ITEM_SERVICE', origin: '125', description: 'Room service 50%', qty: '1', amount: '25.00', posted: true, sub: '7001', user: '12' },
  { n: 31, folio: 'A', at: '2026-03-11T21:30:00Z', service: '2026-03-11', code: 'RS', group: 'ITEM_SERVICE', origin: '125', description: 'Room service 50% (void)', notes: 'wrong room', qty: '-1', amount: '-25.00', posted: true, sub: '7001', user: '12', voids: { parent: 30, root: 30 } },
  { n: 40, folio: 'B', at: '2026-03-12T18:00:00Z', service: '2026-03-12', code: 'PAY-CASH', group: 'PAYMENT', pm: 'cash', description: 'Payment cash deposit', qty: '1', amount: '-40.00', posted: true, user: '11' },
  { n: 41, folio: 'B', at: '2026-03-12T18:05:00Z', service: '2026-03-12', code: 'PAY-CASH', group: 'PAYMENT', pm: 'cash', description: 'Payment cash deposit (void)', qty: '1', amount: '40.00', posted: true, user: '11', voids: { parent: 40 } },
];

/** Row numbers of property 1's source, in table order. */
export const ROW_NUMBERS = ROWS.map((row) => row.n);

const SUB_IDENTIFIERS: Record<string, string> = { '7001': 'Room 101', '7002': 'Room 102' };

export interface TLedgerOptions {
  sourceId?: string;
  idBase?: number;
  folioA?: string;
  folioB?: string;
}

/** Property 1's transactions for one source; ids are idBase + n. */
export function ledgerTransactions(options: TLedgerOptions = {}): TLedgerTransaction[] {
  const { sourceId = SOURCE_ID, idBase = 1000, folioA = FOLIO_A, folioB = FOLIO_B } = options;
  const id = (n: number) => String(idBase + n);
  return ROWS.map((row) => ({
    id: id(row.n),
    folioId: row.folio === 'A' ? folioA : folioB,
    sourceKind: 'RESERVATION',
    sourceId,
    sourceIdentifier: `RES-${sourceId}`,
    ...(row.sub ? { subSourceId: row.sub, subSourceIdentifier: SUB_IDENTIFIERS[row.sub] } : {}),
    transactionDatetime: row.at,
    serviceDate: row.service,
    internalTransactionCode: row.code,
    internalCodeGroup: row.group,
    ...(row.origin ? { originId: row.origin } : {}),
    ...(row.pm ? { paymentMethod: row.pm } : {}),
    description: row.description,
    ...(row.notes ? { notes: row.notes } : {}),
    quantity: row.qty,
    amount: row.amount,
    currency: 'EUR',
    posted: row.posted,
    ...(row.voids ? { isVoid: true, parentId: id(row.voids.parent), ...(row.voids.root ? { rootId: id(row.voids.root) } : {}) } : {}),
    ...(row.user ? { userId: row.user } : {}),
  }));
}

export function ledgerFolios(options: TLedgerOptions = {}) {
  const { sourceId = SOURCE_ID, folioA = FOLIO_A, folioB = FOLIO_B } = options;
  return [
    { id: folioA, sourceKind: 'RESERVATION', sourceId, sourceIdentifier: `RES-${sourceId}`, name: 'Guest folio' },
    { id: folioB, sourceKind: 'RESERVATION', sourceId, sourceIdentifier: `RES-${sourceId}`, name: 'Company folio', parentId: folioA },
  ];
}

/** Property 2: the same source, folio and (some) transaction ids as property 1, other rows. */
export function property2Transactions(): TLedgerTransaction[] {
  const base = {
    sourceKind: 'RESERVATION' as const,
    sourceId: SOURCE_ID,
    serviceDate: '2026-03-11',
    currency: 'USD',
    posted: true,
    quantity: '1',
  };
  return [
    { ...base, id: '1001', folioId: FOLIO_A, subSourceId: SUB_ROOM_101, transactionDatetime: '2026-03-11T14:00:00Z', internalTransactionCode: 'RR-DLX', internalCodeGroup: 'ROOM_REVENUE_RATE', description: 'Property two room rate', amount: '999.99', userId: '11' },
    { ...base, id: '1017', folioId: FOLIO_A, transactionDatetime: '2026-03-13T10:00:00Z', internalTransactionCode: 'PAY-CASH', internalCodeGroup: 'PAYMENT', paymentMethod: 'cash', description: 'Property two payment cash', amount: '-500.00' },
    { ...base, id: '2050', folioId: FOLIO_B, transactionDatetime: '2026-03-11T09:00:00Z', internalTransactionCode: 'MINI', internalCodeGroup: 'ITEM_SERVICE', originId: '123', description: 'Property two minibar', amount: '7.77', posted: false },
  ];
}

export const ids = (idBase: number, ...numbers: number[]) => numbers.map((n) => String(idBase + n));

export function postImport(world: TWorld, token: string, propertyId: string | number, body: unknown) {
  return request(world.url)
    .post('/accounting/v1.0/import')
    .set('Authorization', `Bearer ${token}`)
    .set('X-Property-Id', String(propertyId))
    .send(body as object);
}

/** Imports a body and insists it was accepted. */
export async function importOk(world: TWorld, token: string, propertyId: string | number, body: unknown): Promise<void> {
  const res = await postImport(world, token, propertyId, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** The whole fixture: both properties, the main source, a big-id source and a second source of property 1. */
export async function importLedgerFixture(world: TWorld, token: string): Promise<void> {
  await importOk(world, token, 1, {
    property: PROPERTY_1,
    recipients: [{ type: 'GUEST', id: '900', name: 'Zoë Łukasiewicz', email: 'zoe@example.com' }],
    folios: ledgerFolios(),
    transactions: ledgerTransactions(),
  });
  await importOk(world, token, 2, {
    property: PROPERTY_2,
    folios: [
      { id: FOLIO_A, sourceKind: 'RESERVATION', sourceId: SOURCE_ID, name: 'Property two guest folio' },
      { id: FOLIO_B, sourceKind: 'RESERVATION', sourceId: SOURCE_ID, name: 'Property two company folio' },
    ],
    transactions: property2Transactions(),
  });
}

/** One valid room-rate transaction of folio 101 of reservation 5001, with `extra` over it (import tests). */
export const transaction = (extra: Record<string, unknown> = {}) => ({
  id: '1',
  folioId: '101',
  sourceKind: 'RESERVATION',
  sourceId: '5001',
  transactionDatetime: '2026-03-10T14:00:00Z',
  serviceDate: '2026-03-10',
  internalTransactionCode: 'RR',
  internalCodeGroup: 'ROOM_REVENUE_RATE',
  description: 'Room rate',
  quantity: '1',
  amount: '120.00',
  currency: 'EUR',
  posted: true,
  ...extra,
});
