// The folio export as an XLSX workbook (docs/export.md#xlsx: the same content as the PDF, laid out
// to be filtered, sorted and printed), written with exceljs's streaming WorkbookWriter: every row is
// committed as soon as it is added, so memory stays flat however many rows a folio has.
//
// One worksheet (catalog `sheet.name`), top to bottom:
//   - the heading lines: the hotel as the PDF's letterhead has it (name, address, tax id, contact:
//     one line each in column A), source, folio number(s), for a reservation whose stay was
//     imported its stay (guest, arrival and departure as date cells, nights as a number, rooms,
//     guests, status), recipient block (name, address, tax number under its taxLabel), the applied
//     filters in one line, the generation time; label in column A, value in column B;
//   - one table of every transaction of every folio: a single header row (frozen, autofilter over
//     the table, repeated on every printed page), one row per transaction, nothing else between, so
//     sorting and filtering never mix in a heading or subtotal row;
//   - below it, per folio, the totals (with creditDebitView the debit and credit subtotals first)
//     and its tax summary, then the totals of all folios and their tax summary when the document
//     has grandTotals.
//
// Table cells: the folio; date and time as a date cell holding the wall-clock time in the
// property's time zone (named in the column heading: a spreadsheet date carries no zone); the
// service date as a date cell; code, description, notes; quantity and amount as numbers (Number of
// the exact decimal string: exact for the ≤ 15 significant digits the ledger accepts), amount in the
// currency's number format; debit or credit; voided and pending as Yes/No; a payment's card, and
// what was tendered in another currency (the amount in that currency's format, its ISO code).
//
// Totals are SUMIFS formulas over the table's amount column, picking a folio's rows by the folio
// column and charges or payments by the debit/credit column, so they stay right when the table is
// sorted or a row is edited; each carries the document's exact figure as its cached value, so a
// viewer that does not recalculate shows it too. Signs are the PDF's: payments negative, as their
// rows are, so charges + payments = balance down the column; the balance's label says "Balance
// due", "Credit" (its amount then without the minus) or "Balance" by the sign of that sum, a formula
// too. The tax summary (per tax: net, tax, gross) is the document's figures: a tax row's base is
// the row it was posted against, which the table does not show.

import ExcelJS from 'exceljs';
import Big from 'big.js';
import type {
  TDocumentFolio,
  TDocumentRow,
  TDocumentTotals,
  TFolioDocument,
  TRenderedFile,
  TTaxLine,
} from '@folio-vault/shared/exports/folio-document';
import { translator, type TLabel, type TTranslate } from '@folio-vault/shared/i18n/catalog';
import { formatters, type TFormatters } from '@folio-vault/shared/i18n/format';
import { currencyScale } from '@folio-vault/shared/ledger/money';
import {
  appliedFilters,
  balanceLabel,
  folioNumberText,
  propertyContactParts,
  propertyTaxIdText,
  sourceText,
} from '../document-text.js';
import { cardText, stayTexts } from '../stay-text.js';

/** The table's columns, in order; `col` letters are what the formulas and the autofilter name. */
const TABLE = [
  { key: 'folio', label: 'column.folio', width: 24 },
  { key: 'datetime', label: 'column.datetimeZone', width: 17 },
  { key: 'serviceDate', label: 'column.serviceDate', width: 12 },
  { key: 'code', label: 'column.code', width: 9 },
  { key: 'description', label: 'column.description', width: 34 },
  { key: 'notes', label: 'column.notes', width: 22 },
  // Wide enough for the tax summary's tax figures below the table (net, tax, gross: columns F–H).
  { key: 'quantity', label: 'column.quantity', width: 11 },
  { key: 'amount', label: 'column.amount', width: 12 },
  { key: 'entry', label: 'column.entry', width: 10, centered: true },
  { key: 'voided', label: 'column.voided', width: 10, centered: true },
  { key: 'pending', label: 'column.pending', width: 10, centered: true },
  { key: 'card', label: 'column.card', width: 17 },
  { key: 'foreignAmount', label: 'column.foreignAmount', width: 12 },
  { key: 'foreignCurrency', label: 'column.foreignCurrency', width: 10, centered: true },
] as const satisfies ReadonlyArray<{ key: string; label: TLabel; width: number; centered?: boolean }>;

type TColumnKey = (typeof TABLE)[number]['key'];
/** 1-based column number and letter of each table column. */
const COL = Object.fromEntries(TABLE.map((c, i) => [c.key, i + 1])) as Record<TColumnKey, number>;
const LETTER = Object.fromEntries(TABLE.map((c, i) => [c.key, String.fromCharCode(65 + i)])) as Record<TColumnKey, string>;
const LAST_LETTER = String.fromCharCode(64 + TABLE.length);

// Every font names the workbook's default face and size: a style's font replaces the cell's whole
// font, and a viewer fills a missing face with its own default (LibreOffice: a serif).
const FONT: Partial<ExcelJS.Font> = { name: 'Calibri', family: 2, size: 11 };
const BOLD: Partial<ExcelJS.Font> = { ...FONT, bold: true };
const TITLE: Partial<ExcelJS.Font> = { ...FONT, bold: true, size: 14 };
const HEADER_FILL: ExcelJS.Fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFE8E8E8' } };
const HEADER_ALIGNMENT: Partial<ExcelJS.Alignment> = { wrapText: true, vertical: 'top' };
const VOIDED_FONT: Partial<ExcelJS.Font> = { ...FONT, color: { argb: 'FF808080' } };
const PENDING_FONT: Partial<ExcelJS.Font> = { ...FONT, italic: true };
/** Heading values (column B) read as text beside their label, dates and numbers too. */
const VALUE_ALIGNMENT: Partial<ExcelJS.Alignment> = { horizontal: 'left' };
const CENTERED: Partial<ExcelJS.Alignment> = { horizontal: 'center' };
/** Paper size 9 is A4, as the PDF. */
const A4 = 9;

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

/**
 * An Excel date format in the language's order and separators, four-digit year ("dd/mm/yyyy",
 * "dd.mm.yyyy"), read from Intl's parts of a sample date.
 */
export function dateNumberFormat(locale: string): string {
  const tokens: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = { day: 'dd', month: 'mm', year: 'yyyy' };
  return new Intl.DateTimeFormat(locale, { timeZone: 'UTC', day: '2-digit', month: '2-digit', year: 'numeric' })
    .formatToParts(Date.UTC(2026, 10, 22))
    .map((part) => tokens[part.type] ?? (part.type === 'literal' ? part.value.replace(/[^/.\-\s]/g, '') : ''))
    .join('');
}

/** Offsets are whole minutes and change only at quarter hours of UTC, so one lookup serves a bucket. */
const OFFSET_BUCKET_MS = 15 * 60_000;

/**
 * The wall-clock time of an instant in `timezone`, as a Date whose UTC fields carry it: exceljs
 * writes a Date's UTC fields as the cell's serial, and a spreadsheet date has no zone of its own.
 */
export function wallClock(timezone: string): (instant: Date) => Date {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const offsets = new Map<number, number>();
  const offsetAt = (ms: number): number => {
    const bucket = Math.floor(ms / OFFSET_BUCKET_MS);
    let offset = offsets.get(bucket);
    if (offset === undefined) {
      const at = bucket * OFFSET_BUCKET_MS;
      const field = Object.fromEntries(parts.formatToParts(at).map((p) => [p.type, Number(p.value)]));
      offset = Date.UTC(field.year!, field.month! - 1, field.day!, field.hour!, field.minute!, field.second!) - at;
      if (offsets.size > 10_000) offsets.clear();
      offsets.set(bucket, offset);
    }
    return offset;
  };
  return (instant) => new Date(instant.getTime() + offsetAt(instant.getTime()));
}

/** Text inside a formula's string literal: quotes doubled. */
function formulaString(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/** A SUMIFS criterion matching exactly `text`: "=" first, and the wildcards ~ * ? escaped. */
function exactly(text: string): string {
  return formulaString(`=${text.replace(/[~*?]/g, '~$&')}`);
}

/** Header and footer text: "&" starts a code there, so a literal one is doubled. */
function headerFooterText(text: string): string {
  return text.replace(/&/g, '&&');
}

/**
 * The folio column's value of each folio: its name, with its id when another folio's name is the
 * same ignoring case (SUMIFS compares without case, and the totals pick a folio by this value).
 */
export function folioLabels(folios: TDocumentFolio[]): string[] {
  const counts = new Map<string, number>();
  for (const folio of folios) counts.set(folio.name.toLowerCase(), (counts.get(folio.name.toLowerCase()) ?? 0) + 1);
  return folios.map((folio) => ((counts.get(folio.name.toLowerCase()) ?? 0) > 1 ? `${folio.name} (${folio.id})` : folio.name));
}

/** What every row reads: catalog, formatters and the formats of the document. */
interface TContext {
  sheet: ExcelJS.Worksheet;
  t: TTranslate;
  f: TFormatters;
  moneyFormat: string;
  /** The currency's decimals: the balance's sign is read from the sum rounded to them. */
  scale: number;
  local: (instant: Date) => Date;
  /** The table rows' cell styles by the row's look. */
  styles: Record<'plain' | 'voided' | 'pending', TRowStyles>;
}

/**
 * The cell styles of a table row of one look (plain, voided, pending). They are shared objects, never
 * changed once made: the writer registers a style object it has seen once, where a cell's own style
 * (what setting `cell.numFmt` makes) costs a lookup per cell.
 */
interface TRowStyles {
  /** Text and plain numbers: the row's font; none for a plain row. */
  text?: Partial<ExcelJS.Style>;
  centered: Partial<ExcelJS.Style>;
  dateTime: Partial<ExcelJS.Style>;
  date: Partial<ExcelJS.Style>;
  money: Partial<ExcelJS.Style>;
  /** By currency: the foreign amount's format (few currencies per document). */
  foreign: Map<string, Partial<ExcelJS.Style>>;
}

function rowStyles(font: Partial<ExcelJS.Font> | undefined, formats: { dateTime: string; date: string; money: string }): TRowStyles {
  const withFont = font ? { font } : {};
  return {
    ...(font ? { text: withFont } : {}),
    centered: { ...withFont, alignment: CENTERED },
    dateTime: { ...withFont, alignment: CENTERED, numFmt: formats.dateTime },
    date: { ...withFont, alignment: CENTERED, numFmt: formats.date },
    money: { ...withFont, numFmt: formats.money },
    foreign: new Map(),
  };
}

function foreignStyle(out: TContext, styles: TRowStyles, currency: string): Partial<ExcelJS.Style> {
  let style = styles.foreign.get(currency);
  if (style === undefined) {
    style = { ...styles.text, numFmt: currencyNumberFormat(out.f.locale, currency) };
    styles.foreign.set(currency, style);
  }
  return style;
}

/** A heading line: its cells from column A, a font, and number formats by column. */
interface TLine {
  values: ExcelJS.CellValue[];
  font?: Partial<ExcelJS.Font>;
  formats?: Record<number, string>;
}

/** A calendar date (YYYY-MM-DD) as a date cell's value; the text itself when it is not a date. */
function calendarDate(date: string): Date | string {
  const value = new Date(`${date}T00:00:00Z`);
  return Number.isNaN(value.getTime()) ? date : value;
}

/** The heading lines above the table, as values: their count places the frozen header row. */
function headingLines(document: TFolioDocument, t: TTranslate, f: TFormatters, dateFormat: string): TLine[] {
  const lines: TLine[] = [{ values: [document.property.name], font: TITLE }];
  const pair = (label: string, value: string | undefined): TLine => ({ values: [label, value ?? ''] });
  const contact = propertyContactParts(document.property, t).join(' · ');
  for (const line of [document.property.address, propertyTaxIdText(document.property, t), contact]) if (line) lines.push({ values: [line] });
  lines.push(pair(t('source'), sourceText(document.source, t)));
  const folioNumber = folioNumberText(document.folios.map((folio) => folio.id), t);
  if (folioNumber) lines.push({ values: [folioNumber] });
  if (document.stay) {
    const stay = document.stay;
    const texts = stayTexts(stay, document.language, t, f);
    const date = (label: string, value: string): TLine => ({ values: [label, calendarDate(value)], formats: { 2: dateFormat } });
    lines.push(pair(t('stay.guest'), texts.guest));
    lines.push(date(t('stay.arrival'), stay.checkinDate));
    lines.push(date(t('stay.departure'), stay.checkoutDate));
    lines.push({ values: [t('stay.nightsLabel'), stay.nights] });
    if (texts.rooms) lines.push(pair(texts.roomsLabel, texts.rooms));
    if (texts.guests) lines.push(pair(t('stay.guests'), texts.guests));
    lines.push(pair(t('column.status'), texts.status));
  }
  if (document.recipient) {
    const { name, address, taxLabel, taxNumber } = document.recipient;
    lines.push(pair(t('recipient'), name));
    if (address) lines.push(pair('', address));
    if (taxNumber) lines.push(pair(t(taxLabel), taxNumber));
  }
  // The filters only when some narrow the export: a whole folio says nothing about filters.
  const filters = appliedFilters(document.filters, t, f);
  if (filters.length) lines.push(pair(t('filters'), filters.join(' · ')));
  lines.push({ values: [t('generated', { datetime: f.dateTime(document.generatedAt) })] });
  return lines;
}

/** Every row is committed as soon as it is added (the streaming writer then lets it go). */
function add(out: TContext, line: TLine): void {
  const row = out.sheet.addRow(line.values);
  if (line.font) row.font = line.font;
  if (line.values.length > 1) row.getCell(2).alignment = VALUE_ALIGNMENT;
  for (const [column, format] of Object.entries(line.formats ?? {})) row.getCell(Number(column)).numFmt = format;
  row.commit();
}

function writeTransaction(out: TContext, folio: string, item: TDocumentRow): void {
  const { t } = out;
  const instant = new Date(item.transactionDatetime);
  const valid = !Number.isNaN(instant.getTime());
  const values: ExcelJS.CellValue[] = [];
  values[COL.folio - 1] = folio;
  values[COL.datetime - 1] = valid ? out.local(instant) : item.transactionDatetime;
  values[COL.serviceDate - 1] = calendarDate(item.serviceDate);
  values[COL.code - 1] = item.code;
  values[COL.description - 1] = item.description;
  values[COL.notes - 1] = item.notes ?? null;
  values[COL.quantity - 1] = Number(item.quantity);
  values[COL.amount - 1] = Number(item.amount);
  values[COL.entry - 1] = t(item.credit ? 'entry.credit' : 'entry.debit');
  values[COL.voided - 1] = t(item.voided ? 'yes' : 'no');
  values[COL.pending - 1] = t(item.pending ? 'yes' : 'no');
  values[COL.card - 1] = item.card ? cardText(item.card) : null;
  values[COL.foreignAmount - 1] = item.foreign ? Number(item.foreign.amount) : null;
  values[COL.foreignCurrency - 1] = item.foreign?.currency ?? null;
  const row = out.sheet.addRow(values);
  const styles = out.styles[item.voided ? 'voided' : item.pending ? 'pending' : 'plain'];
  for (const column of TABLE) {
    const style =
      column.key === 'datetime' ? styles.dateTime
      : column.key === 'serviceDate' ? styles.date
      : column.key === 'amount' ? styles.money
      : column.key === 'foreignAmount' && item.foreign ? foreignStyle(out, styles, item.foreign.currency)
      : 'centered' in column ? styles.centered
      : styles.text;
    if (style) row.getCell(COL[column.key]).style = style;
  }
  row.commit();
}

/** The table's data rows, first to last (last < first when it has none). */
interface TTableRange {
  first: number;
  last: number;
}

/** A SUMIFS over the table's amounts: the rows whose folio and/or debit/credit match. */
function sumIfs(table: TTableRange, criteria: Array<[TColumnKey, string]>): string {
  const range = (key: TColumnKey) => `$${LETTER[key]}$${table.first}:$${LETTER[key]}$${table.last}`;
  const pairs = criteria.map(([key, value]) => `,${range(key)},${exactly(value)}`).join('');
  return `SUMIFS(${range('amount')}${pairs})`;
}

/** A number from an exact decimal string, never -0. */
const numberOf = (value: string | Big): number => {
  const number = Number(value instanceof Big ? value.toFixed() : value);
  return number === 0 ? 0 : number;
};

/**
 * A label in column A and a figure in the amount column: a formula with its cached value, or the
 * value alone when the table is empty. Answers the figure's row number.
 */
function figure(out: TContext, table: TTableRange, label: string, formula: string, value: string, font?: Partial<ExcelJS.Font>): number {
  const values: ExcelJS.CellValue[] = [label];
  const result = numberOf(value);
  values[COL.amount - 1] = table.last >= table.first ? { formula, result } : result;
  const row = out.sheet.addRow(values);
  if (font) row.font = font;
  row.getCell(COL.amount).numFmt = out.moneyFormat;
  row.commit();
  return row.number;
}

/**
 * Charges, payments (negative) and the balance of the rows matching `criteria` (none: the whole
 * table). The balance's label and amount are formulas over the two cells above it: its label by
 * the sign of their sum rounded to the currency's decimals, its amount without the minus.
 */
function totalsBlock(out: TContext, table: TTableRange, totals: TDocumentTotals, criteria: Array<[TColumnKey, string]>): void {
  const { t } = out;
  const charges = figure(out, table, t('totals.charges'), sumIfs(table, [...criteria, ['entry', t('entry.debit')]]), totals.charges);
  const payments = figure(out, table, t('totals.payments'), sumIfs(table, [...criteria, ['entry', t('entry.credit')]]), new Big(totals.payments).neg().toFixed());
  const sum = `ROUND($${LETTER.amount}$${charges}+$${LETTER.amount}$${payments},${out.scale})`;
  const label = t(balanceLabel(totals.balance));
  const amount = numberOf(new Big(totals.balance).abs());
  const values: ExcelJS.CellValue[] = [
    { formula: `IF(${sum}>0,${formulaString(t('totals.balanceDue'))},IF(${sum}<0,${formulaString(t('totals.credit'))},${formulaString(t('totals.balance'))}))`, result: label },
  ];
  values[COL.amount - 1] = { formula: `ABS(${sum})`, result: amount };
  const row = out.sheet.addRow(values);
  row.font = BOLD;
  row.getCell(COL.amount).numFmt = out.moneyFormat;
  row.commit();
}

/**
 * The tax summary under totals, as the PDF's: its title, then per tax its label and the net it was
 * charged on, the tax and the gross under the Notes, Qty and Amount columns ("—" for a net the
 * document cannot know: the taxed rows left out by a filter).
 */
function taxSummary(out: TContext, lines: TTaxLine[] | undefined, all: boolean): void {
  if (!lines?.length) return;
  const { t } = out;
  const money = (amount: string | undefined) => (amount === undefined ? '—' : numberOf(amount));
  const row = (label: string, net: ExcelJS.CellValue, tax: ExcelJS.CellValue, gross: ExcelJS.CellValue, font?: Partial<ExcelJS.Font>) => {
    const values: ExcelJS.CellValue[] = [label];
    values[COL.notes - 1] = net;
    values[COL.quantity - 1] = tax;
    values[COL.amount - 1] = gross;
    const added = out.sheet.addRow(values);
    if (font) added.font = font;
    for (const column of [COL.notes, COL.quantity, COL.amount]) {
      const cell = added.getCell(column);
      cell.alignment = { horizontal: 'right' };
      if (typeof cell.value === 'number') cell.numFmt = out.moneyFormat;
    }
    added.commit();
  };
  add(out, { values: [] });
  add(out, { values: [`${t('taxSummary')}${all ? ` — ${t('totals.all')}` : ''}`], font: BOLD });
  row(t('taxSummary.rate'), t('taxSummary.net'), t('taxSummary.tax'), t('taxSummary.gross'), BOLD);
  for (const line of lines) row(line.label, money(line.net), money(line.tax), money(line.gross));
}

function folioTotals(out: TContext, table: TTableRange, folio: TDocumentFolio, label: string): void {
  const { t } = out;
  add(out, { values: [t('totals.folio', { name: label })], font: BOLD });
  if (folio.sections.every((section) => section.rows.length === 0)) add(out, { values: [t('noTransactions')], font: PENDING_FONT });
  for (const section of folio.sections) {
    if (section.subtotal === undefined) continue;
    const subtotalLabel = section.kind === 'all' ? 'subtotal' : section.kind === 'debits' ? 'subtotal.debits' : 'subtotal.credits';
    const entry: Array<[TColumnKey, string]> = section.kind === 'all' ? [] : [['entry', t(section.kind === 'debits' ? 'entry.debit' : 'entry.credit')]];
    figure(out, table, t(subtotalLabel), sumIfs(table, [['folio', label], ...entry]), section.subtotal);
  }
  totalsBlock(out, table, folio.totals, [['folio', label]]);
  taxSummary(out, folio.taxes, false);
}

export async function writeFolioXlsx(document: TFolioDocument, outputPath: string): Promise<TRenderedFile> {
  const t = translator(document.language);
  const f = formatters(document.language, document.timezone, document.currency);
  const dateFormat = dateNumberFormat(f.locale);
  const heading = headingLines(document, t, f, dateFormat);
  // One empty row between the heading lines and the table's header row.
  const headerRow = heading.length + 2;
  const rowCount = document.folios.reduce((n, folio) => n + folio.sections.reduce((m, s) => m + s.rows.length, 0), 0);
  const table: TTableRange = { first: headerRow + 1, last: headerRow + rowCount };

  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: outputPath, useStyles: true, useSharedStrings: false });
  workbook.creator = 'Folio Vault';
  workbook.created = new Date(document.generatedAt);
  // The streaming writer writes views and the fit-to-page flag when the sheet opens: they are
  // options here, which is why the header row's place is counted before any row is written.
  const sheet = workbook.addWorksheet(t('sheet.name').slice(0, 31), {
    views: [{ state: 'frozen', xSplit: 0, ySplit: headerRow, topLeftCell: `A${headerRow + 1}`, activeCell: `A${headerRow + 1}` }],
    pageSetup: {
      paperSize: A4,
      orientation: 'landscape',
      fitToPage: true,
      fitToWidth: 1,
      fitToHeight: 0,
      printTitlesRow: `${headerRow}:${headerRow}`,
      margins: { left: 0.4, right: 0.4, top: 0.6, bottom: 0.6, header: 0.3, footer: 0.3 },
    },
    headerFooter: {
      // "&P" and "&N" are the page number and count; the catalog's line is used with its placeholders.
      oddFooter: `&L${headerFooterText(`${document.property.name} · ${sourceText(document.source, t)}`)}&R${headerFooterText(t('page')).replace('{page}', '&P').replace('{pages}', '&N')}`,
    },
  });
  sheet.autoFilter = `A${headerRow}:${LAST_LETTER}${Math.max(table.last, headerRow)}`;
  sheet.columns = TABLE.map(({ key, width }) => ({ key, width }));
  const formats = { dateTime: `${dateFormat} hh:mm`, date: dateFormat, money: currencyNumberFormat(f.locale, document.currency) };
  const out: TContext = {
    sheet,
    t,
    f,
    moneyFormat: formats.money,
    scale: currencyScale(document.currency),
    local: wallClock(document.timezone),
    styles: { plain: rowStyles(undefined, formats), voided: rowStyles(VOIDED_FONT, formats), pending: rowStyles(PENDING_FONT, formats) },
  };

  for (const line of heading) add(out, line);
  add(out, { values: [] });
  const header = sheet.addRow(TABLE.map(({ label }) => t(label, { zone: document.timezone })));
  header.font = BOLD;
  header.height = 30;
  for (let c = 1; c <= TABLE.length; c += 1) {
    header.getCell(c).fill = HEADER_FILL;
    header.getCell(c).alignment = HEADER_ALIGNMENT;
  }
  header.commit();

  const labels = folioLabels(document.folios);
  document.folios.forEach((folio, i) => {
    for (const section of folio.sections) for (const item of section.rows) writeTransaction(out, labels[i]!, item);
  });
  document.folios.forEach((folio, i) => {
    add(out, { values: [] });
    folioTotals(out, table, folio, labels[i]!);
  });
  if (document.grandTotals) {
    add(out, { values: [] });
    add(out, { values: [t('totals.all')], font: BOLD });
    totalsBlock(out, table, document.grandTotals, []);
    taxSummary(out, document.grandTaxes, true);
  }

  sheet.commit();
  await workbook.commit();
  return { rows: rowCount, pages: 1 };
}
