import { describe, expect, it } from 'vitest';
import {
  creditNoteOf, invoiceFromLedger, type TInvoiceBuyer, type TInvoiceInput, type TInvoiceLedgerRow, type TInvoiceSeller,
} from '@folio-vault/shared/fiscal/from-ledger';
import type { TFiscalDocument } from '@folio-vault/shared/fiscal/document-model';
import type { TPropertyTax } from '@folio-vault/shared/ledger/invoice-fields';

// The VAT of an invoice as the ledger states it (docs/fiscal-documents.md#vat-from-the-ledger):
// every amount written out by hand, and for each case the folio's own arithmetic beside the
// invoice's: gross + rounding = the invoiced charges, prepaid = the payments.

const VAT_10: TPropertyTax = { id: '11', name: 'TVA 10 %', kind: 'VAT', rate: '10', category: 'S', includedInPrice: false };
const VAT_20: TPropertyTax = { id: '12', name: 'TVA 20 %', kind: 'VAT', rate: '20', category: 'S', includedInPrice: false };
const VAT_10_INCLUDED: TPropertyTax = { id: '13', name: 'IVA 10 % incluido', kind: 'VAT', rate: '10', category: 'S', includedInPrice: true };
const CITY_TAX: TPropertyTax = { id: '21', name: 'Taxe de séjour', kind: 'CITY_TAX', rate: '0', category: 'E', includedInPrice: false };

const SELLER: TInvoiceSeller = {
  name: 'Hôtel Miramar Lyon',
  legalName: 'Miramar Hôtellerie SAS',
  vatId: 'FR32123456789',
  companyId: '123456789',
  postalAddress: { lines: ['12 rue de la République'], city: 'Lyon', postcode: '69002', countryCode: 'FR' },
  electronicAddress: { scheme: '0225', id: '123456789' },
  iban: 'FR7630006000011234567890189',
  phone: '+33 4 72 00 00 00',
  currency: 'EUR',
  taxes: [VAT_10, VAT_20, VAT_10_INCLUDED, CITY_TAX],
};
const BUYER: TInvoiceBuyer = {
  name: 'ACME Conseil SAS',
  vatId: 'FR61987654321',
  companyId: '98765432100017',
  postalAddress: { lines: ['8 avenue de l’Opéra'], city: 'Paris', postcode: '75001', countryCode: 'FR' },
  electronicAddress: { scheme: '0225', id: '987654321' },
};

let minute = 0;
function row(id: string, group: TInvoiceLedgerRow['group'], amount: string, fields: Partial<TInvoiceLedgerRow> = {}): TInvoiceLedgerRow {
  minute += 1;
  return {
    id,
    folioId: '10',
    transactionDatetime: new Date(Date.UTC(2026, 10, 20, 12, minute)).toISOString(),
    serviceDate: '2026-11-20',
    group,
    description: group,
    quantity: '1',
    amount,
    currency: 'EUR',
    posted: true,
    chainVoided: false,
    ...fields,
  };
}

const ISSUED_AT = new Date('2026-11-23T10:00:00Z');
function input(rows: TInvoiceLedgerRow[], overrides: Partial<TInvoiceInput> = {}): TInvoiceInput {
  return {
    facts: {
      id: '0193a5f2-7c1e-7d3a-9b4e-2f6a8c0d1e2f',
      series: 'INV',
      number: 'INV-1',
      issueDate: '2026-11-23',
      language: 'fr',
      issuedAt: ISSUED_AT,
      source: { kind: 'RESERVATION', id: '500', identifier: 'RES-500', folioIds: ['10'] },
      stay: { checkinDate: '2026-11-20', checkoutDate: '2026-11-23', guestName: 'Zoë Ryder' },
    },
    seller: SELLER,
    buyer: BUYER,
    rows,
    cards: new Map([['0193a5f2-0000-7000-8000-000000000001', { first6: '411111', last4: '1111' }]]),
    ...overrides,
  };
}

function invoiceOf(value: TInvoiceInput): { document: TFiscalDocument; transactionIds: string[] } {
  const derived = invoiceFromLedger(value);
  if ('problems' in derived) throw new Error(`unexpected problems: ${JSON.stringify(derived.problems)}`);
  return derived;
}

/** Three nights at 100.00 with VAT 10 % beside each, a city tax of 2.00 a night, two minibar drinks at 2.50 with VAT 20 %. */
function stayRows(): TInvoiceLedgerRow[] {
  const rows: TInvoiceLedgerRow[] = [];
  for (const night of [0, 1, 2]) {
    const date = `2026-11-2${night}`;
    const id = String(1001 + night * 10);
    rows.push(row(id, 'ROOM_REVENUE_RATE', '100.00', { serviceDate: date, description: 'Chambre Supérieure' }));
    rows.push(row(String(Number(id) + 1), 'TAX', '10.00', { serviceDate: date, originId: '11', parentId: id, description: 'TVA 10 %' }));
    rows.push(row(String(Number(id) + 2), 'TAX', '2.00', { serviceDate: date, originId: '21', parentId: id, description: 'Taxe de séjour' }));
  }
  rows.push(row('1050', 'ITEM_SERVICE', '5.00', { serviceDate: '2026-11-21', quantity: '2', description: 'Minibar' }));
  rows.push(row('1051', 'TAX', '1.00', { serviceDate: '2026-11-21', originId: '12', parentId: '1050' }));
  return rows;
}

describe('lines and VAT from the ledger', () => {
  it('a stay with TAX rows beside its charges, the city tax as disbursements and a card deposit: 311.00 net, 31.00 VAT, 342.00 gross, 242.00 due', () => {
    const deposit = row('1090', 'PAYMENT', '-100.00', { paymentMethod: 'cards_visa', payment: { cardTokenId: '0193a5f2-0000-7000-8000-000000000001' } });
    const { document, transactionIds } = invoiceOf(input([deposit, ...stayRows()]));
    expect(document.lines.map((line) => [line.name, line.transactionIds, line.quantity, line.unitPrice, line.netAmount, line.vat, line.kind])).toEqual([
      ['Chambre Supérieure', ['1001', '1002'], '1', '100.00', '100.00', { category: 'S', rate: '10' }, 'CHARGE'],
      ['Taxe de séjour', ['1003'], '1', '2.00', '2.00', { category: 'E', rate: '0', exemptionReasonCode: 'VATEX-EU-79-C' }, 'DISBURSEMENT'],
      ['Chambre Supérieure', ['1011', '1012'], '1', '100.00', '100.00', { category: 'S', rate: '10' }, 'CHARGE'],
      ['Taxe de séjour', ['1013'], '1', '2.00', '2.00', { category: 'E', rate: '0', exemptionReasonCode: 'VATEX-EU-79-C' }, 'DISBURSEMENT'],
      ['Chambre Supérieure', ['1021', '1022'], '1', '100.00', '100.00', { category: 'S', rate: '10' }, 'CHARGE'],
      ['Taxe de séjour', ['1023'], '1', '2.00', '2.00', { category: 'E', rate: '0', exemptionReasonCode: 'VATEX-EU-79-C' }, 'DISBURSEMENT'],
      ['Minibar', ['1050', '1051'], '2', '2.50', '5.00', { category: 'S', rate: '20' }, 'CHARGE'],
    ]);
    expect(document.lines.map((line) => line.id)).toEqual(['1', '2', '3', '4', '5', '6', '7']);
    expect(document.vatBreakdown).toEqual([
      { category: 'S', rate: '10', base: '300.00', tax: '30.00' },
      { category: 'E', rate: '0', exemptionReasonCode: 'VATEX-EU-79-C', base: '6.00', tax: '0.00' },
      { category: 'S', rate: '20', base: '5.00', tax: '1.00' },
    ]);
    // The folio: charges 300 + 30 + 6 + 5 + 1 = 342.00, payments 100.00.
    expect(document.totals).toEqual({ lineNet: '311.00', net: '311.00', vat: '31.00', gross: '342.00', prepaid: '100.00', rounding: '0.00', due: '242.00' });
    expect(document.paymentMeans).toEqual([
      { code: '54', text: 'Visa', cardNumber: '411111******1111', amount: '100.00' },
      { code: '58', iban: 'FR7630006000011234567890189' },
    ]);
    expect(document.dueDate).toBe('2026-11-23');
    expect(document.period).toEqual({ start: '2026-11-20', end: '2026-11-23' });
    expect(document.guestName).toBe('Zoë Ryder');
    expect(document.seller.companyId).toEqual({ id: '123456789', scheme: '0002' });
    // A SIRET's SIREN is what BT-47 names.
    expect(document.buyer.companyId).toEqual({ id: '987654321', scheme: '0002' });
    expect(transactionIds.sort()).toEqual(['1001', '1002', '1003', '1011', '1012', '1013', '1021', '1022', '1023', '1050', '1051', '1090']);
  });

  it('an included tax: the TAX row states the VAT inside its charge (110.00 → net 100.00, VAT 10.00, gross 110.00 = the charge)', () => {
    const { document, transactionIds } = invoiceOf(input([
      row('1', 'ROOM_REVENUE_RATE', '110.00'),
      row('2', 'TAX', '10.00', { originId: '13', parentId: '1' }),
    ]));
    expect(document.lines.map((line) => [line.transactionIds, line.netAmount, line.vat])).toEqual([[['1', '2'], '100.00', { category: 'S', rate: '10' }]]);
    expect(document.totals).toEqual({ lineNet: '100.00', net: '100.00', vat: '10.00', gross: '110.00', prepaid: '0.00', rounding: '0.00', due: '110.00' });
    expect(transactionIds).toEqual(['1', '2']);
  });

  it("a charge's own vat holds the VAT in its amount (22.00 at 10 % → net 20.00); a fee with E and VATEX-EU-79-C is a disbursement", () => {
    const { document } = invoiceOf(input([
      row('1', 'ADDON', '22.00', { description: 'Petit-déjeuner', vat: { category: 'S', rate: '10' } }),
      row('2', 'FEE', '3.30', { description: 'Taxe de séjour', vat: { category: 'E', rate: '0', exemptionReasonCode: 'VATEX-EU-79-C' } }),
    ]));
    expect(document.lines.map((line) => [line.name, line.netAmount, line.vat, line.kind])).toEqual([
      ['Petit-déjeuner', '20.00', { category: 'S', rate: '10' }, 'CHARGE'],
      ['Taxe de séjour', '3.30', { category: 'E', rate: '0', exemptionReasonCode: 'VATEX-EU-79-C' }, 'DISBURSEMENT'],
    ]);
    expect(document.totals).toEqual({ lineNet: '23.30', net: '23.30', vat: '2.00', gross: '25.30', prepaid: '0.00', rounding: '0.00', due: '25.30' });
  });

  it('leaves voided chains, pending rows and payments after the issue out (and out of its transactions)', () => {
    const { document, transactionIds } = invoiceOf(input([
      row('1', 'ROOM_REVENUE_RATE', '100.00'),
      row('2', 'TAX', '10.00', { originId: '11', parentId: '1' }),
      row('3', 'ITEM_SERVICE', '95.00', { chainVoided: true, description: 'Champagne' }),
      row('4', 'ITEM_SERVICE', '-95.00', { chainVoided: true, parentId: '3', description: 'Champagne (void)' }),
      row('5', 'CUSTOM_ITEM', '30.00', { posted: false, description: 'Late check-out' }),
      row('6', 'PAYMENT', '-40.00', { paymentMethod: 'cash', transactionDatetime: '2026-11-24T08:00:00Z' }),
    ]));
    expect(document.lines.map((line) => line.transactionIds)).toEqual([['1', '2']]);
    expect(document.totals).toEqual({ lineNet: '100.00', net: '100.00', vat: '10.00', gross: '110.00', prepaid: '0.00', rounding: '0.00', due: '110.00' });
    expect(transactionIds).toEqual(['1', '2']);
  });

  it('a foreign-tendered cash payment counts in the property currency; a card known by its last four only shows those', () => {
    const { document } = invoiceOf(input([
      row('1', 'ROOM_REVENUE_RATE', '100.00'),
      row('2', 'TAX', '10.00', { originId: '11', parentId: '1' }),
      row('3', 'PAYMENT', '-50.00', { paymentMethod: 'cash', description: 'Cash payment in USD' }),
      row('4', 'PAYMENT', '-20.00', { paymentMethod: 'cards_master', payment: { creditCardType: 'master', cardTrailingDigits: '4444' } }),
      row('5', 'PAYMENT', '-40.00', { paymentMethod: 'cards_master', payment: { creditCardType: 'master', cardTrailingDigits: '4444' } }),
    ]));
    expect(document.paymentMeans).toEqual([
      { code: '10', amount: '50.00' },
      { code: '54', text: 'Mastercard', cardNumber: '4444', amount: '60.00' },
    ]);
    expect(document.totals).toMatchObject({ gross: '110.00', prepaid: '110.00', due: '0.00' });
    // Nothing due: no due date, no account to pay into.
    expect(document.dueDate).toBeUndefined();
  });

  it('a split folio: the requested folios in their order, each folio by time', () => {
    const rows = [
      row('1', 'ROOM_REVENUE_RATE', '100.00', { folioId: '10' }),
      row('2', 'TAX', '10.00', { folioId: '10', originId: '11', parentId: '1' }),
      row('3', 'ITEM_SERVICE', '12.00', { folioId: '11', vat: { category: 'S', rate: '20' } }),
    ];
    const value = input(rows);
    const { document } = invoiceOf({ ...value, facts: { ...value.facts, source: { ...value.facts.source, folioIds: ['11', '10'] } } });
    expect(document.lines.map((line) => line.transactionIds)).toEqual([['3'], ['1', '2']]);
    expect(document.source.folioIds).toEqual(['11', '10']);
    expect(document.totals).toMatchObject({ net: '110.00', vat: '12.00', gross: '122.00' });
  });

  it('a house account: no stay, the period runs over its lines\' service dates; a void of a sale is left out', () => {
    const value = input([
      row('1', 'ITEM_SERVICE', '2.50', { serviceDate: '2026-11-18', vat: { category: 'S', rate: '10' }, description: 'Café' }),
      row('2', 'ITEM_SERVICE', '9.00', { serviceDate: '2026-11-19', vat: { category: 'S', rate: '20' }, description: 'Caipirinha' }),
      row('3', 'PAYMENT', '-11.50', { serviceDate: '2026-11-19', paymentMethod: 'cash' }),
    ]);
    const { document } = invoiceOf({ ...value, facts: { ...value.facts, source: { kind: 'HOUSE_ACCOUNT', id: '99999', identifier: 'HA-LOBBY', folioIds: ['10'] }, stay: undefined } });
    expect(document.period).toEqual({ start: '2026-11-18', end: '2026-11-19' });
    expect(document.guestName).toBeUndefined();
    // 2.50 holds 0.23 of VAT (2.2727…), 9.00 holds 1.50.
    expect(document.vatBreakdown).toEqual([
      { category: 'S', rate: '10', base: '2.27', tax: '0.23' },
      { category: 'S', rate: '20', base: '7.50', tax: '1.50' },
    ]);
    expect(document.totals).toEqual({ lineNet: '9.77', net: '9.77', vat: '1.73', gross: '11.50', prepaid: '11.50', rounding: '0.00', due: '0.00' });
  });

  it('per-line rounding: three rows of 1.01 VAT on 10.05 (3.03) against 30.15 × 10 % = 3.02 once per rate → rounding 0.01, due = the folio\'s 33.18', () => {
    const rows = ['1', '2', '3'].flatMap((n) => [
      row(`${n}0`, 'ITEM_SERVICE', '10.05', { description: `Dîner ${n}` }),
      row(`${n}1`, 'TAX', '1.01', { originId: '11', parentId: `${n}0` }),
    ]);
    const { document } = invoiceOf(input(rows));
    expect(document.vatBreakdown).toEqual([{ category: 'S', rate: '10', base: '30.15', tax: '3.02' }]);
    expect(document.totals).toEqual({ lineNet: '30.15', net: '30.15', vat: '3.02', gross: '33.17', prepaid: '0.00', rounding: '0.01', due: '33.18' });
  });

  it('per-line rounding the other way: own-vat lines of 1.00 at 20 % hold 0.17 each (0.51), 2.50 × 20 % = 0.50 → rounding 0.01', () => {
    const rows = ['1', '2', '3'].map((n) => row(n, 'ITEM_SERVICE', '1.00', { vat: { category: 'S', rate: '20' } }));
    const { document } = invoiceOf(input(rows));
    expect(document.lines.map((line) => line.netAmount)).toEqual(['0.83', '0.83', '0.83']);
    expect(document.vatBreakdown).toEqual([{ category: 'S', rate: '20', base: '2.49', tax: '0.50' }]);
    expect(document.totals).toEqual({ lineNet: '2.49', net: '2.49', vat: '0.50', gross: '2.99', prepaid: '0.00', rounding: '0.01', due: '3.00' });
  });

  it('a negative line (a correction) has a negative quantity and a positive price (BR-27)', () => {
    const { document } = invoiceOf(input([
      row('1', 'ROOM_REVENUE_RATE', '100.00'),
      row('2', 'TAX', '10.00', { originId: '11', parentId: '1' }),
      row('3', 'ROOM_REVENUE_MANUAL', '-20.00', { description: 'Remise fidélité' }),
      row('4', 'TAX', '-2.00', { originId: '11', parentId: '3' }),
    ]));
    expect(document.lines.map((line) => [line.quantity, line.unitPrice, line.netAmount])).toEqual([['1', '100.00', '100.00'], ['-1', '20.00', '-20.00']]);
    expect(document.totals).toMatchObject({ net: '80.00', vat: '8.00', gross: '88.00' });
  });
});

describe('what the ledger lacks: 422 items, each at its path', () => {
  it('lists every missing item at once, a transaction by its id', () => {
    const derived = invoiceFromLedger(input(
      [
        row('1042', 'ROOM_REVENUE_RATE', '100.00'),
        row('1043', 'TAX', '10.00', { originId: '99', parentId: '1042' }),
        row('1044', 'TAX', '10.00', { originId: '11' }),
        row('1045', 'PAYMENT', '-10.00', { paymentMethod: 'ebanking' }),
        row('1046', 'ITEM_SERVICE', '12.00', { currency: 'USD', vat: { category: 'S', rate: '20' } }),
      ],
      { seller: { ...SELLER, vatId: undefined, postalAddress: undefined, iban: undefined }, buyer: { name: 'Zoë Ryder' } },
    ));
    expect(derived).toEqual({
      problems: [
        { path: 'transactions[1046].currency', message: "is USD, not the property's currency EUR" },
        { path: 'transactions[1043].originId', message: 'names no tax of property.taxes (99)' },
        { path: 'transactions[1044].parentId', message: 'is required: a VAT row names the charge it taxes' },
        { path: 'transactions[1042].vat', message: 'is required: no TAX row names this charge (parentId) and it has no vat of its own' },
        { path: 'property.postalAddress.city', message: "is required: the seller's address (BG-5)" },
        { path: 'property.postalAddress.countryCode', message: "is required: the seller's country (BT-40)" },
        { path: 'property.vatId', message: "is required: the seller's VAT identifier (BT-31)" },
        { path: 'recipient.postalAddress.city', message: "is required: the buyer's address (BG-8)" },
        { path: 'recipient.postalAddress.countryCode', message: "is required: the buyer's country (BT-55)" },
        { path: 'property.iban', message: 'is required: transactions[1045] is a bank transfer, whose means names the account paid into (BT-84)' },
      ],
    });
  });

  it("a French seller's invoice needs its SIREN, both electronic addresses and French rates", () => {
    const derived = invoiceFromLedger(input(
      [row('7', 'ITEM_SERVICE', '12.00', { vat: { category: 'S', rate: '19' } })],
      { seller: { ...SELLER, companyId: undefined, electronicAddress: undefined }, buyer: { ...BUYER, electronicAddress: undefined } },
    ));
    expect(derived).toEqual({
      problems: [
        { path: 'property.companyId', message: 'is required of a French seller: its SIREN (9 digits) or SIRET (14)' },
        { path: 'property.electronicAddress', message: 'is required of a French seller: the address its e-invoices come from (BT-34)' },
        { path: 'recipient.electronicAddress', message: 'is required on an invoice of a French seller: the address it is delivered to (BT-49)' },
        { path: 'transactions[7]', message: 'has VAT rate 19 %, which is not a French rate' },
      ],
    });
  });

  it('refuses VAT rows that disagree: two rates on a charge, a charge vat unlike its rows, a row far from its rate, two exemption reasons', () => {
    const derived = invoiceFromLedger(input([
      row('1', 'ROOM_REVENUE_RATE', '100.00'),
      row('2', 'TAX', '10.00', { originId: '11', parentId: '1' }),
      row('3', 'TAX', '20.00', { originId: '12', parentId: '1' }),
      row('4', 'ADDON', '10.00', { vat: { category: 'S', rate: '20' } }),
      row('5', 'TAX', '1.00', { originId: '11', parentId: '4' }),
      row('6', 'ITEM_SERVICE', '50.00'),
      row('7', 'TAX', '10.00', { originId: '11', parentId: '6' }),
      row('8', 'FEE', '1.00', { vat: { category: 'E', rate: '0', exemptionReasonCode: 'VATEX-EU-132' } }),
      row('9', 'TAX', '2.00', { originId: '21' }),
    ]));
    expect(derived).toEqual({
      problems: [
        { path: 'transactions[1]', message: 'has TAX rows of two VAT rates (S 10 % and S 20 %): an invoice line has one' },
        { path: 'transactions[4].vat', message: 'is S 20 %, but its TAX rows are S 10 %' },
        { path: 'transactions[7].amount', message: 'is 10.00 of VAT on its charge 6, but 10 % of its net 50.00 is 5.00' },
        { path: 'transactions[9]', message: 'is exempt (E) for VATEX-EU-79-C, beside 8 exempt for VATEX-EU-132: one invoice states one reason per category' },
      ],
    });
  });

  it('refuses a folio with nothing to invoice', () => {
    expect(invoiceFromLedger(input([row('1', 'PAYMENT', '-10.00', { paymentMethod: 'cash' })]))).toEqual({
      problems: [{ path: 'transactions', message: 'hold no posted charge on the invoiced folios: there is nothing to invoice' }],
    });
  });
});

describe('the credit note', () => {
  it('reverses the invoice whole under 381, names it (BG-3), states its amounts positive, all of it due', () => {
    const deposit = row('1090', 'PAYMENT', '-100.00', { paymentMethod: 'cards_visa', payment: { cardTokenId: '0193a5f2-0000-7000-8000-000000000001' } });
    const { document: invoice } = invoiceOf(input([deposit, ...stayRows()]));
    const credit = creditNoteOf(invoice, { id: '0193a5f2-9a4b-7c21-8e3d-5b7f9a1c2d3e', series: 'INV-CN', number: 'INV-CN-1', issueDate: '2026-11-25', reason: 'Erreur de destinataire' });
    expect(credit).toMatchObject({
      kind: 'CREDIT_NOTE', typeCode: '381', number: 'INV-CN-1', series: 'INV-CN', issueDate: '2026-11-25', dueDate: '2026-11-25',
      notes: ['Erreur de destinataire'], precedingInvoice: { number: 'INV-1', issueDate: '2026-11-23' },
      totals: { lineNet: '311.00', net: '311.00', vat: '31.00', gross: '342.00', prepaid: '0.00', rounding: '0.00', due: '342.00' },
      paymentMeans: [{ code: '58', iban: 'FR7630006000011234567890189' }],
    });
    expect(credit.lines).toEqual(invoice.lines);
    expect(credit.vatBreakdown).toEqual(invoice.vatBreakdown);
  });
});
