import type { TDocumentRow, TFolioDocument } from '@folio-vault/shared/exports/folio-document';
import { generateLargeSource } from '@folio-vault/shared/ledger/demo-ledger';
import { documentRow, folioDocument, totals } from '../test/support/folio-document.js';

/**
 * The folio documents the render benchmarks draw, built the same way in every process that needs
 * one, so the raw-pdfkit baseline and the service render the same rows.
 */

const DESCRIPTIONS = ['Room charge', 'Minibar', 'Restaurant dinner for two with wine pairing and dessert', 'City tax', 'Laundry', 'Parking'];

/** bench/render-pdf.ts's document: one folio of `rows` rows, a recipient, some void and pending rows. */
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

/** The source bench/export-e2e.ts imports for `rows`: one reservation, one folio, `rows` transactions. */
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
