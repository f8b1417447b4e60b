import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import type { TDocumentStay } from '@folio-vault/shared/exports/folio-document';
import { translator } from '@folio-vault/shared/i18n/catalog';
import type { TLanguage } from '@folio-vault/shared/i18n/languages';
import { writeFolioXlsx } from '@folio-vault/worker/exports/xlsx/folio-xlsx';
import { documentFolio, documentRow, folioDocument } from '@folio-vault/test-kit/folio-document';

/**
 * The stay rows at the top of the folio sheet and the Card, Foreign amount and Foreign currency
 * columns (J–L), read back with exceljs.
 */
const dir = mkdtempSync(join(tmpdir(), 'folio-xlsx-stay-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

const STAY: TDocumentStay = {
  guestName: 'Maria Gómez',
  checkinDate: '2026-11-20',
  checkoutDate: '2026-11-23',
  nights: 3,
  rooms: [{ name: '101', type: 'Double Deluxe' }, { name: '102' }],
  adults: 2,
  children: 1,
  status: 'canceled',
};

async function sheetOf(language: TLanguage, stay?: TDocumentStay): Promise<ExcelJS.Worksheet> {
  const rows = [
    documentRow(0, { description: 'Room night', amount: '300.00' }),
    documentRow(1, { description: 'Card payment', amount: '-100.00', card: { brand: 'visa', lastFour: '1111' }, foreign: { amount: '-108.50', currency: 'USD' } }),
    documentRow(2, { description: 'Amex payment', amount: '-20.00', card: { brand: 'amex' } }),
  ];
  const path = join(dir, `stay-${(files += 1)}.xlsx`);
  await writeFolioXlsx(folioDocument({ language, ...(stay ? { stay } : {}), folios: [documentFolio('1', rows, { name: 'Main' })] }), path);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  expect(workbook.worksheets).toHaveLength(1);
  return workbook.worksheets[0]!;
}

/** Column A and B of every row until the first folio heading. */
function headerPairs(sheet: ExcelJS.Worksheet): Array<[unknown, unknown]> {
  const pairs: Array<[unknown, unknown]> = [];
  for (let r = 1; r <= sheet.rowCount; r += 1) {
    const row = sheet.getRow(r);
    if (String(row.getCell(1).value ?? '').startsWith('Folio')) break;
    pairs.push([row.getCell(1).value ?? null, row.getCell(2).value ?? null]);
  }
  return pairs;
}

const rowOf = (sheet: ExcelJS.Worksheet, description: string) => {
  for (let r = 1; r <= sheet.rowCount; r += 1) if (sheet.getRow(r).getCell(4).value === description) return sheet.getRow(r);
  throw new Error(`no row ${description}`);
};

describe('XLSX stay and payment columns', () => {
  it.each<[TLanguage, Array<[string, string | number]>, string[], string]>([
    ['en', [['Guest', 'Maria Gómez'], ['Arrival', '20/11/2026'], ['Departure', '23/11/2026'], ['Nights', 3], ['Rooms', '101 · Double Deluxe, 102'], ['Guests', '2 adults, 1 child'], ['Status', 'Canceled']], ['Card', 'Foreign amount', 'Foreign currency'], '"US$"#,##0.00'],
    ['es', [['Huésped', 'Maria Gómez'], ['Llegada', '20/11/26'], ['Salida', '23/11/26'], ['Noches', 3], ['Habitaciones', '101 · Double Deluxe, 102'], ['Huéspedes', '2 adultos, 1 niño'], ['Estado', 'Cancelada']], ['Tarjeta', 'Importe en divisa', 'Divisa'], '#,##0.00 "US$"'],
    ['pt', [['Hóspede', 'Maria Gómez'], ['Chegada', '20/11/26'], ['Partida', '23/11/26'], ['Noites', 3], ['Quartos', '101 · Double Deluxe, 102'], ['Hóspedes', '2 adultos, 1 criança'], ['Estado', 'Cancelada']], ['Cartão', 'Valor em divisa', 'Divisa'], '#,##0.00 "US$"'],
    ['fr', [['Client', 'Maria Gómez'], ['Arrivée', '20/11/2026'], ['Départ', '23/11/2026'], ['Nuits', 3], ['Chambres', '101 · Double Deluxe, 102'], ['Personnes', '2 adultes, 1 enfant'], ['Statut', 'Annulée']], ['Carte', 'Montant en devise', 'Devise'], '#,##0.00 "$US"'],
    ['de', [['Gast', 'Maria Gómez'], ['Anreise', '20.11.26'], ['Abreise', '23.11.26'], ['Nächte', 3], ['Zimmer', '101 · Double Deluxe, 102'], ['Gäste', '2 Erwachsene, 1 Kind'], ['Status', 'Storniert']], ['Karte', 'Fremdwährungsbetrag', 'Fremdwährung'], '#,##0.00 "$"'],
  ])('writes the stay, the card and the foreign tender in %s', async (language, stay, headers, usdFormat) => {
    const sheet = await sheetOf(language, STAY);
    const pairs = headerPairs(sheet);
    const guest = pairs.findIndex(([label]) => label === stay[0]![0]);
    // The stay follows the source line, in this order.
    expect(pairs[guest - 1]).toEqual([translator(language)('source'), `${translator(language)('source.RESERVATION')} RES-4001`]);
    expect(pairs.slice(guest, guest + stay.length)).toEqual(stay);

    // The column header row: the one whose column L holds the foreign-currency label.
    let header = 0;
    for (let r = 1; r <= sheet.rowCount; r += 1) if (sheet.getRow(r).getCell(12).value === headers[2]) header = r;
    expect(sheet.getRow(header).getCell(4).value).toBe(translator(language)('column.description'));
    expect([10, 11, 12].map((c) => sheet.getRow(header).getCell(c).value)).toEqual(headers);

    const card = rowOf(sheet, 'Card payment');
    expect([7, 10, 11, 12].map((c) => card.getCell(c).value)).toEqual([-100, 'Visa •••• 1111', -108.5, 'USD']);
    expect(card.getCell(11).numFmt).toBe(usdFormat);
    const amex = rowOf(sheet, 'Amex payment');
    expect([10, 11, 12].map((c) => amex.getCell(c).value ?? null)).toEqual(['American Express', null, null]);
    const charge = rowOf(sheet, 'Room night');
    expect([10, 11, 12].map((c) => charge.getCell(c).value ?? null)).toEqual([null, null, null]);
  });

  it('writes no stay rows without a stay', async () => {
    const sheet = await sheetOf('en');
    const labels = headerPairs(sheet).map(([label]) => label);
    expect(labels).toEqual(['Hotel Miramar', 'Paseo Marítimo 1, 29016 Málaga', 'Source', 'Filters', 'Generated 22/11/2026, 10:15', null]);
  });
});
