import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TFolioDocument, TRenderedFile } from '@folio-vault/shared/exports/folio-document';
import type { TLanguage } from '@folio-vault/shared/i18n/languages';
import { paginate } from '@folio-vault/worker/exports/pdf/paginate';
// A relative import: the worker's package exports map "./*" to "./src/*.ts", and this module is .tsx.
import { renderFolioPdf } from '../apps/worker/src/exports/pdf/folio-pdf.js';
import { documentFolio, documentRow, documentRows, folioDocument, totals } from '@folio-vault/test-kit/folio-document';

/**
 * Renders real PDFs and reads them back with poppler (pdftotext -layout, pdfinfo): what a reader of
 * the file sees, not what the components meant to draw.
 */
const run = promisify(execFile);
let dir: string;
let counter = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fv-pdf-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface TRead extends TRenderedFile {
  text: string;
  lines: string[];
  pdfPages: number;
  /** Every page's size as pdfinfo prints it, e.g. "595.28 x 841.89 pts (A4)". */
  pageSizes: string[];
}

/** No-break and narrow no-break spaces (fr, de money) read back as spaces. */
const normalize = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

async function renderAndRead(document: TFolioDocument): Promise<TRead> {
  counter += 1;
  const file = join(dir, `folio-${counter}.pdf`);
  const rendered = await renderFolioPdf(document, file);
  const { stdout: text } = await run('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { maxBuffer: 64 << 20 });
  const { stdout: info } = await run('pdfinfo', ['-f', '1', '-l', '9999', file]);
  const pdfPages = Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]);
  const pageSizes = [...info.matchAll(/^Page\s+\d+ size:\s+(.+)$/gm)].map((match) => match[1]!.trim());
  const normalized = normalize(text);
  return { ...rendered, text: normalized, lines: normalized.split('\n'), pdfPages, pageSizes };
}

const lineWith = (read: TRead, needle: string) => read.lines.find((line) => line.includes(needle));

describe('folio PDF', () => {
  it('shows the rows in order with void and pending rows marked', async () => {
    const rows = documentRows(8);
    rows[2] = documentRow(2, { voided: true });
    rows[5] = documentRow(5, { pending: true });
    const read = await renderAndRead(folioDocument({ folios: [documentFolio('1', rows, { name: 'Main' })] }));

    expect(read).toMatchObject({ pages: 1, rows: 8, pdfPages: 1, pageSizes: ['595.28 x 841.89 pts (A4)'] });
    const positions = rows.map((row) => read.text.indexOf(row.description));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(lineWith(read, 'Row 00002 charge')).toMatch(/VOID\s*$/);
    expect(lineWith(read, 'Row 00005 charge')).toMatch(/PENDING\s*$/);
    for (const i of [0, 1, 3, 4, 6, 7]) expect(lineWith(read, `Row 0000${i} charge`)).not.toMatch(/VOID|PENDING/);
    // Header: property, source, title, column labels.
    expect(read.text).toContain('Hotel Miramar');
    expect(read.text).toContain('Paseo Marítimo 1, 29016 Málaga');
    expect(read.text).toContain('Reservation RES-4001');
    expect(read.text).toMatch(/Date and time\s+Service date\s+Code\s+Description\s+Notes\s+Qty\s+Amount\s+Status/);
    expect(read.text).toContain('Folio: Main');
  });

  it('has no filters line when nothing narrows the export, and every applied filter on one line', async () => {
    const plain = await renderAndRead(folioDocument({ rows: 1 }));
    expect(plain.text).not.toContain('Filters');
    expect(plain.text).not.toContain('none');

    const filtered = await renderAndRead(
      folioDocument({
        rows: 1,
        filters: {
          dateFrom: '2026-11-01',
          dateTo: '2026-11-30',
          posted: true,
          includeVoided: false,
          descriptionFilters: ['ROOM_REVENUE'],
          searchQuery: 'bar',
          subSourceIds: ['101'],
          creditDebitView: false,
          revenueCompact: true,
        },
      }),
    );
    expect(lineWith(filtered, 'Filters:')).toContain(
      'Filters: from 01/11/2026 · to 30/11/2026 · posted only · voided transactions left out · types: ROOM_REVENUE · search "bar" · rooms: 101 · room revenue compacted',
    );
  });

  it.each([
    ['taxId', 'Tax ID: B12345678', 'Document number'],
    ['documentNumber', 'Document number: B12345678', 'Tax ID'],
  ] as const)('shows the recipient block with the tax number labelled as %s', async (taxLabel, expected, absent) => {
    const read = await renderAndRead(
      folioDocument({ rows: 2, recipient: { type: 'GUEST', name: 'Maria Gómez', address: 'Calle Mayor 5, 28013 Madrid', taxLabel, taxNumber: 'B12345678' } }),
    );
    expect(read.text).toContain('Bill to');
    expect(read.text).toContain('Maria Gómez');
    expect(read.text).toContain('Calle Mayor 5, 28013 Madrid');
    expect(read.text).toContain(expected);
    expect(read.text).not.toContain(absent);
  });

  it('has no recipient block without a recipient', async () => {
    const read = await renderAndRead(folioDocument({ rows: 1 }));
    expect(read.text).not.toContain('Bill to');
  });

  it('shows totals per folio, the totals of all folios, and creditDebitView subtotals', async () => {
    const read = await renderAndRead(
      folioDocument({
        folios: [
          {
            id: '1',
            name: 'Guest',
            sections: [
              { kind: 'debits', rows: documentRows(3, 0), subtotal: '1234.56' },
              { kind: 'credits', rows: [documentRow(3, { amount: '-200.00' })], subtotal: '-200.00' },
            ],
            totals: totals('1234.56', '200.00', '1034.56'),
          },
          { id: '2', name: 'Company', sections: [{ kind: 'debits', rows: [], subtotal: '0.00' }, { kind: 'credits', rows: [], subtotal: '0.00' }], totals: totals('0.00', '0.00', '0.00') },
        ],
        grandTotals: totals('1234.56', '200.00', '1034.56'),
      }),
    );
    expect(read.text).toMatch(/Debits\n/);
    expect(read.text).toMatch(/Subtotal of debits\s+€1,234\.56/);
    // The credits' subtotal and the payments total carry the same sign: payments move the balance down.
    expect(read.text).toMatch(/Subtotal of credits\s+-€200\.00/);
    expect(lineWith(read, 'Payments')).toMatch(/Payments\s+-€200\.00$/);
    expect(read.text).toContain('No transactions match the filters.');
    const guest = read.text.indexOf('Totals of folio Guest');
    const company = read.text.indexOf('Totals of folio Company');
    const all = read.text.indexOf('Totals of all folios');
    expect(guest).toBeGreaterThan(0);
    expect(company).toBeGreaterThan(guest);
    expect(all).toBeGreaterThan(company);
    const grand = read.text.slice(all);
    expect(grand).toMatch(/Charges\s+€1,234\.56/);
    expect(grand).toMatch(/Payments\s+-€200\.00/);
    expect(grand).toMatch(/Balance due\s+€1,034\.56/);
    // A folio that owes nothing says "Balance".
    expect(read.text.slice(company, all)).toMatch(/\n\s+Balance\s+€0\.00/);
  });

  // A row at 2026-11-21T23:30:00Z is 22 November, 00:30 in Madrid. Money as Intl (CLDR) writes it:
  // es and pt do not group a four-digit amount ("1234,56 €"), so a five-digit one shows the grouping.
  // Dates carry four-digit years in every language (the short style of es, pt and de has two).
  it.each<[TLanguage, { page: string; generated: string; datetime: string; serviceDate: string; money: string[]; labels: string[]; due: string; credit: string }]>([
    ['en', { page: 'Page 1 of 1', generated: 'Generated 22/11/2026, 10:15', datetime: '22/11/2026, 00:30', serviceDate: '21/11/2026', money: ['€1,234.56', '€12,345.67'], labels: ['Date and time', 'Amount', 'VOID'], due: 'Balance due €1,234.56', credit: 'Credit €12.50' }],
    ['es', { page: 'Página 1 de 1', generated: 'Generado el 22/11/2026, 10:15', datetime: '22/11/2026, 00:30', serviceDate: '21/11/2026', money: ['1234,56 €', '12.345,67 €'], labels: ['Fecha y hora', 'Importe', 'ANULADO'], due: 'Saldo pendiente 1234,56 €', credit: 'Saldo a favor 12,50 €' }],
    ['pt', { page: 'Página 1 de 1', generated: 'Gerado em 22/11/2026, 10:15', datetime: '22/11/2026, 00:30', serviceDate: '21/11/2026', money: ['1234,56 €', '12 345,67 €'], labels: ['Data e hora', 'Valor', 'ANULADO'], due: 'Saldo em dívida 1234,56 €', credit: 'Saldo a favor 12,50 €' }],
    ['fr', { page: 'Page 1 sur 1', generated: 'Généré le 22/11/2026 10:15', datetime: '22/11/2026 00:30', serviceDate: '21/11/2026', money: ['1 234,56 €', '12 345,67 €'], labels: ['Date et heure', 'Montant', 'ANNULÉ'], due: 'Solde dû 1 234,56 €', credit: 'Solde en votre faveur 12,50 €' }],
    ['de', { page: 'Seite 1 von 1', generated: 'Erstellt am 22.11.2026, 10:15', datetime: '22.11.2026, 00:30', serviceDate: '21.11.2026', money: ['1.234,56 €', '12.345,67 €'], labels: ['Datum und', 'Betrag', 'STORNIERT'], due: 'Offener Betrag 1.234,56 €', credit: 'Guthaben 12,50 €' }],
  ])('speaks %s: labels, page X of Y, dates in the property time zone, money, the balance by its sign', async (language, expected) => {
    const read = await renderAndRead(
      folioDocument({
        language,
        folios: [
          documentFolio(
            '1',
            [
              documentRow(0, { transactionDatetime: '2026-11-21T23:30:00Z', serviceDate: '2026-11-21', amount: '1234.56' }),
              documentRow(1, { amount: '12345.67', voided: true }),
            ],
            { totals: totals('1234.56', '0', '1234.56') },
          ),
          documentFolio('2', [documentRow(2, { amount: '-12.50' })], { totals: totals('0', '12.50', '-12.50') }),
        ],
      }),
    );
    expect(read.text).toContain(expected.page);
    expect(read.text).toContain(`${expected.generated} (Europe/Madrid)`);
    const first = lineWith(read, 'Row 00000 charge')!;
    expect(first.trim().replace(/\s{2,}/g, ' ').startsWith(`${expected.datetime} ${expected.serviceDate}`)).toBe(true);
    expect(read.text).not.toMatch(/\b\d{2}[./]\d{2}[./]\d{2}\b(?![./]?\d)/);
    // What the guest owes is "balance due"; what the hotel owes the guest a credit, without a minus.
    expect(read.lines.map((line) => line.trim().replace(/\s{2,}/g, ' '))).toEqual(expect.arrayContaining([expected.due, expected.credit]));
    expect(first).toContain(expected.money[0]);
    expect(lineWith(read, 'Row 00001 charge')).toContain(expected.money[1]);
    for (const label of expected.labels) expect(read.text).toContain(label);
  });

  it("heads the document with the hotel's tax id and contact details and the folio number", async () => {
    const property = {
      name: 'Hotel Miramar Lisboa',
      address: 'Rua da Prata 12, 1100-419 Lisboa, Portugal',
      taxId: 'PT509123456',
      phone: '+351 21 000 0000',
      email: 'reservas@miramar-lisboa.example',
      website: 'https://miramar-lisboa.example/',
    };
    const read = await renderAndRead(folioDocument({ property, folios: [documentFolio('7001', documentRows(2), { name: 'Main' })] }));
    // The header's two sides share lines in the text layout: each part is matched where it stands.
    const head = read.lines.slice(0, 8).join('\n');
    expect(head).toMatch(/^Hotel Miramar Lisboa\s+Folio$/m);
    expect(head).toMatch(/^Rua da Prata 12, 1100-419 Lisboa, Portugal(\s{2}|$)/m);
    expect(head).toMatch(/^Tax ID: PT509123456(\s{2}|$)/m);
    // The contact line: a web address without its scheme, as people write it.
    expect(head).toMatch(/^Tel\. \+351 21 000 0000 · reservas@miramar-lisboa\.example · miramar-lisboa\.example(\s{2}|$)/m);
    expect(head).toMatch(/\s{2}Folio no\. 7001$/m);
    const es = await renderAndRead(folioDocument({ language: 'es', property, folios: [documentFolio('7001', [], { name: 'A' }), documentFolio('7002', [], { name: 'B' })] }));
    expect(es.text).toContain('NIF: PT509123456');
    expect(es.text).toContain('Folio n.º 7001, 7002');
    // Without them, the header has the name and address alone.
    const bare = await renderAndRead(folioDocument({ rows: 1 }));
    expect(bare.text).not.toMatch(/Tax ID|Tel\./);
  });

  it('sums the taxes per rate under the totals: net, tax and gross', async () => {
    const read = await renderAndRead(
      folioDocument({
        folios: [
          documentFolio('1', documentRows(3), {
            totals: totals('346.40', '100.00', '246.40'),
            taxes: [
              { label: 'VAT 10%', net: '316', tax: '31.6', gross: '347.6' },
              { label: 'VAT 23%', tax: '4.6' },
            ],
          }),
        ],
      }),
    );
    const summary = read.text.slice(read.text.indexOf('Tax summary'));
    expect(read.text.indexOf('Tax summary')).toBeGreaterThan(read.text.indexOf('Balance due'));
    expect(summary).toMatch(/Rate\s+Net\s+Tax\s+Gross/);
    expect(summary).toMatch(/VAT 10%\s+€316\.00\s+€31\.60\s+€347\.60/);
    // A net the document cannot know (its taxed rows filtered out) is a dash, not a zero.
    expect(summary).toMatch(/VAT 23%\s+—\s+€4\.60\s+—/);
    const plain = await renderAndRead(folioDocument({ rows: 2 }));
    expect(plain.text).not.toContain('Tax summary');
  });

  it('wraps a long note within its column, every word shown, the next row below it', async () => {
    const note = 'Posted to the wrong room, moved to 102 by the night manager after the guest called';
    const read = await renderAndRead(
      folioDocument({ folios: [documentFolio('1', [documentRow(0, { notes: note }), documentRow(1, { notes: 'Posted to the wrong room' }), documentRow(2, { notes: undefined })])] }),
    );
    expect(read.text).not.toContain('…');
    const at = read.lines.findIndex((line) => line.includes('Row 00000 charge'));
    // The note's lines under one another in the notes column, then the next row.
    const noteColumn = read.lines[at]!.indexOf('Posted');
    const noteLines: string[] = [];
    for (let i = at; i < read.lines.length && !read.lines[i]!.includes('Row 00001'); i += 1) {
      const text = read.lines[i]!.slice(noteColumn).trim().replace(/\s{2,}.*$/, '');
      if (text) noteLines.push(text);
    }
    expect(noteLines.length).toBeGreaterThan(1);
    expect(noteLines.join(' ')).toBe(note);
    expect(lineWith(read, 'Row 00001 charge')).toMatch(/Row 00001 charge\s+Posted to the wrong room\s+1/);
  });

  it('renders names and descriptions in any script', async () => {
    const read = await renderAndRead(
      folioDocument({
        property: { name: 'Гостиница Москва', address: 'Θεσσαλονίκη · Hà Nội' },
        recipient: { type: 'GUEST', name: '王小明', taxLabel: 'documentNumber', taxNumber: 'E1234' },
        folios: [
          documentFolio('1', [
            documentRow(0, { description: 'Анна Петрова', notes: 'محمد علي' }),
            documentRow(1, { description: '王小明 客房', notes: 'Nguyễn Văn An' }),
          ]),
        ],
      }),
    );
    for (const text of ['Гостиница Москва', 'Θεσσαλονίκη · Hà Nội', '王小明', 'Анна Петрова', 'محمد علي', '王小明 客房', 'Nguyễn Văn An']) {
      expect(read.text).toContain(text);
    }
  });

  it('renders 1,000 rows on the number of pages paginate() planned, "Page X of N" on each', async () => {
    const document = folioDocument({ rows: 1000 });
    const planned = paginate(document).pages.length;
    const read = await renderAndRead(document);
    expect(read).toMatchObject({ rows: 1000, pages: planned, pdfPages: planned });
    // Every page is a full A4 sheet, however little the last one holds.
    expect(read.pageSizes).toHaveLength(planned);
    expect(new Set(read.pageSizes)).toEqual(new Set(['595.28 x 841.89 pts (A4)']));
    const pageMarks = read.text.match(/Page \d+ of \d+/g) ?? [];
    expect(pageMarks).toEqual(Array.from({ length: planned }, (_, i) => `Page ${i + 1} of ${planned}`));
    const shown = read.text.match(/Row \d{5} charge/g) ?? [];
    expect(shown).toEqual(Array.from({ length: 1000 }, (_, i) => `Row ${String(i).padStart(5, '0')} charge`));
    expect(read.text).toContain('Folio: Main (continued)');
  });
});
