import type { TDocumentFolio, TDocumentRow, TDocumentTotals, TFolioDocument } from '@folio-vault/shared/exports/folio-document';

/**
 * Render-ready folio documents for the PDF/XLSX writer tests: one folio of `rows` plain rows by
 * default, every part overridable. Amounts are exact decimal strings, as the worker produces them.
 */
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
