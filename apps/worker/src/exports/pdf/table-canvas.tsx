// The transaction table of one page — column labels and rows — as React-PDF Canvas nodes: a Canvas
// whose paint callback sets every cell with the PDF engine's own text call (the painter React-PDF
// hands it), in the Noto Sans faces React-PDF loaded. Why: React-PDF lays out each Text node
// through its text engine (attributed strings, shaping without a cache, yoga measure callbacks), a
// cost paid per cell that would make the rows most of a folio's render time (and the labels,
// repeated on every page, most of the rest); the engine's text call shapes word by word with a
// per-document cache. Rows are lines of fitted text (paginate.ts; a note's lines under one another)
// at fixed positions, so nothing is lost by not laying them out (docs/export.md, "Text on canvases").
//
// A cell the canvas cannot set faithfully — a character Noto Sans lacks (CJK, Arabic fallbacks) or
// right-to-left text (bidi) — is left to a regular Text node placed over its cell, so it keeps
// React-PDF's glyph fallback and bidi; such cells are rare, and cost what a Text node costs.

import { Canvas, Text, View } from '@react-pdf/renderer';
import type { TFormatters } from '@folio-vault/shared/i18n/format';
import type { TTranslate } from '@folio-vault/shared/i18n/catalog';
import { CELL_PADDING, COLOURS, COLUMNS, CONTENT_WIDTH, FONT_SIZE, NOTE_LINE_PITCH, SLOT_HEIGHT, type TColumn } from './layout.js';
import { COLUMN_HEADER_SLOTS, type TPageRow } from './paginate.js';
import { styles } from './styles.js';
import { ColumnHeaderText } from './column-header-text.js';
import { foreignText } from '../stay-text.js';
import { canvasTextWidth } from './canvas-text.js';
import { canvasPaint, selectFace, type TFontkitFont, type TPainter } from './react-pdf-internals.js';
import type { TTableFonts } from './table-fonts.js';

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

interface TLine {
  /** Points from the row's top to the top of the slot the text is centred in. */
  offset: number;
  /** The row's detail line (paginate.ts rowSlots), set smaller. */
  detail: boolean;
  cell: TCell;
}

/** Points the detail line is raised towards its row (it stays inside the row's second slot). */
const DETAIL_LIFT = 2;
const DETAIL_OFFSET = SLOT_HEIGHT - DETAIL_LIFT;

function cellsOf(row: TPageRow, fmt: TFormatters, mark: string | undefined): TLine[] {
  const line = (column: TColumn, text: string): TLine => ({ offset: 0, detail: false, cell: { column, text } });
  const cells: TLine[] = [
    line('datetime', fmt.dateTime(row.row.transactionDatetime)),
    line('serviceDate', fmt.date(row.row.serviceDate)),
    line('code', row.code),
    line('description', row.description),
    line('quantity', fmt.number(row.row.quantity)),
    line('amount', fmt.money(row.row.amount)),
  ];
  // A note wraps within its column, its lines NOTE_LINE_PITCH apart.
  row.notes.forEach((text, index) => cells.push({ offset: index * NOTE_LINE_PITCH, detail: false, cell: { column: 'notes', text } }));
  if (mark) cells.push(line('status', mark));
  // The detail line: the card under the description, the tendered amount under the amount.
  if (row.card) cells.push({ offset: DETAIL_OFFSET, detail: true, cell: { column: 'description', text: row.card } });
  if (row.row.foreign) cells.push({ offset: DETAIL_OFFSET, detail: true, cell: { column: 'amount', text: `(${foreignText(row.row.foreign, fmt)})` } });
  return cells;
}

type TFace = 'regular' | 'bold' | 'detail';

interface TPaintedCell {
  x: number;
  /** Top of the cell's slot in the block. */
  top: number;
  width: number;
  text: string;
  face: TFace;
}

interface TPaintedRow {
  colour: string;
  voided: boolean;
  /** Top of the row in the block, and its height in slots. */
  top: number;
  slots: number;
  cells: TPaintedCell[];
}

interface TOverlay {
  top: number;
  cell: TCell;
  detail: boolean;
  voided: boolean;
  pending: boolean;
}

const FACE_SIZE: Readonly<Record<TFace, number>> = { regular: FONT_SIZE.row, bold: FONT_SIZE.status, detail: FONT_SIZE.detail };
const faceFont = (fonts: TTableFonts, face: TFace) => (face === 'bold' ? fonts.bold : fonts.regular);

/** Baseline offset from a row's top that centres the face's ascent–descent box in the slot. */
function baselineOffset(font: TFontkitFont, fontSize: number): number {
  return SLOT_HEIGHT / 2 + ((font.ascent + font.descent) / 2 / font.unitsPerEm) * fontSize;
}

function paintRows(painter: TPainter, rows: TPaintedRow[], fonts: TTableFonts): void {
  // Hairlines under every row: one path, one stroke.
  painter.save().lineWidth(0.25).strokeColor(COLOURS.hairline);
  for (const row of rows) {
    const y = row.top + row.slots * SLOT_HEIGHT - 0.125;
    painter.moveTo(0, y).lineTo(CONTENT_WIDTH, y);
  }
  painter.stroke().restore();

  const textTop = (face: TFace) => {
    const font = faceFont(fonts, face);
    return baselineOffset(font, FACE_SIZE[face]) - (font.ascent / font.unitsPerEm) * FACE_SIZE[face];
  };
  const tops: Readonly<Record<TFace, number>> = { regular: textTop('regular'), bold: textTop('bold'), detail: textTop('detail') };
  painter.fillOpacity(1);
  const known = new Set<TFontkitFont>();
  let face: TFace = 'regular';
  selectFace(painter, fonts.regular, FONT_SIZE.row, known);
  for (const row of rows) {
    for (const cell of row.cells) {
      if (face !== cell.face) {
        selectFace(painter, faceFont(fonts, cell.face), FACE_SIZE[cell.face], known);
        face = cell.face;
      }
      // A detail line is muted unless the row's own colour (void, pending) says more.
      painter.fillColor(cell.face === 'detail' && row.colour === COLOURS.ink ? COLOURS.muted : row.colour);
      painter.text(cell.text, cell.x, cell.top + tops[cell.face], { lineBreak: false });
    }
    if (row.voided) {
      painter.save().lineWidth(0.5).strokeColor(row.colour);
      for (const cell of row.cells) {
        const size = cell.face === 'detail' ? FONT_SIZE.detail : FONT_SIZE.row;
        const strike = cell.top + baselineOffset(fonts.regular, size) - size * 0.3;
        painter.moveTo(cell.x, strike).lineTo(cell.x + cell.width, strike);
      }
      painter.stroke().restore();
    }
  }
}

const overlayPosition = (top: number, column: TColumn) => ({
  position: 'absolute' as const,
  top,
  left: LEFT[column],
  width: COLUMNS[column],
  height: SLOT_HEIGHT,
  justifyContent: 'center' as const,
});

function overlayTextStyle(overlay: TOverlay) {
  const column = overlay.cell.column;
  const base = column === 'status' ? styles.cellStatus : RIGHT_ALIGNED.has(column) ? styles.cellAmount : styles.cellOverlay;
  const colour = overlay.voided ? COLOURS.void : overlay.pending ? COLOURS.pending : overlay.detail ? COLOURS.muted : COLOURS.ink;
  return {
    ...base,
    width: COLUMNS[column],
    color: colour,
    ...(overlay.detail ? { fontSize: FONT_SIZE.detail } : {}),
    ...(overlay.voided ? { textDecoration: 'line-through' as const } : {}),
  };
}

/**
 * The rows of one page: void rows grey and struck through, pending ones coloured, both marked in
 * the last column (void wins when a row is both: it counts in no total). A row with a detail line
 * (a payment's card, a foreign tender) takes a second slot for it.
 */
export function TransactionRows({ rows, t, fmt, fonts }: { rows: TPageRow[]; t: TTranslate; fmt: TFormatters; fonts: TTableFonts }) {
  const voidMark = t('mark.void');
  const pendingMark = t('mark.pending');
  const painted: TPaintedRow[] = [];
  const overlays: TOverlay[] = [];
  let rowTop = 0;
  for (const row of rows) {
    const { voided, pending } = row.row;
    const mark = voided ? voidMark : pending ? pendingMark : undefined;
    const cells: TPaintedCell[] = [];
    for (const { offset, detail, cell } of cellsOf(row, fmt, mark)) {
      const face: TFace = detail ? 'detail' : cell.column === 'status' ? 'bold' : 'regular';
      const top = rowTop + offset;
      const width = canvasTextWidth(faceFont(fonts, face), cell.text, FACE_SIZE[face]);
      if (width === undefined) {
        overlays.push({ top, cell, detail, voided, pending });
        continue;
      }
      const x = RIGHT_ALIGNED.has(cell.column)
        ? LEFT[cell.column] + COLUMNS[cell.column] - CELL_PADDING - width
        : LEFT[cell.column] + (cell.column === 'status' ? CELL_PADDING : 0);
      if (cell.text) cells.push({ x, top, width, text: cell.text, face });
    }
    painted.push({ colour: voided ? COLOURS.void : pending ? COLOURS.pending : COLOURS.ink, voided, top: rowTop, slots: row.slots, cells });
    rowTop += row.slots * SLOT_HEIGHT;
  }
  const height = rowTop;
  return (
    <View style={{ height, width: CONTENT_WIDTH }}>
      <Canvas style={{ position: 'absolute', top: 0, left: 0, width: CONTENT_WIDTH, height }} paint={canvasPaint((painter) => paintRows(painter, painted, fonts))} />
      {overlays.map((overlay) => (
        <View key={`${overlay.top}-${overlay.detail ? 'detail' : 'row'}-${overlay.cell.column}`} style={overlayPosition(overlay.top, overlay.cell.column)}>
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
