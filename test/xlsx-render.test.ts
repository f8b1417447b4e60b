import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import type { TDocumentRow, TFolioDocument } from '@folio-vault/shared/exports/folio-document';
import { translator } from '@folio-vault/shared/i18n/catalog';
import type { TLanguage } from '@folio-vault/shared/i18n/languages';
import { folioLabels, writeFolioXlsx } from '@folio-vault/worker/exports/xlsx/folio-xlsx';

const dir = mkdtempSync(join(tmpdir(), 'folio-xlsx-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const outPath = () => join(dir, `folio-${(files += 1)}.xlsx`);

function docRow(id: string, fields: Partial<TDocumentRow> = {}): TDocumentRow {
  return {
    id,
    transactionDatetime: '2026-03-10T14:00:00Z',
    serviceDate: '2026-03-10',
    code: '1000',
    description: `Row ${id}`,
    quantity: '1',
    amount: '10.00',
    voided: false,
    pending: false,
    ...fields,
  };
}

/** Two folios: a stay with a void pair and a pending row, and a company folio paid by transfer. */
function sampleDocument(language: TLanguage = 'en', overrides: Partial<TFolioDocument> = {}): TFolioDocument {
  return {
    language,
    generatedAt: '2026-03-14T09:30:00Z',
    timezone: 'Europe/Madrid',
    currency: 'EUR',
    property: {
      name: 'Hotel Miramar', address: 'Passeig Marítim 1, 08003 Barcelona', taxId: 'ESB08123456',
      phone: '+34 93 000 00 00', email: 'reservas@miramar.example', website: 'https://www.miramar.example/',
    },
    source: { kind: 'RESERVATION', id: '42', identifier: 'RES-42' },
    recipient: { type: 'COMPANY', name: 'Acme S.L.', address: 'Gran Via 2, Madrid', taxLabel: 'taxId', taxNumber: 'B12345678' },
    filters: {
      dateFrom: '2026-03-10',
      dateTo: '2026-03-12',
      includeVoided: true,
      descriptionFilters: ['rate', 'tax_4'],
      searchQuery: 'room',
      subSourceIds: ['501'],
      creditDebitView: false,
      revenueCompact: true,
    },
    folios: [
      {
        id: '7',
        name: 'Guest folio',
        sections: [
          {
            kind: 'all',
            rows: [
              docRow('1', { description: 'Room revenue, room 101', amount: '112.31', compacted: true, room: '101' }),
              docRow('2', { transactionDatetime: '2026-03-10T22:15:30.250Z', code: '2000', description: 'Minibar — champagne', notes: 'Wrong room', quantity: '2', amount: '95.00', voided: true }),
              docRow('3', { transactionDatetime: '2026-03-10T22:20:00Z', code: '2000', description: 'Minibar — champagne (void)', quantity: '-2', amount: '-95.00', voided: true }),
              docRow('4', { transactionDatetime: '2026-03-11T08:00:00Z', serviceDate: '2026-03-11', code: '2100', description: 'Breakfast 東京 مرحبا', quantity: '1.5', amount: '0.10', pending: true }),
              docRow('5', { transactionDatetime: '2026-03-12T11:00:00Z', serviceDate: '2026-03-12', code: '9000', description: 'Visa', amount: '-100.00', credit: true }),
            ],
          },
        ],
        totals: { charges: '112.41', payments: '100', balance: '12.41' },
        taxes: [{ label: 'IVA 10%', net: '102.10', tax: '10.21', gross: '112.31' }, { label: 'City tax', tax: '2.00' }],
      },
      {
        id: '8',
        name: 'Company folio',
        sections: [{ kind: 'all', rows: [docRow('6', { amount: '0.20' }), docRow('7', { code: '9100', description: 'Transfer', amount: '-0.20', credit: true })] }],
        totals: { charges: '0.2', payments: '0.2', balance: '0' },
      },
    ],
    grandTotals: { charges: '112.61', payments: '100.2', balance: '12.41' },
    grandTaxes: [{ label: 'IVA 10%', net: '102.10', tax: '10.21', gross: '112.31' }, { label: 'City tax', tax: '2.00' }],
    ...overrides,
  };
}

type TCells = Array<ExcelJS.CellValue>;
const WIDTH = 14;

interface TReadBack {
  sheet: ExcelJS.Worksheet;
  /** Every row (empty ones too), columns A–N, empty cells as null. */
  rows: TCells[];
  /** A cell by 0-based row index (as in `rows`) and 1-based column. */
  cell(row: number, column: number): ExcelJS.Cell;
  /** 0-based index of the table's header row. */
  header: number;
}

async function readBack(path: string): Promise<TReadBack> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  expect(workbook.worksheets).toHaveLength(1);
  const sheet = workbook.worksheets[0]!;
  const rows: TCells[] = [];
  for (let r = 1; r <= sheet.rowCount; r += 1) {
    const row = sheet.getRow(r);
    rows.push(Array.from({ length: WIDTH }, (_, c) => row.getCell(c + 1).value ?? null));
  }
  const header = rows.findIndex((r) => typeof r[1] === 'string' && r[1].includes('(Europe/Madrid)'));
  expect(header, 'header row').toBeGreaterThan(0);
  return { sheet, rows, header, cell: (r, c) => sheet.getRow(r + 1).getCell(c) };
}

/** Index (0-based) of the first row whose column-A text is `text`. */
function rowIndex(rows: TCells[], text: string, from = 0): number {
  const index = rows.findIndex((r, i) => i >= from && r[0] === text);
  expect(index, `row "${text}"`).toBeGreaterThanOrEqual(0);
  return index;
}

/** The table's rows: from the header row to the first empty row. */
function tableRows(book: TReadBack): TCells[] {
  const after = book.rows.slice(book.header + 1);
  const end = after.findIndex((r) => r.every((v) => v === null));
  return end < 0 ? after : after.slice(0, end);
}

/** The wall-clock time shown for a UTC instant, as exceljs reads a date cell back (UTC fields). */
const wall = (iso: string) => new Date(iso);

/** The value of the cell `ref` ("$H$12") as a spreadsheet computes it: a formula evaluated, not its cached result. */
function valueAt(sheet: ExcelJS.Worksheet, ref: string): number | string {
  const m = /^\$([A-Z])\$(\d+)$/.exec(ref)!;
  expect(m, ref).not.toBeNull();
  const cell = sheet.getRow(Number(m[2])).getCell(m[1]!.charCodeAt(0) - 64);
  if (cell.formula) return evaluate(sheet, cell.formula);
  expect(['number', 'string']).toContain(typeof cell.value);
  return cell.value as number | string;
}

/** ROUND($X$a+$X$b,n), as the balance's formulas read the two figures above them. */
const ROUNDED_SUM = /ROUND\((\$[A-Z]\$\d+)\+(\$[A-Z]\$\d+),(\d+)\)/;
const roundedSum = (sheet: ExcelJS.Worksheet, text: string): number => {
  const m = ROUNDED_SUM.exec(text)!;
  expect(m, text).not.toBeNull();
  const sum = (valueAt(sheet, m[1]!) as number) + (valueAt(sheet, m[2]!) as number);
  return Number(sum.toFixed(Number(m[3])));
};

/**
 * Evaluates the totals' formulas over the read-back sheet as a spreadsheet would: SUM(range),
 * SUMIFS(sum range, criteria range, "=text"…) with "~" escaping and case-insensitive match, and
 * the balance's ABS(ROUND(a+b,n)) and IF(ROUND(a+b,n)>0,"…",IF(ROUND(a+b,n)<0,"…","…")).
 */
function evaluate(sheet: ExcelJS.Worksheet, formula: string): number | string {
  const range = (ref: string) => {
    const m = /^\$([A-Z])\$(\d+):\$([A-Z])\$(\d+)$/.exec(ref)!;
    expect(m, ref).not.toBeNull();
    expect(m[1]).toBe(m[3]);
    const column = m[1]!.charCodeAt(0) - 64;
    const cells: ExcelJS.CellValue[] = [];
    for (let r = Number(m[2]); r <= Number(m[4]); r += 1) cells.push(sheet.getRow(r).getCell(column).value);
    return cells;
  };
  if (/^ABS\(ROUND\([^()]*\)\)$/.test(formula)) return Math.abs(roundedSum(sheet, formula));
  const choice = /^IF\((ROUND\([^()]*\))>0,"([^"]*)",IF\(\1<0,"([^"]*)","([^"]*)"\)\)$/.exec(formula);
  if (choice) {
    const sum = roundedSum(sheet, choice[1]!);
    return sum > 0 ? choice[2]! : sum < 0 ? choice[3]! : choice[4]!;
  }
  const sum = /^SUM\(([^,]+)\)$/.exec(formula);
  if (sum) return range(sum[1]!).reduce<number>((total, v) => total + (typeof v === 'number' ? v : 0), 0);
  const sumIfs = /^SUMIFS\((.*)\)$/.exec(formula);
  expect(sumIfs, formula).not.toBeNull();
  const args = sumIfs![1]!.match(/\$[A-Z]\$\d+:\$[A-Z]\$\d+|"(?:[^"]|"")*"/g)!;
  const amounts = range(args[0]!);
  const criteria: Array<[ExcelJS.CellValue[], string]> = [];
  for (let i = 1; i < args.length; i += 2) {
    const text = args[i + 1]!.slice(1, -1).replace(/""/g, '"');
    expect(text.startsWith('=')).toBe(true);
    criteria.push([range(args[i]!), text.slice(1).replace(/~([~*?])/g, '$1').toLowerCase()]);
  }
  let total = 0;
  amounts.forEach((amount, k) => {
    if (typeof amount === 'number' && criteria.every(([cells, text]) => String(cells[k] ?? '').toLowerCase() === text)) total += amount;
  });
  return total;
}

/**
 * Label, formula and cached value of the figure rows after a totals heading; a label that is a
 * formula (the balance's) as its cached text.
 */
function figures(book: TReadBack, heading: string, count = 3): Array<[ExcelJS.CellValue, string | undefined, unknown]> {
  const at = rowIndex(book.rows, heading);
  return Array.from({ length: count }, (_, k) => {
    const label = book.cell(at + 1 + k, 1);
    const cell = book.cell(at + 1 + k, 8);
    return [label.formula ? label.result : label.value, cell.formula, cell.result];
  });
}

/** The balance's formulas under the two figures at (1-based) rows `charges` and `charges + 1`. */
const balanceFormulas = (charges: number, labels = ['Balance due', 'Credit', 'Balance'], scale = 2) => {
  const sum = `ROUND($H$${charges}+$H$${charges + 1},${scale})`;
  return { label: `IF(${sum}>0,"${labels[0]}",IF(${sum}<0,"${labels[1]}","${labels[2]}"))`, amount: `ABS(${sum})` };
};

describe('writeFolioXlsx', () => {
  it('writes the heading lines, then one table of every folio\'s rows with date cells and exact values (en)', async () => {
    const document = sampleDocument();
    const path = outPath();
    expect(await writeFolioXlsx(document, path)).toEqual({ rows: 7, pages: 1 });
    const book = await readBack(path);
    const { sheet, rows, cell, header } = book;
    const t = translator('en');

    expect(sheet.name).toBe(t('sheet.name'));
    // The hotel as the PDF's letterhead has it: name, address, tax id, contact; then the source and the folio numbers.
    expect(rows.slice(0, 6).map((r) => r.slice(0, 2))).toEqual([
      ['Hotel Miramar', null],
      ['Passeig Marítim 1, 08003 Barcelona', null],
      ['Tax ID: ESB08123456', null],
      ['Tel. +34 93 000 00 00 · reservas@miramar.example · www.miramar.example', null],
      ['Source', 'Reservation RES-42'],
      ['Folio no. 7, 8', null],
    ]);
    expect(rows[rowIndex(rows, 'Bill to')]!.slice(0, 2)).toEqual(['Bill to', 'Acme S.L.']);
    expect(rows[rowIndex(rows, 'Bill to') + 1]!.slice(0, 2)).toEqual([null, 'Gran Via 2, Madrid']);
    expect(rows[rowIndex(rows, 'Tax ID')]![1]).toBe('B12345678');
    expect(rows[rowIndex(rows, 'Filters')]![1]).toBe(
      'from 10/03/2026 · to 12/03/2026 · types: rate, tax_4 · search "room" · rooms: 501 · room revenue compacted',
    );
    expect(rows[header - 2]![0]).toBe('Generated 14/03/2026, 10:30');
    expect(rows[header - 1]!.every((v) => v === null)).toBe(true);

    // One header row for the whole table; the time zone is named in the date column's heading.
    expect(rows[header]).toEqual([
      'Folio', 'Date and time (Europe/Madrid)', 'Service date', 'Code', 'Description', 'Notes', 'Qty', 'Amount',
      'Debit/credit', 'Voided', 'Pending', 'Card', 'Foreign amount', 'Foreign currency',
    ]);
    expect(rows.filter((r) => r[0] === 'Folio')).toHaveLength(1);

    // Every folio's rows, in order, nothing between them; dates are date cells holding the
    // wall-clock time in Europe/Madrid (UTC+1 in March).
    const table = tableRows(book);
    expect(table.map((r) => r.slice(0, 11))).toEqual([
      ['Guest folio', wall('2026-03-10T15:00:00Z'), wall('2026-03-10T00:00:00Z'), '1000', 'Room revenue, room 101', null, 1, 112.31, 'Debit', 'No', 'No'],
      ['Guest folio', wall('2026-03-10T23:15:30.250Z'), wall('2026-03-10T00:00:00Z'), '2000', 'Minibar — champagne', 'Wrong room', 2, 95, 'Debit', 'Yes', 'No'],
      ['Guest folio', wall('2026-03-10T23:20:00Z'), wall('2026-03-10T00:00:00Z'), '2000', 'Minibar — champagne (void)', null, -2, -95, 'Debit', 'Yes', 'No'],
      ['Guest folio', wall('2026-03-11T09:00:00Z'), wall('2026-03-11T00:00:00Z'), '2100', 'Breakfast 東京 مرحبا', null, 1.5, 0.1, 'Debit', 'No', 'Yes'],
      ['Guest folio', wall('2026-03-12T12:00:00Z'), wall('2026-03-12T00:00:00Z'), '9000', 'Visa', null, 1, -100, 'Credit', 'No', 'No'],
      ['Company folio', wall('2026-03-10T15:00:00Z'), wall('2026-03-10T00:00:00Z'), '1000', 'Row 6', null, 1, 0.2, 'Debit', 'No', 'No'],
      ['Company folio', wall('2026-03-10T15:00:00Z'), wall('2026-03-10T00:00:00Z'), '9100', 'Transfer', null, 1, -0.2, 'Credit', 'No', 'No'],
    ]);

    // Cell types and number formats.
    const first = header + 1;
    expect(cell(first, 2).type).toBe(ExcelJS.ValueType.Date);
    expect(cell(first, 2).numFmt).toBe('dd/mm/yyyy hh:mm');
    expect(cell(first, 3).type).toBe(ExcelJS.ValueType.Date);
    expect(cell(first, 3).numFmt).toBe('dd/mm/yyyy');
    expect(cell(first, 7).type).toBe(ExcelJS.ValueType.Number);
    expect(cell(first, 8).type).toBe(ExcelJS.ValueType.Number);
    expect(cell(first, 8).numFmt).toBe('"€"#,##0.00');
    // A voided row keeps its formats and is greyed besides its "Yes".
    expect([cell(first + 1, 2).numFmt, cell(first + 1, 8).numFmt]).toEqual(['dd/mm/yyyy hh:mm', '"€"#,##0.00']);
    expect(cell(first + 1, 5).font.color).toEqual({ argb: 'FF808080' });
    expect(cell(first + 3, 5).font.italic).toBe(true);
    expect(sheet.columns.some((column) => column.hidden)).toBe(false);
  });

  it('freezes the header row, filters the table and prints fit to one page wide with the header repeated', async () => {
    const path = outPath();
    await writeFolioXlsx(sampleDocument(), path);
    const { sheet, header } = await readBack(path);
    const headerRow = header + 1; // 1-based, as the sheet counts
    expect(sheet.views).toHaveLength(1);
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', xSplit: 0, ySplit: headerRow, topLeftCell: `A${headerRow + 1}` });
    // Header row and the 7 rows of both folios; the totals below stay outside the filter.
    expect(sheet.autoFilter).toBe(`A${headerRow}:N${headerRow + 7}`);
    expect(sheet.pageSetup).toMatchObject({
      paperSize: 9,
      orientation: 'landscape',
      fitToPage: true,
      fitToWidth: 1,
      fitToHeight: 0,
      printTitlesRow: `${headerRow}:${headerRow}`,
    });
    expect(sheet.headerFooter.oddFooter).toBe('&LHotel Miramar · Reservation RES-42&RPage &P of &N');
  });

  it('writes totals as SUMIFS formulas over the table with the document\'s figures cached, signed as the PDF, which follow an edited row', async () => {
    const document = sampleDocument();
    const path = outPath();
    await writeFolioXlsx(document, path);
    const book = await readBack(path);
    const first = book.header + 2;
    const last = first + 6;
    const amounts = `$H$${first}:$H$${last}`;
    const folio = (name: string) => `$A$${first}:$A$${last},"=${name}"`;
    const entry = (value: string) => `$I$${first}:$I$${last},"=${value}"`;
    /** 1-based row of the charges figure under `heading`. */
    const chargesRow = (heading: string) => rowIndex(book.rows, heading) + 2;

    // Payments negative, as their rows are; the balance by its sign, "Balance due" when the guest owes.
    const guest = balanceFormulas(chargesRow('Totals of folio Guest folio'));
    expect(figures(book, 'Totals of folio Guest folio')).toEqual([
      ['Charges', `SUMIFS(${amounts},${folio('Guest folio')},${entry('Debit')})`, 112.41],
      ['Payments', `SUMIFS(${amounts},${folio('Guest folio')},${entry('Credit')})`, -100],
      ['Balance due', guest.amount, 12.41],
    ]);
    expect(book.cell(chargesRow('Totals of folio Guest folio') + 1, 1).formula).toBe(guest.label);
    const company = balanceFormulas(chargesRow('Totals of folio Company folio'));
    expect(figures(book, 'Totals of folio Company folio')).toEqual([
      ['Charges', `SUMIFS(${amounts},${folio('Company folio')},${entry('Debit')})`, 0.2],
      ['Payments', `SUMIFS(${amounts},${folio('Company folio')},${entry('Credit')})`, -0.2],
      ['Balance', company.amount, 0],
    ]);
    const all = balanceFormulas(chargesRow('Totals of all folios'));
    expect(figures(book, 'Totals of all folios')).toEqual([
      ['Charges', `SUMIFS(${amounts},${entry('Debit')})`, 112.61],
      ['Payments', `SUMIFS(${amounts},${entry('Credit')})`, -100.2],
      ['Balance due', all.amount, 12.41],
    ]);
    const balance = rowIndex(book.rows, 'Totals of all folios') + 3;
    expect(book.cell(balance, 8).type).toBe(ExcelJS.ValueType.Formula);
    expect(book.cell(balance, 8).numFmt).toBe('"€"#,##0.00');
    expect(book.cell(balance, 1).formula).toBe(all.label);

    // Each formula computes its cached figure (and label) from the table…
    for (const heading of ['Totals of folio Guest folio', 'Totals of folio Company folio', 'Totals of all folios']) {
      for (const [label, formula, result] of figures(book, heading)) expect([evaluate(book.sheet, formula!), label]).toEqual([result, label]);
      const balanceRow = chargesRow(heading) + 1;
      expect(evaluate(book.sheet, book.cell(balanceRow, 1).formula)).toBe(book.cell(balanceRow, 1).result);
    }
    // …and follows an edited row: the minibar charge (Guest folio, debit) raised by 10…
    book.sheet.getRow(first + 1).getCell(8).value = 105;
    const [charges, , guestBalance] = figures(book, 'Totals of folio Guest folio');
    expect(evaluate(book.sheet, charges![1]!)).toBeCloseTo(122.41, 9);
    expect(evaluate(book.sheet, guestBalance![1]!)).toBe(22.41);
    // …and the Visa payment raised to 200: the hotel owes the guest, a "Credit" without its minus.
    book.sheet.getRow(first + 4).getCell(8).value = -200;
    expect(evaluate(book.sheet, guestBalance![1]!)).toBe(77.59);
    expect(evaluate(book.sheet, guest.label)).toBe('Credit');
  });

  it('writes each folio\'s tax summary under its totals and that of all folios under theirs, as the PDF does', async () => {
    const path = outPath();
    await writeFolioXlsx(sampleDocument(), path);
    const book = await readBack(path);
    const { rows } = book;
    // Label in column A; net, tax and gross under Notes, Qty and Amount (F–H); an unknown net and gross "—".
    const summary = (heading: string) => {
      const at = rowIndex(rows, heading);
      return rows.slice(at, at + 4).map((r) => [r[0], r[5], r[6], r[7]]);
    };
    expect(summary('Tax summary')).toEqual([
      ['Tax summary', null, null, null],
      ['Rate', 'Net', 'Tax', 'Gross'],
      ['IVA 10%', 102.1, 10.21, 112.31],
      ['City tax', '—', 2, '—'],
    ]);
    // The guest folio's comes right under its balance; the company folio has none.
    expect(rowIndex(rows, 'Tax summary')).toBe(rowIndex(rows, 'Totals of folio Guest folio') + 5);
    expect(rows.filter((r) => r[0] === 'Tax summary')).toHaveLength(1);
    expect(summary('Tax summary — Totals of all folios')).toEqual([
      ['Tax summary — Totals of all folios', null, null, null],
      ['Rate', 'Net', 'Tax', 'Gross'],
      ['IVA 10%', 102.1, 10.21, 112.31],
      ['City tax', '—', 2, '—'],
    ]);
    const net = rowIndex(rows, 'IVA 10%');
    expect([6, 7, 8].map((c) => book.cell(net, c).numFmt)).toEqual(['"€"#,##0.00', '"€"#,##0.00', '"€"#,##0.00']);
  });

  it('translates headers, marks, debit/credit and the totals\' criteria in Spanish and German', async () => {
    const cases: Array<[TLanguage, string[], [string, string], [string, string], string, string]> = [
      ['es', ['Folio', 'Fecha y hora (Europe/Madrid)', 'Fecha de servicio', 'Código', 'Descripción', 'Notas', 'Cant.', 'Importe', 'Cargo/abono', 'Anulado', 'Pendiente', 'Tarjeta', 'Importe en divisa', 'Divisa'], ['Sí', 'No'], ['Cargo', 'Abono'], 'Totales de todos los folios', 'NIF'],
      ['de', ['Folio', 'Datum und Uhrzeit (Europe/Madrid)', 'Leistungsdatum', 'Code', 'Beschreibung', 'Notizen', 'Menge', 'Betrag', 'Soll/Haben', 'Storniert', 'Offen', 'Karte', 'Fremdwährungsbetrag', 'Fremdwährung'], ['Ja', 'Nein'], ['Soll', 'Haben'], 'Summen aller Folios', 'USt-IdNr.'],
    ];
    for (const [language, headers, [yes, no], [debit, credit], allTotals, taxLabel] of cases) {
      const path = outPath();
      await writeFolioXlsx(sampleDocument(language), path);
      const book = await readBack(path);
      const { sheet, rows, cell, header } = book;
      const t = translator(language);
      expect(sheet.name).toBe(t('sheet.name'));
      expect(rows[header]).toEqual(headers);
      const table = tableRows(book);
      expect(table.map((r) => r[9])).toEqual([no, yes, yes, no, no, no, no]);
      expect(table.map((r) => r[10])).toEqual([no, no, no, yes, no, no, no]);
      expect(table.map((r) => r[8])).toEqual([debit, debit, debit, debit, credit, debit, credit]);
      expect(cell(header + 1, 2).numFmt).toBe(language === 'de' ? 'dd.mm.yyyy hh:mm' : 'dd/mm/yyyy hh:mm');
      expect(rows[rowIndex(rows, taxLabel)]![1]).toBe('B12345678');
      expect(rows[rowIndex(rows, t('filters'))]![1]).toContain(t('filters.revenueCompact'));
      expect(rows[rowIndex(rows, t('source'))]![1]).toBe(`${t('source.RESERVATION')} RES-42`);
      const totals = figures(book, allTotals);
      expect(totals.map(([label, , result]) => [label, result])).toEqual([
        [t('totals.charges'), 112.61],
        [t('totals.payments'), -100.2],
        [t('totals.balanceDue'), 12.41],
      ]);
      expect(totals[0]![1]).toContain(`"=${debit}"`);
      for (const [, formula, result] of totals) expect(evaluate(sheet, formula!)).toBeCloseTo(result as number, 9);
      const balanceRow = rowIndex(rows, allTotals) + 3;
      expect(cell(balanceRow, 1).formula).toBe(balanceFormulas(balanceRow - 1, [t('totals.balanceDue'), t('totals.credit'), t('totals.balance')]).label);
      expect(cell(rowIndex(rows, allTotals) + 3, 8).numFmt).toBe('#,##0.00 "€"');
    }
  });

  it('writes creditDebitView subtotals as formulas below the table, and the document-number label', async () => {
    const document = sampleDocument('en', {
      recipient: { type: 'GUEST', name: 'Ana Pérez', taxLabel: 'documentNumber', taxNumber: 'X1234567L' },
      source: { kind: 'HOUSE_ACCOUNT', id: '9', name: 'Pool bar' },
      filters: { includeVoided: false, posted: true, descriptionFilters: [], subSourceIds: [], creditDebitView: true, revenueCompact: false },
      folios: [
        {
          id: '9',
          name: 'Bar',
          sections: [
            { kind: 'debits', rows: [docRow('d1', { amount: '0.10' }), docRow('d2', { amount: '0.20' })], subtotal: '0.3' },
            { kind: 'credits', rows: [docRow('c1', { code: '9000', amount: '-0.30', credit: true })], subtotal: '-0.3' },
          ],
          totals: { charges: '0.3', payments: '0.3', balance: '0' },
        },
      ],
      grandTotals: undefined,
    });
    const path = outPath();
    expect(await writeFolioXlsx(document, path)).toEqual({ rows: 3, pages: 1 });
    const book = await readBack(path);
    const { rows } = book;
    expect(rows.some((r) => r[0] === 'Tax ID')).toBe(false);
    expect(rows[rowIndex(rows, 'Document number')]![1]).toBe('X1234567L');
    expect(rows[rowIndex(rows, 'Source')]![1]).toBe('House account Pool bar');
    expect(rows[rowIndex(rows, 'Filters')]![1]).toBe('posted only · voided transactions left out · debits and credits apart');

    // Debits first, then credits, in one table: no section heading or subtotal row inside it.
    expect(tableRows(book).map((r) => [r[3], r[7], r[8]])).toEqual([['1000', 0.1, 'Debit'], ['1000', 0.2, 'Debit'], ['9000', -0.3, 'Credit']]);
    expect(book.sheet.autoFilter).toBe(`A${book.header + 1}:N${book.header + 4}`);
    const first = book.header + 2;
    const r = (column: string) => `$${column}$${first}:$${column}$${first + 2}`;
    const totals = figures(book, 'Totals of folio Bar', 5);
    expect(totals).toEqual([
      ['Subtotal of debits', `SUMIFS(${r('H')},${r('A')},"=Bar",${r('I')},"=Debit")`, 0.3],
      ['Subtotal of credits', `SUMIFS(${r('H')},${r('A')},"=Bar",${r('I')},"=Credit")`, -0.3],
      ['Charges', `SUMIFS(${r('H')},${r('A')},"=Bar",${r('I')},"=Debit")`, 0.3],
      ['Payments', `SUMIFS(${r('H')},${r('A')},"=Bar",${r('I')},"=Credit")`, -0.3],
      ['Balance', balanceFormulas(rowIndex(rows, 'Totals of folio Bar') + 4).amount, 0],
    ]);
    for (const [, formula, result] of totals) expect(evaluate(book.sheet, formula!)).toBeCloseTo(result as number, 9);
    expect(rows.some((row) => row[0] === 'Totals of all folios')).toBe(false);
  });

  it('writes a folio without rows (plain zeros, no filters line, a header-only filter), and a document without recipient or address', async () => {
    const document = sampleDocument('fr', {
      property: { name: 'Hôtel du Port' },
      source: { kind: 'RESERVATION', id: '42', identifier: 'RES-42', name: 'Dupont' },
      recipient: undefined,
      filters: { includeVoided: true, descriptionFilters: [], subSourceIds: [], creditDebitView: false, revenueCompact: false },
      folios: [{ id: '1', name: 'Vide', sections: [{ kind: 'all', rows: [] }], totals: { charges: '0', payments: '0', balance: '0' } }],
      grandTotals: undefined,
    });
    const path = outPath();
    expect(await writeFolioXlsx(document, path)).toEqual({ rows: 0, pages: 1 });
    const book = await readBack(path);
    const { rows } = book;
    const t = translator('fr');
    expect(rows[0]![0]).toBe('Hôtel du Port');
    expect(rows[1]!.slice(0, 2)).toEqual([t('source'), 'Réservation RES-42 · Dupont']);
    expect(rows.some((r) => r[0] === t('recipient'))).toBe(false);
    expect(rows.some((r) => r[0] === t('filters'))).toBe(false);
    expect(tableRows(book)).toHaveLength(0);
    expect(book.sheet.autoFilter).toBe(`A${book.header + 1}:N${book.header + 1}`);
    const at = rowIndex(rows, t('totals.folio', { name: 'Vide' }));
    expect(rows[at + 1]![0]).toBe(t('noTransactions'));
    // Without table rows the figures are plain zeros; the balance's formulas still read them.
    expect(rows.slice(at + 2, at + 4).map((r) => [r[0], r[7]])).toEqual([
      [t('totals.charges'), 0],
      [t('totals.payments'), 0],
    ]);
    expect([book.cell(at + 4, 1).result, book.cell(at + 4, 8).result, evaluate(book.sheet, book.cell(at + 4, 8).formula)]).toEqual([t('totals.balance'), 0, 0]);
  });

  it('writes date cells in the property\'s time zone across a DST change and in other zones', async () => {
    const instants = ['2026-03-29T00:59:59.500Z', '2026-03-29T01:00:00Z', '2026-07-01T10:00:00Z', '2026-12-31T23:30:00Z'];
    const rowsAt = instants.map((iso, i) => docRow(String(i), { transactionDatetime: iso, serviceDate: iso.slice(0, 10) }));
    const expected: Record<string, string[]> = {
      'Europe/Madrid': ['2026-03-29T01:59:59.500Z', '2026-03-29T03:00:00.000Z', '2026-07-01T12:00:00.000Z', '2027-01-01T00:30:00.000Z'],
      'America/New_York': ['2026-03-28T20:59:59.500Z', '2026-03-28T21:00:00.000Z', '2026-07-01T06:00:00.000Z', '2026-12-31T18:30:00.000Z'],
      'Asia/Kathmandu': ['2026-03-29T06:44:59.500Z', '2026-03-29T06:45:00.000Z', '2026-07-01T15:45:00.000Z', '2027-01-01T05:15:00.000Z'],
    };
    for (const [timezone, wallTimes] of Object.entries(expected)) {
      const path = outPath();
      await writeFolioXlsx(sampleDocument('en', { timezone, folios: [{ id: '1', name: 'F', sections: [{ kind: 'all', rows: rowsAt }], totals: { charges: '40', payments: '0', balance: '40' } }], grandTotals: undefined }), path);
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.readFile(path);
      const sheet = workbook.worksheets[0]!;
      let header = 0;
      for (let r = 1; r <= sheet.rowCount && !header; r += 1) if (sheet.getRow(r).getCell(2).value === `Date and time (${timezone})`) header = r;
      expect(header).toBeGreaterThan(0);
      const shown = instants.map((_, k) => (sheet.getRow(header + 1 + k).getCell(2).value as Date).toISOString());
      expect(shown).toEqual(wallTimes);
      // The service date is a calendar date, never shifted by the zone.
      expect((sheet.getRow(header + 4).getCell(3).value as Date).toISOString()).toBe('2026-12-31T00:00:00.000Z');
    }
  });

  it('names folios apart when their names collide, and escapes SUMIFS wildcards in the criteria', async () => {
    const folio = (id: string, name: string, amount: string) => ({
      id, name, sections: [{ kind: 'all' as const, rows: [docRow(`r${id}`, { amount })] }], totals: { charges: amount, payments: '0', balance: amount },
    });
    const folios = [folio('1', 'Guest', '1.00'), folio('2', 'guest', '2.00'), folio('3', 'VIP*', '4.00'), folio('4', 'VIP "A"?', '8.00')];
    expect(folioLabels(folios)).toEqual(['Guest (1)', 'guest (2)', 'VIP*', 'VIP "A"?']);
    const path = outPath();
    await writeFolioXlsx(sampleDocument('en', { folios, grandTotals: { charges: '15', payments: '0', balance: '15' } }), path);
    const book = await readBack(path);
    expect(tableRows(book).map((r) => [r[0], r[7]])).toEqual([['Guest (1)', 1], ['guest (2)', 2], ['VIP*', 4], ['VIP "A"?', 8]]);
    const [vip] = figures(book, 'Totals of folio VIP*');
    expect(vip![1]).toContain('"=VIP~*"');
    const [quoted] = figures(book, 'Totals of folio VIP "A"?');
    expect(quoted![1]).toContain('"=VIP ""A""~?"');
    for (const [name, amount] of [['Guest (1)', 1], ['guest (2)', 2], ['VIP*', 4], ['VIP "A"?', 8]] as const) {
      const [, , balance] = figures(book, `Totals of folio ${name}`);
      expect([evaluate(book.sheet, balance![1]!), balance![2]]).toEqual([amount, amount]);
    }
  });

  it('writes a 10,000-row document that reads back with every row', async () => {
    const many = Array.from({ length: 10_000 }, (_, i) =>
      docRow(String(i + 1), {
        transactionDatetime: new Date(Date.UTC(2026, 2, 10) + i * 60_000).toISOString(),
        description: `Item ${i + 1}`,
        amount: `${(i % 100) + 1}.${String(i % 100).padStart(2, '0')}`,
        voided: i % 997 === 0,
        pending: i % 1009 === 0,
      }),
    );
    const document = sampleDocument('pt', {
      folios: [{ id: '1', name: 'Grande', sections: [{ kind: 'all', rows: many }], totals: { charges: '1', payments: '0', balance: '1' } }],
      grandTotals: undefined,
    });
    const path = outPath();
    expect(await writeFolioXlsx(document, path)).toEqual({ rows: 10_000, pages: 1 });
    const book = await readBack(path);
    const written = tableRows(book);
    expect(written).toHaveLength(10_000);
    expect(written.map((r) => r[4])).toEqual(many.map((r) => r.description));
    expect(written.map((r) => r[7])).toEqual(many.map((r) => Number(r.amount)));
    expect(written.filter((r) => r[9] === 'Sim')).toHaveLength(many.filter((r) => r.voided).length);
    expect(written.filter((r) => r[10] === 'Sim')).toHaveLength(many.filter((r) => r.pending).length);
    // The date cells sort as time does (one minute apart; Madrid is UTC+1 in March).
    const times = written.map((r) => (r[1] as Date).getTime());
    expect(times[0]).toBe(Date.UTC(2026, 2, 10, 1));
    expect(times.every((time, k) => k === 0 || time - times[k - 1]! === 60_000)).toBe(true);
    expect(book.sheet.autoFilter).toBe(`A${book.header + 1}:N${book.header + 10_001}`);
  });
});
