// The folio export as an XLSX workbook (docs/export.md#xlsx: the same content as the PDF), written
// with exceljs's streaming WorkbookWriter: every row is committed as soon as it is added, so memory
// stays flat however many rows a folio has.
//
// One worksheet (catalog `sheet.name`):
//   - header: property name and address, source, for a reservation whose stay was imported its
//     stay (guest, arrival, departure, nights as a number, rooms, guests, status), recipient block
//     (name, address, tax number under its taxLabel), the applied filters in one line, the
//     generation time;
//   - per folio: a heading row, the column header row, the rows (with creditDebitView a heading
//     and a subtotal row per section), then the folio's totals (charges, payments, balance);
//   - the totals of all folios when the document has grandTotals.
//
// Cells: date and time is text in the property's time zone and language (as the PDF shows it);
// the service date is text in the language's date format; quantity and amount are numeric cells
// (Number of the exact decimal string: exact for the ≤ 15 significant digits the ledger accepts),
// amount with a currency number format; status is VOID / PENDING from the catalog. Column I
// (hidden, "Date and time (UTC)") holds the UTC instant as ISO 8601 text (`toISOString()`, so
// text order is time order): sortable and unambiguous, where an Excel date cell would carry no
// time zone. Columns J–L: a payment's card ("Visa •••• 1111"), and what was tendered in another
// currency — the amount as a number in that currency's format, and its ISO code. Labels of
// label/value rows (header, subtotals, totals) sit in column A; subtotal and total figures sit in
// the amount column.

import ExcelJS from 'exceljs';
import type {
  TDocumentFolio,
  TDocumentRow,
  TDocumentTotals,
  TFolioDocument,
  TRenderedFile,
} from '@folio-vault/shared/exports/folio-document';
import { translator, type TLabel, type TTranslate } from '@folio-vault/shared/i18n/catalog';
import { formatters, type TFormatters } from '@folio-vault/shared/i18n/format';
import { currencyScale } from '@folio-vault/shared/ledger/money';
import { filtersValue, sourceText } from '../document-text.js';
import { cardText, stayTexts } from '../stay-text.js';

const COLUMNS = {
  datetime: 1,
  serviceDate: 2,
  code: 3,
  description: 4,
  notes: 5,
  quantity: 6,
  amount: 7,
  status: 8,
  utc: 9,
  card: 10,
  foreignAmount: 11,
  foreignCurrency: 12,
} as const;
const COLUMN_COUNT = 12;

const HEADER_LABELS: TLabel[] = [
  'column.datetime',
  'column.serviceDate',
  'column.code',
  'column.description',
  'column.notes',
  'column.quantity',
  'column.amount',
  'column.status',
  'column.datetimeUtc',
  'column.card',
  'column.foreignAmount',
  'column.foreignCurrency',
];

const BOLD: Partial<ExcelJS.Font> = { bold: true };
const TITLE: Partial<ExcelJS.Font> = { bold: true, size: 14 };
const HEADER_FILL: ExcelJS.Fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFE8E8E8' } };
const VOIDED_FONT: Partial<ExcelJS.Font> = { color: { argb: 'FF808080' } };
const PENDING_FONT: Partial<ExcelJS.Font> = { italic: true };

/**
 * An Excel number format for the currency: the language's symbol placement (from Intl), the
 * currency's scale, thousands grouping. Excel applies the viewer's decimal and group separators.
 */
export function currencyNumberFormat(locale: string, currency: string): string {
  const scale = currencyScale(currency);
  const number = scale > 0 ? `#,##0.${'0'.repeat(scale)}` : '#,##0';
  let parts: Intl.NumberFormatPart[];
  try {
    parts = new Intl.NumberFormat(locale, { style: 'currency', currency }).formatToParts(1);
  } catch {
    return number;
  }
  const index = parts.findIndex((p) => p.type === 'currency');
  const symbol = parts[index]?.value ?? currency;
  const quoted = `"${symbol.replace(/"/g, '')}"`;
  const integerIndex = parts.findIndex((p) => p.type === 'integer');
  const spaced = parts.some((p) => p.type === 'literal' && /\s/.test(p.value));
  if (index >= 0 && index < integerIndex) return `${quoted}${spaced ? ' ' : ''}${number}`;
  return `${number}${spaced ? ' ' : ''}${quoted}`;
}

/** The status column: the catalog's marks, "VOID, PENDING" when a row is both. */
function statusText(row: TDocumentRow, t: TTranslate): string {
  const marks: string[] = [];
  if (row.voided) marks.push(t('mark.void'));
  if (row.pending) marks.push(t('mark.pending'));
  return marks.join(', ');
}

const SHEET_COLUMNS: Array<Partial<ExcelJS.Column>> = [
  { key: 'datetime', width: 18 },
  { key: 'serviceDate', width: 14 },
  { key: 'code', width: 10 },
  { key: 'description', width: 40 },
  { key: 'notes', width: 28 },
  { key: 'quantity', width: 8 },
  { key: 'amount', width: 14 },
  { key: 'status', width: 14 },
  { key: 'utc', width: 26, hidden: true },
  { key: 'card', width: 22 },
  { key: 'foreignAmount', width: 16 },
  { key: 'foreignCurrency', width: 10 },
];

/** The worksheet being written and what every row reads: catalog, formatters, the money format. */
interface TSheet {
  sheet: ExcelJS.Worksheet;
  t: TTranslate;
  f: TFormatters;
  moneyFormat: string;
  /** Number formats of the foreign currencies met so far (few per document). */
  foreignFormats: Map<string, string>;
}

function foreignFormat(out: TSheet, currency: string): string {
  let format = out.foreignFormats.get(currency);
  if (format === undefined) out.foreignFormats.set(currency, (format = currencyNumberFormat(out.f.locale, currency)));
  return format;
}

/** Every row is committed as soon as it is added (the streaming writer then lets it go). */
function add(out: TSheet, values: ExcelJS.CellValue[], font?: Partial<ExcelJS.Font>): void {
  const row = out.sheet.addRow(values);
  if (font) row.font = font;
  row.commit();
}

function labelled(out: TSheet, label: string, value: string | undefined): void {
  add(out, [label, value ?? '']);
}

/** A label in column A and an amount in the amount column. */
function figure(out: TSheet, label: string, amount: string, font?: Partial<ExcelJS.Font>): void {
  const values: ExcelJS.CellValue[] = new Array(COLUMNS.amount).fill(null);
  values[0] = label;
  values[COLUMNS.amount - 1] = Number(amount);
  const row = out.sheet.addRow(values);
  if (font) row.font = font;
  row.getCell(COLUMNS.amount).numFmt = out.moneyFormat;
  row.commit();
}

function totalsBlock(out: TSheet, heading: string, totals: TDocumentTotals): void {
  const { t } = out;
  add(out, [heading], BOLD);
  figure(out, t('totals.charges'), totals.charges);
  figure(out, t('totals.payments'), totals.payments);
  figure(out, t('totals.balance'), totals.balance, BOLD);
}

function writeHeader(out: TSheet, document: TFolioDocument): void {
  const { t, f } = out;
  add(out, [document.property.name], TITLE);
  if (document.property.address) add(out, [document.property.address]);
  labelled(out, t('source'), sourceText(document.source, t));
  writeStay(out, document);
  if (document.recipient) {
    const { name, address, taxLabel, taxNumber } = document.recipient;
    labelled(out, t('recipient'), name);
    if (address) labelled(out, '', address);
    if (taxNumber) labelled(out, t(taxLabel), taxNumber);
  }
  labelled(out, t('filters'), filtersValue(document.filters, t, f));
  add(out, [t('generated', { datetime: f.dateTime(document.generatedAt) })]);
}

/** The stay as label/value rows; nights is a number. Rooms and guests only when known. */
function writeStay(out: TSheet, document: TFolioDocument): void {
  if (!document.stay) return;
  const { t, f } = out;
  const texts = stayTexts(document.stay, document.language, t, f);
  labelled(out, t('stay.guest'), texts.guest);
  labelled(out, t('stay.arrival'), texts.arrival);
  labelled(out, t('stay.departure'), texts.departure);
  add(out, [t('stay.nightsLabel'), document.stay.nights]);
  if (texts.rooms) labelled(out, texts.roomsLabel, texts.rooms);
  if (texts.guests) labelled(out, t('stay.guests'), texts.guests);
  labelled(out, t('column.status'), texts.status);
}

function writeTransaction(out: TSheet, item: TDocumentRow): void {
  const { t, f } = out;
  const instant = new Date(item.transactionDatetime);
  const row = out.sheet.addRow([
    f.dateTime(item.transactionDatetime),
    f.date(item.serviceDate),
    item.code,
    item.description,
    item.notes ?? null,
    Number(item.quantity),
    Number(item.amount),
    statusText(item, t) || null,
    Number.isNaN(instant.getTime()) ? item.transactionDatetime : instant.toISOString(),
    item.card ? cardText(item.card) : null,
    item.foreign ? Number(item.foreign.amount) : null,
    item.foreign?.currency ?? null,
  ]);
  row.getCell(COLUMNS.amount).numFmt = out.moneyFormat;
  if (item.foreign) row.getCell(COLUMNS.foreignAmount).numFmt = foreignFormat(out, item.foreign.currency);
  if (item.voided) row.font = VOIDED_FONT;
  else if (item.pending) row.font = PENDING_FONT;
  row.commit();
}

/** One folio: heading, column labels, sections with their rows and subtotals, totals. Returns its row count. */
function writeFolio(out: TSheet, folio: TDocumentFolio): number {
  const { t } = out;
  add(out, []);
  add(out, [`${t('folio')} ${folio.name}`], { bold: true, size: 12 });
  const header = out.sheet.addRow(HEADER_LABELS.map((label) => t(label)));
  header.font = BOLD;
  for (let c = 1; c <= COLUMN_COUNT; c += 1) header.getCell(c).fill = HEADER_FILL;
  header.commit();

  let written = 0;
  if (folio.sections.every((section) => section.rows.length === 0)) add(out, [t('noTransactions')], PENDING_FONT);
  for (const section of folio.sections) {
    if (section.kind !== 'all') add(out, [t(section.kind === 'debits' ? 'section.debits' : 'section.credits')], BOLD);
    for (const item of section.rows) writeTransaction(out, item);
    written += section.rows.length;
    if (section.subtotal !== undefined) {
      const subtotalLabel = section.kind === 'all' ? 'subtotal' : section.kind === 'debits' ? 'subtotal.debits' : 'subtotal.credits';
      figure(out, t(subtotalLabel), section.subtotal, BOLD);
    }
  }
  totalsBlock(out, t('totals.folio', { name: folio.name }), folio.totals);
  return written;
}

export async function writeFolioXlsx(document: TFolioDocument, outputPath: string): Promise<TRenderedFile> {
  const t = translator(document.language);
  const f = formatters(document.language, document.timezone, document.currency);
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: outputPath, useStyles: true, useSharedStrings: false });
  workbook.creator = 'Folio Vault';
  workbook.created = new Date(document.generatedAt);
  const sheet = workbook.addWorksheet(t('sheet.name').slice(0, 31));
  sheet.columns = SHEET_COLUMNS;
  const out: TSheet = { sheet, t, f, moneyFormat: currencyNumberFormat(f.locale, document.currency), foreignFormats: new Map() };

  writeHeader(out, document);
  let written = 0;
  for (const folio of document.folios) written += writeFolio(out, folio);
  if (document.grandTotals) {
    add(out, []);
    totalsBlock(out, t('totals.all'), document.grandTotals);
  }

  sheet.commit();
  await workbook.commit();
  return { rows: written, pages: 1 };
}
