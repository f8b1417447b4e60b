// The invoice's page(s): the folio PDF's look (its page geometry, sizes, colours and Noto Sans
// stack: exports/pdf/layout.ts, styles.ts) with an invoice's blocks. A hotel invoice has a few
// dozen lines, so React-PDF's own flow lays it out (texts wrap, a line never splits across pages, a
// long invoice continues on the next page); the folio's fixed-row pagination exists for folios of
// tens of thousands of rows and is not needed here. The texts come from facturx-text.ts.

import { Fragment, type ReactElement } from 'react';
import { Canvas, Document, Page, Text, View } from '@react-pdf/renderer';
import { COLOURS, CONTENT_WIDTH, FONT_SIZE, MARGIN_BOTTOM, MARGIN_TOP, MARGIN_X, PAGE_HEIGHT } from '../exports/pdf/layout.js';
import { lineHeight, PaintedText, paintText, paintedText, type TPaintedText } from '../exports/pdf/painted-text.js';
import { canvasDrawnPaint, canvasPaint, type TPainter } from '../exports/pdf/react-pdf-internals.js';
import type { TInherited, TLineStyle } from '../exports/pdf/painted-line.js';
import { loadedTableFonts } from '../exports/pdf/table-fonts.js';
import { pageStyle } from '../exports/pdf/styles.js';
import type { TInvoiceTexts, TLineTexts } from './facturx-text.js';

const { ink: INK, muted: MUTED, rule: RULE, hairline: HAIRLINE } = COLOURS;
const bold = { fontWeight: 700 } as const;

/** The lines table's columns (they add up to CONTENT_WIDTH, rounded down). */
const COLUMNS = { date: 58, description: 218, quantity: 38, unitPrice: 74, net: 80, vat: 70 } as const;
/** The VAT breakdown (left) and the totals (right) share a line: together they fit CONTENT_WIDTH. */
const BREAKDOWN = { category: 120, rate: 45, base: 85, tax: 70 } as const;
const TOTALS = { label: 130, amount: 80 } as const;
const BREAKDOWN_LEFT = { category: 0, rate: BREAKDOWN.category, base: BREAKDOWN.category + BREAKDOWN.rate, tax: BREAKDOWN.category + BREAKDOWN.rate + BREAKDOWN.base } as const;

const RIGHT = { textAlign: 'right' } as const;
const cell = (width: number) => ({ width, paddingRight: 4 });

const s = {
  header: { flexDirection: 'row', justifyContent: 'space-between', borderBottomWidth: 0.75, borderBottomColor: RULE, paddingBottom: 6 },
  headerLeft: { width: 330 },
  headerRight: { width: 200, alignItems: 'flex-end' },
  sellerName: { fontSize: FONT_SIZE.propertyName, ...bold },
  partyLine: { fontSize: FONT_SIZE.small, color: MUTED, marginTop: 1 },
  title: { fontSize: FONT_SIZE.title, ...bold },
  reference: { fontSize: FONT_SIZE.small, marginTop: 2, ...RIGHT },
  parties: { flexDirection: 'row', justifyContent: 'space-between', paddingTop: 8 },
  buyer: { width: 300 },
  stay: { width: 230, alignItems: 'flex-end' },
  blockLabel: { fontSize: FONT_SIZE.row, color: MUTED, ...bold },
  buyerName: { fontSize: FONT_SIZE.heading, ...bold, marginTop: 1 },
  buyerLine: { fontSize: FONT_SIZE.small, marginTop: 1 },
  stayLine: { fontSize: FONT_SIZE.small, marginTop: 1, ...RIGHT },
  preceding: { fontSize: FONT_SIZE.heading, ...bold, marginTop: 8 },
  table: { marginTop: 12 },
  columnHeader: { flexDirection: 'row', borderBottomWidth: 0.75, borderBottomColor: RULE, paddingBottom: 2, fontSize: FONT_SIZE.columnHeader, color: MUTED, ...bold },
  row: { flexDirection: 'row', borderBottomWidth: 0.5, borderBottomColor: HAIRLINE, paddingVertical: 2.5, fontSize: FONT_SIZE.small },
  lineDescription: { fontSize: FONT_SIZE.detail, color: MUTED, marginTop: 1 },
  sectionTitle: { fontSize: FONT_SIZE.row + 1, ...bold, marginBottom: 2 },
  summary: { flexDirection: 'row', justifyContent: 'space-between', marginTop: 12 },
  breakdown: { width: BREAKDOWN.category + BREAKDOWN.rate + BREAKDOWN.base + BREAKDOWN.tax },
  breakdownHeader: { flexDirection: 'row', fontSize: FONT_SIZE.columnHeader, color: MUTED, ...bold, borderBottomWidth: 0.5, borderBottomColor: RULE, paddingBottom: 1 },
  breakdownRow: { flexDirection: 'row', paddingVertical: 1.5 },
  exemption: { fontSize: FONT_SIZE.detail, color: MUTED, marginBottom: 1.5 },
  totals: { width: TOTALS.label + TOTALS.amount },
  totalsRow: { flexDirection: 'row', paddingVertical: 1.5 },
  totalsLabel: { width: TOTALS.label, paddingRight: 4, color: MUTED, ...RIGHT },
  totalsAmount: { width: TOTALS.amount, ...RIGHT },
  dueRow: { flexDirection: 'row', borderTopWidth: 0.75, borderTopColor: RULE, paddingTop: 2, marginTop: 1, fontSize: FONT_SIZE.heading, ...bold },
  dueLabel: { width: TOTALS.label, paddingRight: 4, ...RIGHT },
  section: { marginTop: 12 },
  paragraph: { fontSize: FONT_SIZE.small, marginTop: 1 },
  footer: {
    position: 'absolute',
    left: MARGIN_X,
    right: MARGIN_X,
    bottom: 18,
    flexDirection: 'row',
    justifyContent: 'space-between',
    borderTopWidth: 0.5,
    borderTopColor: RULE,
    paddingTop: 2,
    fontSize: FONT_SIZE.footer,
    color: MUTED,
  },
} as const;

const FOOTER = { fontSize: s.footer.fontSize, color: s.footer.color };

/** What a Text inherits from the page (pageStyle and INK). */
const PAGE = { fontSize: FONT_SIZE.row, color: INK };

/** A text set at (left, top) of a canvas. */
interface TCell {
  left: number;
  top: number;
  text: TPaintedText;
}

/**
 * A block of texts and rules painted as one canvas, placed as the View tree it stands for would
 * place them (the same widths, margins, paddings and borders, flex rows top-aligned), so React-PDF
 * lays out one node for it. `ok` turns false once a text cannot be painted: the block is then the
 * View tree, whose PaintedTexts keep React-PDF's Text for that text (glyph fallback, bidi).
 */
class PaintedBlock {
  readonly cells: TCell[] = [];
  readonly rules: Array<{ left: number; top: number; width: number; weight: number; colour: string }> = [];
  ok = true;

  /** Sets the text under `top` after its marginTop; answers the y under it and its marginBottom. */
  put(text: string, style: TLineStyle, inherited: TInherited, left: number, top: number): number {
    const set = paintedText(text, style, inherited);
    if (!set) {
      this.ok = false;
      return top;
    }
    const y = top + (style.marginTop ?? 0);
    this.cells.push({ left, top: y, text: set });
    return y + set.height + (style.marginBottom ?? 0);
  }

  /** Texts side by side from `top`, each at its left edge; answers the y under the highest. */
  row(cells: Array<{ left: number; text: string; style: TLineStyle }>, inherited: TInherited, top: number): number {
    return Math.max(top, ...cells.map((one) => this.put(one.text, one.style, inherited, one.left, top)));
  }

  /** A horizontal rule `weight` thick whose top edge is at `top`, as a View's border is drawn inside its box. */
  rule(left: number, width: number, top: number, weight: number, colour: string): void {
    this.rules.push({ left, top, width, weight, colour });
  }

  canvas(height: number, marginTop = 0) {
    if (!this.ok) return undefined;
    const { cells, rules } = this;
    const paint = (painter: TPainter) => {
      for (const one of rules) {
        painter.save().lineWidth(one.weight).strokeColor(one.colour).moveTo(one.left, one.top + one.weight / 2).lineTo(one.left + one.width, one.top + one.weight / 2).stroke().restore();
      }
      for (const one of cells) paintText(painter, one.text, one.left, one.top);
    };
    return <Canvas style={{ width: CONTENT_WIDTH, height, marginTop }} paint={canvasPaint(paint)} />;
  }
}

/** The header as one canvas: the seller on the left, the title and references on the right, the rule under both. */
function paintedHeader(texts: TInvoiceTexts) {
  const block = new PaintedBlock();
  const left = { width: s.headerLeft.width };
  const right = CONTENT_WIDTH - s.headerRight.width;
  let leftBottom = block.put(texts.seller.name, { ...s.sellerName, ...left }, PAGE, 0, 0);
  for (const line of texts.seller.lines) leftBottom = block.put(line, { ...s.partyLine, ...left }, PAGE, 0, leftBottom);
  let rightBottom = block.put(texts.title, { ...s.title, width: s.headerRight.width, ...RIGHT }, PAGE, right, 0);
  for (const line of texts.references) rightBottom = block.put(line, { ...s.reference, width: s.headerRight.width }, PAGE, right, rightBottom);
  const rule = Math.max(leftBottom, rightBottom) + s.header.paddingBottom;
  block.rule(0, CONTENT_WIDTH, rule, s.header.borderBottomWidth, s.header.borderBottomColor);
  return block.canvas(rule + s.header.borderBottomWidth);
}

/** The parties as one canvas: the buyer on the left, the stay on the right. */
function paintedParties(texts: TInvoiceTexts) {
  const block = new PaintedBlock();
  const top = s.parties.paddingTop;
  const buyer = { width: s.buyer.width };
  const stay = CONTENT_WIDTH - s.stay.width;
  let buyerBottom = block.put(texts.buyerLabel, { ...s.blockLabel, ...buyer }, PAGE, 0, top);
  buyerBottom = block.put(texts.buyer.name, { ...s.buyerName, ...buyer }, PAGE, 0, buyerBottom);
  for (const line of texts.buyer.lines) buyerBottom = block.put(line, { ...s.buyerLine, ...buyer }, PAGE, 0, buyerBottom);
  let stayBottom: number = top;
  for (const line of texts.stay) stayBottom = block.put(line, { ...s.stayLine, width: s.stay.width }, PAGE, stay, stayBottom);
  return block.canvas(Math.max(buyerBottom, stayBottom));
}

function Header({ texts }: { texts: TInvoiceTexts }) {
  const left = s.headerLeft.width;
  const right = s.headerRight.width;
  return (
    <View style={s.header}>
      <View style={s.headerLeft}>
        <PaintedText style={{ ...s.sellerName, width: left }} text={texts.seller.name} inherited={PAGE} />
        {texts.seller.lines.map((line, index) => (
          <PaintedText key={index} style={{ ...s.partyLine, width: left }} text={line} inherited={PAGE} />
        ))}
      </View>
      <View style={s.headerRight}>
        <PaintedText style={{ ...s.title, width: right, ...RIGHT }} text={texts.title} inherited={PAGE} />
        {texts.references.map((line, index) => (
          <PaintedText key={index} style={{ ...s.reference, width: right }} text={line} inherited={PAGE} />
        ))}
      </View>
    </View>
  );
}

function Parties({ texts }: { texts: TInvoiceTexts }) {
  const buyer = s.buyer.width;
  const stay = s.stay.width;
  return (
    <View style={s.parties}>
      <View style={s.buyer}>
        <PaintedText style={{ ...s.blockLabel, width: buyer }} text={texts.buyerLabel} inherited={PAGE} />
        <PaintedText style={{ ...s.buyerName, width: buyer }} text={texts.buyer.name} inherited={PAGE} />
        {texts.buyer.lines.map((line, index) => (
          <PaintedText key={index} style={{ ...s.buyerLine, width: buyer }} text={line} inherited={PAGE} />
        ))}
      </View>
      <View style={s.stay}>
        {texts.stay.map((line, index) => (
          <PaintedText key={index} style={{ ...s.stayLine, width: stay }} text={line} inherited={PAGE} />
        ))}
      </View>
    </View>
  );
}

type TColumn = keyof typeof COLUMNS;
const ORDER: readonly TColumn[] = ['date', 'description', 'quantity', 'unitPrice', 'net', 'vat'];
const LEFT: Readonly<Record<TColumn, number>> = {
  date: 0,
  description: COLUMNS.date,
  quantity: COLUMNS.date + COLUMNS.description,
  unitPrice: COLUMNS.date + COLUMNS.description + COLUMNS.quantity,
  net: COLUMNS.date + COLUMNS.description + COLUMNS.quantity + COLUMNS.unitPrice,
  vat: COLUMNS.date + COLUMNS.description + COLUMNS.quantity + COLUMNS.unitPrice + COLUMNS.net,
};
const columnStyle = (column: TColumn) => (column === 'date' || column === 'description' ? cell(COLUMNS[column]) : { ...cell(COLUMNS[column]), ...RIGHT });
const ROW = { fontSize: s.row.fontSize, color: INK };
const COLUMN_HEADER = { fontSize: s.columnHeader.fontSize, color: s.columnHeader.color, bold: true };

/** Texts set side by side at their columns' left edges, top-aligned, as one canvas as high as the highest. */
function PaintedCells({ cells }: { cells: Array<{ left: number; top?: number; text: TPaintedText }> }) {
  const height = Math.max(...cells.map((one) => (one.top ?? 0) + one.text.height));
  return <Canvas style={{ width: CONTENT_WIDTH, height }} paint={canvasPaint((painter) => cells.forEach((one) => paintText(painter, one.text, one.left, one.top)))} />;
}

/** The column labels as one canvas; undefined when one of them cannot be painted. */
function paintedColumnHeader(texts: TInvoiceTexts) {
  const cells = ORDER.map((column) => ({ left: LEFT[column], text: paintedText(texts.columns[column], columnStyle(column), COLUMN_HEADER) }));
  return cells.every((one) => one.text) ? <PaintedCells cells={cells as Array<{ left: number; text: TPaintedText }>} /> : undefined;
}

/**
 * A line as one canvas: its cells (the line's notes under its name) between the row's paddings,
 * its hairline at the foot; undefined when one of them cannot be painted. A canvas never splits
 * across two pages, as the row View it stands for (wrap={false}).
 */
function paintedLine(line: TLineTexts) {
  const block = new PaintedBlock();
  const top = s.row.paddingVertical;
  const name = block.put(line.name, cell(COLUMNS.description), ROW, LEFT.description, top);
  const description = line.description === undefined ? name : block.put(line.description, { ...cell(COLUMNS.description), ...s.lineDescription }, ROW, LEFT.description, name);
  const others = block.row(
    (['date', 'quantity', 'unitPrice', 'net', 'vat'] as const).map((column) => ({ left: LEFT[column], text: line[column], style: columnStyle(column) })),
    ROW,
    top,
  );
  const rule = Math.max(description, others) + s.row.paddingVertical;
  block.rule(0, CONTENT_WIDTH, rule, s.row.borderBottomWidth, s.row.borderBottomColor);
  return block.canvas(rule + s.row.borderBottomWidth);
}

/** A painted block given its list key; undefined stays undefined. */
const wrapKey = (key: number, element: ReactElement | undefined) => (element ? <Fragment key={key}>{element}</Fragment> : undefined);

function Lines({ texts }: { texts: TInvoiceTexts }) {
  const { columns } = texts;
  return (
    <View style={s.table}>
      <View style={s.columnHeader} fixed>
        {paintedColumnHeader(texts) ?? (
          <>
            <Text style={cell(COLUMNS.date)}>{columns.date}</Text>
            <Text style={cell(COLUMNS.description)}>{columns.description}</Text>
            <Text style={{ ...cell(COLUMNS.quantity), ...RIGHT }}>{columns.quantity}</Text>
            <Text style={{ ...cell(COLUMNS.unitPrice), ...RIGHT }}>{columns.unitPrice}</Text>
            <Text style={{ ...cell(COLUMNS.net), ...RIGHT }}>{columns.net}</Text>
            <Text style={{ ...cell(COLUMNS.vat), ...RIGHT }}>{columns.vat}</Text>
          </>
        )}
      </View>
      {texts.lines.map(
        (line, index) =>
          wrapKey(index, paintedLine(line)) ?? (
            // A line never splits across two pages.
            <View key={index} style={s.row} wrap={false}>
              <Text style={cell(COLUMNS.date)}>{line.date}</Text>
              <View style={cell(COLUMNS.description)}>
                <Text>{line.name}</Text>
                {line.description ? <Text style={s.lineDescription}>{line.description}</Text> : null}
              </View>
              <Text style={{ ...cell(COLUMNS.quantity), ...RIGHT }}>{line.quantity}</Text>
              <Text style={{ ...cell(COLUMNS.unitPrice), ...RIGHT }}>{line.unitPrice}</Text>
              <Text style={{ ...cell(COLUMNS.net), ...RIGHT }}>{line.net}</Text>
              <Text style={{ ...cell(COLUMNS.vat), ...RIGHT }}>{line.vat}</Text>
            </View>
          ),
      )}
    </View>
  );
}

const BREAKDOWN_HEADER = { fontSize: s.breakdownHeader.fontSize, color: s.breakdownHeader.color, bold: true };
const DUE = { fontSize: s.dueRow.fontSize, color: INK, bold: true };

/** The VAT breakdown (left) and the totals (right) as one canvas, with the block's marginTop. */
function paintedSummary(texts: TInvoiceTexts) {
  const block = new PaintedBlock();
  const width = s.breakdown.width;
  const columns = (cells: [string, string, string, string]) =>
    (['category', 'rate', 'base', 'tax'] as const).map((column, index) => ({
      left: BREAKDOWN_LEFT[column],
      text: cells[index]!,
      style: column === 'category' ? cell(BREAKDOWN.category) : { ...cell(BREAKDOWN[column]), ...RIGHT },
    }));
  let breakdown = block.put(texts.breakdownTitle, { ...s.sectionTitle, width }, PAGE, 0, 0);
  const { category, rate, base, tax } = texts.breakdownColumns;
  breakdown = block.row(columns([category, rate, base, tax]), BREAKDOWN_HEADER, breakdown) + s.breakdownHeader.paddingBottom;
  block.rule(0, width, breakdown, s.breakdownHeader.borderBottomWidth, s.breakdownHeader.borderBottomColor);
  breakdown += s.breakdownHeader.borderBottomWidth;
  for (const entry of texts.breakdown) {
    breakdown = block.row(columns([entry.category, entry.rate, entry.base, entry.tax]), PAGE, breakdown + s.breakdownRow.paddingVertical) + s.breakdownRow.paddingVertical;
    if (entry.exemption) breakdown = block.put(entry.exemption, { ...s.exemption, width }, PAGE, 0, breakdown);
  }
  const left = CONTENT_WIDTH - s.totals.width;
  const amounts = left + TOTALS.label;
  let totals = 0;
  for (const line of texts.totals.slice(0, -1)) {
    const top = totals + s.totalsRow.paddingVertical;
    totals =
      block.row(
        [
          { left, text: line.label, style: s.totalsLabel },
          { left: amounts, text: line.amount, style: s.totalsAmount },
        ],
        PAGE,
        top,
      ) + s.totalsRow.paddingVertical;
  }
  const due = texts.totals.at(-1)!;
  totals += s.dueRow.marginTop;
  block.rule(left, s.totals.width, totals, s.dueRow.borderTopWidth, s.dueRow.borderTopColor);
  totals = block.row(
    [
      { left, text: due.label, style: s.dueLabel },
      { left: amounts, text: due.amount, style: s.totalsAmount },
    ],
    DUE,
    totals + s.dueRow.borderTopWidth + s.dueRow.paddingTop,
  );
  return block.canvas(Math.max(breakdown, totals), s.summary.marginTop);
}

function Summary({ texts }: { texts: TInvoiceTexts }) {
  const due = texts.totals.at(-1)!;
  const breakdownWidth = s.breakdown.width;
  return (
    <View style={s.summary} wrap={false}>
      <View style={s.breakdown}>
        <PaintedText style={{ ...s.sectionTitle, width: breakdownWidth }} text={texts.breakdownTitle} inherited={PAGE} />
        <View style={s.breakdownHeader}>
          <PaintedText style={cell(BREAKDOWN.category)} text={texts.breakdownColumns.category} inherited={BREAKDOWN_HEADER} />
          <PaintedText style={{ ...cell(BREAKDOWN.rate), ...RIGHT }} text={texts.breakdownColumns.rate} inherited={BREAKDOWN_HEADER} />
          <PaintedText style={{ ...cell(BREAKDOWN.base), ...RIGHT }} text={texts.breakdownColumns.base} inherited={BREAKDOWN_HEADER} />
          <PaintedText style={{ ...cell(BREAKDOWN.tax), ...RIGHT }} text={texts.breakdownColumns.tax} inherited={BREAKDOWN_HEADER} />
        </View>
        {texts.breakdown.map((entry, index) => (
          <View key={index}>
            <View style={s.breakdownRow}>
              <PaintedText style={cell(BREAKDOWN.category)} text={entry.category} inherited={PAGE} />
              <PaintedText style={{ ...cell(BREAKDOWN.rate), ...RIGHT }} text={entry.rate} inherited={PAGE} />
              <PaintedText style={{ ...cell(BREAKDOWN.base), ...RIGHT }} text={entry.base} inherited={PAGE} />
              <PaintedText style={{ ...cell(BREAKDOWN.tax), ...RIGHT }} text={entry.tax} inherited={PAGE} />
            </View>
            {entry.exemption ? <PaintedText style={{ ...s.exemption, width: breakdownWidth }} text={entry.exemption} inherited={PAGE} /> : null}
          </View>
        ))}
      </View>
      <View style={s.totals}>
        {texts.totals.slice(0, -1).map((line, index) => (
          <View key={index} style={s.totalsRow}>
            <PaintedText style={s.totalsLabel} text={line.label} inherited={PAGE} />
            <PaintedText style={s.totalsAmount} text={line.amount} inherited={PAGE} />
          </View>
        ))}
        <View style={s.dueRow}>
          <PaintedText style={s.dueLabel} text={due.label} inherited={DUE} />
          <PaintedText style={s.totalsAmount} text={due.amount} inherited={DUE} />
        </View>
      </View>
    </View>
  );
}

/** A paragraph section as one canvas, with its marginTop; undefined when a text cannot be painted. */
function paintedParagraphs(title: string, lines: readonly string[]) {
  const block = new PaintedBlock();
  let bottom = block.put(title, { ...s.sectionTitle, width: CONTENT_WIDTH }, PAGE, 0, 0);
  for (const line of lines) bottom = block.put(line, { ...s.paragraph, width: CONTENT_WIDTH }, PAGE, 0, bottom);
  return block.canvas(bottom, s.section.marginTop);
}

function Paragraphs({ title, lines }: { title: string; lines: readonly string[] }) {
  if (!lines.length) return null;
  const painted = paintedParagraphs(title, lines);
  if (painted) return painted;
  return (
    <View style={s.section} wrap={false}>
      <PaintedText style={{ ...s.sectionTitle, width: CONTENT_WIDTH }} text={title} inherited={PAGE} />
      {lines.map((line, index) => (
        <PaintedText key={index} style={{ ...s.paragraph, width: CONTENT_WIDTH }} text={line} inherited={PAGE} />
      ))}
    </View>
  );
}

/** A text's height as painted (a text the canvas cannot set counted as one line), with its margins. */
function paintedHeight(text: string, style: TLineStyle, inherited: TInherited): number {
  const fonts = loadedTableFonts();
  const set = paintedText(text, style, inherited);
  const height = set?.height ?? lineHeight(fonts.regular, style.fontSize ?? inherited.fontSize ?? FONT_SIZE.row);
  return height + (style.marginTop ?? 0) + (style.marginBottom ?? 0);
}

const sum = (heights: number[]) => heights.reduce((total, height) => total + height, 0);

/**
 * How many pages React-PDF's flow will make of the texts: the blocks' heights as the view paints
 * them, lines moved whole to the next page under the column header again, the summary and each
 * paragraph section moved whole. It names the count the footers print; renderFacturX checks it
 * against the pages drawn and renders again with theirs when it was wrong, so it only has to be
 * right for the file to be made once.
 */
export function expectedPages(texts: TInvoiceTexts): number {
  const header =
    Math.max(
      paintedHeight(texts.seller.name, { ...s.sellerName, width: s.headerLeft.width }, PAGE) +
        sum(texts.seller.lines.map((line) => paintedHeight(line, { ...s.partyLine, width: s.headerLeft.width }, PAGE))),
      paintedHeight(texts.title, { ...s.title, width: s.headerRight.width }, PAGE) +
        sum(texts.references.map((line) => paintedHeight(line, { ...s.reference, width: s.headerRight.width }, PAGE))),
    ) +
    s.header.paddingBottom +
    s.header.borderBottomWidth;
  const parties =
    s.parties.paddingTop +
    Math.max(
      paintedHeight(texts.buyerLabel, { ...s.blockLabel, width: s.buyer.width }, PAGE) +
        paintedHeight(texts.buyer.name, { ...s.buyerName, width: s.buyer.width }, PAGE) +
        sum(texts.buyer.lines.map((line) => paintedHeight(line, { ...s.buyerLine, width: s.buyer.width }, PAGE))),
      sum(texts.stay.map((line) => paintedHeight(line, { ...s.stayLine, width: s.stay.width }, PAGE))),
    );
  const preceding = texts.precedingInvoice ? paintedHeight(texts.precedingInvoice, { ...s.preceding, width: CONTENT_WIDTH }, PAGE) : 0;
  const columnHeader =
    Math.max(...ORDER.map((column) => paintedHeight(texts.columns[column], columnStyle(column), COLUMN_HEADER))) + s.columnHeader.paddingBottom + s.columnHeader.borderBottomWidth;
  const rows = texts.lines.map(
    (line) =>
      Math.max(
        paintedHeight(line.name, cell(COLUMNS.description), ROW) + (line.description === undefined ? 0 : paintedHeight(line.description, { ...cell(COLUMNS.description), ...s.lineDescription }, ROW)),
        ...(['date', 'quantity', 'unitPrice', 'net', 'vat'] as const).map((column) => paintedHeight(line[column], columnStyle(column), ROW)),
      ) +
      2 * s.row.paddingVertical +
      s.row.borderBottomWidth,
  );
  const breakdownRow = (cells: string[], inherited: TInherited) =>
    Math.max(...cells.map((text, index) => paintedHeight(text, cell(Object.values(BREAKDOWN)[index]!), inherited)));
  const breakdown =
    paintedHeight(texts.breakdownTitle, { ...s.sectionTitle, width: s.breakdown.width }, PAGE) +
    breakdownRow(Object.values(texts.breakdownColumns), BREAKDOWN_HEADER) +
    s.breakdownHeader.paddingBottom +
    s.breakdownHeader.borderBottomWidth +
    sum(
      texts.breakdown.map(
        (entry) =>
          breakdownRow([entry.category, entry.rate, entry.base, entry.tax], PAGE) +
          2 * s.breakdownRow.paddingVertical +
          (entry.exemption ? paintedHeight(entry.exemption, { ...s.exemption, width: s.breakdown.width }, PAGE) : 0),
      ),
    );
  const due = texts.totals.at(-1)!;
  const totals =
    sum(texts.totals.slice(0, -1).map((line) => Math.max(paintedHeight(line.label, s.totalsLabel, PAGE), paintedHeight(line.amount, s.totalsAmount, PAGE)) + 2 * s.totalsRow.paddingVertical)) +
    s.dueRow.borderTopWidth +
    s.dueRow.paddingTop +
    s.dueRow.marginTop +
    Math.max(paintedHeight(due.label, s.dueLabel, DUE), paintedHeight(due.amount, s.totalsAmount, DUE));
  const summary = s.summary.marginTop + Math.max(breakdown, totals);
  const paragraphs = (title: string, lines: readonly string[]) =>
    lines.length
      ? s.section.marginTop + paintedHeight(title, { ...s.sectionTitle, width: CONTENT_WIDTH }, PAGE) + sum(lines.map((line) => paintedHeight(line, { ...s.paragraph, width: CONTENT_WIDTH }, PAGE)))
      : 0;

  const room = PAGE_HEIGHT - MARGIN_TOP - MARGIN_BOTTOM;
  let pages = 1;
  let used = header + parties + preceding + s.table.marginTop + columnHeader;
  for (const row of rows) {
    if (used + row > room) {
      pages += 1;
      used = columnHeader;
    }
    used += row;
  }
  for (const block of [summary, paragraphs(texts.paymentTitle, texts.payment), paragraphs(texts.notesTitle, texts.notes)]) {
    if (!block) continue;
    if (used + block > room) {
      pages += 1;
      used = 0;
    }
    used += block;
  }
  return pages;
}

/** The pages whose footers have been drawn, in order: React-PDF draws the pages one after another, each page's fixed footer once. */
export interface TPageCount {
  drawn: number;
}

/**
 * "Page X of Y" at the foot of every page, with Y given: painted, the page's X counted as the
 * footers are drawn, so React-PDF lays the pages out once (a render callback would lay every page
 * out again for the total). A label the canvas cannot set is a render callback's Text.
 */
function PageLabel({ texts, pages, count }: { texts: TInvoiceTexts; pages: number; count: TPageCount }) {
  // Noto Sans's digits are all as wide: the last page's label is as wide as any.
  const widest = paintedText(texts.page(pages, pages), {}, FOOTER);
  if (!widest) return <Text render={({ pageNumber, totalPages }) => texts.page(pageNumber, totalPages)} />;
  const paint = (painter: TPainter) => {
    count.drawn += 1;
    const label = paintedText(texts.page(count.drawn, pages), { width: widest.width, textAlign: 'right' }, FOOTER);
    if (label) paintText(painter, label);
  };
  return <Canvas style={{ width: widest.width, height: widest.height }} paint={canvasDrawnPaint(paint)} />;
}

/**
 * The whole document, its footers saying it has `pages` pages (expectedPages; `count` tells how
 * many were drawn). `conformance` makes pdfkit write a PDF/A-3b file (version 1.7, the sRGB
 * OutputIntent, pdfaid in the XMP); facturx-pdfa.ts completes it. The Info fields given here are
 * replaced there, so both stay equal to the XMP.
 */
export function InvoicePdf(props: { texts: TInvoiceTexts; language: string; fontFamily: string[]; created: Date; pages: number; count: TPageCount }) {
  const { texts, language, fontFamily, created } = props;
  return (
    <Document conformance="PDF/A-3b" title={texts.documentTitle} language={language} creator="Folio Vault" producer="Folio Vault" creationDate={created}>
      <Page size="A4" style={{ ...pageStyle(fontFamily), color: INK }}>
        <View style={{ width: CONTENT_WIDTH }}>
          {paintedHeader(texts) ?? <Header texts={texts} />}
          {paintedParties(texts) ?? <Parties texts={texts} />}
          {texts.precedingInvoice ? <PaintedText style={{ ...s.preceding, width: CONTENT_WIDTH }} text={texts.precedingInvoice} inherited={PAGE} /> : null}
          <Lines texts={texts} />
          {paintedSummary(texts) ?? <Summary texts={texts} />}
          <Paragraphs title={texts.paymentTitle} lines={texts.payment} />
          <Paragraphs title={texts.notesTitle} lines={texts.notes} />
        </View>
        <View style={s.footer} fixed>
          <PaintedText style={{}} text={texts.footer} inherited={FOOTER} />
          <PageLabel texts={texts} pages={props.pages} count={props.count} />
        </View>
      </Page>
    </Document>
  );
}
