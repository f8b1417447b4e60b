import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postImport, transaction } from './support/ledger-fixture.js';
import { createWorld, type TWorld } from './support/world.js';

// POST /accounting/v1.0/import (docs/ledger.md#import): counts, upserts, every field rule with its path,
// records of another property, repeated ids, a 10,000-transaction batch, scopes, media type and
// exact money. Each test writes to properties of its own, so "nothing written" is a SQL count.

let world: TWorld;
let token: string;

beforeAll(async () => {
  world = await createWorld({ worker: false });
  token = world.token({ properties: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] });
});
afterAll(async () => world?.close());

const property = (id: number, extra: Record<string, unknown> = {}) => ({
  id,
  name: `Hotel ${id}`,
  currency: 'EUR',
  timezone: 'Europe/Madrid',
  gatewayMode: 'test',
  ...extra,
});
const recipient = (extra: Record<string, unknown> = {}) => ({ type: 'GUEST', id: '900', name: 'Zoë Łukasiewicz', email: 'zoe@example.com', ...extra });
const folio = (extra: Record<string, unknown> = {}) => ({ id: '101', sourceKind: 'RESERVATION', sourceId: '5001', name: 'Guest folio', ...extra });

const send = (propertyId: number, body: unknown, bearer = token) => postImport(world, bearer, propertyId, body);

async function rowCounts(propertyId: number) {
  const result = await world.pool.query<{ properties: number; recipients: number; folios: number; transactions: number }>(
    `SELECT (SELECT count(*)::int FROM properties WHERE id = $1) AS properties,
            (SELECT count(*)::int FROM recipients WHERE property_id = $1) AS recipients,
            (SELECT count(*)::int FROM folios WHERE property_id = $1) AS folios,
            (SELECT count(*)::int FROM transactions WHERE property_id = $1) AS transactions`,
    [propertyId],
  );
  return result.rows[0]!;
}
const NOTHING = { properties: 0, recipients: 0, folios: 0, transactions: 0 };

function expectInvalid(res: request.Response, path: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.errorCode).toBe('INVALID_REQUEST');
  expect(res.body.id).toBe(res.headers['x-request-id']);
  expect(res.body.fieldErrors.map((error: { path: string }) => error.path)).toContain(path);
}

async function storedTransaction(propertyId: number, id: string) {
  const result = await world.pool.query(
    `SELECT id::text, amount::text, quantity::text, description, posted, root_id::text, notes, user_id
       FROM transactions WHERE property_id = $1 AND id = $2::bigint`,
    [propertyId, id],
  );
  return result.rows;
}

describe('accepted imports', () => {
  it('answers the counts of what it upserted', async () => {
    const res = await send(1, {
      property: property(1, { address: 'Calle Mayor 1', language: 'es', nightAuditTime: '03:00' }),
      recipients: [recipient(), recipient({ type: 'COMPANY', id: '900', name: 'ACME S.L.', taxId: 'B12345678' })],
      folios: [folio(), folio({ id: '102', name: 'Company folio', parentId: '101' })],
      transactions: [transaction(), transaction({ id: '2' }), transaction({ id: '3', folioId: '102' })],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ property: 1, recipients: 2, reservations: 0, users: 0, folios: 2, transactions: 3 });
    expect(await rowCounts(1)).toEqual({ properties: 1, recipients: 2, folios: 2, transactions: 3 });
  });

  it("stores the hotel's tax id and contact details, trimmed, for the folio header", async () => {
    const contact = { taxId: ' PT509123456 ', phone: '+351 21 000 0000', email: 'reservas@miramar.example', website: 'https://miramar.example/' };
    const res = await send(14, { property: property(14, contact) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const stored = await world.pool.query('SELECT tax_id, phone, email, website FROM properties WHERE id = 14');
    expect(stored.rows).toEqual([{ tax_id: 'PT509123456', phone: '+351 21 000 0000', email: 'reservas@miramar.example', website: 'https://miramar.example/' }]);
    // Imported again without them (or with nulls, or empty): they are gone, as the property says.
    expect((await send(14, { property: property(14, { taxId: null, phone: '', email: null }) })).status).toBe(200);
    const cleared = await world.pool.query('SELECT tax_id, phone, email, website FROM properties WHERE id = 14');
    expect(cleared.rows).toEqual([{ tax_id: null, phone: null, email: null, website: null }]);
  });

  it('stores the invoice data: the seller, its taxes, a buyer and a charge\'s VAT, in canonical form (docs/ledger.md#invoice-data)', async () => {
    const seller = {
      legalName: 'Miramar Hôtellerie SAS', vatId: 'fr 32 123.456.789', companyId: '123456789', iban: 'FR76 3000 6000 0112 3456 7890 189',
      postalAddress: { lines: ['12 rue de la République'], city: 'Lyon', postcode: '69002', countryCode: 'FR' },
      electronicAddress: { scheme: '0225', id: '123456789' },
      taxes: [
        { id: 11, name: 'TVA 10 %', kind: 'VAT', rate: '10.00', category: 'S' },
        { id: '21', name: 'Taxe de séjour', kind: 'CITY_TAX', rate: 0, category: 'E', includedInPrice: null },
        { id: 31, name: 'Franchise', kind: 'VAT', rate: '0', category: 'E', exemptionReasonCode: 'VATEX-FR-FRANCHISE', includedInPrice: true },
      ],
    };
    const buyer = recipient({ type: 'COMPANY', id: '901', name: 'ACME Conseil', vatId: 'FR61987654321', postalAddress: { lines: ['8 avenue de l’Opéra'], city: 'Paris', countryCode: 'FR' } });
    const res = await send(15, {
      property: property(15, seller),
      recipients: [buyer],
      transactions: [transaction({ id: '61', internalCodeGroup: 'ADDON', vat: { category: 'S', rate: 5.5 } })],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const stored = await world.pool.query(
      `SELECT p.legal_name, p.vat_id, p.company_id, p.iban, p.postal_address, p.electronic_address, p.taxes,
              r.vat_id AS buyer_vat_id, r.postal_address AS buyer_address, t.vat
         FROM properties p, recipients r, transactions t
        WHERE p.id = 15 AND r.property_id = 15 AND r.id = 901 AND t.property_id = 15 AND t.id = 61`,
    );
    expect(stored.rows).toEqual([{
      legal_name: 'Miramar Hôtellerie SAS', vat_id: 'FR32123456789', company_id: '123456789', iban: 'FR7630006000011234567890189',
      postal_address: { lines: ['12 rue de la République'], city: 'Lyon', postcode: '69002', countryCode: 'FR' },
      electronic_address: { scheme: '0225', id: '123456789' },
      taxes: [
        { id: '11', name: 'TVA 10 %', kind: 'VAT', rate: '10', category: 'S', includedInPrice: false },
        { id: '21', name: 'Taxe de séjour', kind: 'CITY_TAX', rate: '0', category: 'E', includedInPrice: false },
        { id: '31', name: 'Franchise', kind: 'VAT', rate: '0', category: 'E', exemptionReasonCode: 'VATEX-FR-FRANCHISE', includedInPrice: true },
      ],
      buyer_vat_id: 'FR61987654321', buyer_address: { lines: ['8 avenue de l’Opéra'], city: 'Paris', countryCode: 'FR' },
      vat: { category: 'S', rate: '5.5' },
    }]);
  });

  it('answers zero counts for an empty body', async () => {
    const res = await send(1, {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ property: 0, recipients: 0, reservations: 0, users: 0, folios: 0, transactions: 0 });
  });

  it('takes null as absent for optional fields and for the lists', async () => {
    const res = await send(2, {
      property: property(2, { address: null, language: null, nightAuditTime: null }),
      recipients: null,
      folios: [folio({ sourceIdentifier: null, parentId: null })],
      transactions: [transaction({ notes: null, subSourceId: null, originId: null, paymentMethod: null, parentId: null, rootId: null, isVoid: null, userId: null })],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ property: 1, recipients: 0, reservations: 0, users: 0, folios: 1, transactions: 1 });
    expect(await storedTransaction(2, '1')).toEqual([
      { id: '1', amount: '120.00', quantity: '1', description: 'Room rate', posted: true, root_id: '1', notes: null, user_id: null },
    ]);
  });

  it('upserts: importing a changed record again updates it, with no duplicate', async () => {
    const first = await send(1, {
      property: property(1),
      recipients: [recipient({ id: '77', name: 'First name' })],
      folios: [folio({ id: '177', name: 'First folio' })],
      transactions: [transaction({ id: '100', amount: '10.00', description: 'First', posted: false })],
    });
    expect(first.status).toBe(200);
    const second = await send(1, {
      property: property(1, { name: 'Renamed hotel', currency: 'USD', timezone: 'America/New_York', gatewayMode: 'live' }),
      recipients: [recipient({ id: '77', name: 'Second name' })],
      folios: [folio({ id: '177', name: 'Second folio' })],
      transactions: [transaction({ id: 100, amount: '12.50', description: 'Second', posted: true, notes: 'changed', userId: 42 })],
    });
    expect(second.status).toBe(200);
    expect(await storedTransaction(1, '100')).toEqual([
      { id: '100', amount: '12.50', quantity: '1', description: 'Second', posted: true, root_id: '100', notes: 'changed', user_id: '42' },
    ]);
    const others = await world.pool.query(
      `SELECT (SELECT json_agg(name) FROM recipients WHERE property_id = 1 AND id = 77) AS recipients,
              (SELECT json_agg(name) FROM folios WHERE property_id = 1 AND id = 177) AS folios,
              (SELECT json_agg(json_build_array(name, currency, timezone, gateway_mode)) FROM properties WHERE id = 1) AS properties`,
    );
    expect(others.rows[0]).toEqual({
      recipients: ['Second name'],
      folios: ['Second folio'],
      properties: [['Renamed hotel', 'USD', 'America/New_York', 'live']],
    });
  });

  it('accepts records that name their own property', async () => {
    const res = await send(2, {
      recipients: [recipient({ propertyId: 2 })],
      folios: [folio({ id: '202', propertyId: '2' })],
      transactions: [transaction({ id: '202', propertyId: 2 })],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await storedTransaction(2, '202')).toHaveLength(1);
  });

  it('resolves void chains: rootId when given, else the chain of the parent, stored or in the same request', async () => {
    const rows = (extra: Record<string, unknown>) => transaction({ internalCodeGroup: 'ITEM_SERVICE', internalTransactionCode: 'MINI', originId: '5', ...extra });
    expect((await send(1, { transactions: [rows({ id: '500', amount: '4.00' })] })).status).toBe(200);
    const res = await send(1, {
      transactions: [
        rows({ id: '501', isVoid: true, parentId: '500', amount: '-4.00' }),
        rows({ id: '600', amount: '3.00', rootId: '650' }),
        rows({ id: '601', isVoid: true, parentId: '600', amount: '-3.00' }),
        rows({ id: '700', amount: '2.00' }),
        rows({ id: '701', isVoid: true, parentId: '700', rootId: '700', amount: '-2.00' }),
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const roots = await world.pool.query(
      `SELECT id::text, root_id::text, is_void, parent_id::text FROM transactions WHERE property_id = 1 AND id = ANY('{500,501,600,601,700,701}'::bigint[]) ORDER BY id`,
    );
    expect(roots.rows).toEqual([
      { id: '500', root_id: '500', is_void: false, parent_id: null },
      { id: '501', root_id: '500', is_void: true, parent_id: '500' },
      { id: '600', root_id: '650', is_void: false, parent_id: null },
      { id: '601', root_id: '650', is_void: true, parent_id: '600' },
      { id: '700', root_id: '700', is_void: false, parent_id: null },
      { id: '701', root_id: '700', is_void: true, parent_id: '700' },
    ]);
  });
});

describe('every field rule answers 400 with its path, and nothing is written', () => {
  // Property 3 only ever receives refused requests.
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['amount with 7 decimals (JSON number)', { transactions: [transaction({ amount: 0.1234567 })] }, 'transactions.0.amount'],
    ['amount with 7 decimals (string)', { transactions: [transaction({ amount: '0.1234567' })] }, 'transactions.0.amount'],
    ['amount "abc"', { transactions: [transaction({ amount: 'abc' })] }, 'transactions.0.amount'],
    ['amount in exponent notation', { transactions: [transaction({ amount: '1e5' })] }, 'transactions.0.amount'],
    ['amount with 16 integer digits', { transactions: [transaction({ amount: '1234567890123456' })] }, 'transactions.0.amount'],
    ['amount a boolean', { transactions: [transaction({ amount: true })] }, 'transactions.0.amount'],
    ['amount of 16 significant digits', { transactions: [transaction({ amount: '1234567890.123456' })] }, 'transactions.0.amount'],
    ['amount missing', { transactions: [transaction({ amount: undefined })] }, 'transactions.0.amount'],
    ['amount of the second transaction', { transactions: [transaction(), transaction({ id: '2', amount: '1,50' })] }, 'transactions.1.amount'],
    ['quantity malformed', { transactions: [transaction({ quantity: '1.5.0' })] }, 'transactions.0.quantity'],
    ['currency "EURO"', { transactions: [transaction({ currency: 'EURO' })] }, 'transactions.0.currency'],
    ['currency in lower case', { transactions: [transaction({ currency: 'eur' })] }, 'transactions.0.currency'],
    ['currency not ISO 4217', { transactions: [transaction({ currency: 'ABC' })] }, 'transactions.0.currency'],
    ['transactionDatetime without a time zone', { transactions: [transaction({ transactionDatetime: '2026-03-10T14:00:00' })] }, 'transactions.0.transactionDatetime'],
    ['transactionDatetime a date only', { transactions: [transaction({ transactionDatetime: '2026-03-10' })] }, 'transactions.0.transactionDatetime'],
    ['transactionDatetime not a date', { transactions: [transaction({ transactionDatetime: 'yesterday' })] }, 'transactions.0.transactionDatetime'],
    ['serviceDate "2026-13-01"', { transactions: [transaction({ serviceDate: '2026-13-01' })] }, 'transactions.0.serviceDate'],
    ['serviceDate 29 February of a common year', { transactions: [transaction({ serviceDate: '2026-02-29' })] }, 'transactions.0.serviceDate'],
    ['serviceDate day-first', { transactions: [transaction({ serviceDate: '10/03/2026' })] }, 'transactions.0.serviceDate'],
    ['internalCodeGroup unknown', { transactions: [transaction({ internalCodeGroup: 'ROOM' })] }, 'transactions.0.internalCodeGroup'],
    ['internalCodeGroup in lower case', { transactions: [transaction({ internalCodeGroup: 'payment' })] }, 'transactions.0.internalCodeGroup'],
    ['internalTransactionCode empty', { transactions: [transaction({ internalTransactionCode: '' })] }, 'transactions.0.internalTransactionCode'],
    ['parentId missing on a void', { transactions: [transaction({ isVoid: true })] }, 'transactions.0.parentId'],
    ['sourceKind unknown', { transactions: [transaction({ sourceKind: 'ROOM' })] }, 'transactions.0.sourceKind'],
    ['id 0', { transactions: [transaction({ id: 0 })] }, 'transactions.0.id'],
    ['id negative', { transactions: [transaction({ id: -5 })] }, 'transactions.0.id'],
    ['id fractional', { transactions: [transaction({ id: 1.5 })] }, 'transactions.0.id'],
    ['id above int64', { transactions: [transaction({ id: '9223372036854775808' })] }, 'transactions.0.id'],
    ['folioId missing', { transactions: [transaction({ folioId: undefined })] }, 'transactions.0.folioId'],
    ['posted not a boolean', { transactions: [transaction({ posted: 'yes' })] }, 'transactions.0.posted'],
    ['description blank', { transactions: [transaction({ description: '   ' })] }, 'transactions.0.description'],
    ['description of 501 characters', { transactions: [transaction({ description: 'x'.repeat(501) })] }, 'transactions.0.description'],
    ['paymentMethod with a space', { transactions: [transaction({ paymentMethod: 'cards visa' })] }, 'transactions.0.paymentMethod'],
    ['userId not a number', { transactions: [transaction({ userId: 'abc' })] }, 'transactions.0.userId'],
    ['unknown transaction field', { transactions: [transaction({ amountCents: 12000 })] }, 'transactions.0.amountCents'],
    ['property.timezone "Mars/Base"', { property: property(3, { timezone: 'Mars/Base' }) }, 'property.timezone'],
    ['property.timezone without a region', { property: property(3, { timezone: 'Madrid' }) }, 'property.timezone'],
    ['property.currency "EURO"', { property: property(3, { currency: 'EURO' }) }, 'property.currency'],
    ['property.currency missing', { property: property(3, { currency: undefined }) }, 'property.currency'],
    ['property.gatewayMode "sandbox"', { property: property(3, { gatewayMode: 'sandbox' }) }, 'property.gatewayMode'],
    ['property.nightAuditTime "25:00"', { property: property(3, { nightAuditTime: '25:00' }) }, 'property.nightAuditTime'],
    ['property.nightAuditTime "3:00"', { property: property(3, { nightAuditTime: '3:00' }) }, 'property.nightAuditTime'],
    ['property.language unknown', { property: property(3, { language: 'xx' }) }, 'property.language'],
    ['property.name missing', { property: property(3, { name: undefined }) }, 'property.name'],
    ['unknown property field', { property: property(3, { stars: 5 }) }, 'property.stars'],
    ['property.taxId with a line break', { property: property(3, { taxId: 'PT509\n123456' }) }, 'property.taxId'],
    ['property.taxId of 65 characters', { property: property(3, { taxId: 'X'.repeat(65) }) }, 'property.taxId'],
    ['property.phone with letters', { property: property(3, { phone: 'call reception' }) }, 'property.phone'],
    ['property.phone of two digits', { property: property(3, { phone: '+1 2' }) }, 'property.phone'],
    ['property.phone not a string', { property: property(3, { phone: 351210000000 }) }, 'property.phone'],
    ['property.email not an e-mail', { property: property(3, { email: 'reservas at hotel' }) }, 'property.email'],
    ['property.website without a scheme', { property: property(3, { website: 'hotel.example' }) }, 'property.website'],
    ['property.website not http(s)', { property: property(3, { website: 'ftp://hotel.example' }) }, 'property.website'],
    // Invoice data (docs/ledger.md#invoice-data).
    ['property.postalAddress.countryCode not a country ("EU")', { property: property(3, { postalAddress: { lines: ['1 Main St'], city: 'Lyon', countryCode: 'EU' } }) }, 'property.postalAddress.countryCode'],
    ['property.postalAddress.countryCode in lower case', { property: property(3, { postalAddress: { lines: ['1 Main St'], city: 'Lyon', countryCode: 'fr' } }) }, 'property.postalAddress.countryCode'],
    ['property.postalAddress without lines', { property: property(3, { postalAddress: { lines: [], city: 'Lyon', countryCode: 'FR' } }) }, 'property.postalAddress.lines'],
    ['property.postalAddress with four lines', { property: property(3, { postalAddress: { lines: ['a', 'b', 'c', 'd'], city: 'Lyon', countryCode: 'FR' } }) }, 'property.postalAddress.lines'],
    ['property.postalAddress.city missing', { property: property(3, { postalAddress: { lines: ['1 Main St'], countryCode: 'FR' } }) }, 'property.postalAddress.city'],
    ['property.vatId without a country prefix', { property: property(3, { vatId: '32123456789' }) }, 'property.vatId'],
    ['property.companyId with a line break', { property: property(3, { companyId: '123\n456' }) }, 'property.companyId'],
    ['property.iban with a wrong check', { property: property(3, { iban: 'FR7630006000011234567890188' }) }, 'property.iban'],
    ['property.iban too short', { property: property(3, { iban: 'FR76300' }) }, 'property.iban'],
    ['property.electronicAddress.scheme unknown form', { property: property(3, { electronicAddress: { scheme: 'siren', id: '123456789' } }) }, 'property.electronicAddress.scheme'],
    ['property.legalName with a line break', { property: property(3, { legalName: 'Miramar\nSAS' }) }, 'property.legalName'],
    ['property.taxes.0.rate above 99.99', { property: property(3, { taxes: [{ id: 1, name: 'VAT', kind: 'VAT', rate: '100', category: 'S' }] }) }, 'property.taxes.0.rate'],
    ['property.taxes.0.rate negative', { property: property(3, { taxes: [{ id: 1, name: 'VAT', kind: 'VAT', rate: -5, category: 'S' }] }) }, 'property.taxes.0.rate'],
    ['property.taxes.0.rate with three decimals', { property: property(3, { taxes: [{ id: 1, name: 'VAT', kind: 'VAT', rate: '5.555', category: 'S' }] }) }, 'property.taxes.0.rate'],
    ['property.taxes.0.category unknown', { property: property(3, { taxes: [{ id: 1, name: 'VAT', kind: 'VAT', rate: '10', category: 'X' }] }) }, 'property.taxes.0.category'],
    ['property.taxes.0.kind unknown', { property: property(3, { taxes: [{ id: 1, name: 'VAT', kind: 'SALES', rate: '10', category: 'S' }] }) }, 'property.taxes.0.kind'],
    ['property.taxes.0.rate 0 for category S', { property: property(3, { taxes: [{ id: 1, name: 'VAT', kind: 'VAT', rate: '0', category: 'S' }] }) }, 'property.taxes.0.rate'],
    ['property.taxes.0.rate above 0 for category E', { property: property(3, { taxes: [{ id: 1, name: 'VAT', kind: 'VAT', rate: '10', category: 'E', exemptionReason: 'Exempt' }] }) }, 'property.taxes.0.rate'],
    ['property.taxes.0 category E without a reason', { property: property(3, { taxes: [{ id: 1, name: 'VAT', kind: 'VAT', rate: '0', category: 'E' }] }) }, 'property.taxes.0.exemptionReasonCode'],
    ['property.taxes.0 category S with a reason', { property: property(3, { taxes: [{ id: 1, name: 'VAT', kind: 'VAT', rate: '10', category: 'S', exemptionReasonCode: 'VATEX-EU-79-C' }] }) }, 'property.taxes.0.exemptionReasonCode'],
    ['property.taxes.0.exemptionReasonCode not a VATEX code', { property: property(3, { taxes: [{ id: 1, name: 'VAT', kind: 'VAT', rate: '0', category: 'E', exemptionReasonCode: 'EXEMPT' }] }) }, 'property.taxes.0.exemptionReasonCode'],
    ['property.taxes.0 a CITY_TAX of category S', { property: property(3, { taxes: [{ id: 1, name: 'City tax', kind: 'CITY_TAX', rate: '10', category: 'S' }] }) }, 'property.taxes.0.category'],
    ['property.taxes.1.id repeated', { property: property(3, { taxes: [{ id: 1, name: 'VAT', kind: 'VAT', rate: '10', category: 'S' }, { id: '1', name: 'VAT 20', kind: 'VAT', rate: '20', category: 'S' }] }) }, 'property.taxes.1.id'],
    ['property.taxes.0.includedInPrice not a boolean', { property: property(3, { taxes: [{ id: 1, name: 'VAT', kind: 'VAT', rate: '10', category: 'S', includedInPrice: 'yes' }] }) }, 'property.taxes.0.includedInPrice'],
    ['recipients.0.vatId without a country prefix', { recipients: [recipient({ vatId: '61987654321' })] }, 'recipients.0.vatId'],
    ['recipients.0.postalAddress.countryCode "XX"', { recipients: [recipient({ postalAddress: { lines: ['1 Main St'], city: 'Paris', countryCode: 'XX' } })] }, 'recipients.0.postalAddress.countryCode'],
    ['recipients.0.electronicAddress.id missing', { recipients: [recipient({ electronicAddress: { scheme: 'EM' } })] }, 'recipients.0.electronicAddress.id'],
    ['transactions.0.vat.category unknown', { transactions: [transaction({ vat: { category: 'Q', rate: '10' } })] }, 'transactions.0.vat.category'],
    ['transactions.0.vat.rate out of range', { transactions: [transaction({ vat: { category: 'S', rate: '120' } })] }, 'transactions.0.vat.rate'],
    ['transactions.0.vat category E without exemptionReasonCode', { transactions: [transaction({ vat: { category: 'E', rate: '0' } })] }, 'transactions.0.vat.exemptionReasonCode'],
    ['transactions.0.vat with an unknown field', { transactions: [transaction({ vat: { category: 'S', rate: '10', exemptionReason: 'x' } })] }, 'transactions.0.vat.exemptionReason'],
    ['transactions.0.vat on a TAX row', { transactions: [transaction({ internalCodeGroup: 'TAX', vat: { category: 'S', rate: '10' } })] }, 'transactions.0.vat'],
    ['transactions.0.vat on a payment', { transactions: [transaction({ internalCodeGroup: 'PAYMENT', amount: '-120.00', vat: { category: 'S', rate: '10' } })] }, 'transactions.0.vat'],
    ['recipients.0.type unknown', { recipients: [recipient({ type: 'VIP' })] }, 'recipients.0.type'],
    ['recipients.0.email not an e-mail', { recipients: [recipient({ email: 'not-an-email' })] }, 'recipients.0.email'],
    ['recipients.0.name empty', { recipients: [recipient({ name: '' })] }, 'recipients.0.name'],
    ['unknown recipient field', { recipients: [recipient({ phone: '+34 600' })] }, 'recipients.0.phone'],
    ['folios.0.sourceKind unknown', { folios: [folio({ sourceKind: 'ROOM' })] }, 'folios.0.sourceKind'],
    ['folios.0.id not an id', { folios: [folio({ id: 'abc' })] }, 'folios.0.id'],
    ['folios.0.name missing', { folios: [folio({ name: undefined })] }, 'folios.0.name'],
    ['unknown folio field', { folios: [folio({ balance: 0 })] }, 'folios.0.balance'],
    ['unknown top-level field', { bogus: [] }, 'bogus'],
    ['transactions not a list', { transactions: transaction() }, 'transactions'],
  ];

  it.each(cases)('%s', async (_name, invalid, path) => {
    // Valid records ride along: the whole request is refused.
    const body = { property: property(3), folios: [folio()], transactions: [transaction({ id: '99' })], ...invalid };
    const res = await send(3, body);
    expectInvalid(res, path);
    expect(await rowCounts(3)).toEqual(NOTHING);
  });

  it('reports several problems at once, each with its path', async () => {
    const res = await send(3, {
      property: property(3, { timezone: 'Mars/Base' }),
      transactions: [transaction({ currency: 'EURO' }), transaction({ id: '2', serviceDate: '2026-13-01' })],
    });
    expectInvalid(res, 'property.timezone');
    expectInvalid(res, 'transactions.0.currency');
    expectInvalid(res, 'transactions.1.serviceDate');
    expect(await rowCounts(3)).toEqual(NOTHING);
  });

  it('answers 400 INVALID_REQUEST for malformed JSON', async () => {
    const res = await request(world.url)
      .post('/accounting/v1.0/import')
      .set('Authorization', `Bearer ${token}`)
      .set('X-Property-Id', '3')
      .set('Content-Type', 'application/json')
      .send('{"transactions": [');
    expect(res.status).toBe(400);
    expect(res.body.errorCode).toBe('INVALID_REQUEST');
    expect(await rowCounts(3)).toEqual(NOTHING);
  });
});

describe('control characters in text fields (docs/ledger.md#text-fields)', () => {
  const account = (extra: Record<string, unknown>) => ({ id: 'ACC-1', name: 'Deposits', ...extra });
  // Property 3 only ever receives refused requests. Each case: one kind of field, the exact path.
  const cases: Array<[string, Record<string, unknown>, string, string]> = [
    ['a NUL in a description', { transactions: [transaction({ description: 'Room\u0000rate' })] }, 'transactions.0.description', 'must not contain control characters'],
    ['a NUL in free text (notes)', { transactions: [transaction({ notes: 'late\u0000checkout' })] }, 'transactions.0.notes', 'must not contain control characters other than tab and line breaks'],
    ['a bell in a name (folio name)', { folios: [folio({ name: 'Guest\u0007folio' })] }, 'folios.0.name', 'must not contain control characters'],
    ['a tab in a name (recipient name)', { recipients: [recipient({ name: 'Zoë\tŁukasiewicz' })] }, 'recipients.0.name', 'must not contain control characters'],
    ['a line break in an identifier (sourceIdentifier)', { transactions: [transaction({ sourceIdentifier: 'RES\n42' })] }, 'transactions.0.sourceIdentifier', 'must not contain control characters'],
    ['a C1 control in a code', { transactions: [transaction({ internalTransactionCode: 'RR\u0085' })] }, 'transactions.0.internalTransactionCode', 'must not contain control characters'],
    ['a DEL in the property name', { property: property(3, { name: 'Hotel\u007f' }) }, 'property.name', 'must not contain control characters'],
    ['a NUL in an account name', { transactions: [transaction({ account: account({ name: 'Dep\u0000osits' }) })] }, 'transactions.0.account.name', 'must not contain control characters'],
    ['an escape in an address (free text)', { recipients: [recipient({ address: 'Calle\u001bMayor' })] }, 'recipients.0.address', 'must not contain control characters other than tab and line breaks'],
    ['an unpaired surrogate in a description', { transactions: [transaction({ description: 'Room \ud800 rate' })] }, 'transactions.0.description', 'must be well-formed text (no unpaired surrogate)'],
  ];

  it.each(cases)('%s → 400 at the field, nothing imported', async (_name, invalid, path, message) => {
    const res = await send(3, { property: property(3), folios: [folio()], transactions: [transaction({ id: '99' })], ...invalid });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.errorCode).toBe('INVALID_REQUEST');
    expect(res.body.fieldErrors).toEqual([{ path, message }]);
    expect(await rowCounts(3)).toEqual(NOTHING);
  });

  it('keeps tabs and line breaks inside free text (notes, addresses, an account description)', async () => {
    const notes = 'Late checkout\r\n\tagreed with the front desk';
    const res = await send(13, {
      recipients: [recipient({ address: 'Calle Mayor 1\n28013 Madrid' })],
      transactions: [transaction({ id: '55', notes, account: account({ description: 'Deposits\tEUR\nheld' }) })],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await storedTransaction(13, '55'))[0].notes).toBe(notes);
    const stored = await world.pool.query(
      `SELECT (SELECT address FROM recipients WHERE property_id = 13 AND id = 900) AS address,
              (SELECT account->>'description' FROM transactions WHERE property_id = 13 AND id = 55) AS description`,
    );
    expect(stored.rows[0]).toEqual({ address: 'Calle Mayor 1\n28013 Madrid', description: 'Deposits\tEUR\nheld' });
  });
});

describe('records of another property and repeated ids', () => {
  it('refuses a transaction naming another property, at transactions.N.propertyId, and writes nothing', async () => {
    const res = await send(4, {
      property: property(4),
      recipients: [recipient()],
      folios: [folio({ propertyId: 4 })],
      transactions: [transaction({ id: '1', propertyId: '4' }), transaction({ id: '2' }), transaction({ id: '3', propertyId: 5 })],
    });
    expectInvalid(res, 'transactions.2.propertyId');
    expect(res.body.fieldErrors).toHaveLength(1);
    expect(await rowCounts(4)).toEqual(NOTHING);
    expect(await rowCounts(5)).toEqual(NOTHING);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a recipient', { recipients: [recipient({ propertyId: 5 })] }, 'recipients.0.propertyId'],
    ['a folio', { folios: [folio(), folio({ id: '102', propertyId: '5' })] }, 'folios.1.propertyId'],
  ])('refuses %s naming another property and writes nothing', async (_name, body, path) => {
    const res = await send(4, { property: property(4), transactions: [transaction()], ...body });
    expectInvalid(res, path);
    expect(await rowCounts(4)).toEqual(NOTHING);
    expect(await rowCounts(5)).toEqual(NOTHING);
  });

  it('refuses property.id different from X-Property-Id and writes nothing', async () => {
    const res = await send(4, { property: property(5), folios: [folio()], transactions: [transaction()] });
    expectInvalid(res, 'property.id');
    expect(await rowCounts(4)).toEqual(NOTHING);
    expect(await rowCounts(5)).toEqual(NOTHING);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a transaction id', { transactions: [transaction({ id: '7' }), transaction({ id: '8' }), transaction({ id: '7', amount: '1.00' })] }, 'transactions.2.id'],
    ['a transaction id written two ways', { transactions: [transaction({ id: 7 }), transaction({ id: '007' })] }, 'transactions.1.id'],
    ['a folio id', { folios: [folio({ id: '101' }), folio({ id: 101, name: 'Other' })] }, 'folios.1.id'],
    ['a recipient of the same type', { recipients: [recipient(), recipient({ name: 'Other' })] }, 'recipients.1.id'],
  ])('refuses %s repeated in one request and writes nothing', async (_name, body, path) => {
    const res = await send(4, { property: property(4), ...body });
    expectInvalid(res, path);
    expect(await rowCounts(4)).toEqual(NOTHING);
  });

  it('takes the same recipient id under two types (they are two recipients)', async () => {
    const res = await send(6, { recipients: [recipient({ type: 'GUEST' }), recipient({ type: 'CONTACT' })] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await rowCounts(6)).recipients).toBe(2);
  });
});

describe('a large batch', () => {
  it('stores 10,000 transactions of one request, every one of them, with an exact sum', async () => {
    const count = 10_000;
    let cents = 0;
    const transactions = Array.from({ length: count }, (_, i) => {
      const amount = `${Math.floor(i / 100)}.${String(i % 100).padStart(2, '0')}`;
      cents += i;
      return transaction({
        id: String(1_000_000 + i),
        folioId: String(100 + (i % 7)),
        transactionDatetime: new Date(Date.UTC(2026, 2, 1) + i * 60_000).toISOString(),
        serviceDate: '2026-03-01',
        description: `Charge ${i} — ünïcödé`,
        amount,
      });
    });
    const res = await send(7, { property: property(7), transactions });
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
    expect(res.body).toEqual({ property: 1, recipients: 0, reservations: 0, users: 0, folios: 0, transactions: count });
    const stored = await world.pool.query<{ n: number; distinct_ids: number; total: string; min: string; max: string }>(
      `SELECT count(*)::int AS n, count(DISTINCT id)::int AS distinct_ids, sum(amount)::text AS total, min(id)::text AS min, max(id)::text AS max
         FROM transactions WHERE property_id = 7`,
    );
    expect(stored.rows[0]).toEqual({ n: count, distinct_ids: count, total: `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`, min: '1000000', max: '1009999' });
    expect(await storedTransaction(7, '1009999')).toEqual([
      { id: '1009999', amount: '99.99', quantity: '1', description: 'Charge 9999 — ünïcödé', posted: true, root_id: '1009999', notes: null, user_id: null },
    ]);
  });
});

describe('access and media type', () => {
  it('requires the write:payment scope (a read-only token gets 403 and writes nothing)', async () => {
    const readOnly = world.token({ properties: [8], scope: 'read:payment' });
    const res = await send(8, { property: property(8), transactions: [transaction()] }, readOnly);
    expect(res.status).toBe(403);
    expect(res.body.errorCode).toBe('ACCESS_DENIED');
    expect(await rowCounts(8)).toEqual(NOTHING);
  });

  it('answers 403 for a property outside the token and writes nothing', async () => {
    const res = await send(9, { property: property(9), transactions: [transaction()] }, world.token({ properties: [8] }));
    expect(res.status).toBe(403);
    expect(res.body.errorCode).toBe('ACCESS_DENIED');
    expect(await rowCounts(9)).toEqual(NOTHING);
  });

  it('answers 401 without a token', async () => {
    const res = await request(world.url).post('/accounting/v1.0/import').set('X-Property-Id', '8').send({ transactions: [transaction()] });
    expect(res.status).toBe(401);
    expect(res.body.errorCode).toBe('UNAUTHENTICATED');
    expect(await rowCounts(8)).toEqual(NOTHING);
  });

  it('answers 400 at X-Property-Id when the header is missing or not an id', async () => {
    for (const header of [undefined, 'abc', '0']) {
      const req = request(world.url).post('/accounting/v1.0/import').set('Authorization', `Bearer ${token}`);
      const res = await (header === undefined ? req : req.set('X-Property-Id', header)).send({});
      expectInvalid(res, 'X-Property-Id');
    }
  });

  it('answers 415 without a JSON content type, and writes nothing', async () => {
    const body = JSON.stringify({ property: property(10), transactions: [transaction()] });
    const plain = await request(world.url)
      .post('/accounting/v1.0/import')
      .set('Authorization', `Bearer ${token}`)
      .set('X-Property-Id', '10')
      .set('Content-Type', 'text/plain')
      .send(body);
    expect(plain.status).toBe(415);
    expect(plain.body.errorCode).toBe('UNSUPPORTED_MEDIA_TYPE');
    const none = await request(world.url).post('/accounting/v1.0/import').set('Authorization', `Bearer ${token}`).set('X-Property-Id', '10');
    expect(none.status).toBe(415);
    expect(none.body.errorCode).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(await rowCounts(10)).toEqual(NOTHING);
  });
});

describe('exact values', () => {
  it('stores money exactly as sent (SELECT amount::text), never through a binary float', async () => {
    const amounts: Array<[string, string | number, string]> = [
      ['1', '0.10', '0.10'],
      ['2', '0.20', '0.20'],
      ['3', 0.1, '0.1'],
      ['4', '-0.000001', '-0.000001'],
      ['5', '123456789.123456', '123456789.123456'],
      ['6', '-999999999999999', '-999999999999999'],
      ['7', 120.5, '120.5'],
      ['8', ' 42.00 ', '42.00'],
    ];
    const res = await send(11, { property: property(11), transactions: amounts.map(([id, amount]) => transaction({ id, amount, quantity: '2.500' })) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const stored = await world.pool.query<{ id: string; amount: string; quantity: string }>(
      'SELECT id::text, amount::text, quantity::text FROM transactions WHERE property_id = 11 ORDER BY id',
    );
    expect(stored.rows).toEqual(amounts.map(([id, , text]) => ({ id, amount: text, quantity: '2.500' })));
    const sum = await world.pool.query<{ total: string }>(
      "SELECT sum(amount)::text AS total FROM transactions WHERE property_id = 11 AND id IN (1, 2, 3)",
    );
    expect(sum.rows[0]!.total).toBe('0.40');
  });

  it('stores int64 ids above 2^53 sent as digit strings exactly', async () => {
    const res = await send(12, {
      folios: [folio({ id: '9223372036854775807', sourceId: '9007199254740993' })],
      transactions: [
        transaction({ id: '9007199254740993', folioId: '9223372036854775807', sourceId: '9007199254740993', subSourceId: '9223372036854775806', userId: '9223372036854775807' }),
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const stored = await world.pool.query(
      `SELECT id::text, folio_id::text, source_id::text, sub_source_id::text, user_id FROM transactions WHERE property_id = 12`,
    );
    expect(stored.rows).toEqual([
      { id: '9007199254740993', folio_id: '9223372036854775807', source_id: '9007199254740993', sub_source_id: '9223372036854775806', user_id: '9223372036854775807' },
    ]);
    const folios = await world.pool.query('SELECT id::text, source_id::text FROM folios WHERE property_id = 12');
    expect(folios.rows).toEqual([{ id: '9223372036854775807', source_id: '9007199254740993' }]);
  });

  it('refuses an id above 2^53 sent as a JSON number (its precision is already lost)', async () => {
    const res = await request(world.url)
      .post('/accounting/v1.0/import')
      .set('Authorization', `Bearer ${token}`)
      .set('X-Property-Id', '3')
      .set('Content-Type', 'application/json')
      .send(`{"folios": [{"id": 9007199254740993, "sourceKind": "RESERVATION", "sourceId": 1, "name": "x"}]}`);
    expectInvalid(res, 'folios.0.id');
    expect(await rowCounts(3)).toEqual(NOTHING);
  });
});
