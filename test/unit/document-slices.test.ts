import { describe, expect, it } from 'vitest';
import { joinDocument, ROWS_PER_SLICE, sliceDocument } from '@folio-vault/worker/exports/document-slices';
import { documentFolio, documentRows, folioDocument } from '@folio-vault/test-kit/folio-document';

/** Two folios: one with debit and credit sections (7 and 0 rows), one plain of 5 rows. */
const document = folioDocument({
  folios: [
    documentFolio('1', [], { sections: [{ kind: 'debits', rows: documentRows(7), subtotal: '100.00' }, { kind: 'credits', rows: [], subtotal: '0.00' }] }),
    documentFolio('2', documentRows(5, 100)),
  ],
});

describe('a document cut into row slices for a render process', () => {
  it('sends a head with no rows, and the rows in slices of at most the size asked, in document order', () => {
    const { head, slices } = sliceDocument(document, 3);
    expect(head.folios.map((folio) => folio.sections.map((section) => section.rows.length))).toEqual([[0, 0], [0]]);
    expect(head.folios[0]!.sections.map((section) => [section.kind, section.subtotal])).toEqual([['debits', '100.00'], ['credits', '0.00']]);
    expect(slices.map((slice) => [slice.folio, slice.section, slice.rows.map((row) => row.id)])).toEqual([
      [0, 0, ['1000', '1001', '1002']],
      [0, 0, ['1003', '1004', '1005']],
      [0, 0, ['1006']],
      [1, 0, ['1100', '1101', '1102']],
      [1, 0, ['1103', '1104']],
    ]);
  });

  it('puts back the same document, whatever the slice size', () => {
    for (const size of [1, 2, 3, 7, ROWS_PER_SLICE]) {
      const { head, slices } = sliceDocument(document, size);
      expect(joinDocument(head, slices)).toEqual(document);
    }
    expect(sliceDocument(document, 3).head).not.toBe(document);
    expect(document.folios[1]!.sections[0]!.rows).toHaveLength(5);
  });

  it('refuses a slice size that is not a whole number of at least 1', () => {
    for (const size of [0, -1, 1.5, Number.NaN]) expect(() => sliceDocument(document, size)).toThrow(`rows per slice must be a whole number of at least 1, not ${size}`);
  });

  it('refuses a slice of a section the head does not have', () => {
    const { head } = sliceDocument(document, 3);
    expect(() => joinDocument(head, [{ folio: 0, section: 2, rows: documentRows(1) }])).toThrow('a row slice names folio 0 section 2, which the document does not have');
    expect(() => joinDocument(head, [{ folio: 2, section: 0, rows: documentRows(1) }])).toThrow('a row slice names folio 2 section 0, which the document does not have');
  });
});
