// Plain pdfkit (the engine React-PDF is built on, without React, Yoga layout or the worker) drawing
// the folio table the worker draws: A4, the same column widths, font sizes and slot height, the same
// Noto Sans TTF files, the same row texts (formatted by the same shared Intl formatters and labels),
// a header on every page and a "Page X of Y" footer, written to a file. The benchmarks' raw-pdfkit
// baseline (bench/baselines/raw-pdfkit.ts) times it; what the service's render costs above it is
// what its layers cost.
import { createWriteStream } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { finished } from 'node:stream/promises';
import PDFDocument from 'pdfkit';
import type { TDocumentRow, TDocumentTotals, TFolioDocument } from '@folio-vault/shared/exports/folio-document';
import { translator } from '@folio-vault/shared/i18n/catalog';
import { formatters } from '@folio-vault/shared/i18n/format';
import { SOURCE_KINDS } from '@folio-vault/shared/ledger/enums';
import {
  CELL_PADDING,
  COLOURS,
  COLUMNS as COLUMN_WIDTHS,
  FONT_SIZE,
  MARGIN_TOP,
  MARGIN_X,
  PAGE_HEIGHT,
  PAGE_SLOTS,
  PAGE_WIDTH,
  SLOT_HEIGHT,
  type TColumn,
} from '@folio-vault/worker/exports/pdf/layout';
import {
  COLUMN_HEADER_SLOTS,
  FILTERS_SLOTS,
  FOLIO_HEADING_SLOTS,
  HEADER_SLOTS,
  RECIPIENT_SLOTS,
  TOTALS_SLOTS,
} from '@folio-vault/worker/exports/pdf/paginate';

// The folio PDF's geometry, fonts sizes and colours (layout.ts, paginate.ts: pure modules, no
// React-PDF), so the baseline draws exactly the table the service does.
const FONT = { ...FONT_SIZE, filters: FONT_SIZE.filters[0] };
const PAD = CELL_PADDING;
const SLOT = SLOT_HEIGHT;
const COLUMNS = Object.entries(COLUMN_WIDTHS) as Array<[TColumn, number]>;
const SLOTS = {
  header: HEADER_SLOTS,
  recipient: RECIPIENT_SLOTS,
  filters: FILTERS_SLOTS,
  folioHeading: FOLIO_HEADING_SLOTS,
  columnHeader: COLUMN_HEADER_SLOTS,
  totals: TOTALS_SLOTS,
};
const { ink: INK, muted: MUTED, rule: RULE, hairline: HAIRLINE, void: VOID, pending: PENDING } = COLOURS;

const require = createRequire(import.meta.url);
const NOTO = dirname(require.resolve('@expo-google-fonts/noto-sans'));
const REGULAR = join(NOTO, '400Regular', 'NotoSans_400Regular.ttf');
const BOLD = join(NOTO, '700Bold', 'NotoSans_700Bold.ttf');

/** Page layout decided up front, as the service does: the page count is known for the footer. */
interface TPagePlan {
  first: boolean;
  rows: TDocumentRow[];
  totals?: TDocumentTotals;
  folioName: string;
  continued: boolean;
}

function plan(document: TFolioDocument): TPagePlan[] {
  const pages: TPagePlan[] = [];
  for (const folio of document.folios) {
    const rows = folio.sections.flatMap((section) => section.rows);
    let next = 0;
    let continued = false;
    do {
      const first = pages.length === 0;
      const opening = first ? SLOTS.header + (document.recipient ? SLOTS.recipient : 0) + SLOTS.filters : 0;
      const free = PAGE_SLOTS - opening - SLOTS.folioHeading - SLOTS.columnHeader;
      const take = Math.min(free, rows.length - next);
      const page: TPagePlan = { first, rows: rows.slice(next, next + take), folioName: folio.name, continued };
      next += take;
      continued = true;
      pages.push(page);
      if (next >= rows.length) {
        if (free - take >= SLOTS.totals) page.totals = folio.totals;
        else pages.push({ first: false, rows: [], totals: folio.totals, folioName: folio.name, continued: true });
      }
    } while (next < rows.length);
  }
  return pages;
}

/** Draws `document` with plain pdfkit to `outputPath`. */
export async function renderBaselinePdf(document: TFolioDocument, outputPath: string): Promise<{ pages: number; rows: number }> {
  const t = translator(document.language);
  const fmt = formatters(document.language, document.timezone, document.currency);
  const pdf = new PDFDocument({ size: 'A4', margin: 0, autoFirstPage: false, info: { Title: t('title'), Creator: 'Folio Vault bench', Producer: 'pdfkit' } });
  const out = createWriteStream(outputPath);
  pdf.pipe(out);
  pdf.registerFont('regular', REGULAR);
  pdf.registerFont('bold', BOLD);

  const widthOf = (text: string, font: 'regular' | 'bold', size: number) => pdf.font(font).fontSize(size).widthOfString(text);
  /** One line that fits `width`, cut with "…" (measured with the font's real advances). */
  const fit = (text: string, width: number, font: 'regular' | 'bold', size: number) => {
    const line = text.replace(/\s+/g, ' ').trim();
    if (widthOf(line, font, size) <= width) return line;
    const chars = Array.from(line);
    let end = chars.length;
    while (end > 0 && widthOf(`${chars.slice(0, end).join('')}…`, font, size) > width) end -= 1;
    return `${chars.slice(0, end).join('').trimEnd()}…`;
  };
  const lineHeight = (font: 'regular' | 'bold', size: number) => pdf.font(font).fontSize(size).currentLineHeight(true);
  const rowTextY = (SLOT - lineHeight('regular', FONT.row)) / 2;
  const statusTextY = (SLOT - lineHeight('bold', FONT.status)) / 2;
  const left = (text: string, x: number, y: number, extra: PDFKit.Mixins.TextOptions = {}) => pdf.text(text, x, y, { lineBreak: false, ...extra });
  /**
   * A voided row's cell, struck through as pdfkit's `strike` option draws it (a line of the text's
   * colour at half the line height). The option itself needs the line's width, which pdfkit 0.20.1
   * works out only while wrapping: with `lineBreak: false` it draws to NaN and throws.
   */
  const struck = (text: string, x: number, y: number, colour: string, size: number) => {
    left(text, x, y);
    const lineY = y + pdf.currentLineHeight() / 2;
    pdf.save().lineWidth(size < 10 ? 0.5 : Math.floor(size / 10)).strokeColor(colour);
    pdf.moveTo(x, lineY).lineTo(x + pdf.widthOfString(text), lineY).stroke().restore();
  };
  const rule = (x0: number, x1: number, y: number, width: number, color: string) => pdf.moveTo(x0, y).lineTo(x1, y).lineWidth(width).strokeColor(color).stroke();
  const contentRight = PAGE_WIDTH - MARGIN_X;
  const sourceKind = (SOURCE_KINDS as readonly string[]).includes(document.source.kind) ? t(`source.${document.source.kind as (typeof SOURCE_KINDS)[number]}`) : document.source.kind;
  const source = `${sourceKind} ${document.source.identifier ?? document.source.id}`;
  const generated = t('generated', { datetime: `${fmt.dateTime(document.generatedAt)} (${document.timezone})` });
  const voidMark = t('mark.void');
  const pendingMark = t('mark.pending');
  const columnX: number[] = [];
  COLUMNS.reduce((x, [, width]) => (columnX.push(x), x + width), MARGIN_X);

  const pages = plan(document);
  let rowCount = 0;
  pages.forEach((page, index) => {
    pdf.addPage({ size: 'A4', margin: 0 });
    let y = MARGIN_TOP;
    if (page.first) {
      pdf.fillColor(INK).font('bold').fontSize(FONT.propertyName);
      left(fit(document.property.name, 330, 'bold', FONT.propertyName), MARGIN_X, y);
      if (document.property.address) {
        pdf.fillColor(MUTED).font('regular').fontSize(FONT.small);
        left(fit(document.property.address, 330, 'regular', FONT.small), MARGIN_X, y + 18);
      }
      const title = fit(t('title'), 200, 'bold', FONT.title);
      pdf.fillColor(INK).font('bold').fontSize(FONT.title);
      left(title, contentRight - widthOf(title, 'bold', FONT.title), y);
      const sourceLine = fit(source, 200, 'regular', FONT.heading);
      left(sourceLine, contentRight - widthOf(sourceLine, 'regular', FONT.heading), y + 26);
      y += SLOTS.header * SLOT;
      rule(MARGIN_X, contentRight, y - 0.5, 0.75, RULE);
      const recipient = document.recipient;
      if (recipient) {
        pdf.fillColor(MUTED).font('bold').fontSize(FONT.row);
        left(t('recipient'), MARGIN_X, y + 8);
        pdf.fillColor(INK).fontSize(FONT.heading);
        left(fit(recipient.name, 330, 'bold', FONT.heading), MARGIN_X, y + 17);
        pdf.font('regular').fontSize(FONT.small);
        if (recipient.address) left(fit(recipient.address, 330, 'regular', FONT.small), MARGIN_X, y + 30);
        if (recipient.taxNumber) left(t('labelValue', { label: t(recipient.taxLabel), value: recipient.taxNumber }), MARGIN_X, y + 41);
        y += SLOTS.recipient * SLOT;
      }
      pdf.fillColor(MUTED).font('regular').fontSize(FONT.filters);
      left(t('labelValue', { label: t('filters'), value: t('filters.none') }), MARGIN_X, y + 7);
      y += SLOTS.filters * SLOT;
    }
    const heading = `${t('labelValue', { label: t('folio'), value: page.folioName })}${page.continued ? ` ${t('continued')}` : ''}`;
    pdf.fillColor(INK).font('bold').fontSize(FONT.heading);
    left(fit(heading, 500, 'bold', FONT.heading), MARGIN_X, y + 10);
    y += SLOTS.folioHeading * SLOT;
    pdf.fillColor(MUTED).font('bold').fontSize(FONT.columnHeader);
    const labelY = y + SLOTS.columnHeader * SLOT - 2 - lineHeight('bold', FONT.columnHeader);
    COLUMNS.forEach(([column, width], c) => {
      const label = t(`column.${column}`);
      const right = column === 'quantity' || column === 'amount';
      pdf.text(label, columnX[c]! + (column === 'status' ? PAD : 0), labelY, { width: width - PAD, height: 2 * SLOT, align: right ? 'right' : 'left' });
    });
    y += SLOTS.columnHeader * SLOT;
    rule(MARGIN_X, contentRight, y - 0.5, 0.75, RULE);

    for (const row of page.rows) {
      const colour = row.voided ? VOID : row.pending ? PENDING : INK;
      const strike = row.voided;
      pdf.fillColor(colour).font('regular').fontSize(FONT.row);
      const cells = [
        fmt.dateTime(row.transactionDatetime),
        fmt.date(row.serviceDate),
        fit(row.code, COLUMN_WIDTHS.code - PAD, 'regular', FONT.row),
        fit(row.description, COLUMN_WIDTHS.description - PAD, 'regular', FONT.row),
        fit(row.notes ?? '', COLUMN_WIDTHS.notes - PAD, 'regular', FONT.row),
      ];
      const draw = (text: string, x: number, textY: number, size: number) => (strike ? struck(text, x, textY, colour, size) : left(text, x, textY));
      cells.forEach((text, c) => text && draw(text, columnX[c]!, y + rowTextY, FONT.row));
      for (const [c, text] of [[5, fmt.number(row.quantity)], [6, fmt.money(row.amount)]] as const) {
        draw(text, columnX[c]! + COLUMNS[c]![1] - PAD - widthOf(text, 'regular', FONT.row), y + rowTextY, FONT.row);
      }
      const mark = row.voided ? voidMark : row.pending ? pendingMark : undefined;
      if (mark) {
        pdf.font('bold').fontSize(FONT.status);
        draw(mark, columnX[7]! + PAD, y + statusTextY, FONT.status);
      }
      y += SLOT;
      rule(MARGIN_X, contentRight, y - 0.25, 0.25, HAIRLINE);
      rowCount += 1;
    }

    if (page.totals) {
      const bottom = y + SLOTS.totals * SLOT;
      const valueRight = contentRight - COLUMN_WIDTHS.status;
      pdf.fillColor(INK).font('bold').fontSize(FONT.row + 1);
      const title = t('totals.folio', { name: page.folioName });
      left(title, contentRight - widthOf(title, 'bold', FONT.row + 1), bottom - 4 * SLOT);
      (['charges', 'payments', 'balance'] as const).forEach((key, k) => {
        const lineY = bottom - (3 - k) * SLOT + rowTextY;
        const label = t(`totals.${key}`);
        const value = fmt.money(page.totals![key]);
        const font = key === 'balance' ? 'bold' : 'regular';
        pdf.fillColor(MUTED).font('regular').fontSize(FONT.row);
        left(label, valueRight - COLUMN_WIDTHS.amount - PAD - widthOf(label, 'regular', FONT.row), lineY);
        pdf.fillColor(INK).font(font);
        left(value, valueRight - widthOf(value, font, FONT.row), lineY);
      });
    }

    const footerY = PAGE_HEIGHT - 18 - 12;
    rule(MARGIN_X, contentRight, footerY, 0.5, RULE);
    pdf.fillColor(MUTED).font('regular').fontSize(FONT.footer);
    left(generated, MARGIN_X, footerY + 2);
    const pageText = t('page', { page: index + 1, pages: pages.length });
    left(pageText, contentRight - widthOf(pageText, 'regular', FONT.footer), footerY + 2);
  });
  pdf.end();
  await finished(out);
  return { pages: pages.length, rows: rowCount };
}
