// A folio document cut for the trip to a render process (render-pool.ts → render-child.ts): its
// head (everything but the rows) and its rows in slices of at most `rowsPerSlice`. One IPC message
// holds the whole of what it carries twice in the sender, as a JSON string and as the bytes written
// to the pipe, on top of the document itself. Sent a slice at a time, each after the previous one
// left, the worker holds one slice's copies at most (docs/benchmarks.md#export-memory measures it).
// The render process puts the document back together (joinDocument) before it writes it.

import type { TDocumentRow, TFolioDocument } from '@folio-vault/shared/exports/folio-document';

/** Rows of one section of one folio, in the order they come in the section. */
export interface TRowSlice {
  folio: number;
  section: number;
  rows: TDocumentRow[];
}

/** Small beside a large document's rows, and few messages for it (25 for EXPORT_MAX_ROWS' default). */
export const ROWS_PER_SLICE = 2_000;

/** The document with every section's rows left empty, and the rows in slices, in document order. */
export function sliceDocument(document: TFolioDocument, rowsPerSlice: number = ROWS_PER_SLICE): { head: TFolioDocument; slices: TRowSlice[] } {
  if (!Number.isInteger(rowsPerSlice) || rowsPerSlice < 1) throw new RangeError(`rows per slice must be a whole number of at least 1, not ${rowsPerSlice}`);
  const slices: TRowSlice[] = [];
  const folios = document.folios.map((folio, folioIndex) => ({
    ...folio,
    sections: folio.sections.map((section, sectionIndex) => {
      for (let from = 0; from < section.rows.length; from += rowsPerSlice) {
        slices.push({ folio: folioIndex, section: sectionIndex, rows: section.rows.slice(from, from + rowsPerSlice) });
      }
      return { ...section, rows: [] };
    }),
  }));
  return { head: { ...document, folios }, slices };
}

/** The document a head and its slices were cut from (sliceDocument); slices in the order they were cut. */
export function joinDocument(head: TFolioDocument, slices: readonly TRowSlice[]): TFolioDocument {
  const rows = head.folios.map((folio) => folio.sections.map((): TDocumentRow[] => []));
  for (const slice of slices) {
    const target = rows[slice.folio]?.[slice.section];
    if (!target) throw new Error(`a row slice names folio ${slice.folio} section ${slice.section}, which the document does not have`);
    for (const row of slice.rows) target.push(row);
  }
  return {
    ...head,
    folios: head.folios.map((folio, folioIndex) => ({
      ...folio,
      sections: folio.sections.map((section, sectionIndex) => ({ ...section, rows: rows[folioIndex]![sectionIndex]! })),
    })),
  };
}
