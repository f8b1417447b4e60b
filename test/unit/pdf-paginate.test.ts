import { describe, expect, it } from 'vitest';
import type { TDocumentRow, TFolioDocument } from '@folio-vault/shared/exports/folio-document';
import { translator } from '@folio-vault/shared/i18n/catalog';
import { formatters } from '@folio-vault/shared/i18n/format';
import { filtersText } from '@folio-vault/worker/exports/pdf/filters-text';
import { fontFamilyOf } from '@folio-vault/worker/exports/pdf/font-stack';
import {
  COLUMNS,
  CONTENT_WIDTH,
  FONT_SIZE,
  MARGIN_BOTTOM,
  MARGIN_TOP,
  NOTE_LINE_PITCH,
  PAGE_HEIGHT,
  SLOT_HEIGHT,
  charEm,
  columnTextWidth,
  fitText,
  fitTextShrinking,
  wrapText,
} from '@folio-vault/worker/exports/pdf/layout';
import {
  FIRST_PAGE_ROWS,
  FIRST_PAGE_ROWS_WITH_RECIPIENT,
  FILTERS_SLOTS,
  MAX_NOTE_LINES,
  PAGE_SLOTS,
  ROWS_PER_PAGE,
  TOTALS_SLOTS,
  noteSlots,
  pageSlots,
  paginate,
  type TBlock,
  type TPagination,
} from '@folio-vault/worker/exports/pdf/paginate';
import { documentFolio, documentRow, documentRows, folioDocument, totals } from '@folio-vault/test-kit/folio-document';

const RECIPIENT = { type: 'GUEST', name: 'Anna Petrova', taxLabel: 'taxId', taxNumber: 'B1' } as const;

const rowsOf = (pagination: TPagination): TDocumentRow[] =>
  pagination.pages.flatMap((page) => page.blocks.flatMap((block) => (block.kind === 'rows' ? block.rows.map((r) => r.row) : [])));
const kinds = (blocks: TBlock[]) => blocks.map((block) => block.kind);
const rowsOnPage = (pagination: TPagination, index: number) =>
  pagination.pages[index]!.blocks.reduce((n, block) => n + (block.kind === 'rows' ? block.rows.length : 0), 0);

/** What must hold for any document: no page over capacity, every row once and in order, no heading left alone. */
function checkInvariants(document: TFolioDocument, pagination: TPagination): void {
  pagination.pages.forEach((page, index) => {
    expect(page.number).toBe(index + 1);
    expect(pageSlots(page)).toBeLessThanOrEqual(PAGE_SLOTS);
    expect(page.blocks.length).toBeGreaterThan(0);
    const last = page.blocks.at(-1)!.kind;
    expect(['folioHeading', 'columnHeader', 'sectionHeading']).not.toContain(last);
  });
  const expected = document.folios.flatMap((folio) => folio.sections.flatMap((section) => section.rows));
  expect(rowsOf(pagination).map((row) => row.id)).toEqual(expected.map((row) => row.id));
  expect(pagination.rows).toBe(expected.length);
}

describe('page geometry', () => {
  it('fits the slots and the columns on an A4 page', () => {
    expect(PAGE_SLOTS * SLOT_HEIGHT).toBeLessThanOrEqual(PAGE_HEIGHT - MARGIN_TOP - MARGIN_BOTTOM);
    expect(Object.values(COLUMNS).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(CONTENT_WIDTH);
    expect(FIRST_PAGE_ROWS).toBeGreaterThan(40);
    expect(FIRST_PAGE_ROWS_WITH_RECIPIENT).toBeLessThan(FIRST_PAGE_ROWS);
    expect(ROWS_PER_PAGE).toBeGreaterThan(FIRST_PAGE_ROWS);
  });
});

describe('paginate', () => {
  const emWidth = (text: string) => Array.from(text).reduce((sum, ch) => sum + charEm(ch.codePointAt(0)!), 0) * FONT_SIZE.row;

  it('puts an empty folio on one page with a "no transactions" line and its totals', () => {
    const document = folioDocument({ rows: 0 });
    const pagination = paginate(document);
    checkInvariants(document, pagination);
    expect(pagination.pages).toHaveLength(1);
    expect(kinds(pagination.pages[0]!.blocks)).toEqual(['header', 'folioHeading', 'columnHeader', 'noRows', 'folioTotals']);
  });

  it('puts one row on one page', () => {
    const document = folioDocument({ rows: 1 });
    const pagination = paginate(document);
    checkInvariants(document, pagination);
    expect(pagination.pages).toHaveLength(1);
    expect(kinds(pagination.pages[0]!.blocks)).toEqual(['header', 'folioHeading', 'columnHeader', 'rows', 'folioTotals']);
  });

  it('fills the first page exactly and moves the totals that no longer fit to the next', () => {
    const full = folioDocument({ rows: FIRST_PAGE_ROWS });
    const pagination = paginate(full);
    checkInvariants(full, pagination);
    expect(pagination.pages).toHaveLength(2);
    expect(rowsOnPage(pagination, 0)).toBe(FIRST_PAGE_ROWS);
    expect(pageSlots(pagination.pages[0]!)).toBe(PAGE_SLOTS);
    expect(kinds(pagination.pages[1]!.blocks)).toEqual(['folioTotals']);

    const withRoomForTotals = folioDocument({ rows: FIRST_PAGE_ROWS - TOTALS_SLOTS });
    expect(paginate(withRoomForTotals).pages).toHaveLength(1);
  });

  it('starts a second page with the folio heading and column labels repeated', () => {
    const document = folioDocument({ rows: FIRST_PAGE_ROWS + 1 });
    const pagination = paginate(document);
    checkInvariants(document, pagination);
    expect(pagination.pages).toHaveLength(2);
    expect(pagination.pages[1]!.blocks[0]).toEqual({ kind: 'folioHeading', folioName: 'Main', continued: true });
    expect(kinds(pagination.pages[1]!.blocks)).toEqual(['folioHeading', 'columnHeader', 'rows', 'folioTotals']);
  });

  it('gives the first page fewer rows when it carries a recipient block', () => {
    const document = folioDocument({ rows: 200, recipient: RECIPIENT });
    const pagination = paginate(document);
    checkInvariants(document, pagination);
    expect(kinds(pagination.pages[0]!.blocks).slice(0, 3)).toEqual(['header', 'recipient', 'folioHeading']);
    expect(rowsOnPage(pagination, 0)).toBe(FIRST_PAGE_ROWS_WITH_RECIPIENT);
    expect(rowsOnPage(pagination, 1)).toBe(ROWS_PER_PAGE);
  });

  it('lays 1,000 rows out on a predictable number of full pages', () => {
    const document = folioDocument({ rows: 1000 });
    const pagination = paginate(document);
    checkInvariants(document, pagination);
    const expectedPages = 1 + Math.ceil((1000 - FIRST_PAGE_ROWS) / ROWS_PER_PAGE);
    expect(pagination.pages).toHaveLength(expectedPages);
    expect(expectedPages).toBe(17);
    for (let i = 1; i < pagination.pages.length - 1; i += 1) expect(rowsOnPage(pagination, i)).toBe(ROWS_PER_PAGE);
    expect(pagination.pages.at(-1)!.blocks.at(-1)!.kind).toBe('folioTotals');
  });

  it('keeps several folios in order, each with its heading and totals, and the totals of all at the end', () => {
    const document = folioDocument({
      folios: [
        documentFolio('1', documentRows(30, 0), { name: 'Guest', totals: totals('1.00', '0.00', '1.00') }),
        documentFolio('2', documentRows(90, 100), { name: 'Company' }),
        documentFolio('3', [], { name: 'Extras' }),
      ],
      grandTotals: totals('3.00', '-1.00', '2.00'),
    });
    const pagination = paginate(document);
    checkInvariants(document, pagination);
    const blocks = pagination.pages.flatMap((page) => page.blocks);
    const headings = blocks.filter((b) => b.kind === 'folioHeading' && !b.continued).map((b) => (b as { folioName: string }).folioName);
    expect(headings).toEqual(['Guest', 'Company', 'Extras']);
    const folioTotals = blocks.filter((b) => b.kind === 'folioTotals');
    expect(folioTotals.map((b) => b.folioName)).toEqual(['Guest', 'Company', 'Extras']);
    expect(folioTotals[0]!.totals).toEqual(totals('1.00', '0.00', '1.00'));
    expect(blocks.at(-1)).toEqual({ kind: 'grandTotals', totals: totals('3.00', '-1.00', '2.00') });
    // The Guest totals come after Guest's last row and before Company's heading.
    const index = (predicate: (b: TBlock) => boolean) => blocks.findIndex(predicate);
    expect(index((b) => b.kind === 'folioTotals')).toBeLessThan(index((b) => b.kind === 'folioHeading' && b.folioName === 'Company'));
    // A continuation page of Company names it again.
    expect(blocks.some((b) => b.kind === 'folioHeading' && b.folioName === 'Company' && b.continued)).toBe(true);
  });

  it('has no totals of all folios when the document holds one folio', () => {
    const pagination = paginate(folioDocument({ rows: 5 }));
    expect(pagination.pages.flatMap((p) => p.blocks).some((b) => b.kind === 'grandTotals')).toBe(false);
  });

  it('lays creditDebitView sections out with headings and subtotals, repeating a heading on a new page', () => {
    const debits = documentRows(100, 0);
    const credits = documentRows(5, 500);
    const document = folioDocument({
      folios: [
        {
          id: '1',
          name: 'Main',
          sections: [
            { kind: 'debits', rows: debits, subtotal: '900.00' },
            { kind: 'credits', rows: credits, subtotal: '-50.00' },
          ],
          totals: totals('900.00', '-50.00', '850.00'),
        },
        { id: '2', name: 'Empty', sections: [{ kind: 'debits', rows: [], subtotal: '0.00' }, { kind: 'credits', rows: [], subtotal: '0.00' }], totals: totals() },
      ],
      grandTotals: totals('900.00', '-50.00', '850.00'),
    });
    const pagination = paginate(document);
    checkInvariants(document, pagination);
    const blocks = pagination.pages.flatMap((page) => page.blocks);
    expect(blocks.filter((b) => b.kind === 'sectionSubtotal')).toEqual([
      { kind: 'sectionSubtotal', section: 'debits', subtotal: '900.00' },
      { kind: 'sectionSubtotal', section: 'credits', subtotal: '-50.00' },
      { kind: 'sectionSubtotal', section: 'debits', subtotal: '0.00' },
      { kind: 'sectionSubtotal', section: 'credits', subtotal: '0.00' },
    ]);
    expect(kinds(pagination.pages[1]!.blocks).slice(0, 3)).toEqual(['folioHeading', 'columnHeader', 'sectionHeading']);
    expect(pagination.pages[1]!.blocks[2]).toEqual({ kind: 'sectionHeading', section: 'debits', continued: true });
    // Each section: heading, then its rows (or "no transactions"), then its subtotal.
    const sequence = kinds(blocks).filter((k) => ['sectionHeading', 'rows', 'noRows', 'sectionSubtotal'].includes(k));
    expect(sequence.slice(-6)).toEqual(['sectionHeading', 'noRows', 'sectionSubtotal', 'sectionHeading', 'noRows', 'sectionSubtotal']);
  });

  it('never overflows a page, whatever the mix of folios and sections', () => {
    for (let seed = 1; seed <= 40; seed += 1) {
      const folios = Array.from({ length: 1 + (seed % 4) }, (_, f) => {
        const n = (seed * 37 + f * 53) % 180;
        return seed % 2
          ? documentFolio(String(f), documentRows(n, f * 1000))
          : {
              id: String(f),
              name: `F${f}`,
              sections: [
                { kind: 'debits' as const, rows: documentRows(n, f * 1000), subtotal: '1.00' },
                { kind: 'credits' as const, rows: documentRows((n * 7) % 61, f * 1000 + 500), subtotal: '-1.00' },
              ],
              totals: totals(),
            };
      });
      const document = folioDocument({ folios, recipient: seed % 3 ? RECIPIENT : undefined, grandTotals: folios.length > 1 ? totals() : undefined });
      checkInvariants(document, paginate(document));
    }
  });

  it('fits long descriptions and codes to one line with an ellipsis, and wraps a note within its column', () => {
    const long = 'Restaurant dinner for four persons with wine pairing, dessert selection and coffee';
    const document = folioDocument({
      folios: [
        documentFolio('1', [
          documentRow(0, { description: long, notes: 'one\ntwo\t three', code: 'A-VERY-LONG-INTERNAL-CODE' }),
          documentRow(1, { description: 'Minibar', notes: 'Posted to the wrong room' }),
          documentRow(2, { compacted: true, room: '204', description: 'ROOM_REVENUE_BASE', notes: long }),
        ]),
      ],
    });
    const [first, second, compacted] = paginate(document).pages[0]!.blocks.flatMap((b) => (b.kind === 'rows' ? b.rows : []));
    expect(first!.description.endsWith('…')).toBe(true);
    expect(long.startsWith(first!.description.slice(0, -1).trimEnd())).toBe(true);
    // The note's own line breaks are kept; other white space is one space.
    expect(first!.notes).toEqual(['one', 'two three']);
    expect(first!.slots).toBe(2);
    expect(first!.code.endsWith('…')).toBe(true);
    expect(second!.description).toBe('Minibar');
    expect(second!.notes).toEqual(['Posted to the wrong room']);
    expect(second!.slots).toBe(1);
    expect(compacted!.description).toBe(translator('en')('compacted.room', { room: '204' }));
    // A long note: every word kept, in order, each line within the column; lines 9 pt apart.
    expect(compacted!.notes).toEqual(['Restaurant dinner for four', 'persons with wine pairing,', 'dessert selection and', 'coffee']);
    expect(compacted!.notes.join(' ')).toBe(long);
    for (const line of compacted!.notes) expect(emWidth(line)).toBeLessThanOrEqual(columnTextWidth('notes'));
    expect(compacted!.slots).toBe(noteSlots(4));
    expect(noteSlots(4)).toBe(Math.ceil((SLOT_HEIGHT + 3 * NOTE_LINE_PITCH) / SLOT_HEIGHT));
  });

  it('wraps a note past a page only to MAX_NOTE_LINES lines, the last cut, and still fits every page', () => {
    const huge = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const rows = [...documentRows(50), documentRow(50, { notes: huge }), ...documentRows(5, 51)];
    const document = folioDocument({ folios: [documentFolio('1', rows)] });
    const pagination = paginate(document);
    checkInvariants(document, pagination);
    const row = pagination.pages.flatMap((page) => page.blocks.flatMap((b) => (b.kind === 'rows' ? b.rows : []))).find((r) => r.row.id === rows[50]!.id)!;
    expect(row.notes).toHaveLength(MAX_NOTE_LINES);
    expect(row.notes.at(-1)!.endsWith('…')).toBe(true);
    expect(row.slots).toBeLessThanOrEqual(ROWS_PER_PAGE - 1);
    // One character longer than a line: broken between characters, not cut.
    expect(wrapText('x'.repeat(40), columnTextWidth('notes'), FONT_SIZE.row, 5).join('')).toBe('x'.repeat(40));
  });

  it('has a filters line only when a filter narrows the export', () => {
    expect(kinds(paginate(folioDocument({ rows: 1 })).pages[0]!.blocks)).not.toContain('filters');
    const filtered = folioDocument({ rows: 1, filters: { ...folioDocument().filters, posted: true } });
    expect(kinds(paginate(filtered).pages[0]!.blocks).slice(0, 2)).toEqual(['header', 'filters']);
    expect(rowsOnPage(paginate(folioDocument({ rows: 200, filters: filtered.filters })), 0)).toBe(FIRST_PAGE_ROWS - FILTERS_SLOTS);
  });

  it('puts the tax summary under the folio totals and of all folios under theirs, carried over a page when long', () => {
    const vat = [{ label: 'VAT 10%', net: '100', tax: '10', gross: '110' }];
    const document = folioDocument({
      folios: [documentFolio('1', documentRows(2), { taxes: vat }), documentFolio('2', documentRows(2))],
      grandTotals: totals(),
      grandTaxes: vat,
    });
    expect(kinds(paginate(document).pages[0]!.blocks)).toEqual([
      'header', 'folioHeading', 'columnHeader', 'rows', 'folioTotals', 'taxSummary', 'folioHeading', 'columnHeader', 'rows', 'folioTotals', 'grandTotals', 'taxSummary',
    ]);
    const many = Array.from({ length: 70 }, (_, i) => ({ label: `Tax ${i}`, tax: '1' }));
    const long = folioDocument({ rows: 10, folios: [documentFolio('1', documentRows(10), { taxes: many })] });
    const pagination = paginate(long);
    checkInvariants(long, pagination);
    const summaries = pagination.pages.flatMap((page) => page.blocks.filter((b) => b.kind === 'taxSummary'));
    expect(summaries.map((b) => (b.kind === 'taxSummary' ? b.continued : undefined))).toEqual([false, true]);
    expect(summaries.flatMap((b) => (b.kind === 'taxSummary' ? b.lines.map((line) => line.label) : []))).toEqual(many.map((line) => line.label));
  });
});

describe('fitText', () => {
  const width = columnTextWidth('description');
  const emWidth = (text: string) => Array.from(text).reduce((sum, ch) => sum + charEm(ch.codePointAt(0)!), 0) * FONT_SIZE.row;

  it('leaves a text that fits alone and cuts one that does not to within the width', () => {
    expect(fitText('Minibar', width, FONT_SIZE.row)).toBe('Minibar');
    expect(fitText(undefined, width, FONT_SIZE.row)).toBe('');
    for (const text of ['x'.repeat(300), 'W'.repeat(300), '王'.repeat(300), 'Ж'.repeat(300), 'مرحبا '.repeat(60)]) {
      const fitted = fitText(text, width, FONT_SIZE.row);
      expect(fitted.endsWith('…')).toBe(true);
      expect(emWidth(fitted)).toBeLessThanOrEqual(width + FONT_SIZE.row);
    }
  });

  it('keeps fewer wide (CJK) characters than narrow ones, and never splits a surrogate pair', () => {
    const latin = fitText('a'.repeat(300), width, FONT_SIZE.row);
    const cjk = fitText('王'.repeat(300), width, FONT_SIZE.row);
    expect(Array.from(cjk).length).toBeLessThan(Array.from(latin).length);
    const astral = fitText('𠀀'.repeat(300), width, FONT_SIZE.row);
    expect(astral.slice(0, -1)).toMatch(/^(?:𠀀)+$/u);
  });

  it('is deterministic', () => {
    const text = 'Anna Petrova — Аннa Петрова — 王小明 — محمد علي — '.repeat(5);
    expect(fitText(text, 100, 7)).toBe(fitText(text, 100, 7));
  });

  it('steps the font size down before cutting (filters line)', () => {
    const text = 'x'.repeat(120);
    expect(fitTextShrinking(text, 400, [7, 6, 5])).toEqual({ text, fontSize: 5 });
    expect(fitTextShrinking('short', 400, [7, 6, 5])).toEqual({ text: 'short', fontSize: 7 });
    const cut = fitTextShrinking('x'.repeat(1000), 400, [7, 6, 5]);
    expect(cut.fontSize).toBe(5);
    expect(cut.text.endsWith('…')).toBe(true);
  });
});

describe('filtersText', () => {
  const fmt = formatters('en', 'Europe/Madrid', 'EUR');
  const none = folioDocument().filters;

  it('says "none" when nothing narrows the export', () => {
    expect(filtersText(none, translator('en'), fmt)).toBe('Filters: none');
    expect(filtersText(none, translator('fr'), formatters('fr', 'Europe/Paris', 'EUR'))).toBe('Filtres : aucun');
  });

  it('lists every applied filter on one line', () => {
    const text = filtersText(
      {
        dateFrom: '2026-11-01',
        dateTo: '2026-11-30',
        posted: false,
        includeVoided: false,
        descriptionFilters: ['ROOM_REVENUE', 'MINIBAR'],
        searchQuery: 'bar',
        subSourceIds: ['101', '102'],
        folioIds: ['7'],
        creditDebitView: true,
        revenueCompact: true,
      },
      translator('en'),
      fmt,
    );
    expect(text).toBe(
      'Filters: from 01/11/2026 · to 30/11/2026 · pending only · voided transactions left out · types: ROOM_REVENUE, MINIBAR · ' +
        'search "bar" · rooms: 101, 102 · folios: 7 · debits and credits apart · room revenue compacted',
    );
    expect(text).not.toContain('\n');
    expect(filtersText({ ...none, posted: true }, translator('de'), formatters('de', 'Europe/Berlin', 'EUR'))).toBe('Filter: nur gebuchte');
  });
});

describe('fontFamilyOf', () => {
  it('adds a fallback font only for the scripts the document uses', () => {
    expect(fontFamilyOf(['Anna Petrova, Ανна, Nguyễn Văn'])).toEqual(['NotoSans']);
    expect(fontFamilyOf(['王小明'])).toEqual(['NotoSans', 'NotoSansSC']);
    expect(fontFamilyOf(['محمد علي'])).toEqual(['NotoSans', 'NotoNaskhArabic']);
    expect(fontFamilyOf(['王小明 محمد علي'])).toEqual(['NotoSans', 'NotoSansSC', 'NotoNaskhArabic']);
  });
});
