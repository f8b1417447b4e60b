// Frozen fiscal documents (packages/shared/src/fiscal/document-model.ts) for tests of the renderers,
// written by hand so that every amount can be checked against EN 16931's rules by reading it: a
// French hotel's invoice of a three-night stay with a minibar at another rate, the city tax as a
// disbursement and a card deposit, and the credit note that reverses it whole.

import type { TFiscalDocument } from '@folio-vault/shared/fiscal/document-model';

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
