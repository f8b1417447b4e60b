import { Canvas, Text, View } from '@react-pdf/renderer';
import type { TFormatters } from '@folio-vault/shared/i18n/format';
import type { TTranslate } from '@folio-vault/shared/i18n/catalog';
import { CELL_PADDING, COLOURS, COLUMNS, CONTENT_WIDTH, FONT_SIZE, SLOT_HEIGHT, type TColumn } from './layout.js';
import { COLUMN_HEADER_SLOTS, type TPageRow } from './paginate.js';
import { styles } from './styles.js';
import { ColumnHeaderText } from './column-header-text.js';
import { canvasTextWidth } from './canvas-text.js';
import { canvasPaint, selectFace, type TFontkitFont, type TPainter } from './react-pdf-internals.js';
import type { TTableFonts } from './table-fonts.js';

/**
 * The transaction table of one page — column labels and rows — as React-PDF Canvas nodes: a Canvas whose paint callback sets every
 * cell with the PDF engine's own text call (the painter React-PDF hands it), in the Noto Sans faces
 * React-PDF loaded. Why: React-PDF lays out each Text node through its text engine (attributed
 * strings, shaping without a cache, yoga measure callbacks) at ~0.3 ms a cell, which made rows
 * ~95 % of a folio's render time (and the labels, repeated on every page, most of the rest); the engine's text call shapes word by word with a per-document
 * cache. Rows are one line of fitted text (paginate.ts) at fixed positions, so nothing is lost by
 * not laying them out.
 *
 * A cell the canvas cannot set faithfully — a character Noto Sans lacks (CJK, Arabic fallbacks) or
 * right-to-left text (bidi) — is left to a regular Text node placed over its cell, so it keeps
 * React-PDF's glyph fallback and bidi; such cells are rare, and cost what every cell used to.
 */

interface TCell {
  column: TColumn;
  text: string;
}

const ORDER: readonly TColumn[] = ['datetime', 'serviceDate', 'code', 'description', 'notes', 'quantity', 'amount', 'status'];
const LEFT: Readonly<Record<TColumn, number>> = (() => {
  let x = 0;
  const left = {} as Record<TColumn, number>;
  for (const column of ORDER) {
    left[column] = x;
    x += COLUMNS[column];
  }
  return left;
})();
const RIGHT_ALIGNED = new Set<TColumn>(['quantity', 'amount']);

function cellsOf(row: TPageRow, fmt: TFormatters, mark: string | undefined): TCell[] {
  const cells: TCell[] = [
    { column: 'datetime', text: fmt.dateTime(row.row.transactionDatetime) },
    { column: 'serviceDate', text: fmt.date(row.row.serviceDate) },
    { column: 'code', text: row.code },
    { column: 'description', text: row.description },
    { column: 'notes', text: row.notes },
    { column: 'quantity', text: fmt.number(row.row.quantity) },
    { column: 'amount', text: fmt.money(row.row.amount) },
  ];
  if (mark) cells.push({ column: 'status', text: mark });
  return cells;
}

interface TPaintedCell {
  x: number;
  width: number;
  text: string;
  bold: boolean;
}

interface TPaintedRow {
  colour: string;
  voided: boolean;
  cells: TPaintedCell[];
}

interface TOverlay {
  index: number;
  cell: TCell;
  voided: boolean;
  pending: boolean;
}

/** Baseline offset from a row's top that centres the face's ascent–descent box in the slot. */
function baselineOffset(font: TFontkitFont, fontSize: number): number {
  return SLOT_HEIGHT / 2 + ((font.ascent + font.descent) / 2 / font.unitsPerEm) * fontSize;
}

function paintRows(painter: TPainter, rows: TPaintedRow[], fonts: TTableFonts): void {
  // Hairlines under every row: one path, one stroke.
  painter.save().lineWidth(0.25).strokeColor(COLOURS.hairline);
  for (let index = 0; index < rows.length; index += 1) {
    const y = (index + 1) * SLOT_HEIGHT - 0.125;
    painter.moveTo(0, y).lineTo(CONTENT_WIDTH, y);
  }
  painter.stroke().restore();

  const regularTop = baselineOffset(fonts.regular, FONT_SIZE.row) - (fonts.regular.ascent / fonts.regular.unitsPerEm) * FONT_SIZE.row;
  const boldTop = baselineOffset(fonts.bold, FONT_SIZE.status) - (fonts.bold.ascent / fonts.bold.unitsPerEm) * FONT_SIZE.status;
  painter.fillOpacity(1);
  const known = new Set<TFontkitFont>();
  let face: 'regular' | 'bold' = 'regular';
  selectFace(painter, fonts.regular, FONT_SIZE.row, known);
  for (let index = 0; index < rows.length; index += 1) {
    const row = rows[index]!;
    const top = index * SLOT_HEIGHT;
    painter.fillColor(row.colour);
    for (const cell of row.cells) {
      const wanted = cell.bold ? 'bold' : 'regular';
      if (face !== wanted) {
        selectFace(painter, fonts[wanted], cell.bold ? FONT_SIZE.status : FONT_SIZE.row, known);
        face = wanted;
      }
      painter.text(cell.text, cell.x, top + (cell.bold ? boldTop : regularTop), { lineBreak: false });
    }
    if (row.voided) {
      painter.save().lineWidth(0.5).strokeColor(row.colour);
      const strike = top + baselineOffset(fonts.regular, FONT_SIZE.row) - FONT_SIZE.row * 0.3;
      for (const cell of row.cells) painter.moveTo(cell.x, strike).lineTo(cell.x + cell.width, strike);
      painter.stroke().restore();
    }
  }
}

const overlayPosition = (index: number, column: TColumn) => ({
  position: 'absolute' as const,
  top: index * SLOT_HEIGHT,
  left: LEFT[column],
  width: COLUMNS[column],
  height: SLOT_HEIGHT,
  justifyContent: 'center' as const,
});

function overlayTextStyle(overlay: TOverlay) {
  const column = overlay.cell.column;
  const base = column === 'status' ? styles.cellStatus : RIGHT_ALIGNED.has(column) ? styles.cellAmount : styles.cellOverlay;
  return { ...base, width: COLUMNS[column], color: overlay.voided ? COLOURS.void : overlay.pending ? COLOURS.pending : COLOURS.ink, ...(overlay.voided ? { textDecoration: 'line-through' as const } : {}) };
}

/**
 * The rows of one page: void rows grey and struck through, pending ones coloured, both marked in
 * the last column (void wins when a row is both: it counts in no total).
 */
export function TransactionRows({ rows, t, fmt, fonts }: { rows: TPageRow[]; t: TTranslate; fmt: TFormatters; fonts: TTableFonts }) {
  const voidMark = t('mark.void');
  const pendingMark = t('mark.pending');
  const painted: TPaintedRow[] = [];
  const overlays: TOverlay[] = [];
  rows.forEach((row, index) => {
    const { voided, pending } = row.row;
    const mark = voided ? voidMark : pending ? pendingMark : undefined;
    const cells: TPaintedCell[] = [];
    for (const cell of cellsOf(row, fmt, mark)) {
      const bold = cell.column === 'status';
      const font = bold ? fonts.bold : fonts.regular;
      const width = canvasTextWidth(font, cell.text, bold ? FONT_SIZE.status : FONT_SIZE.row);
      if (width === undefined) {
        overlays.push({ index, cell, voided, pending });
        continue;
      }
      const x = RIGHT_ALIGNED.has(cell.column)
        ? LEFT[cell.column] + COLUMNS[cell.column] - CELL_PADDING - width
        : LEFT[cell.column] + (cell.column === 'status' ? CELL_PADDING : 0);
      if (cell.text) cells.push({ x, width, text: cell.text, bold });
    }
    painted.push({ colour: voided ? COLOURS.void : pending ? COLOURS.pending : COLOURS.ink, voided, cells });
  });
  const height = rows.length * SLOT_HEIGHT;
  return (
    <View style={{ height, width: CONTENT_WIDTH }}>
      <Canvas style={{ position: 'absolute', top: 0, left: 0, width: CONTENT_WIDTH, height }} paint={canvasPaint((painter) => paintRows(painter, painted, fonts))} />
      {overlays.map((overlay) => (
        <View key={`${overlay.index}-${overlay.cell.column}`} style={overlayPosition(overlay.index, overlay.cell.column)}>
          <Text style={overlayTextStyle(overlay)}>{overlay.cell.text}</Text>
        </View>
      ))}
    </View>
  );
}

const HEADER_LINES = 2;
const HEADER_PADDING_BOTTOM = 2;
const HEADER_RULE = 0.75;

/** Greedy word wrap of a label into at most two lines of `width` points (the last cut with "…"). */
function wrapLabel(font: TFontkitFont, label: string, width: number): string[] | undefined {
  const size = FONT_SIZE.columnHeader;
  const lines: string[] = [];
  let line = '';
  for (const word of label.split(' ')) {
    const candidate = line ? `${line} ${word}` : word;
    const measured = canvasTextWidth(font, candidate, size);
    if (measured === undefined) return undefined;
    if (measured <= width || !line) line = candidate;
    else {
      lines.push(line);
      line = word;
    }
  }
  lines.push(line);
  if (lines.length <= HEADER_LINES) return lines;
  const kept = lines.slice(0, HEADER_LINES);
  let last = `${kept[HEADER_LINES - 1]} ${lines.slice(HEADER_LINES).join(' ')}`;
  while (last.length > 1 && (canvasTextWidth(font, `${last}…`, size) ?? Infinity) > width) last = last.slice(0, -1);
  kept[HEADER_LINES - 1] = `${last.trimEnd()}…`;
  return kept;
}

interface TPaintedLabel {
  x: number;
  lines: Array<{ text: string; dx: number }>;
}

/**
 * Column labels, repeated at the top of every page a folio's table runs onto: bold, muted, bottom
 * aligned, a label may take two lines ("Datum und Uhrzeit"), a rule underneath.
 */
export function ColumnHeader({ t, fonts }: { t: TTranslate; fonts: TTableFonts }) {
  const labels: TPaintedLabel[] = [];
  for (const column of ORDER) {
    const width = COLUMNS[column] - CELL_PADDING;
    const lines = wrapLabel(fonts.bold, t(`column.${column}`), width);
    if (!lines) return <ColumnHeaderText t={t} />;
    const x = LEFT[column] + (column === 'status' ? CELL_PADDING : 0);
    labels.push({
      x,
      lines: lines.map((text) => ({ text, dx: RIGHT_ALIGNED.has(column) ? width - canvasTextWidth(fonts.bold, text, FONT_SIZE.columnHeader)! : 0 })),
    });
  }
  const height = COLUMN_HEADER_SLOTS * SLOT_HEIGHT;
  const size = FONT_SIZE.columnHeader;
  const lineHeight = ((fonts.bold.ascent - fonts.bold.descent) / fonts.bold.unitsPerEm) * size;
  const bottom = height - HEADER_RULE - HEADER_PADDING_BOTTOM;
  const paint = (painter: TPainter) => {
    painter.fillOpacity(1).fillColor(COLOURS.muted).font(fonts.bold, size);
    for (const label of labels) {
      const top = bottom - label.lines.length * lineHeight;
      label.lines.forEach((line, index) => painter.text(line.text, label.x + line.dx, top + index * lineHeight, { lineBreak: false }));
    }
    painter.save().lineWidth(HEADER_RULE).strokeColor(COLOURS.rule).moveTo(0, height - HEADER_RULE / 2).lineTo(CONTENT_WIDTH, height - HEADER_RULE / 2).stroke().restore();
  };
  return <Canvas style={{ width: CONTENT_WIDTH, height }} paint={canvasPaint(paint)} />;
}
