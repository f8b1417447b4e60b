// Frozen fiscal documents (packages/shared/src/fiscal/document-model.ts) for tests of the renderers,
// written by hand so that every amount can be checked against EN 16931's rules by reading it: a
// French hotel's invoice of a three-night stay with a minibar at another rate, the city tax as a
// disbursement and a card deposit, and the credit note that reverses it whole; then the cases the
// e-invoice tests cover (FISCAL_DOCUMENT_CASES, below): German, Spanish and Portuguese hotels, a
// house account, a split folio, a netted void chain, a foreign-tendered payment, per-line tax
// rounding.

import type { TFiscalDocument } from '@folio-vault/shared/fiscal/document-model';
import { FRENCH_PAYMENT_MENTIONS } from '@folio-vault/shared/fiscal/french-mentions';

/**
 * Three nights at 100.00 (10 %), two minibar drinks at 5.00 (20 %), city tax 3 × 2.00 (E, collected
 * for the city), a Visa deposit of 100.00: net 316.00, VAT 32.00, gross 348.00, due 248.00.
 */
export function hotelStayInvoice(overrides: Partial<TFiscalDocument> = {}): TFiscalDocument {
  return {
    version: 1,
    id: '0193a5f2-7c1e-7d3a-9b4e-2f6a8c0d1e2f',
    kind: 'INVOICE',
    typeCode: '380',
    number: 'INV-1',
    series: 'INV',
    issueDate: '2026-11-23',
    dueDate: '2026-12-23',
    currency: 'EUR',
    currencyScale: 2,
    language: 'fr',
    notes: ['Séjour du 20 au 23 novembre 2026.'],
    subjectNotes: [...FRENCH_PAYMENT_MENTIONS],
    source: { kind: 'RESERVATION', id: '500', identifier: 'RES-500', folioIds: ['10'] },
    period: { start: '2026-11-20', end: '2026-11-23' },
    guestName: 'Zoë Ryder',
    seller: {
      name: 'Hôtel Miramar Lyon',
      legalName: 'Miramar Hôtellerie SAS',
      vatId: 'FR32123456789',
      companyId: { id: '123456789', scheme: '0002' },
      postalAddress: { lines: ['12 rue de la République'], city: 'Lyon', postcode: '69002', countryCode: 'FR' },
      electronicAddress: { scheme: '0225', id: '123456789' },
      contact: { phone: '+33 4 72 00 00 00', email: 'reception@miramar-lyon.example' },
    },
    buyer: {
      name: 'ACME Conseil SAS',
      vatId: 'FR61987654321',
      companyId: { id: '987654321', scheme: '0002' },
      postalAddress: { lines: ['8 avenue de l’Opéra'], city: 'Paris', postcode: '75001', countryCode: 'FR' },
      electronicAddress: { scheme: '0225', id: '987654321' },
    },
    lines: [
      {
        id: '1',
        transactionIds: ['1001', '1002'],
        name: 'Chambre Supérieure',
        serviceDate: '2026-11-20',
        quantity: '3',
        unitPrice: '100.00',
        netAmount: '300.00',
        vat: { category: 'S', rate: '10' },
        kind: 'CHARGE',
      },
      {
        id: '2',
        transactionIds: ['1010', '1011'],
        name: 'Minibar',
        serviceDate: '2026-11-21',
        quantity: '2',
        unitPrice: '5.00',
        netAmount: '10.00',
        vat: { category: 'S', rate: '20' },
        kind: 'CHARGE',
      },
      {
        id: '3',
        transactionIds: ['1020'],
        name: 'Taxe de séjour',
        serviceDate: '2026-11-20',
        quantity: '3',
        unitPrice: '2.00',
        netAmount: '6.00',
        vat: { category: 'E', rate: '0', exemptionReasonCode: 'VATEX-EU-79-C', exemptionReason: 'Taxe de séjour perçue pour le compte de la commune (débours)' },
        kind: 'DISBURSEMENT',
      },
    ],
    vatBreakdown: [
      { category: 'S', rate: '10', base: '300.00', tax: '30.00' },
      { category: 'S', rate: '20', base: '10.00', tax: '2.00' },
      {
        category: 'E',
        rate: '0',
        base: '6.00',
        tax: '0.00',
        exemptionReasonCode: 'VATEX-EU-79-C',
        exemptionReason: 'Taxe de séjour perçue pour le compte de la commune (débours)',
      },
    ],
    totals: { lineNet: '316.00', net: '316.00', vat: '32.00', gross: '348.00', prepaid: '100.00', rounding: '0.00', due: '248.00' },
    paymentMeans: [
      { code: '54', text: 'Visa', cardNumber: '411111******1111', cardHolder: 'Z** R****', amount: '100.00' },
      { code: '58', text: 'Virement SEPA', iban: 'FR7630006000011234567890189' },
    ],
    paymentTerms: 'Payable sous 30 jours par virement.',
    ...overrides,
  };
}

/** The credit note of hotelStayInvoice(): the same lines and amounts under type code 381, naming the invoice (BG-3). */
export function hotelStayCreditNote(overrides: Partial<TFiscalDocument> = {}): TFiscalDocument {
  const invoice = hotelStayInvoice();
  return {
    ...invoice,
    id: '0193a5f2-9a4b-7c21-8e3d-5b7f9a1c2d3e',
    kind: 'CREDIT_NOTE',
    typeCode: '381',
    number: 'INV-CN-1',
    series: 'INV-CN',
    issueDate: '2026-11-25',
    dueDate: undefined,
    notes: ['Annulation de la facture INV-1 : erreur de destinataire.'],
    precedingInvoice: { number: invoice.number, issueDate: invoice.issueDate },
    // Nothing was paid against the credit note; the whole gross is credited.
    totals: { ...invoice.totals, prepaid: '0.00', due: invoice.totals.gross },
    paymentMeans: [{ code: '58', text: 'Virement SEPA', iban: 'FR7630006000011234567890189' }],
    paymentTerms: undefined,
    ...overrides,
  };
}

// --- The cases the e-invoice tests cover (test/unit/fiscal-xml.test.ts) ---------------------------
// Each passes EN 16931's rules with its totals exact to the cent: Σ line nets = BT-106 = BT-109,
// each breakdown's tax = base × rate rounded once (BR-CO-17), BT-110 = Σ breakdown taxes,
// BT-112 = BT-109 + BT-110, BT-115 = BT-112 − BT-113 + BT-114.

const hotelSpreeblick = {
  name: 'Hotel Spreeblick',
  legalName: 'Spreeblick Hotelbetriebs GmbH',
  vatId: 'DE123456789',
  taxId: '27/123/45678',
  companyId: { id: 'HRB 123456 B' },
  postalAddress: { lines: ['Uferstraße 7'], city: 'Berlin', postcode: '10179', countryCode: 'DE' },
  electronicAddress: { scheme: 'EM', id: 'rechnung@spreeblick.example' },
  contact: { phone: '+49 30 1234567', email: 'empfang@spreeblick.example' },
} satisfies TFiscalDocument['seller'];

const nordlichtConsulting = {
  name: 'Nordlicht Consulting GmbH',
  vatId: 'DE987654321',
  postalAddress: { lines: ['Große Elbstraße 145', '3. OG'], city: 'Hamburg', postcode: '22767', countryCode: 'DE' },
  electronicAddress: { scheme: 'EM', id: 'invoices@nordlicht.example' },
} satisfies TFiscalDocument['buyer'];

/**
 * A Berlin hotel, two nights: room 2 × 120.00 and breakfast 2 × 15.00 at 7 % (food 7 % since
 * 2026), drinks 3 × 4.00 at 19 %; paid in full by Mastercard at checkout. Net 282.00, VAT 21.18
 * (18.90 + 2.28), gross 303.18, due 0.00.
 */
export function germanHotelInvoice(overrides: Partial<TFiscalDocument> = {}): TFiscalDocument {
  return {
    version: 1,
    id: '0193a5f2-a001-7d3a-9b4e-2f6a8c0d1e01',
    kind: 'INVOICE',
    typeCode: '380',
    number: 'INV-118',
    series: 'INV',
    issueDate: '2026-11-12',
    currency: 'EUR',
    currencyScale: 2,
    language: 'de',
    notes: ['Aufenthalt vom 10. bis 12. November 2026.'],
    source: { kind: 'RESERVATION', id: '610', identifier: 'RES-610', folioIds: ['41'] },
    period: { start: '2026-11-10', end: '2026-11-12' },
    guestName: 'Jonas Weber',
    seller: hotelSpreeblick,
    buyer: nordlichtConsulting,
    buyerReference: 'PO-4711',
    lines: [
      { id: '1', transactionIds: ['2001', '2002'], name: 'Doppelzimmer Superior', serviceDate: '2026-11-10', quantity: '2', unitPrice: '120.00', netAmount: '240.00', vat: { category: 'S', rate: '7' }, kind: 'CHARGE' },
      { id: '2', transactionIds: ['2010', '2011'], name: 'Frühstück', serviceDate: '2026-11-11', quantity: '2', unitPrice: '15.00', netAmount: '30.00', vat: { category: 'S', rate: '7' }, kind: 'CHARGE' },
      { id: '3', transactionIds: ['2020', '2021'], name: 'Getränke Bar', description: 'Mineralwasser, Apfelschorle', serviceDate: '2026-11-11', quantity: '3', unitPrice: '4.00', netAmount: '12.00', vat: { category: 'S', rate: '19' }, kind: 'CHARGE' },
    ],
    vatBreakdown: [
      { category: 'S', rate: '7', base: '270.00', tax: '18.90' },
      { category: 'S', rate: '19', base: '12.00', tax: '2.28' },
    ],
    totals: { lineNet: '282.00', net: '282.00', vat: '21.18', gross: '303.18', prepaid: '303.18', rounding: '0.00', due: '0.00' },
    paymentMeans: [{ code: '54', text: 'Mastercard', cardNumber: '545454******5454', cardHolder: 'J**** W****', amount: '303.18' }],
    ...overrides,
  };
}

/** The credit note of germanHotelInvoice(): the whole invoice credited, nothing paid against it yet. */
export function germanHotelCreditNote(overrides: Partial<TFiscalDocument> = {}): TFiscalDocument {
  const invoice = germanHotelInvoice();
  return {
    ...invoice,
    id: '0193a5f2-a002-7d3a-9b4e-2f6a8c0d1e02',
    kind: 'CREDIT_NOTE',
    typeCode: '381',
    number: 'INV-CN-7',
    series: 'INV-CN',
    issueDate: '2026-11-14',
    notes: ['Gutschrift zur Rechnung INV-118: falscher Rechnungsempfänger.'],
    precedingInvoice: { number: invoice.number, issueDate: invoice.issueDate },
    totals: { ...invoice.totals, prepaid: '0.00', due: invoice.totals.gross },
    paymentMeans: [],
    ...overrides,
  };
}

/**
 * A Madrid hotel, three nights at 90.00 (10 %) and a spa treatment at 21 % whose void chain is
 * netted out (posted at 50.00, voided, posted again at 40.00: one line of 40.00 standing for the
 * three transactions). A US guest paid everything in cash, in dollars: the ledger holds the euro
 * amount, the means' text the tender. Net 310.00, VAT 35.40, gross 345.40, due 0.00.
 */
export function spanishHotelInvoice(overrides: Partial<TFiscalDocument> = {}): TFiscalDocument {
  return {
    version: 1,
    id: '0193a5f2-a003-7d3a-9b4e-2f6a8c0d1e03',
    kind: 'INVOICE',
    typeCode: '380',
    number: 'F2026-311',
    series: 'F2026',
    issueDate: '2026-10-05',
    currency: 'EUR',
    currencyScale: 2,
    language: 'es',
    notes: ['Estancia del 2 al 5 de octubre de 2026.'],
    source: { kind: 'RESERVATION', id: '720', identifier: 'RES-720', folioIds: ['52'] },
    period: { start: '2026-10-02', end: '2026-10-05' },
    guestName: 'Ava Thompson',
    seller: {
      name: 'Hotel Puerta del Sol',
      legalName: 'Alojamientos Castellanos S.L.',
      vatId: 'ESB12345674',
      postalAddress: { lines: ['Calle de Alcalá 21'], city: 'Madrid', postcode: '28014', countryCode: 'ES' },
      electronicAddress: { scheme: 'EM', id: 'facturas@puertadelsol.example' },
    },
    buyer: {
      name: 'Iberia Eventos S.A.',
      vatId: 'ESA87654321',
      postalAddress: { lines: ['Paseo de la Castellana 100'], city: 'Madrid', postcode: '28046', countryCode: 'ES' },
    },
    lines: [
      { id: '1', transactionIds: ['7001', '7002'], name: 'Habitación doble', serviceDate: '2026-10-02', quantity: '3', unitPrice: '90.00', netAmount: '270.00', vat: { category: 'S', rate: '10' }, kind: 'CHARGE' },
      { id: '2', transactionIds: ['7010', '7011', '7012', '7013'], name: 'Masaje spa', serviceDate: '2026-10-03', quantity: '1', unitPrice: '40.00', netAmount: '40.00', vat: { category: 'S', rate: '21' }, kind: 'CHARGE' },
    ],
    vatBreakdown: [
      { category: 'S', rate: '10', base: '270.00', tax: '27.00' },
      { category: 'S', rate: '21', base: '40.00', tax: '8.40' },
    ],
    totals: { lineNet: '310.00', net: '310.00', vat: '35.40', gross: '345.40', prepaid: '345.40', rounding: '0.00', due: '0.00' },
    paymentMeans: [{ code: '10', text: 'Efectivo: USD 375.45 a 1.0870 USD/EUR', amount: '345.40' }],
    ...overrides,
  };
}

/**
 * A Lisbon hotel, two nights at 80.00 (6 %), a dinner at 13 % and the city's tourist tax 2 × 2.00
 * collected for the city (E, VATEX-EU-79-C); paid by debit card. Net 194.00, VAT 13.50 (9.60 + 3.90),
 * gross 207.50, due 0.00.
 */
export function portugueseHotelInvoice(overrides: Partial<TFiscalDocument> = {}): TFiscalDocument {
  const touristTax = { category: 'E', rate: '0', exemptionReasonCode: 'VATEX-EU-79-C', exemptionReason: 'Taxa turística municipal cobrada por conta do município' } as const;
  return {
    version: 1,
    id: '0193a5f2-a004-7d3a-9b4e-2f6a8c0d1e04',
    kind: 'INVOICE',
    typeCode: '380',
    number: 'FT-2026-88',
    series: 'FT-2026',
    issueDate: '2026-09-14',
    currency: 'EUR',
    currencyScale: 2,
    language: 'pt',
    notes: ['Estadia de 12 a 14 de setembro de 2026.'],
    source: { kind: 'RESERVATION', id: '805', identifier: 'RES-805', folioIds: ['63'] },
    period: { start: '2026-09-12', end: '2026-09-14' },
    guestName: 'Inês Carvalho',
    seller: {
      name: 'Hotel Tejo Azul',
      legalName: 'Tejo Azul Hotelaria, Lda.',
      vatId: 'PT501234560',
      postalAddress: { lines: ['Rua Augusta 150'], city: 'Lisboa', postcode: '1100-053', countryCode: 'PT' },
      electronicAddress: { scheme: 'EM', id: 'faturas@tejoazul.example' },
    },
    buyer: {
      name: 'Atlântico Software, S.A.',
      vatId: 'PT509876543',
      postalAddress: { lines: ['Avenida da Liberdade 200'], city: 'Lisboa', postcode: '1250-147', countryCode: 'PT' },
    },
    lines: [
      { id: '1', transactionIds: ['8001', '8002'], name: 'Quarto duplo', serviceDate: '2026-09-12', quantity: '2', unitPrice: '80.00', netAmount: '160.00', vat: { category: 'S', rate: '6' }, kind: 'CHARGE' },
      { id: '2', transactionIds: ['8010', '8011'], name: 'Jantar', serviceDate: '2026-09-13', quantity: '1', unitPrice: '30.00', netAmount: '30.00', vat: { category: 'S', rate: '13' }, kind: 'CHARGE' },
      { id: '3', transactionIds: ['8020'], name: 'Taxa turística', serviceDate: '2026-09-12', quantity: '2', unitPrice: '2.00', netAmount: '4.00', vat: touristTax, kind: 'DISBURSEMENT' },
    ],
    vatBreakdown: [
      { category: 'S', rate: '6', base: '160.00', tax: '9.60' },
      { category: 'S', rate: '13', base: '30.00', tax: '3.90' },
      { ...touristTax, base: '4.00', tax: '0.00' },
    ],
    totals: { lineNet: '194.00', net: '194.00', vat: '13.50', gross: '207.50', prepaid: '207.50', rounding: '0.00', due: '0.00' },
    paymentMeans: [{ code: '55', text: 'Cartão de débito', cardNumber: '476173******0010', amount: '207.50' }],
    ...overrides,
  };
}

/**
 * A French hotel's house account (no stay): a company's seminar, the meeting room on 3 November
 * (2 × 250.00 at 20 %) and coffee breaks on 17 November (30 × 4.50 at 10 %); the period runs from
 * the first service date to the last. English words, French rules. Net 635.00, VAT 113.50
 * (100.00 + 13.50), gross 748.50, all of it due by transfer.
 */
export function houseAccountInvoice(overrides: Partial<TFiscalDocument> = {}): TFiscalDocument {
  const invoice = hotelStayInvoice();
  return {
    ...invoice,
    id: '0193a5f2-a005-7d3a-9b4e-2f6a8c0d1e05',
    number: 'INV-2',
    issueDate: '2026-11-18',
    dueDate: '2026-12-18',
    language: 'en',
    notes: [],
    source: { kind: 'HOUSE_ACCOUNT', id: '77', identifier: 'ACME seminars', folioIds: ['90'] },
    period: { start: '2026-11-03', end: '2026-11-17' },
    guestName: undefined,
    lines: [
      { id: '1', transactionIds: ['9001'], name: 'Meeting room (full day)', serviceDate: '2026-11-03', quantity: '2', unitPrice: '250.00', netAmount: '500.00', vat: { category: 'S', rate: '20' }, kind: 'CHARGE' },
      { id: '2', transactionIds: ['9010'], name: 'Coffee break', serviceDate: '2026-11-17', quantity: '30', unitPrice: '4.50', netAmount: '135.00', vat: { category: 'S', rate: '10' }, kind: 'CHARGE' },
    ],
    vatBreakdown: [
      { category: 'S', rate: '20', base: '500.00', tax: '100.00' },
      { category: 'S', rate: '10', base: '135.00', tax: '13.50' },
    ],
    totals: { lineNet: '635.00', net: '635.00', vat: '113.50', gross: '748.50', prepaid: '0.00', rounding: '0.00', due: '748.50' },
    paymentMeans: [{ code: '58', text: 'SEPA credit transfer', iban: 'FR7630006000011234567890189' }],
    paymentTerms: 'Payable within 30 days by bank transfer.',
    ...overrides,
  };
}

/**
 * A split folio: the reservation's company folio (41 of 41 and 42) invoiced alone, the room to the
 * company while the guest's own folio keeps the extras. Three nights at 110.00 (7 %): net 330.00,
 * VAT 23.10, gross 353.10, due by transfer.
 */
export function splitFolioInvoice(overrides: Partial<TFiscalDocument> = {}): TFiscalDocument {
  return {
    ...germanHotelInvoice(),
    id: '0193a5f2-a006-7d3a-9b4e-2f6a8c0d1e06',
    number: 'INV-119',
    issueDate: '2026-11-20',
    dueDate: '2026-12-04',
    language: 'en',
    notes: ['Room charges of reservation RES-611; the guest settles the extras on a folio of their own.'],
    source: { kind: 'RESERVATION', id: '611', identifier: 'RES-611', folioIds: ['41'] },
    period: { start: '2026-11-17', end: '2026-11-20' },
    lines: [
      { id: '1', transactionIds: ['2101', '2102', '2103'], name: 'Single room', serviceDate: '2026-11-17', quantity: '3', unitPrice: '110.00', netAmount: '330.00', vat: { category: 'S', rate: '7' }, kind: 'CHARGE' },
    ],
    vatBreakdown: [{ category: 'S', rate: '7', base: '330.00', tax: '23.10' }],
    totals: { lineNet: '330.00', net: '330.00', vat: '23.10', gross: '353.10', prepaid: '0.00', rounding: '0.00', due: '353.10' },
    paymentMeans: [{ code: '58', text: 'SEPA credit transfer', iban: 'DE89370400440532013000' }],
    paymentTerms: 'Payable within 14 days by bank transfer.',
    ...overrides,
  };
}

/**
 * Tax rounded per line in the ledger against per rate on the invoice. A night at 100.00 (7 %, 7.00)
 * and three coffees on three days at 2.50 net (19 %): the ledger rounded each coffee's tax
 * (0.475 → 0.48, 1.44 in all) and the guest paid the ledger's 115.94; the invoice states the tax
 * per rate as EN 16931 computes it (7.50 × 19 % = 1.425 → 1.43, BR-CO-17), so its gross is 115.93,
 * and BT-114 rounding 0.01 makes the amount due exact: 115.93 − 115.94 + 0.01 = 0.00 (BR-CO-16).
 */
export function perLineRoundingInvoice(overrides: Partial<TFiscalDocument> = {}): TFiscalDocument {
  return {
    ...germanHotelInvoice(),
    id: '0193a5f2-a007-7d3a-9b4e-2f6a8c0d1e07',
    number: 'INV-120',
    issueDate: '2026-11-21',
    language: 'de',
    notes: [],
    source: { kind: 'RESERVATION', id: '612', identifier: 'RES-612', folioIds: ['43'] },
    period: { start: '2026-11-18', end: '2026-11-21' },
    lines: [
      { id: '1', transactionIds: ['2201', '2202'], name: 'Einzelzimmer', serviceDate: '2026-11-18', quantity: '1', unitPrice: '100.00', netAmount: '100.00', vat: { category: 'S', rate: '7' }, kind: 'CHARGE' },
      { id: '2', transactionIds: ['2210', '2211'], name: 'Kaffee', serviceDate: '2026-11-18', quantity: '1', unitPrice: '2.50', netAmount: '2.50', vat: { category: 'S', rate: '19' }, kind: 'CHARGE' },
      { id: '3', transactionIds: ['2220', '2221'], name: 'Kaffee', serviceDate: '2026-11-19', quantity: '1', unitPrice: '2.50', netAmount: '2.50', vat: { category: 'S', rate: '19' }, kind: 'CHARGE' },
      { id: '4', transactionIds: ['2230', '2231'], name: 'Kaffee', serviceDate: '2026-11-20', quantity: '1', unitPrice: '2.50', netAmount: '2.50', vat: { category: 'S', rate: '19' }, kind: 'CHARGE' },
    ],
    vatBreakdown: [
      { category: 'S', rate: '7', base: '100.00', tax: '7.00' },
      { category: 'S', rate: '19', base: '7.50', tax: '1.43' },
    ],
    totals: { lineNet: '107.50', net: '107.50', vat: '8.43', gross: '115.93', prepaid: '115.94', rounding: '0.01', due: '0.00' },
    paymentMeans: [{ code: '54', text: 'Visa', cardNumber: '411111******1111', amount: '115.94' }],
    ...overrides,
  };
}

/** Every fixture above and the two before, by name: the documents the e-invoice tests render and validate. */
export const FISCAL_DOCUMENT_CASES = {
  'a French hotel stay with city tax and a card deposit': hotelStayInvoice,
  'its credit note': hotelStayCreditNote,
  'a German hotel (7 % room and breakfast, 19 % drinks)': germanHotelInvoice,
  'a German credit note': germanHotelCreditNote,
  'a Spanish hotel paid in foreign cash, with a netted void chain': spanishHotelInvoice,
  'a Portuguese hotel (6 % and 13 %) with tourist tax': portugueseHotelInvoice,
  'a French house account (no stay)': houseAccountInvoice,
  'a split folio': splitFolioInvoice,
  'per-line tax rounding reconciled by BT-114': perLineRoundingInvoice,
} as const;
