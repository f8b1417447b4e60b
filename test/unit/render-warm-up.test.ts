import { describe, expect, it } from 'vitest';
import type { TDocumentRow } from '@folio-vault/shared/exports/folio-document';
import { warmUpDocument } from '@folio-vault/worker/exports/render-warm-up';

/**
 * A render process remembers every text it has shaped, so a warm-up pass warms the shaping code
 * only with texts no earlier pass set (render-warm-up.ts, render-child.ts WARM_UP_PASSES).
 */
const rowsOf = (pass: number): TDocumentRow[] => warmUpDocument(pass).folios.flatMap((folio) => folio.sections.flatMap((section) => section.rows));
const PASSES = [0, 1, 2];
const TEXTS: Array<[string, (row: TDocumentRow) => string]> = [
  ['transactionDatetime', (row) => row.transactionDatetime],
  ['description', (row) => row.description],
  ['amount', (row) => row.amount.replace('-', '')],
];

describe('render warm-up document', () => {
  it.each(TEXTS)('gives every row of every pass a %s of its own', (_name, text) => {
    const all = PASSES.flatMap((pass) => rowsOf(pass).map(text));
    expect(all).toHaveLength(3 * 400);
    expect(new Set(all).size).toBe(all.length);
  });

  it('keeps the same layout in every pass: the same rows void, pending, with a room, card, foreign amount or note', () => {
    const shape = (pass: number) =>
      rowsOf(pass).map((row) => [row.voided, row.pending, row.room !== undefined, row.card !== undefined, row.foreign !== undefined, row.notes !== undefined]);
    expect(shape(1)).toEqual(shape(0));
    expect(shape(2)).toEqual(shape(0));
    const first = shape(0);
    for (let feature = 0; feature < 6; feature += 1) expect(first.filter((row) => row[feature]).length).toBeGreaterThan(0);
  });

  it('draws the first pass when no pass is named', () => {
    expect(warmUpDocument()).toEqual(warmUpDocument(0));
  });
});
