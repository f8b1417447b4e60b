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
 * The stay rows at the top of the folio sheet (arrival and departure as date cells), the Card,
 * Foreign amount and Foreign currency columns (L–N), and what the PDF carries beside them — the
 * hotel's tax id and contact, the folio number, payments negative and the balance by its sign —
 * read back with exceljs.
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

const PROPERTY = {
  name: 'Hotel Miramar', address: 'Paseo Marítimo 1, 29016 Málaga', taxId: 'ESB29123456',
  phone: '+34 952 000 000', email: 'reservas@miramar.example', website: 'http://miramar.example',
};

async function sheetOf(language: TLanguage, stay?: TDocumentStay): Promise<ExcelJS.Worksheet> {
  const rows = [
    documentRow(0, { description: 'Room night', amount: '300.00' }),
    documentRow(1, { description: 'Card payment', amount: '-100.00', credit: true, card: { brand: 'visa', lastFour: '1111' }, foreign: { amount: '-108.50', currency: 'USD' } }),
    documentRow(2, { description: 'Amex payment', amount: '-20.00', credit: true, card: { brand: 'amex' } }),
  ];
  const path = join(dir, `stay-${(files += 1)}.xlsx`);
  const folio = documentFolio('7001', rows, { name: 'Main', totals: { charges: '300.00', payments: '120.00', balance: '180.00' } });
  await writeFolioXlsx(folioDocument({ language, property: PROPERTY, ...(stay ? { stay } : {}), folios: [folio] }), path);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  expect(workbook.worksheets).toHaveLength(1);
  return workbook.worksheets[0]!;
}

/** Column A and B of every heading line: the rows before the first empty one. */
function headerPairs(sheet: ExcelJS.Worksheet): Array<[unknown, unknown]> {
  const pairs: Array<[unknown, unknown]> = [];
  for (let r = 1; r <= sheet.rowCount; r += 1) {
    const row = sheet.getRow(r);
    if (!row.hasValues) break;
    pairs.push([row.getCell(1).value ?? null, row.getCell(2).value ?? null]);
  }
  return pairs;
}

const rowOf = (sheet: ExcelJS.Worksheet, description: string) => {
  for (let r = 1; r <= sheet.rowCount; r += 1) if (sheet.getRow(r).getCell(5).value === description) return sheet.getRow(r);
  throw new Error(`no row ${description}`);
};

/** Per language: the hotel's tax id and contact lines, the folio number, and the labels of payments and of a balance the guest owes. */
type TLetterhead = { taxId: string; contact: string; folioNumber: string; payments: string; balanceDue: string };
const letterhead = (taxId: string, phone: string, folioNumber: string, payments: string, balanceDue: string): TLetterhead => ({
  taxId: `${taxId} ESB29123456`, contact: `${phone} +34 952 000 000 · reservas@miramar.example · miramar.example`, folioNumber, payments, balanceDue,
});

describe('XLSX stay and payment columns', () => {
  it.each<[TLanguage, Array<[string, string | number | Date]>, string[], string, string, TLetterhead]>([
    ['en', [['Guest', 'Maria Gómez'], ['Arrival', new Date('2026-11-20')], ['Departure', new Date('2026-11-23')], ['Nights', 3], ['Rooms', '101 · Double Deluxe, 102'], ['Guests', '2 adults, 1 child'], ['Status', 'Canceled']], ['Card', 'Foreign amount', 'Foreign currency'], '"US$"#,##0.00', 'dd/mm/yyyy', letterhead('Tax ID:', 'Tel.', 'Folio no. 7001', 'Payments', 'Balance due')],
    ['es', [['Huésped', 'Maria Gómez'], ['Llegada', new Date('2026-11-20')], ['Salida', new Date('2026-11-23')], ['Noches', 3], ['Habitaciones', '101 · Double Deluxe, 102'], ['Huéspedes', '2 adultos, 1 niño'], ['Estado', 'Cancelada']], ['Tarjeta', 'Importe en divisa', 'Divisa'], '#,##0.00 "US$"', 'dd/mm/yyyy', letterhead('NIF:', 'Tel.', 'Folio n.º 7001', 'Pagos', 'Saldo pendiente')],
    ['pt', [['Hóspede', 'Maria Gómez'], ['Chegada', new Date('2026-11-20')], ['Partida', new Date('2026-11-23')], ['Noites', 3], ['Quartos', '101 · Double Deluxe, 102'], ['Hóspedes', '2 adultos, 1 criança'], ['Estado', 'Cancelada']], ['Cartão', 'Valor em divisa', 'Divisa'], '#,##0.00 "US$"', 'dd/mm/yyyy', letterhead('NIF:', 'Tel.', 'Fólio n.º 7001', 'Pagamentos', 'Saldo em dívida')],
    ['fr', [['Client', 'Maria Gómez'], ['Arrivée', new Date('2026-11-20')], ['Départ', new Date('2026-11-23')], ['Nuits', 3], ['Chambres', '101 · Double Deluxe, 102'], ['Personnes', '2 adultes, 1 enfant'], ['Statut', 'Annulée']], ['Carte', 'Montant en devise', 'Devise'], '#,##0.00 "$US"', 'dd/mm/yyyy', letterhead('N° TVA :', 'Tél.', 'Folio n° 7001', 'Paiements', 'Solde dû')],
    ['de', [['Gast', 'Maria Gómez'], ['Anreise', new Date('2026-11-20')], ['Abreise', new Date('2026-11-23')], ['Nächte', 3], ['Zimmer', '101 · Double Deluxe, 102'], ['Gäste', '2 Erwachsene, 1 Kind'], ['Status', 'Storniert']], ['Karte', 'Fremdwährungsbetrag', 'Fremdwährung'], '#,##0.00 "$"', 'dd.mm.yyyy', letterhead('USt-IdNr.:', 'Tel.', 'Folio-Nr. 7001', 'Zahlungen', 'Offener Betrag')],
  ])('writes the stay, the card and the foreign tender in %s', async (language, stay, headers, usdFormat, dateFormat, head) => {
    const sheet = await sheetOf(language, STAY);
    const pairs = headerPairs(sheet);
    // The hotel's letterhead, the source and the folio number, then the stay in this order.
    expect(pairs.slice(0, 6)).toEqual([
      ['Hotel Miramar', null],
      ['Paseo Marítimo 1, 29016 Málaga', null],
      [head.taxId, null],
      [head.contact, null],
      [translator(language)('source'), `${translator(language)('source.RESERVATION')} RES-4001`],
      [head.folioNumber, null],
    ]);
    const guest = pairs.findIndex(([label]) => label === stay[0]![0]);
    expect(guest).toBe(6);
    expect(pairs.slice(guest, guest + stay.length)).toEqual(stay);
    const arrival = sheet.getRow(guest + 2).getCell(2);
    expect([arrival.type, arrival.numFmt]).toEqual([ExcelJS.ValueType.Date, dateFormat]);

    // The column header row: the one whose column N holds the foreign-currency label.
    let header = 0;
    for (let r = 1; r <= sheet.rowCount; r += 1) if (sheet.getRow(r).getCell(14).value === headers[2]) header = r;
    expect(sheet.getRow(header).getCell(5).value).toBe(translator(language)('column.description'));
    expect([12, 13, 14].map((c) => sheet.getRow(header).getCell(c).value)).toEqual(headers);

    const card = rowOf(sheet, 'Card payment');
    expect([8, 12, 13, 14].map((c) => card.getCell(c).value)).toEqual([-100, 'Visa •••• 1111', -108.5, 'USD']);
    expect(card.getCell(13).numFmt).toBe(usdFormat);
    const amex = rowOf(sheet, 'Amex payment');
    expect([12, 13, 14].map((c) => amex.getCell(c).value ?? null)).toEqual(['American Express', null, null]);
    const charge = rowOf(sheet, 'Room night');
    expect([12, 13, 14].map((c) => charge.getCell(c).value ?? null)).toEqual([null, null, null]);

    // Payments negative, as their rows are; the balance the guest owes under its label.
    let payments = 0;
    for (let r = 1; r <= sheet.rowCount; r += 1) if (sheet.getRow(r).getCell(1).value === head.payments) payments = r;
    expect(payments).toBeGreaterThan(0);
    const balance = sheet.getRow(payments + 1);
    expect([sheet.getRow(payments).getCell(8).result, balance.getCell(1).result, balance.getCell(8).result]).toEqual([-120, head.balanceDue, 180]);
  });

  it('writes no stay rows without a stay', async () => {
    const sheet = await sheetOf('en');
    const labels = headerPairs(sheet).map(([label]) => label);
    expect(labels).toEqual([
      'Hotel Miramar', 'Paseo Marítimo 1, 29016 Málaga', 'Tax ID: ESB29123456', 'Tel. +34 952 000 000 · reservas@miramar.example · miramar.example',
      'Source', 'Folio no. 7001', 'Generated 22/11/2026, 10:15',
    ]);
  });
});
