// Splits a folio document into A4 pages before React-PDF sees it. Every block takes a known number
// of slots (one slot = one plain table row; a row with a detail line or a wrapped note more, rowSlots), a page
// holds PAGE_SLOTS, and each page is rendered with wrap={false}: React-PDF never paginates, so the
// render is linear in the number of rows (its automatic wrapping is quadratic:
// docs/export.md#what-the-pdf-shows). Pure and deterministic.

import type { TDocumentRow, TDocumentTotals, TFolioDocument, TTaxLine } from '@folio-vault/shared/exports/folio-document';
import { translator, type TTranslate } from '@folio-vault/shared/i18n/catalog';
import { formatters } from '@folio-vault/shared/i18n/format';
import { appliedFilters } from '../document-text.js';
import { cardText } from '../stay-text.js';
import { FONT_SIZE, NOTE_LINE_PITCH, PAGE_SLOTS, SLOT_HEIGHT, columnTextWidth, fitText, wrapText } from './layout.js';

export { PAGE_SLOTS };

/** Slots each block takes. */
/** The hotel's name, address, tax id and contact line; the title, source and folio number. */
export const HEADER_SLOTS = 6;
export const RECIPIENT_SLOTS = 5;
/** The stay block: guest, dates and nights, rooms, guests and status (stay.tsx). */
export const STAY_SLOTS = 5;
export const FILTERS_SLOTS = 2;
/** A gap and the folio's name. */
export const FOLIO_HEADING_SLOTS = 2;
/** Column labels may take two lines ("Datum und Uhrzeit"). */
export const COLUMN_HEADER_SLOTS = 2;
export const SECTION_HEADING_SLOTS = 1;
export const SECTION_SUBTOTAL_SLOTS = 1;
export const NO_ROWS_SLOTS = 1;
/** A gap, the title and charges, payments, balance. */
export const TOTALS_SLOTS = 5;
/** A gap, the tax summary's title and its column labels; each tax then takes a slot. */
export const TAX_SUMMARY_HEAD_SLOTS = 3;

/** Table rows on a page that continues a folio (no sections): the folio heading and column labels repeat. */
export const ROWS_PER_PAGE = PAGE_SLOTS - FOLIO_HEADING_SLOTS - COLUMN_HEADER_SLOTS;
/** Table rows on the first page, which also carries the header (and the filters line when any filter applies). */
export const FIRST_PAGE_ROWS = ROWS_PER_PAGE - HEADER_SLOTS;
/** …and the recipient block, when there is one. */
export const FIRST_PAGE_ROWS_WITH_RECIPIENT = FIRST_PAGE_ROWS - RECIPIENT_SLOTS;
/** …and the stay block, for a reservation whose stay was imported. */
export const FIRST_PAGE_ROWS_WITH_STAY = FIRST_PAGE_ROWS - STAY_SLOTS;

/** Slots `lines` lines of a wrapped note take: the first where a one-line cell sits, the others NOTE_LINE_PITCH apart. */
export function noteSlots(lines: number): number {
  return Math.max(1, Math.ceil((SLOT_HEIGHT + (lines - 1) * NOTE_LINE_PITCH) / SLOT_HEIGHT));
}

/**
 * The most lines a note wraps to: a row that takes them still fits a page that continues a folio
 * under its repeated section heading (about 1,700 characters; a longer note's last line is cut).
 */
export const MAX_NOTE_LINES = (() => {
  let lines = 1;
  while (noteSlots(lines + 1) <= ROWS_PER_PAGE - SECTION_HEADING_SLOTS) lines += 1;
  return lines;
})();

/** A row's note as the lines it wraps to in the notes column. */
export function noteLines(row: TDocumentRow): string[] {
  return row.notes ? wrapText(row.notes, columnTextWidth('notes'), FONT_SIZE.row, MAX_NOTE_LINES) : [];
}

/**
 * Slots of a row: one; two when it has a detail line under it — the card a payment was made with
 * (under the description) and a foreign tender (under the amount); more when its note wraps to
 * more lines (noteSlots). Known from the document alone, so a page's content is still a sum of
 * constants.
 */
export function rowSlots(row: TDocumentRow, notes: readonly string[] = noteLines(row)): number {
  return Math.max(row.card || row.foreign ? 2 : 1, noteSlots(notes.length));
}

/** A row as printed: texts made to fit their column on one line, the note wrapped within its column. */
export interface TPageRow {
  row: TDocumentRow;
  code: string;
  description: string;
  /** The note wrapped to the column (noteLines); none without a note. */
  notes: string[];
  /** rowSlots. */
  slots: number;
  /** The card, fitted to the description column; '' without one. */
  card: string;
}

export type TSectionKind = 'debits' | 'credits';

export type TBlock =
  /** `folioNumbers`: the ids of the document's folios, named in the header. */
  | { kind: 'header'; folioNumbers: string[] }
  | { kind: 'recipient' }
  | { kind: 'stay' }
  | { kind: 'filters' }
  | { kind: 'folioHeading'; folioName: string; continued: boolean }
  | { kind: 'columnHeader' }
  | { kind: 'sectionHeading'; section: TSectionKind; continued: boolean }
  | { kind: 'rows'; rows: TPageRow[] }
  | { kind: 'noRows' }
  | { kind: 'sectionSubtotal'; section: TSectionKind; subtotal: string }
  | { kind: 'folioTotals'; folioName: string; totals: TDocumentTotals }
  | { kind: 'grandTotals'; totals: TDocumentTotals }
  /** Some of a tax summary's lines (all of them unless it runs onto the next page); `all`: of all folios. */
  | { kind: 'taxSummary'; lines: TTaxLine[]; all: boolean; continued: boolean };

export interface TPage {
  /** 1-based. */
  number: number;
  blocks: TBlock[];
}

export interface TPagination {
  pages: TPage[];
  /** Table rows over all pages. */
  rows: number;
}

export function blockSlots(block: TBlock): number {
  switch (block.kind) {
    case 'header':
      return HEADER_SLOTS;
    case 'recipient':
      return RECIPIENT_SLOTS;
    case 'stay':
      return STAY_SLOTS;
    case 'filters':
      return FILTERS_SLOTS;
    case 'folioHeading':
      return FOLIO_HEADING_SLOTS;
    case 'columnHeader':
      return COLUMN_HEADER_SLOTS;
    case 'sectionHeading':
      return SECTION_HEADING_SLOTS;
    case 'rows':
      return block.rows.reduce((sum, row) => sum + row.slots, 0);
    case 'noRows':
      return NO_ROWS_SLOTS;
    case 'sectionSubtotal':
      return SECTION_SUBTOTAL_SLOTS;
    case 'folioTotals':
    case 'grandTotals':
      return TOTALS_SLOTS;
    case 'taxSummary':
      return TAX_SUMMARY_HEAD_SLOTS + block.lines.length;
  }
}

export function pageSlots(page: TPage): number {
  return page.blocks.reduce((sum, block) => sum + blockSlots(block), 0);
}

export function paginate(document: TFolioDocument): TPagination {
  const t = translator(document.language);
  const pages: TPage[] = [];
  let page!: TPage;
  let free = 0;
  let rowCount = 0;

  const newPage = () => {
    page = { number: pages.length + 1, blocks: [] };
    pages.push(page);
    free = PAGE_SLOTS;
  };
  const push = (block: TBlock) => {
    page.blocks.push(block);
    free -= blockSlots(block);
  };

  /** A tax summary under the totals, its lines carried onto the next pages when they do not fit. */
  const pushTaxes = (lines: TTaxLine[] | undefined, all: boolean) => {
    let next = 0;
    while (lines && next < lines.length) {
      if (free < TAX_SUMMARY_HEAD_SLOTS + 1) newPage();
      const taken = lines.slice(next, next + free - TAX_SUMMARY_HEAD_SLOTS);
      push({ kind: 'taxSummary', lines: taken, all, continued: next > 0 });
      next += taken.length;
    }
  };

  newPage();
  push({ kind: 'header', folioNumbers: document.folios.map((folio) => folio.id) });
  if (document.stay) push({ kind: 'stay' });
  if (document.recipient) push({ kind: 'recipient' });
  // A document nothing narrows (a guest's folio, as a rule) has no filters line.
  const fmt = formatters(document.language, document.timezone, document.currency);
  if (appliedFilters(document.filters, t, fmt).length) push({ kind: 'filters' });

  for (const folio of document.folios) {
    const openFolio = (continued: boolean) => {
      push({ kind: 'folioHeading', folioName: folio.name, continued });
      push({ kind: 'columnHeader' });
    };
    const sections = folio.sections.length ? folio.sections : [{ kind: 'all' as const, rows: [] }];
    // A folio starts where its heading, the column labels (the first section's heading) and at
    // least one more slot fit: no heading is left alone at the foot of a page.
    const firstSectionSlots = sections[0]!.kind === 'all' ? 0 : SECTION_HEADING_SLOTS;
    if (free < FOLIO_HEADING_SLOTS + COLUMN_HEADER_SLOTS + firstSectionSlots + firstRowSlots(sections[0]!.rows)) newPage();
    openFolio(false);

    for (const section of sections) {
      const sectionKind = section.kind === 'all' ? undefined : section.kind;
      /** Makes room for `slots`; a fresh page repeats the folio heading (and the section heading). */
      const ensure = (slots: number, repeatSection: boolean) => {
        if (free >= slots) return;
        newPage();
        openFolio(true);
        if (sectionKind && repeatSection) push({ kind: 'sectionHeading', section: sectionKind, continued: true });
      };

      if (sectionKind) {
        ensure(SECTION_HEADING_SLOTS + firstRowSlots(section.rows), false);
        push({ kind: 'sectionHeading', section: sectionKind, continued: false });
      }
      if (!section.rows.length) {
        ensure(NO_ROWS_SLOTS, true);
        push({ kind: 'noRows' });
      }
      let next = 0;
      while (next < section.rows.length) {
        ensure(rowSlots(section.rows[next]!), true);
        const rows = rowsThatFit(section.rows, next, free, t);
        next += rows.length;
        push({ kind: 'rows', rows });
        rowCount += rows.length;
      }
      if (sectionKind && section.subtotal !== undefined) {
        ensure(SECTION_SUBTOTAL_SLOTS, true);
        push({ kind: 'sectionSubtotal', section: sectionKind, subtotal: section.subtotal });
      }
    }

    if (free < TOTALS_SLOTS) newPage();
    push({ kind: 'folioTotals', folioName: folio.name, totals: folio.totals });
    pushTaxes(folio.taxes, false);
  }

  if (document.grandTotals) {
    if (free < TOTALS_SLOTS) newPage();
    push({ kind: 'grandTotals', totals: document.grandTotals });
    pushTaxes(document.grandTaxes, true);
  }
  return { pages, rows: rowCount };
}

/** Slots of a section's first row (a heading needs room for it below); 1 for an empty section's note. */
const firstRowSlots = (rows: TDocumentRow[]) => (rows[0] ? rowSlots(rows[0]) : 1);

/** As many rows from `from` on as `free` slots hold (a row may take several: rowSlots). */
function rowsThatFit(rows: TDocumentRow[], from: number, free: number, t: TTranslate): TPageRow[] {
  const fitted: TPageRow[] = [];
  let used = 0;
  for (let next = from; next < rows.length; next += 1) {
    const row = pageRow(rows[next]!, t);
    if (used + row.slots > free) break;
    fitted.push(row);
    used += row.slots;
  }
  return fitted;
}

function pageRow(row: TDocumentRow, t: TTranslate): TPageRow {
  // A compacted line stands for several ledger lines; its description is the catalog's, in the
  // document's language, not one of the collapsed lines' own.
  const description = row.compacted ? (row.room ? t('compacted.room', { room: row.room }) : t('compacted.noRoom')) : row.description;
  const notes = noteLines(row);
  return {
    row,
    code: fitText(row.code, columnTextWidth('code'), FONT_SIZE.row),
    description: fitText(description, columnTextWidth('description'), FONT_SIZE.row),
    notes,
    slots: rowSlots(row, notes),
    card: row.card ? fitText(cardText(row.card), columnTextWidth('description'), FONT_SIZE.detail) : '',
  };
}
