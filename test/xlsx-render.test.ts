import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import type { TDocumentRow, TFolioDocument } from '@folio-vault/shared/exports/folio-document';
import { translator } from '@folio-vault/shared/i18n/catalog';
import { formatters } from '@folio-vault/shared/i18n/format';
import type { TLanguage } from '@folio-vault/shared/i18n/languages';
import { writeFolioXlsx } from '@folio-vault/worker/exports/xlsx/folio-xlsx';

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
    property: { name: 'Hotel Miramar', address: 'Passeig Marítim 1, 08003 Barcelona' },
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
              docRow('5', { transactionDatetime: '2026-03-12T11:00:00Z', serviceDate: '2026-03-12', code: '9000', description: 'Visa', amount: '-100.00' }),
            ],
          },
        ],
        totals: { charges: '112.41', payments: '100', balance: '12.41' },
      },
      {
        id: '8',
        name: 'Company folio',
        sections: [{ kind: 'all', rows: [docRow('6', { amount: '0.20' }), docRow('7', { code: '9100', description: 'Transfer', amount: '-0.20' })] }],
        totals: { charges: '0.2', payments: '0.2', balance: '0' },
      },
    ],
    grandTotals: { charges: '112.61', payments: '100.2', balance: '12.41' },
    ...overrides,
  };
}

type TCells = Array<ExcelJS.CellValue>;

interface TReadBack {
  sheet: ExcelJS.Worksheet;
  /** Every row (empty ones too), columns 1..9, empty cells as null. */
  rows: TCells[];
  cell(row: number, column: number): ExcelJS.Cell;
}

async function readBack(path: string): Promise<TReadBack> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  expect(workbook.worksheets).toHaveLength(1);
  const sheet = workbook.worksheets[0]!;
  const rows: TCells[] = [];
  for (let r = 1; r <= sheet.rowCount; r += 1) {
    const row = sheet.getRow(r);
    rows.push(Array.from({ length: 9 }, (_, c) => row.getCell(c + 1).value ?? null));
  }
  return { sheet, rows, cell: (r, c) => sheet.getRow(r + 1).getCell(c) };
}

/** Index (0-based) of the first row whose column-A text is `text`. */
function rowIndex(rows: TCells[], text: string, from = 0): number {
  const index = rows.findIndex((r, i) => i >= from && r[0] === text);
  expect(index, `row "${text}"`).toBeGreaterThanOrEqual(0);
  return index;
}

/** Transaction rows: those with the hidden UTC instant in column I (the header row excluded). */
function transactionRows(rows: TCells[]): TCells[] {
  return rows.filter((r) => typeof r[8] === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(r[8]));
}

describe('writeFolioXlsx', () => {
  it('writes the header, the rows in order with exact values, statuses and totals (en)', async () => {
    const document = sampleDocument();
    const path = outPath();
    expect(await writeFolioXlsx(document, path)).toEqual({ rows: 7, pages: 1 });
    const { sheet, rows, cell } = await readBack(path);
    const t = translator('en');
    const f = formatters('en', 'Europe/Madrid', 'EUR');

    expect(sheet.name).toBe(t('sheet.name'));
    expect(rows[0]![0]).toBe('Hotel Miramar');
    expect(rows[1]![0]).toBe('Passeig Marítim 1, 08003 Barcelona');
    expect(rows[rowIndex(rows, 'Source')]![1]).toBe('Reservation RES-42');
    expect(rows[rowIndex(rows, 'Bill to')]!.slice(0, 2)).toEqual(['Bill to', 'Acme S.L.']);
    expect(rows[rowIndex(rows, 'Bill to') + 1]!.slice(0, 2)).toEqual([null, 'Gran Via 2, Madrid']);
    expect(rows[rowIndex(rows, 'Tax ID')]![1]).toBe('B12345678');
    expect(rows[rowIndex(rows, 'Filters')]![1]).toBe(
      'from 10/03/2026 · to 12/03/2026 · types: rate, tax_4 · search "room" · rooms: 501 · room revenue compacted',
    );
    expect(rows.some((r) => r[0] === 'Generated 14/03/2026, 10:30')).toBe(true);

    // Per folio: heading, then the column headers.
    const guest = rowIndex(rows, 'Folio Guest folio');
    expect(rows[guest + 1]).toEqual(['Date and time', 'Service date', 'Code', 'Description', 'Notes', 'Qty', 'Amount', 'Status', 'Date and time (UTC)']);
    expect(rowIndex(rows, 'Folio Company folio')).toBeGreaterThan(guest);

    const expected = document.folios.flatMap((folio) => folio.sections.flatMap((s) => s.rows));
    const written = transactionRows(rows);
    expect(written).toHaveLength(expected.length);
    written.forEach((r, i) => {
      const e = expected[i]!;
      expect(r).toEqual([
        f.dateTime(e.transactionDatetime),
        f.date(e.serviceDate),
        e.code,
        e.description,
        e.notes ?? null,
        Number(e.quantity),
        Number(e.amount),
        e.voided ? 'VOID' : e.pending ? 'PENDING' : null,
        new Date(e.transactionDatetime).toISOString(),
      ]);
    });
    expect(written[0]!.slice(0, 4)).toEqual(['10/03/2026, 15:00', '10/03/2026', '1000', 'Room revenue, room 101']);
    expect(written[1]![8]).toBe('2026-03-10T22:15:30.250Z');
    expect(written[3]!.slice(3, 8)).toEqual(['Breakfast 東京 مرحبا', null, 1.5, 0.1, 'PENDING']);

    // Numeric cells with the currency format; the UTC column is hidden.
    const first = rows.indexOf(written[0]!);
    expect(typeof cell(first, 7).value).toBe('number');
    expect(cell(first, 7).numFmt).toBe('"€"#,##0.00');
    expect(cell(rows.indexOf(written[1]!), 7).numFmt).toBe('"€"#,##0.00'); // a VOID row keeps the currency format
    expect(sheet.getColumn(9).hidden).toBe(true);

    // Totals per folio and for all folios, equal to the document's.
    const figures = (heading: string) => {
      const at = rowIndex(rows, heading);
      return [1, 2, 3].map((k) => [rows[at + k]![0], rows[at + k]![6]]);
    };
    expect(figures('Totals of folio Guest folio')).toEqual([['Charges', 112.41], ['Payments', 100], ['Balance', 12.41]]);
    expect(figures('Totals of folio Company folio')).toEqual([['Charges', 0.2], ['Payments', 0.2], ['Balance', 0]]);
    expect(figures('Totals of all folios')).toEqual([['Charges', 112.61], ['Payments', 100.2], ['Balance', 12.41]]);
    const balanceRow = rowIndex(rows, 'Totals of all folios') + 3;
    expect(cell(balanceRow, 7).numFmt).toBe('"€"#,##0.00');
  });

  it('translates headers, statuses, totals and filters in Spanish and German', async () => {
    const cases: Array<[TLanguage, string[], string, string, string, string]> = [
      ['es', ['Fecha y hora', 'Fecha de servicio', 'Código', 'Descripción', 'Notas', 'Cant.', 'Importe', 'Estado', 'Fecha y hora (UTC)'], 'ANULADO', 'PENDIENTE', 'Totales de todos los folios', 'NIF'],
      ['de', ['Datum und Uhrzeit', 'Leistungsdatum', 'Code', 'Beschreibung', 'Notizen', 'Menge', 'Betrag', 'Status', 'Datum und Uhrzeit (UTC)'], 'STORNIERT', 'OFFEN', 'Summen aller Folios', 'USt-IdNr.'],
    ];
    for (const [language, headers, voidMark, pendingMark, allTotals, taxLabel] of cases) {
      const path = outPath();
      await writeFolioXlsx(sampleDocument(language), path);
      const { sheet, rows, cell } = await readBack(path);
      const t = translator(language);
      const f = formatters(language, 'Europe/Madrid', 'EUR');
      expect(sheet.name).toBe(t('sheet.name'));
      expect(rows[rowIndex(rows, `${t('folio')} Guest folio`) + 1]).toEqual(headers);
      const written = transactionRows(rows);
      expect(written.map((r) => r[7])).toEqual([null, voidMark, voidMark, pendingMark, null, null, null]);
      expect(written[0]![0]).toBe(f.dateTime('2026-03-10T14:00:00Z'));
      expect(rows[rowIndex(rows, taxLabel)]![1]).toBe('B12345678');
      expect(rows[rowIndex(rows, t('filters'))]![1]).toContain(t('filters.revenueCompact'));
      expect(rows[rowIndex(rows, t('source'))]![1]).toBe(`${t('source.RESERVATION')} RES-42`);
      const at = rowIndex(rows, allTotals);
      expect(rows.slice(at + 1, at + 4).map((r) => [r[0], r[6]])).toEqual([
        [t('totals.charges'), 112.61],
        [t('totals.payments'), 100.2],
        [t('totals.balance'), 12.41],
      ]);
      expect(cell(at + 3, 7).numFmt).toBe('#,##0.00 "€"');
    }
  });

  it('writes creditDebitView sections with their subtotals, and the document-number label', async () => {
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
            { kind: 'credits', rows: [docRow('c1', { code: '9000', amount: '-0.30' })], subtotal: '-0.3' },
          ],
          totals: { charges: '0.3', payments: '0.3', balance: '0' },
        },
      ],
      grandTotals: undefined,
    });
    const path = outPath();
    expect(await writeFolioXlsx(document, path)).toEqual({ rows: 3, pages: 1 });
    const { rows } = await readBack(path);
    expect(rows.some((r) => r[0] === 'Tax ID')).toBe(false);
    expect(rows[rowIndex(rows, 'Document number')]![1]).toBe('X1234567L');
    expect(rows[rowIndex(rows, 'Source')]![1]).toBe('House account Pool bar');
    expect(rows[rowIndex(rows, 'Filters')]![1]).toBe('posted only · voided transactions left out · debits and credits apart');

    const debits = rowIndex(rows, 'Debits');
    const credits = rowIndex(rows, 'Credits');
    expect(debits).toBeLessThan(credits);
    const codeOrLabel = (r: TCells) => (typeof r[0] === 'string' && r[0].startsWith('Subtotal') ? r[0] : r[2]);
    expect(rows.slice(debits + 1, debits + 4).map((r) => [codeOrLabel(r), r[6]])).toEqual([
      ['1000', 0.1],
      ['1000', 0.2],
      ['Subtotal of debits', 0.3],
    ]);
    expect(rows.slice(credits + 1, credits + 3).map((r) => [codeOrLabel(r), r[6]])).toEqual([
      ['9000', -0.3],
      ['Subtotal of credits', -0.3],
    ]);
    expect(rows.some((r) => r[0] === 'Totals of all folios')).toBe(false);
    const at = rowIndex(rows, 'Totals of folio Bar');
    expect(rows.slice(at + 1, at + 4).map((r) => r[6])).toEqual([0.3, 0.3, 0]);
  });

  it('writes a folio without rows, and a document without recipient or address', async () => {
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
    const { rows } = await readBack(path);
    const t = translator('fr');
    expect(rows[0]![0]).toBe('Hôtel du Port');
    expect(rows[1]!.slice(0, 2)).toEqual([t('source'), 'Réservation RES-42 · Dupont']);
    expect(rows.some((r) => r[0] === t('recipient'))).toBe(false);
    expect(rows[rowIndex(rows, t('filters'))]![1]).toBe(t('filters.none'));
    expect(rows.some((r) => r[0] === t('noTransactions'))).toBe(true);
    expect(transactionRows(rows)).toHaveLength(0);
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
    const { rows } = await readBack(path);
    const written = transactionRows(rows);
    expect(written).toHaveLength(10_000);
    expect(written.map((r) => r[3])).toEqual(many.map((r) => r.description));
    expect(written.map((r) => r[6])).toEqual(many.map((r) => Number(r.amount)));
    expect(written.filter((r) => r[7] !== null)).toHaveLength(many.filter((r) => r.voided || r.pending).length);
    // The hidden UTC column sorts as time does.
    const instants = written.map((r) => r[8] as string);
    expect([...instants].sort()).toEqual(instants);
  });
});
