import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TDocumentRow, TDocumentStay, TFolioDocument } from '@folio-vault/shared/exports/folio-document';
import type { TLanguage } from '@folio-vault/shared/i18n/languages';
import { paginate } from '@folio-vault/worker/exports/pdf/paginate';
// A relative import: the worker's package exports map "./*" to "./src/*.ts", and this module is .tsx.
import { renderFolioPdf } from '../apps/worker/src/exports/pdf/folio-pdf.js';
import { documentFolio, documentRow, documentRows, folioDocument } from '@folio-vault/test-kit/folio-document';

/**
 * The stay block and the payments' detail line (card, foreign tender) of the folio PDF, rendered
 * for real and read back with poppler (pdftotext -layout), in every export language.
 */
const run = promisify(execFile);
let dir: string;
let counter = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fv-pdf-stay-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** No-break and narrow no-break spaces (fr, de money and labels) read back as spaces. */
const normalize = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

async function renderAndRead(document: TFolioDocument): Promise<{ text: string; lines: string[]; pages: number; pdfPages: number }> {
  counter += 1;
  const file = join(dir, `stay-${counter}.pdf`);
  const rendered = await renderFolioPdf(document, file);
  const { stdout } = await run('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { maxBuffer: 64 << 20 });
  const { stdout: info } = await run('pdfinfo', [file]);
  const text = normalize(stdout);
  // Lines with text only: pdftotext may put a blank line where rows are spaced unevenly.
  const lines = text.split('\n').map((line) => line.trim()).filter((line) => line !== '');
  return { text, lines, pages: rendered.pages, pdfPages: Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]) };
}

const STAY: TDocumentStay = {
  guestName: 'Maria Gómez',
  checkinDate: '2026-11-20',
  checkoutDate: '2026-11-23',
  nights: 3,
  rooms: [
    { name: '101', type: 'Double Deluxe' },
    { name: '102', type: 'Single' },
  ],
  adults: 2,
  children: 1,
  status: 'checked_out',
};

/** A charge, a Visa payment of 100.00 € tendered as 108.50 US$, and a card payment without a brand. */
function paidRows(): TDocumentRow[] {
  return [
    documentRow(0, { description: 'Room night', amount: '300.00', notes: undefined }),
    documentRow(1, { code: 'PAY-VIS', description: 'Card payment', notes: undefined, amount: '-100.00', card: { brand: 'visa', lastFour: '1111' }, foreign: { amount: '-108.50', currency: 'USD' } }),
    documentRow(2, { code: 'PAY-CASH', description: 'Cash payment', notes: undefined, amount: '-50.00' }),
  ];
}

describe('the stay block', () => {
  it.each<[TLanguage, { stay: string[]; payment: string; detail: [string, string] }]>([
    [
      'en',
      {
        stay: ['Guest: Maria Gómez', 'Arrival: 20/11/2026 · Departure: 23/11/2026 · 3 nights', 'Rooms: 101 · Double Deluxe, 102 · Single', 'Guests: 2 adults, 1 child · Status: Checked out'],
        payment: '-€100.00',
        detail: ['Visa •••• 1111', '(-US$108.50)'],
      },
    ],
    [
      'es',
      {
        stay: ['Huésped: Maria Gómez', 'Llegada: 20/11/2026 · Salida: 23/11/2026 · 3 noches', 'Habitaciones: 101 · Double Deluxe, 102 · Single', 'Huéspedes: 2 adultos, 1 niño · Estado: Salida realizada'],
        payment: '-100,00 €',
        detail: ['Visa •••• 1111', '(-108,50 US$)'],
      },
    ],
    [
      'pt',
      {
        stay: ['Hóspede: Maria Gómez', 'Chegada: 20/11/2026 · Partida: 23/11/2026 · 3 noites', 'Quartos: 101 · Double Deluxe, 102 · Single', 'Hóspedes: 2 adultos, 1 criança · Estado: Saída efetuada'],
        payment: '-100,00 €',
        detail: ['Visa •••• 1111', '(-108,50 US$)'],
      },
    ],
    [
      'fr',
      {
        stay: ['Client : Maria Gómez', 'Arrivée : 20/11/2026 · Départ : 23/11/2026 · 3 nuits', 'Chambres : 101 · Double Deluxe, 102 · Single', 'Personnes : 2 adultes, 1 enfant · Statut : Départ effectué'],
        payment: '-100,00 €',
        detail: ['Visa •••• 1111', '(-108,50 $US)'],
      },
    ],
    [
      'de',
      {
        stay: ['Gast: Maria Gómez', 'Anreise: 20.11.2026 · Abreise: 23.11.2026 · 3 Nächte', 'Zimmer: 101 · Double Deluxe, 102 · Single', 'Gäste: 2 Erwachsene, 1 Kind · Status: Abgereist'],
        payment: '-100,00 €',
        detail: ['Visa •••• 1111', '(-108,50 $)'],
      },
    ],
  ])('shows the stay, the card and both amounts of a foreign tender in %s', async (language, expected) => {
    const read = await renderAndRead(folioDocument({ language, stay: STAY, folios: [documentFolio('1', paidRows(), { name: 'Main' })] }));
    // The four lines of the block, in order, under the header and before the folio's heading.
    const at = expected.stay.map((line) => read.lines.indexOf(line));
    expect(at.every((index) => index > 0), JSON.stringify(read.lines.slice(0, 12))).toBe(true);
    expect(at).toEqual([at[0]!, at[0]! + 1, at[0]! + 2, at[0]! + 3]);
    expect(read.lines.findIndex((line) => line.includes('Maria Gómez'))).toBeLessThan(read.lines.findIndex((line) => /^F[oó]lio ?: Main$/.test(line)));

    const payment = read.lines.findIndex((line) => line.includes('Card payment'));
    expect(read.lines[payment]).toMatch(new RegExp(`${expected.payment.replace(/[$.]/g, '\\$&')}$`));
    // The detail line under the payment: the card under the description, the tender under the amount.
    expect(read.lines[payment + 1]).toMatch(new RegExp(`^${expected.detail[0]}\\s+${expected.detail[1].replace(/[()$.]/g, '\\$&')}$`));
    // The cash payment has no detail line: the next line is its own.
    const cash = read.lines.findIndex((line) => line.includes('Cash payment'));
    expect(cash).toBe(payment + 2);
    expect(read.text.match(/••••/g)).toHaveLength(1);
  });

  it('has no stay block without a stay, and leaves out rooms and guests the stay does not know', async () => {
    const plain = await renderAndRead(folioDocument({ rows: 2 }));
    expect(plain.text).not.toMatch(/Guest:|Arrival:|Status:/);

    const bare = await renderAndRead(folioDocument({ stay: { ...STAY, rooms: [], adults: undefined, children: undefined, nights: 1, status: 'no_show' }, rows: 1 }));
    expect(bare.lines).toContain('Arrival: 20/11/2026 · Departure: 23/11/2026 · 1 night');
    expect(bare.lines).toContain('Status: No-show');
    expect(bare.text).not.toMatch(/Rooms?:|Guests:/);
  });

  it('names the brand alone without the last four, and an unknown brand as given, capitalised', async () => {
    const read = await renderAndRead(
      folioDocument({
        folios: [
          documentFolio('1', [
            documentRow(0, { description: 'Amex payment', notes: undefined, amount: '-10.00', card: { brand: 'amex' } }),
            documentRow(1, { description: 'Elo payment', notes: undefined, amount: '-20.00', card: { brand: 'elo', lastFour: '4242' } }),
            documentRow(2, { description: 'Tendered in yen', notes: undefined, amount: '-30.00', foreign: { amount: '-4900', currency: 'JPY' } }),
          ]),
        ],
      }),
    );
    const after = (needle: string) => read.lines[read.lines.findIndex((line) => line.includes(needle)) + 1];
    expect(after('Amex payment')).toBe('American Express');
    expect(after('Elo payment')).toBe('Elo •••• 4242');
    expect(after('Tendered in yen')).toBe('(-JP¥4,900)');
  });

  it('renders a long stay folio with payment details on the pages paginate() planned, every row once', async () => {
    const rows = documentRows(400).map((row, index) =>
      index % 7 === 3 ? { ...row, amount: '-12.00', card: { brand: 'master', lastFour: '4444' }, ...(index % 2 ? { foreign: { amount: '-13.00', currency: 'USD' } } : {}) } : row,
    );
    const document = folioDocument({ stay: STAY, recipient: { type: 'GUEST', name: 'Maria Gómez', taxLabel: 'taxId', taxNumber: 'B1' }, folios: [documentFolio('1', rows, { name: 'Main' })] });
    const planned = paginate(document).pages.length;
    const read = await renderAndRead(document);
    expect(read).toMatchObject({ pages: planned, pdfPages: planned });
    expect(read.text.match(/Row \d{5} charge/g)).toEqual(rows.map((row) => row.description));
    expect(read.text.match(/Mastercard •••• 4444/g)).toHaveLength(rows.filter((row) => row.card).length);
    expect(read.text.match(/\(-US\$13\.00\)/g)).toHaveLength(rows.filter((row) => row.foreign).length);
    expect(read.text.match(/Page \d+ of \d+/g)).toEqual(Array.from({ length: planned }, (_, i) => `Page ${i + 1} of ${planned}`));
  });
});
