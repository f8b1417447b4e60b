import type { TDocumentFolio, TDocumentRow, TDocumentTotals, TFolioDocument } from '@folio-vault/shared/exports/folio-document';
import { generateLargeSource } from './demo-ledger.js';

// Render-ready folio documents for the PDF/XLSX writer tests and the render benchmarks: one folio of
// `rows` plain rows by default, every part overridable. Amounts are exact decimal strings, as the
// worker produces them. The benchmarks' documents (sampleDocument, largeSourceDocument) are built the
// same way in every process that needs one, so the raw-pdfkit baseline and the service render the
// same rows.

export function documentRow(index: number, overrides: Partial<TDocumentRow> = {}): TDocumentRow {
  const minute = index % 60;
  const hour = Math.floor(index / 60) % 24;
  const day = 1 + (Math.floor(index / 1440) % 28);
  const stamp = `2026-11-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}:00Z`;
  return {
    id: String(1000 + index),
    transactionDatetime: stamp,
    serviceDate: stamp.slice(0, 10),
    code: `RC${String(index % 100).padStart(3, '0')}`,
    description: `Row ${String(index).padStart(5, '0')} charge`,
    notes: index % 3 === 0 ? `note ${index}` : undefined,
    quantity: '1',
    amount: `${10 + (index % 90)}.50`,
    voided: false,
    pending: false,
    ...overrides,
  };
}

export function documentRows(count: number, start = 0): TDocumentRow[] {
  return Array.from({ length: count }, (_, i) => documentRow(start + i));
}

export function totals(charges = '0.00', payments = '0.00', balance = '0.00'): TDocumentTotals {
  return { charges, payments, balance };
}

export function documentFolio(id: string, rows: TDocumentRow[], overrides: Partial<TDocumentFolio> = {}): TDocumentFolio {
  return { id, name: `Folio ${id}`, sections: [{ kind: 'all', rows }], totals: totals(), ...overrides };
}

export function folioDocument(overrides: Partial<TFolioDocument> & { rows?: number } = {}): TFolioDocument {
  const { rows = 3, ...rest } = overrides;
  return {
    language: 'en',
    generatedAt: '2026-11-22T09:15:00Z',
    timezone: 'Europe/Madrid',
    currency: 'EUR',
    property: { name: 'Hotel Miramar', address: 'Paseo Marítimo 1, 29016 Málaga' },
    source: { kind: 'RESERVATION', id: '4001', identifier: 'RES-4001' },
    filters: {
      includeVoided: true,
      descriptionFilters: [],
      subSourceIds: [],
      creditDebitView: false,
      revenueCompact: false,
    },
    folios: [documentFolio('1', documentRows(rows), { name: 'Main' })],
    ...rest,
  };
}

const DESCRIPTIONS = ['Room charge', 'Minibar', 'Restaurant dinner for two with wine pairing and dessert', 'City tax', 'Laundry', 'Parking'];

/** The render benchmark's document (bench/scenarios/render-pdf.ts): one folio of `rows` rows, a recipient, some void and pending rows. */
export function sampleDocument(rows: number): TFolioDocument {
  return folioDocument({
    rows: 0,
    recipient: { type: 'GUEST', name: 'Anna Petrova', address: 'Calle Mayor 5, 28013 Madrid', taxLabel: 'taxId', taxNumber: 'X1234567Z' },
    folios: [
      {
        id: '1',
        name: 'Main',
        sections: [
          {
            kind: 'all',
            rows: Array.from({ length: rows }, (_, i) =>
              documentRow(i, {
                description: `${DESCRIPTIONS[i % DESCRIPTIONS.length]} ${i}`,
                voided: i % 20 === 7,
                pending: i % 33 === 5,
              }),
            ),
          },
        ],
        totals: totals('1000.00', '-400.00', '600.00'),
      },
    ],
  });
}

/** The source bench/scenarios/export-e2e.ts imports for `rows`: one reservation, one folio, `rows` transactions. */
export function largeSource(rows: number) {
  return generateLargeSource({ propertyId: 1, sourceId: largeSourceId(rows), rows });
}

/** A source per size, so exports of different sizes never share a job. */
export function largeSourceId(rows: number): number {
  return 700_000 + rows;
}

/**
 * largeSource(rows) as the worker lays it out for an export without filters (every row, in
 * transactionDatetime order; a void and what it voids marked, unposted rows pending), so the
 * baseline draws the texts the export draws.
 */
export function largeSourceDocument(rows: number): TFolioDocument {
  const ledger = largeSource(rows);
  const voidedIds = new Set<string>();
  for (const tx of ledger.transactions) {
    if (tx.isVoid) {
      voidedIds.add(String(tx.id));
      voidedIds.add(String(tx.parentId));
    }
  }
  const documentRows: TDocumentRow[] = ledger.transactions.map((tx) => ({
    id: String(tx.id),
    transactionDatetime: String(tx.transactionDatetime),
    serviceDate: String(tx.serviceDate),
    code: String(tx.internalTransactionCode),
    description: String(tx.description),
    quantity: String(tx.quantity),
    amount: String(tx.amount),
    voided: voidedIds.has(String(tx.id)),
    pending: tx.posted === false,
  }));
  const folio = ledger.folios[0]!;
  return {
    language: 'en',
    generatedAt: new Date().toISOString(),
    timezone: String(ledger.property.timezone),
    currency: String(ledger.property.currency),
    property: { name: String(ledger.property.name) },
    source: { kind: String(folio.sourceKind), id: String(folio.sourceId), identifier: String(folio.sourceIdentifier) },
    filters: { includeVoided: true, descriptionFilters: [], subSourceIds: [], creditDebitView: false, revenueCompact: false },
    folios: [{ id: String(folio.id), name: String(folio.name), sections: [{ kind: 'all', rows: documentRows }], totals: totals('1000.00', '-400.00', '600.00') }],
  };
}
