// All styles of the folio PDF, created once per process. Rows share these objects (no style object
// is built per row). Every block has a fixed height of whole slots, so what paginate() counted is
// what the page holds. Texts are one line (maxLines 1 with an ellipsis backstop behind fitText);
// a wrapped note is one painted line per line (table-canvas.tsx).

import { StyleSheet } from '@react-pdf/renderer';
import { FONT_FAMILY } from './font-stack.js';
import { CELL_PADDING, COLOURS, COLUMNS, FONT_SIZE, MARGIN_BOTTOM, MARGIN_TOP, MARGIN_X, PAGE_HEIGHT, PAGE_WIDTH, SLOT_HEIGHT } from './layout.js';
import {
  COLUMN_HEADER_SLOTS,
  FILTERS_SLOTS,
  FOLIO_HEADING_SLOTS,
  HEADER_SLOTS,
  NO_ROWS_SLOTS,
  RECIPIENT_SLOTS,
  SECTION_HEADING_SLOTS,
  STAY_SLOTS,
  SECTION_SUBTOTAL_SLOTS,
  TAX_SUMMARY_HEAD_SLOTS,
  TOTALS_SLOTS,
} from './paginate.js';

const slots = (n: number) => n * SLOT_HEIGHT;

const { ink: INK, muted: MUTED, rule: RULE } = COLOURS;

const oneLine = { maxLines: 1, textOverflow: 'ellipsis' } as const;
const bold = { fontWeight: 700 } as const;

const cell = (width: number) => ({ width, paddingRight: CELL_PADDING, ...oneLine });
const rightCell = (width: number) => ({ ...cell(width), textAlign: 'right' as const });

export const styles = StyleSheet.create({
  /**
   * A Page with wrap={false} is laid out at its content's height (React-PDF skips the split step
   * that would give it the sheet's height): a body of the full content height keeps every page A4.
   */
  body: {
    width: PAGE_WIDTH - 2 * MARGIN_X,
    height: PAGE_HEIGHT - MARGIN_TOP - MARGIN_BOTTOM,
  },
  page: {
    paddingTop: MARGIN_TOP,
    paddingBottom: MARGIN_BOTTOM,
    paddingHorizontal: MARGIN_X,
    fontFamily: FONT_FAMILY,
    fontSize: FONT_SIZE.row,
    color: INK,
  },

  header: {
    height: slots(HEADER_SLOTS),
    flexDirection: 'row',
    justifyContent: 'space-between',
    borderBottomWidth: 0.75,
    borderBottomColor: RULE,
    paddingBottom: 6,
  },
  headerLeft: { width: 330 },
  headerRight: { width: 200, alignItems: 'flex-end' },
  propertyName: { fontSize: FONT_SIZE.propertyName, ...bold, ...oneLine },
  /** Address, tax id, contact: each one line. */
  propertyLine: { fontSize: FONT_SIZE.small, color: MUTED, marginTop: 1, ...oneLine },
  title: { fontSize: FONT_SIZE.title, ...bold, ...oneLine },
  source: { fontSize: FONT_SIZE.heading, marginTop: 4, textAlign: 'right', ...oneLine },
  folioNumber: { fontSize: FONT_SIZE.small, marginTop: 2, textAlign: 'right', ...oneLine },

  recipient: { height: slots(RECIPIENT_SLOTS), paddingTop: 8 },
  recipientLabel: { fontSize: FONT_SIZE.row, color: MUTED, ...bold, ...oneLine },
  recipientName: { fontSize: FONT_SIZE.heading, ...bold, marginTop: 1, ...oneLine },
  recipientLine: { fontSize: FONT_SIZE.small, marginTop: 1, ...oneLine },

  stay: { height: slots(STAY_SLOTS), paddingTop: 6 },
  stayGuest: { fontSize: FONT_SIZE.heading, ...bold, ...oneLine },
  stayLine: { fontSize: FONT_SIZE.small, marginTop: 1, ...oneLine },

  filters: { height: slots(FILTERS_SLOTS), justifyContent: 'center' },
  filtersText: { color: MUTED, ...oneLine },

  folioHeading: { height: slots(FOLIO_HEADING_SLOTS), justifyContent: 'flex-end', paddingBottom: 2 },
  folioHeadingText: { fontSize: FONT_SIZE.heading, ...bold, ...oneLine },

  columnHeader: {
    height: slots(COLUMN_HEADER_SLOTS),
    flexDirection: 'row',
    alignItems: 'flex-end',
    paddingBottom: 2,
    borderBottomWidth: 0.75,
    borderBottomColor: RULE,
    fontSize: FONT_SIZE.columnHeader,
    color: MUTED,
    ...bold,
  },
  // Column labels may take two lines; the header row is two slots high.
  headDatetime: { width: COLUMNS.datetime, paddingRight: CELL_PADDING, maxLines: 2 },
  headServiceDate: { width: COLUMNS.serviceDate, paddingRight: CELL_PADDING, maxLines: 2 },
  headCode: { width: COLUMNS.code, paddingRight: CELL_PADDING, maxLines: 2 },
  headDescription: { width: COLUMNS.description, paddingRight: CELL_PADDING, maxLines: 2 },
  headNotes: { width: COLUMNS.notes, paddingRight: CELL_PADDING, maxLines: 2 },
  headQuantity: { width: COLUMNS.quantity, paddingRight: CELL_PADDING, maxLines: 2, textAlign: 'right' },
  headAmount: { width: COLUMNS.amount, paddingRight: CELL_PADDING, maxLines: 2, textAlign: 'right' },
  headStatus: { width: COLUMNS.status, paddingLeft: CELL_PADDING, maxLines: 2 },

  sectionHeading: { height: slots(SECTION_HEADING_SLOTS), justifyContent: 'flex-end', paddingBottom: 1 },
  sectionHeadingText: { fontSize: FONT_SIZE.row + 1, ...bold, ...oneLine },
  sectionSubtotal: {
    height: slots(SECTION_SUBTOTAL_SLOTS),
    flexDirection: 'row',
    alignItems: 'center',
    borderTopWidth: 0.5,
    borderTopColor: RULE,
    ...bold,
  },
  sectionSubtotalLabel: {
    width: COLUMNS.datetime + COLUMNS.serviceDate + COLUMNS.code + COLUMNS.description + COLUMNS.notes + COLUMNS.quantity,
    paddingRight: CELL_PADDING,
    textAlign: 'right',
    ...oneLine,
  },
  noRows: { height: slots(NO_ROWS_SLOTS), justifyContent: 'center' },
  noRowsText: { color: MUTED, ...oneLine },

  // A row cell set as a Text node (table-canvas.tsx: only cells the canvas cannot set).
  cellOverlay: { paddingRight: CELL_PADDING, ...oneLine },
  cellAmount: rightCell(COLUMNS.amount),
  cellStatus: { width: COLUMNS.status, paddingLeft: CELL_PADDING, fontSize: FONT_SIZE.status, ...bold, ...oneLine },

  totals: { height: slots(TOTALS_SLOTS), alignItems: 'flex-end', justifyContent: 'flex-end' },
  totalsTitle: { fontSize: FONT_SIZE.row + 1, ...bold, marginBottom: 2, ...oneLine },
  totalsLine: { flexDirection: 'row', height: SLOT_HEIGHT, alignItems: 'center' },
  totalsLabel: { width: 150, paddingRight: CELL_PADDING, textAlign: 'right', color: MUTED, ...oneLine },
  totalsValue: { width: COLUMNS.amount + COLUMNS.status, paddingRight: COLUMNS.status, textAlign: 'right', ...oneLine },
  totalsBalance: {
    width: COLUMNS.amount + COLUMNS.status,
    paddingRight: COLUMNS.status,
    textAlign: 'right',
    ...bold,
    ...oneLine,
  },
  totalsBalanceLabel: { width: 150, paddingRight: CELL_PADDING, textAlign: 'right', ...bold, ...oneLine },

  // The tax summary: rate, net, tax and gross, the gross under the amount column.
  // Its height, slots(TAX_SUMMARY_HEAD_SLOTS + lines), is taxSummaryHeight's.
  taxSummary: { alignItems: 'flex-end', justifyContent: 'flex-end' },
  taxLine: { flexDirection: 'row', height: SLOT_HEIGHT, alignItems: 'center' },
  taxHeadLabel: { width: 150, paddingRight: CELL_PADDING, fontSize: FONT_SIZE.columnHeader, color: MUTED, ...bold, ...oneLine },
  taxHeadValue: { width: COLUMNS.amount, paddingRight: CELL_PADDING, textAlign: 'right', fontSize: FONT_SIZE.columnHeader, color: MUTED, ...bold, ...oneLine },
  taxHeadGross: {
    width: COLUMNS.amount + COLUMNS.status,
    paddingRight: COLUMNS.status,
    textAlign: 'right',
    fontSize: FONT_SIZE.columnHeader,
    color: MUTED,
    ...bold,
    ...oneLine,
  },
  taxLabel: { width: 150, paddingRight: CELL_PADDING, ...oneLine },
  taxValue: { width: COLUMNS.amount, paddingRight: CELL_PADDING, textAlign: 'right', ...oneLine },
  taxGross: { width: COLUMNS.amount + COLUMNS.status, paddingRight: COLUMNS.status, textAlign: 'right', ...oneLine },

  footer: {
    position: 'absolute',
    left: MARGIN_X,
    right: MARGIN_X,
    bottom: 18,
    height: 12,
    flexDirection: 'row',
    justifyContent: 'space-between',
    alignItems: 'center',
    borderTopWidth: 0.5,
    borderTopColor: RULE,
    fontSize: FONT_SIZE.footer,
    color: MUTED,
  },
  footerText: { ...oneLine },
});

const pageStyles = new Map<string, typeof styles.page>();

/** The height of a tax summary block of `lines` lines (paginate.ts blockSlots). */
export const taxSummaryHeight = (lines: number) => slots(TAX_SUMMARY_HEAD_SLOTS + lines);

/** The page style with the document's font stack (font-stack.ts fontFamilyOf); one object per distinct stack. */
export function pageStyle(fontFamily: string[]): typeof styles.page {
  const key = fontFamily.join(',');
  let style = pageStyles.get(key);
  if (!style) {
    style = { ...styles.page, fontFamily };
    pageStyles.set(key, style);
  }
  return style;
}

/** The filters line at each of its font sizes (FONT_SIZE.filters). */
export const filtersTextStyles: Readonly<Record<number, typeof styles.filtersText>> = Object.fromEntries(
  FONT_SIZE.filters.map((fontSize) => [fontSize, { ...styles.filtersText, fontSize }]),
);

/** Widths the header and recipient texts are fitted to (see header.tsx, recipient.tsx). */
export const TEXT_WIDTH = {
  headerLeft: 330,
  headerRight: 200,
  recipient: 330,
  stay: COLUMNS.datetime + COLUMNS.serviceDate + COLUMNS.code + COLUMNS.description + COLUMNS.notes + COLUMNS.quantity + COLUMNS.amount + COLUMNS.status,
  filters: COLUMNS.datetime + COLUMNS.serviceDate + COLUMNS.code + COLUMNS.description + COLUMNS.notes + COLUMNS.quantity + COLUMNS.amount + COLUMNS.status,
  folioHeading: 500,
  totalsTitle: 300,
  taxLabel: 150 - CELL_PADDING,
  footer: 260,
} as const;
