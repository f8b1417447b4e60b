import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import ExcelJS from 'exceljs';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TRunningWorker } from '@folio-vault/worker/worker';
import { generatedPan } from '@folio-vault/test-kit/cards';
import { PROPERTY_1, PROPERTY_2, importOk } from './support/ledger-fixture.js';
import { createWorld, startTestWorker, type TWorld } from './support/world.js';
import { binaryBody } from './support/binary-body.js';

/**
 * The folio export through HTTP (docs/export.md): the file answered inline, validation, references,
 * access, every filter as it shows in the PDF (read back with poppler's pdftotext), languages, the
 * 202 path with its status and file endpoints, and identical requests in flight sharing one export.
 *
 * Two worlds: `world` has a worker (files come back inline); `idle` starts without one, so exports
 * stay queued until the test starts a worker of its own.
 */
const run = promisify(execFile);
const EXPORT = '/fiscal-document/v1/folios/export';
const ALIAS = '/fiscal-document/v1/folio-export/pdf';
const STATUS = '/fiscal-document/v1/folios/exports';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// --- the ledger: property 1 (Europe/Madrid, EUR; UTC+1 in November) ---

const SOURCE = '8001';
const GUEST_FOLIO = '801';
const COMPANY_FOLIO = '802';
const HOUSE_ACCOUNT = '9001';
const HOUSE_FOLIO = '901';
/** A reservation of property 2 only. */
const OTHER_PROPERTY_SOURCE = '8500';

interface TRow {
  id: string;
  folio: string;
  at: string;
  service: string;
  code: string;
  group: string;
  description: string;
  amount: string;
  origin?: string;
  pm?: string;
  sub?: '7001' | '7002';
  posted?: boolean;
  parent?: string;
  isVoid?: boolean;
  notes?: string;
}

/**
 * Reservation 8001. Rows 8101–8103 share an instant (default order: by id, so the VAT line comes
 * before the rate it was posted against). Around local midnight: 8107 is 23:59 on the 21st, 8108
 * 00:30 on the 22nd (23:30Z on the 21st), 8112 23:59:59 on the 22nd, 8113 00:00 on the 23rd.
 */
const ROWS: TRow[] = [
  { id: '8101', folio: GUEST_FOLIO, at: '2026-11-20T14:00:00Z', service: '2026-11-20', code: 'VAT10', group: 'TAX', origin: '4', description: 'Night one VAT', amount: '10.00', sub: '7001', parent: '8103' },
  { id: '8102', folio: GUEST_FOLIO, at: '2026-11-20T14:00:00Z', service: '2026-11-20', code: 'CITY', group: 'FEE', origin: '9', description: 'Night one city tax', amount: '2.50', parent: '8103' },
  { id: '8103', folio: GUEST_FOLIO, at: '2026-11-20T14:00:00Z', service: '2026-11-20', code: 'RR-DLX', group: 'ROOM_REVENUE_RATE', description: 'Night one rate', amount: '100.00', sub: '7001' },
  { id: '8104', folio: GUEST_FOLIO, at: '2026-11-21T14:00:00Z', service: '2026-11-21', code: 'RR-DLX', group: 'ROOM_REVENUE_RATE', description: 'Night two rate', amount: '90.00', sub: '7001' },
  { id: '8105', folio: GUEST_FOLIO, at: '2026-11-21T14:00:00Z', service: '2026-11-21', code: 'VAT10', group: 'TAX', origin: '4', description: 'Night two VAT', amount: '9.00', sub: '7001', parent: '8104' },
  { id: '8106', folio: GUEST_FOLIO, at: '2026-11-21T14:00:00Z', service: '2026-11-21', code: 'CITY', group: 'FEE', origin: '9', description: 'Night two city tax', amount: '2.50', parent: '8104' },
  { id: '8107', folio: GUEST_FOLIO, at: '2026-11-21T22:59:00Z', service: '2026-11-21', code: 'MINI', group: 'ITEM_SERVICE', origin: '123', description: 'Minibar water', amount: '3.00', sub: '7001' },
  { id: '8108', folio: GUEST_FOLIO, at: '2026-11-21T23:30:00Z', service: '2026-11-21', code: 'BAR', group: 'ITEM_SERVICE', origin: '124', description: 'Late bar snack', amount: '8.40', sub: '7002' },
  { id: '8109', folio: GUEST_FOLIO, at: '2026-11-22T10:00:00Z', service: '2026-11-22', code: 'SPA', group: 'ITEM_SERVICE', origin: '125', description: 'Spa treatment', amount: '45.00', posted: false, notes: 'awaiting approval' },
  { id: '8110', folio: GUEST_FOLIO, at: '2026-11-22T11:00:00Z', service: '2026-11-22', code: 'RS', group: 'ITEM_SERVICE', origin: '126', description: 'Room service order', amount: '25.00', sub: '7001' },
  { id: '8111', folio: GUEST_FOLIO, at: '2026-11-22T11:30:00Z', service: '2026-11-22', code: 'RS', group: 'ITEM_SERVICE', origin: '126', description: 'Room service correction', amount: '-25.00', sub: '7001', parent: '8110', isVoid: true, notes: 'wrong room' },
  { id: '8112', folio: GUEST_FOLIO, at: '2026-11-22T22:59:59Z', service: '2026-11-22', code: 'PARK', group: 'ITEM_SERVICE', origin: '127', description: 'Parking garage', amount: '15.00', sub: '7002' },
  { id: '8113', folio: GUEST_FOLIO, at: '2026-11-22T23:00:00Z', service: '2026-11-23', code: 'BRK', group: 'ADDON', origin: '55', description: 'Breakfast buffet', amount: '30.00', sub: '7002' },
  { id: '8114', folio: GUEST_FOLIO, at: '2026-11-23T09:00:00Z', service: '2026-11-23', code: 'PAY-CASH', group: 'PAYMENT', pm: 'cash', description: 'Payment cash', amount: '-100.00' },
  { id: '8201', folio: COMPANY_FOLIO, at: '2026-11-21T12:00:00Z', service: '2026-11-21', code: 'MEET', group: 'SPACE', origin: '88', description: 'Meeting room Ωμέγα', amount: '12345.67' },
  { id: '8202', folio: COMPANY_FOLIO, at: '2026-11-23T10:00:00Z', service: '2026-11-23', code: 'PAY-VIS', group: 'PAYMENT', pm: 'cards_visa', description: 'Payment Visa', amount: '-2345.67' },
];
const DESCRIPTIONS = ROWS.map((row) => row.description);
const described = (...ids: string[]) => ids.map((id) => ROWS.find((row) => row.id === id)!.description);
/** Every row of the reservation in the default order: transaction_datetime ASC, then id (folio 801 first). */
const DEFAULT_ORDER = described('8101', '8102', '8103', '8104', '8105', '8106', '8107', '8108', '8109', '8110', '8111', '8112', '8113', '8114', '8201', '8202');
const ROOMS = { '7001': '101', '7002': '102' } as const;

function transaction(row: TRow, sourceKind = 'RESERVATION', sourceId = SOURCE) {
  return {
    id: row.id,
    folioId: row.folio,
    sourceKind,
    sourceId,
    sourceIdentifier: sourceKind === 'RESERVATION' ? `RES-${sourceId}` : undefined,
    ...(row.sub ? { subSourceId: row.sub, subSourceIdentifier: ROOMS[row.sub] } : {}),
    transactionDatetime: row.at,
    serviceDate: row.service,
    internalTransactionCode: row.code,
    internalCodeGroup: row.group,
    ...(row.origin ? { originId: row.origin } : {}),
    ...(row.pm ? { paymentMethod: row.pm } : {}),
    description: row.description,
    ...(row.notes ? { notes: row.notes } : {}),
    quantity: '1',
    amount: row.amount,
    currency: 'EUR',
    posted: row.posted ?? true,
    ...(row.parent ? { parentId: row.parent } : {}),
    ...(row.isVoid ? { isVoid: true } : {}),
  };
}

/** Property 1 with the hotel's tax id and contact details, which head its folios. */
const HOTEL = { ...PROPERTY_1, taxId: 'ESB28000001', phone: '+34 910 000 000', email: 'recepcion@solmadrid.example', website: 'https://solmadrid.example' };

const GUEST = { type: 'GUEST', id: '900', name: 'Zoë Łukasiewicz', address: 'Rua Augusta 10, 1100-053 Lisboa', taxId: 'PT123456789', documentNumber: 'X1234567Z' };

async function importLedger(w: TWorld, token: string): Promise<void> {
  await importOk(w, token, 1, {
    property: HOTEL,
    recipients: [GUEST, { type: 'COMPANY', id: '950', name: 'ACME Hoteles S.L.', taxId: 'B12345678' }],
    folios: [
      { id: GUEST_FOLIO, sourceKind: 'RESERVATION', sourceId: SOURCE, sourceIdentifier: `RES-${SOURCE}`, name: 'Guest folio' },
      { id: COMPANY_FOLIO, sourceKind: 'RESERVATION', sourceId: SOURCE, sourceIdentifier: `RES-${SOURCE}`, name: 'Company folio' },
      { id: HOUSE_FOLIO, sourceKind: 'HOUSE_ACCOUNT', sourceId: HOUSE_ACCOUNT, name: 'Lobby bar' },
    ],
    // Imported in reverse: the order of the document must not come from the order of insertion.
    transactions: [
      ...[...ROWS].reverse().map((row) => transaction(row)),
      transaction({ id: '9101', folio: HOUSE_FOLIO, at: '2026-11-21T20:00:00Z', service: '2026-11-21', code: 'BAR', group: 'ITEM_SERVICE', description: 'Cocktail at the bar', amount: '12.00' }, 'HOUSE_ACCOUNT', HOUSE_ACCOUNT),
      transaction({ id: '9102', folio: HOUSE_FOLIO, at: '2026-11-22T20:00:00Z', service: '2026-11-22', code: 'BAR', group: 'ITEM_SERVICE', description: 'Tapas at the bar', amount: '7.50' }, 'HOUSE_ACCOUNT', HOUSE_ACCOUNT),
    ],
  });
  await importOk(w, token, 2, {
    property: PROPERTY_2,
    folios: [{ id: '851', sourceKind: 'RESERVATION', sourceId: OTHER_PROPERTY_SOURCE, name: 'Boston folio' }],
  });
}

// --- HTTP helpers ---

interface TExportOptions {
  /** '' sends no Authorization header. */
  token?: string;
  /** null sends no X-Property-Id header. */
  property?: string | null;
  language?: string;
  prefer?: string;
  path?: string;
  on?: TWorld;
}

let world: TWorld;
let token: string;
let dir: string;
let files = 0;

function postExport(body: unknown, options: TExportOptions = {}) {
  const w = options.on ?? world;
  let req = request(w.url).post(options.path ?? EXPORT);
  if (options.token !== '') req = req.set('Authorization', `Bearer ${options.token ?? token}`);
  if (options.property !== null) req = req.set('X-Property-Id', options.property ?? '1');
  if (options.language) req = req.set('Accept-Language', options.language);
  if (options.prefer) req = req.set('Prefer', options.prefer);
  return req.send(body as object);
}

function getStatus(url: string, options: { property?: string; on?: TWorld; token?: string } = {}) {
  return request((options.on ?? world).url)
    .get(url)
    .set('Authorization', `Bearer ${options.token ?? token}`)
    .set('X-Property-Id', options.property ?? '1');
}

function getFile(url: string, options: { property?: string; on?: TWorld; token?: string } = {}) {
  return getStatus(url, options).buffer(true).parse(binaryBody);
}

const localToday = () =>
  new Intl.DateTimeFormat('en-CA', { timeZone: PROPERTY_1.timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date()).replaceAll('-', '');

interface TDownload {
  res: request.Response;
  body: Buffer;
  text: string;
  lines: string[];
}

/** No-break and narrow no-break spaces (es, fr, de money) read back as plain spaces. */
const normalize = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

async function pdfText(body: Buffer): Promise<string> {
  files += 1;
  const file = join(dir, `export-${files}.pdf`);
  await writeFile(file, body);
  const { stdout } = await run('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { maxBuffer: 16 << 20 });
  return normalize(stdout);
}

/** Exports inline (200) and reads the PDF back; checks the headers every file answer carries. */
async function exportPdf(body: Record<string, unknown>, options: TExportOptions = {}): Promise<TDownload> {
  const res = await postExport(body, options).buffer(true).parse(binaryBody);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const buffer = res.body as Buffer;
  expect(res.headers['content-type']).toBe('application/octet-stream');
  expect(res.headers['content-length']).toBe(String(buffer.length));
  expect(res.headers['x-export-id']).toMatch(UUID);
  expect(buffer.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  const text = await pdfText(buffer);
  return { res, body: buffer, text, lines: text.split('\n') };
}

/** The reservation's descriptions found in the text, in the order they appear. */
/** A line of a tax summary (en): a tax, then net, tax and gross (a dash for a net the document cannot know). */
const TAX_SUMMARY_LINE = /(€[\d,.]+|—)\s+€[\d,.]+\s+(€[\d,.]+|—)\s*$/;

/** The rows' descriptions in the order the document shows them (the tax summaries' lines are not rows). */
function descriptionsIn(document: string): string[] {
  const text = document
    .split('\n')
    .filter((line) => !TAX_SUMMARY_LINE.test(line))
    .join('\n');
  return DESCRIPTIONS.map((description) => ({ description, at: text.indexOf(description) }))
    .filter((found) => found.at >= 0)
    .sort((a, b) => a.at - b.at)
    .map((found) => found.description);
}

const lineWith = (download: TDownload, needle: string) => download.lines.find((line) => line.includes(needle)) ?? '';
const linesWith = (download: TDownload, needle: string) => download.lines.filter((line) => line.includes(needle));

function expectError(res: request.Response, status: number, errorCode: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.errorCode).toBe(errorCode);
  expect(res.body.id).toBe(res.headers['x-request-id']);
  expect(typeof res.body.errorDetails).toBe('string');
}

/** 400 INVALID_REQUEST naming exactly these field paths. */
function expectInvalid(res: request.Response, ...paths: string[]) {
  expectError(res, 400, 'INVALID_REQUEST');
  expect(res.body.fieldErrors.map((error: { path: string }) => error.path).sort()).toEqual([...paths].sort());
}

interface TStatusBody {
  exportId: string;
  status: string;
  progress: number;
  createdAt: string;
  completedAt?: string;
  error?: string;
  size?: number;
  pages?: number;
  sha256?: string;
  fileUrl?: string;
}

/** Polls the status URL until the export has ended (bounded: about 20 s). */
async function untilEnded(statusUrl: string, options: { on?: TWorld; token?: string } = {}): Promise<TStatusBody> {
  let last: TStatusBody | undefined;
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const res = await getStatus(statusUrl, options);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    last = res.body as TStatusBody;
    if (last.status === 'completed' || last.status === 'failed') return last;
    await delay(Math.min(20 + attempt * 10, 200));
  }
  throw new Error(`export did not end: ${JSON.stringify(last)}`);
}

const RESERVATION = { sourceKind: 'RESERVATION', sourceId: SOURCE };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fv-export-api-'));
  world = await createWorld();
  token = world.token({ properties: [1, 2] });
  await importLedger(world, token);
});

afterAll(async () => {
  await world?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the file answered inline', () => {
  it('answers the PDF with its headers, every row in the default order (time, then id) and the totals', async () => {
    const before = localToday();
    const pdf = await exportPdf(RESERVATION);
    const disposition = pdf.res.headers['content-disposition'];
    expect([before, localToday()].map((day) => `attachment; filename="folio-RESERVATION-${SOURCE}-${day}.pdf"`)).toContain(disposition);

    expect(descriptionsIn(pdf.text)).toEqual(DEFAULT_ORDER);
    // Header — the hotel as imported, its folios' numbers — folios, source; no filters line.
    expect(pdf.text).toContain(PROPERTY_1.name);
    expect(pdf.text).toContain(PROPERTY_1.address);
    expect(pdf.text).toMatch(/^Tax ID: ESB28000001(\s{2}|$)/m);
    expect(pdf.text).toMatch(/^Tel\. \+34 910 000 000 · recepcion@solmadrid\.example · solmadrid\.example(\s{2}|$)/m);
    expect(pdf.text).toMatch(/\s{2}Folio no\. 801, 802$/m);
    expect(pdf.text).toContain(`Reservation RES-${SOURCE}`);
    expect(pdf.text).toContain('Folio: Guest folio');
    expect(pdf.text).toContain('Folio: Company folio');
    expect(pdf.text).not.toContain('Filters');
    // Date and time in Madrid time: 23:30Z on the 21st is 00:30 on the 22nd.
    expect(lineWith(pdf, 'Late bar snack')).toMatch(/22\/11\/2026,? 00:30/);
    expect(lineWith(pdf, 'Minibar water')).toMatch(/21\/11\/2026,? 23:59/);
    expect(lineWith(pdf, 'Minibar water')).toContain('€3.00');
    // Void chain and pending rows are marked.
    expect(lineWith(pdf, 'Room service order')).toMatch(/VOID\s*$/);
    expect(lineWith(pdf, 'Room service correction')).toMatch(/VOID\s*$/);
    expect(lineWith(pdf, 'Spa treatment')).toMatch(/PENDING\s*$/);
    expect(lineWith(pdf, 'Parking garage')).not.toMatch(/VOID|PENDING/);
    // Totals per folio and for all folios.
    // Payments as they move the balance (negative), the balance as what is due.
    expect(pdf.text).toMatch(/Totals of folio Guest folio[\s\S]*?Charges\s+€315\.40[\s\S]*?Payments\s+-€100\.00[\s\S]*?Balance due\s+€215\.40/);
    expect(pdf.text).toMatch(/Totals of folio Company folio[\s\S]*?Charges\s+€12,345\.67[\s\S]*?Payments\s+-€2,345\.67[\s\S]*?Balance due\s+€10,000\.00/);
    expect(pdf.text).toMatch(/Totals of all folios[\s\S]*?Charges\s+€12,661\.07[\s\S]*?Payments\s+-€2,445\.67[\s\S]*?Balance due\s+€10,215\.40/);
    // The guest folio's TAX rows summed per tax, net being the rows they were posted against (8103,
    // 8104); the city tax is a FEE. The company folio has no tax, so the summary of all folios is the guest's.
    const guestTaxes = pdf.text.slice(pdf.text.indexOf('Totals of folio Guest folio'), pdf.text.indexOf('Folio: Company folio'));
    expect(guestTaxes).toMatch(/Tax summary\s+Rate\s+Net\s+Tax\s+Gross\s+Night one VAT\s+€100\.00\s+€10\.00\s+€110\.00\s+Night two VAT\s+€90\.00\s+€9\.00\s+€99\.00/);
    expect(pdf.text.slice(pdf.text.indexOf('Folio: Company folio'), pdf.text.indexOf('Totals of all folios'))).not.toContain('Tax summary');
    expect(pdf.text.slice(pdf.text.indexOf('Totals of all folios'))).toMatch(/Tax summary — Totals of all folios\s+Rate\s+Net\s+Tax\s+Gross\s+Night one VAT\s+€100\.00\s+€10\.00\s+€110\.00/);
    expect(pdf.text).toMatch(/Page 1 of \d+/);
  });

  it('orders the rows by the requested sort (lower-case direction accepted), ties by id', async () => {
    const pdf = await exportPdf({ ...RESERVATION, sort: [{ field: 'amount', direction: 'desc' }] });
    expect(descriptionsIn(pdf.text)).toEqual(
      described('8103', '8104', '8109', '8113', '8110', '8112', '8101', '8105', '8108', '8107', '8102', '8106', '8111', '8114', '8201', '8202'),
    );
    const byDescription = await exportPdf({ ...RESERVATION, folioIds: [COMPANY_FOLIO], sort: [{ field: 'description', direction: 'ASC' }] });
    expect(descriptionsIn(byDescription.text)).toEqual(described('8201', '8202'));
  });

  it('answers the same at the alias path /fiscal-document/v1/folio-export/pdf', async () => {
    const pdf = await exportPdf({ ...RESERVATION, folioIds: [GUEST_FOLIO] }, { path: ALIAS });
    expect(pdf.res.headers['content-disposition']).toMatch(new RegExp(`^attachment; filename="folio-RESERVATION-${SOURCE}-\\d{8}\\.pdf"$`));
    expect(descriptionsIn(pdf.text)).toEqual(DEFAULT_ORDER.slice(0, 14));
  });

  it('answers XLSX as .xlsx, readable with exceljs', async () => {
    const before = localToday();
    const res = await postExport({ ...RESERVATION, format: 'XLSX' }).buffer(true).parse(binaryBody);
    expect(res.status).toBe(200);
    const body = res.body as Buffer;
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-length']).toBe(String(body.length));
    expect(res.headers['x-export-id']).toMatch(UUID);
    expect([before, localToday()].map((day) => `attachment; filename="folio-RESERVATION-${SOURCE}-${day}.xlsx"`)).toContain(
      res.headers['content-disposition'],
    );
    expect(body.subarray(0, 2).toString('latin1')).toBe('PK');

    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(body as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    const rows: Array<{ description: string; amount: unknown; entry: unknown }> = [];
    sheet.eachRow((row) => {
      const description = row.getCell(5).value;
      if (typeof description === 'string' && DESCRIPTIONS.includes(description)) rows.push({ description, amount: row.getCell(8).value, entry: row.getCell(9).value });
    });
    expect(rows.map((row) => row.description)).toEqual(DEFAULT_ORDER);
    expect(rows.find((row) => row.description === 'Meeting room Ωμέγα')).toMatchObject({ amount: 12345.67, entry: 'Debit' });
    // The worker marks the ledger's PAYMENT rows as credits: the totals' formulas pick them by it.
    expect(rows.find((row) => row.description === 'Payment cash')).toMatchObject({ amount: -100, entry: 'Credit' });
    expect(sheet.getCell('A1').value).toBe(PROPERTY_1.name);
  });
});

describe('validation (400 INVALID_REQUEST at the field)', () => {
  const HOUSE = { sourceKind: 'HOUSE_ACCOUNT', sourceId: HOUSE_ACCOUNT, dateFrom: '2026-11-22' };
  const cases: Array<[string, Record<string, unknown>, string[]]> = [
    ['no sourceKind and no sourceId', {}, ['sourceKind', 'sourceId']],
    ['no sourceKind', { sourceId: SOURCE }, ['sourceKind']],
    ['no sourceId', { sourceKind: 'RESERVATION' }, ['sourceId']],
    ['an unknown sourceKind', { ...RESERVATION, sourceKind: 'FOLIO' }, ['sourceKind']],
    ['a sourceId that is no id', { ...RESERVATION, sourceId: 'abc' }, ['sourceId']],
    ['revenueCompact with HOUSE_ACCOUNT', { ...HOUSE, revenueCompact: true }, ['revenueCompact']],
    ['HOUSE_ACCOUNT without dateFrom', { sourceKind: 'HOUSE_ACCOUNT', sourceId: HOUSE_ACCOUNT }, ['dateFrom']],
    ['HOUSE_ACCOUNT with an empty dateFrom', { ...HOUSE, dateFrom: '' }, ['dateFrom']],
    ['dateFrom after dateTo', { ...RESERVATION, dateFrom: '2026-11-23', dateTo: '2026-11-22' }, ['dateTo']],
    ['a date as DD/MM/YYYY', { ...RESERVATION, dateFrom: '22/11/2026' }, ['dateFrom']],
    ['a date that does not exist', { ...RESERVATION, dateTo: '2026-02-30' }, ['dateTo']],
    ['a date-time for a date', { ...RESERVATION, dateFrom: '2026-11-22T00:00:00Z' }, ['dateFrom']],
    ['an unknown descriptionFilters entry', { ...RESERVATION, descriptionFilters: ['cash', 'bogus'] }, ['descriptionFilters.1']],
    ['a product filter without its id', { ...RESERVATION, descriptionFilters: ['product_'] }, ['descriptionFilters.0']],
    ['a sort field outside the list', { ...RESERVATION, sort: [{ field: 'id', direction: 'asc' }] }, ['sort.0.field']],
    ['a bad sort direction', { ...RESERVATION, sort: [{ field: 'amount', direction: 'down' }] }, ['sort.0.direction']],
    ['a sort field twice', { ...RESERVATION, sort: [{ field: 'amount', direction: 'asc' }, { field: 'amount', direction: 'desc' }] }, ['sort.1.field']],
    ['an unknown format', { ...RESERVATION, format: 'CSV' }, ['format']],
    ['a recipient with id 0', { ...RESERVATION, recipient: { type: 'GUEST', id: 0 } }, ['recipient.id']],
    ['a recipient of an unknown type', { ...RESERVATION, recipient: { type: 'ALIEN', id: 900 } }, ['recipient.type']],
    ['an unknown taxDocumentSource', { ...RESERVATION, recipient: { type: 'GUEST', id: 900, taxDocumentSource: 'PASSPORT' } }, ['recipient.taxDocumentSource']],
    ['an unknown field', { ...RESERVATION, folio: GUEST_FOLIO }, ['folio']],
    ['a folioIds entry that is no integer', { ...RESERVATION, folioIds: [801, 1.5] }, ['folioIds.1']],
    ['a folioIds entry that is no digit string', { ...RESERVATION, folioIds: ['80a'] }, ['folioIds.0']],
    ['posted that is no boolean', { ...RESERVATION, posted: 'yes' }, ['posted']],
    ['a card number in searchQuery', { ...RESERVATION, searchQuery: `room ${generatedPan('4', 16)}` }, ['searchQuery']],
  ];

  it.each(cases)('refuses %s', async (_name, body, paths) => {
    expectInvalid(await postExport(body), ...paths);
  });

  it('refuses a missing or malformed X-Property-Id and malformed JSON', async () => {
    expectInvalid(await postExport(RESERVATION, { property: null }), 'X-Property-Id');
    expectInvalid(await postExport(RESERVATION, { property: 'one' }), 'X-Property-Id');
    const malformed = await request(world.url)
      .post(EXPORT)
      .set('Authorization', `Bearer ${token}`)
      .set('X-Property-Id', '1')
      .set('Content-Type', 'application/json')
      .send('{"sourceKind": "RESERVATION",');
    expectError(malformed, 400, 'INVALID_REQUEST');
  });
});

describe('references and access', () => {
  it('answers 404 ENTITY_NOT_FOUND for an unknown source, a folio of another source, an unknown recipient', async () => {
    for (const body of [
      { sourceKind: 'RESERVATION', sourceId: '424242' },
      // Property 2's reservation, asked for under property 1.
      { sourceKind: 'RESERVATION', sourceId: OTHER_PROPERTY_SOURCE },
      // The reservation's id under another source kind.
      { sourceKind: 'GROUP_PROFILE', sourceId: SOURCE },
      { ...RESERVATION, folioIds: [HOUSE_FOLIO] },
      { ...RESERVATION, folioIds: [GUEST_FOLIO, '999'] },
      { ...RESERVATION, recipient: { type: 'GUEST', id: 12345 } },
      // Recipient 900 is a GUEST, not a COMPANY.
      { ...RESERVATION, recipient: { type: 'COMPANY', id: 900 } },
    ]) {
      expectError(await postExport(body), 404, 'ENTITY_NOT_FOUND');
    }
  });

  it('answers 403 for a property outside the token or without read:payment, 401 without a token', async () => {
    expectError(await postExport(RESERVATION, { property: '3' }), 403, 'ACCESS_DENIED');
    expectError(await postExport(RESERVATION, { token: world.token({ properties: [2] }) }), 403, 'ACCESS_DENIED');
    expectError(await postExport(RESERVATION, { token: world.token({ properties: [1], scope: 'write:payment' }) }), 403, 'ACCESS_DENIED');
    const anonymous = await postExport(RESERVATION, { token: '' });
    expectError(anonymous, 401, 'UNAUTHENTICATED');
    expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer/);
    expectError(await postExport(RESERVATION, { token: 'not.a.jwt' }), 401, 'UNAUTHENTICATED');
    // A read-only token is enough.
    const readOnly = await exportPdf({ ...RESERVATION, folioIds: [COMPANY_FOLIO] }, { token: world.token({ properties: [1], scope: 'read:payment' }) });
    expect(descriptionsIn(readOnly.text)).toEqual(described('8201', '8202'));
  });
});

describe('filters, as the PDF shows them', () => {
  it('takes dateFrom and dateTo as whole days in the property time zone', async () => {
    // 22 November in Madrid: 21st 23:00Z up to 22nd 22:59:59.999Z.
    const day = await exportPdf({ ...RESERVATION, dateFrom: '2026-11-22', dateTo: '2026-11-22' });
    expect(descriptionsIn(day.text)).toEqual(described('8108', '8109', '8110', '8111', '8112'));
    expect(day.text).toContain('Filters: from 22/11/2026 · to 22/11/2026');
    expect(day.text).toContain('No transactions match the filters.');

    const until21 = await exportPdf({ ...RESERVATION, dateTo: '2026-11-21' });
    expect(descriptionsIn(until21.text)).toEqual(described('8101', '8102', '8103', '8104', '8105', '8106', '8107', '8201'));

    const from23 = await exportPdf({ ...RESERVATION, dateFrom: '2026-11-23', dateTo: null });
    expect(descriptionsIn(from23.text)).toEqual(described('8113', '8114', '8202'));
  });

  it('keeps posted rows only, or pending rows only', async () => {
    const posted = await exportPdf({ ...RESERVATION, posted: true });
    expect(descriptionsIn(posted.text)).toEqual(DEFAULT_ORDER.filter((description) => description !== 'Spa treatment'));
    expect(posted.text).toContain('Filters: posted only');
    expect(posted.text).not.toContain('PENDING');

    const pending = await exportPdf({ ...RESERVATION, posted: false });
    expect(descriptionsIn(pending.text)).toEqual(['Spa treatment']);
    expect(pending.text).toContain('Filters: pending only');
  });

  it('drops whole voided chains with includeVoided false', async () => {
    const pdf = await exportPdf({ ...RESERVATION, includeVoided: false });
    expect(descriptionsIn(pdf.text)).toEqual(DEFAULT_ORDER.filter((description) => !description.startsWith('Room service')));
    expect(pdf.text).not.toContain('VOID');
    // The chain summed to zero: the totals do not move.
    expect(pdf.text).toMatch(/Totals of folio Guest folio[\s\S]*?Charges\s+€315\.40/);
  });

  it('applies descriptionFilters (OR-ed), searchQuery and subSourceIds', async () => {
    const filtered = await exportPdf({ ...RESERVATION, descriptionFilters: ['product_123', 'cash', 'bookable_resource_88'] });
    expect(descriptionsIn(filtered.text)).toEqual(described('8107', '8114', '8201'));
    expect(filtered.text).toContain('types: product_123, cash, bookable_resource_88');

    const search = await exportPdf({ ...RESERVATION, searchQuery: '  ROOM SERVICE ' });
    expect(descriptionsIn(search.text)).toEqual(described('8110', '8111'));

    const room = await exportPdf({ ...RESERVATION, subSourceIds: ['7002'] });
    expect(descriptionsIn(room.text)).toEqual(described('8108', '8112', '8113'));
    // The VAT rows alone: what they were charged on is not in the document, so net and gross are dashes.
    const taxes = await exportPdf({ ...RESERVATION, descriptionFilters: ['tax_4'] });
    expect(descriptionsIn(taxes.text)).toEqual(described('8101', '8105'));
    expect(taxes.text).toMatch(/Night one VAT\s+—\s+€10\.00\s+—\n/);
  });

  it('exports only the folios asked for; totals of all folios only when there are several', async () => {
    const one = await exportPdf({ ...RESERVATION, folioIds: [COMPANY_FOLIO] });
    expect(descriptionsIn(one.text)).toEqual(described('8201', '8202'));
    expect(one.text).not.toContain('Guest folio');
    expect(one.text).not.toContain('Totals of all folios');
    expect(one.text).toMatch(/Totals of folio Company folio[\s\S]*?Balance due\s+€10,000\.00/);
    expect(one.text).toMatch(/\s{2}Folio no\. 802$/m);

    const two = await exportPdf({ ...RESERVATION, folioIds: [COMPANY_FOLIO, Number(GUEST_FOLIO)], posted: true });
    expect(descriptionsIn(two.text)).toEqual(DEFAULT_ORDER.filter((description) => description !== 'Spa treatment'));
    // Every folio filtered alike: the pending Spa row (45.00) is left out of the guest folio's totals.
    expect(two.text).toMatch(/Totals of folio Guest folio[\s\S]*?Charges\s+€270\.40/);
    expect(two.text).toMatch(/Totals of all folios[\s\S]*?Charges\s+€12,616\.07[\s\S]*?Payments\s+-€2,445\.67[\s\S]*?Balance due\s+€10,170\.40/);
  });

  it('shows debits and credits in two sections with their subtotals (creditDebitView)', async () => {
    const pdf = await exportPdf({ ...RESERVATION, creditDebitView: true });
    const debits = described('8101', '8102', '8103', '8104', '8105', '8106', '8107', '8108', '8109', '8110', '8111', '8112', '8113');
    expect(descriptionsIn(pdf.text)).toEqual([...debits, 'Payment cash', 'Meeting room Ωμέγα', 'Payment Visa']);
    const at = (pattern: RegExp, from = 0) => {
      const index = pdf.lines.findIndex((line, i) => i >= from && pattern.test(line));
      expect(index, String(pattern)).toBeGreaterThanOrEqual(from);
      return index;
    };
    // Guest folio: Debits, its rows, its subtotal, Credits, the payment, its subtotal.
    const debitsHeading = at(/^\s*Debits\s*$/);
    const lastDebit = at(/Breakfast buffet/, debitsHeading);
    const debitSubtotal = at(/Subtotal of debits/, lastDebit);
    expect(pdf.lines[debitSubtotal]).toMatch(/Subtotal of debits\s+€315\.40/);
    const creditsHeading = at(/^\s*Credits\s*$/, debitSubtotal);
    const payment = at(/Payment cash/, creditsHeading);
    expect(pdf.lines[at(/Subtotal of credits/, payment)]).toMatch(/Subtotal of credits\s+-€100\.00/);
    // Company folio.
    expect(linesWith(pdf, 'Subtotal of debits')[1]).toMatch(/€12,345\.67/);
    expect(linesWith(pdf, 'Subtotal of credits')[1]).toMatch(/-€2,345\.67/);
    expect(pdf.text).toContain('debits and credits apart');
  });

  it('collapses room revenue with its VAT and city tax into one line per night and room (revenueCompact)', async () => {
    const pdf = await exportPdf({ ...RESERVATION, revenueCompact: true });
    const compacted = linesWith(pdf, 'Room revenue, room 101');
    expect(compacted).toHaveLength(2);
    const cents = (...ids: string[]) => ids.reduce((sum, id) => sum + Math.round(Number(ROWS.find((row) => row.id === id)!.amount) * 100), 0);
    const money = (value: number) => `€${(value / 100).toFixed(2)}`;
    expect(cents('8101', '8102', '8103')).toBe(11250);
    expect(compacted[0]).toContain(money(cents('8101', '8102', '8103')));
    expect(compacted[0]).toMatch(/20\/11\/2026/);
    expect(compacted[1]).toContain(money(cents('8104', '8105', '8106')));
    expect(compacted[1]).toMatch(/21\/11\/2026/);
    // The members are gone; every other row stays, in order.
    expect(descriptionsIn(pdf.text)).toEqual(DEFAULT_ORDER.slice(6));
    expect(pdf.text.indexOf('Room revenue, room 101')).toBeLessThan(pdf.text.indexOf('Minibar water'));
    // Totals are those of the rows.
    expect(pdf.text).toMatch(/Totals of folio Guest folio[\s\S]*?Charges\s+€315\.40[\s\S]*?Balance due\s+€215\.40/);
    expect(pdf.text).toContain('room revenue compacted');
    // The tax summary reads the ledger's rows, not the compacted lines.
    expect(pdf.text).toMatch(/Night one VAT\s+€100\.00\s+€10\.00\s+€110\.00/);
  });

  it('exports a house account for its dates, known by its name', async () => {
    const before = localToday();
    const pdf = await exportPdf({ sourceKind: 'HOUSE_ACCOUNT', sourceId: Number(HOUSE_ACCOUNT), dateFrom: '2026-11-22' });
    expect([before, localToday()].map((day) => `attachment; filename="folio-HOUSE_ACCOUNT-${HOUSE_ACCOUNT}-${day}.pdf"`)).toContain(
      pdf.res.headers['content-disposition'],
    );
    expect(pdf.text).toContain('House account Lobby bar');
    expect(pdf.text).toContain('Tapas at the bar');
    expect(pdf.text).not.toContain('Cocktail at the bar');
  });
});

describe('recipient block', () => {
  it('shows name, address and the tax id (GUEST_TAX_ID, and by default)', async () => {
    const pdf = await exportPdf({ ...RESERVATION, folioIds: [COMPANY_FOLIO], recipient: { type: 'GUEST', id: 900, taxDocumentSource: 'GUEST_TAX_ID' } });
    expect(pdf.text).toMatch(/Bill to\s+Zoë Łukasiewicz\s+Rua Augusta 10, 1100-053 Lisboa\s+Tax ID: PT123456789/);
    expect(pdf.text).not.toContain('X1234567Z');

    const company = await exportPdf({ ...RESERVATION, folioIds: [COMPANY_FOLIO], recipient: { type: 'COMPANY', id: '950' } });
    expect(company.text).toMatch(/Bill to\s+ACME Hoteles S\.L\.\s+Tax ID: B12345678/);
  });

  it('shows the document number with GUEST_DOCUMENT_NUMBER', async () => {
    const pdf = await exportPdf({ ...RESERVATION, folioIds: [COMPANY_FOLIO], recipient: { type: 'GUEST', id: '900', taxDocumentSource: 'GUEST_DOCUMENT_NUMBER' } });
    expect(pdf.text).toMatch(/Bill to\s+Zoë Łukasiewicz\s+Rua Augusta 10, 1100-053 Lisboa\s+Document number: X1234567Z/);
    expect(pdf.text).not.toContain('PT123456789');
  });
});

describe('language (Accept-Language)', () => {
  it('writes Spanish labels and amounts for es', async () => {
    const pdf = await exportPdf({ ...RESERVATION, revenueCompact: true }, { language: 'es' });
    expect(pdf.text).toMatch(/Fecha y hora\s+.*Descripción\s+.*Importe/);
    expect(pdf.text).toContain('Filtros: ingresos de habitación agrupados');
    // The compacted lines keep their room in Spanish too (the label must fit the description column).
    const compacted = linesWith(pdf, 'Ingresos de habitación, hab. 101');
    expect(compacted).toHaveLength(2);
    expect(compacted[0]).toContain('112,50 €');
    // es-ES groups thousands from five digits on (CLDR minimumGroupingDigits 2): "2445,67 €", "12.661,07 €".
    expect(pdf.text).toMatch(/Totales de todos los folios[\s\S]*?Cargos\s+12\.661,07 €[\s\S]*?Pagos\s+-2\.?445,67 €[\s\S]*?Saldo pendiente\s+10\.215,40 €/);
    expect(pdf.text).toContain('NIF: ESB28000001');
    expect(pdf.text).toContain('Folio n.º 801, 802');
    expect(pdf.text).toMatch(/Resumen de impuestos\s+Tipo\s+Base imponible\s+Cuota\s+Total\s+Night one VAT\s+100,00 €\s+10,00 €\s+110,00 €/);
    expect(lineWith(pdf, 'Meeting room')).toContain('12.345,67 €');
    expect(lineWith(pdf, 'Room service order')).toMatch(/ANULADO\s*$/);
    expect(pdf.text).toMatch(/Página 1 de \d+/);
  });

  it('picks the highest q-value ("fr;q=0.5, de;q=0.9" → German)', async () => {
    const pdf = await exportPdf({ ...RESERVATION, folioIds: [COMPANY_FOLIO] }, { language: 'fr;q=0.5, de;q=0.9' });
    expect(pdf.text).toMatch(/Beschreibung\s+.*Betrag/);
    expect(pdf.text).toMatch(/Summen des Folios Company folio[\s\S]*?Offener Betrag\s+10\.000,00 €/);
    expect(pdf.text).not.toContain('Montant');
  });

  it('falls back to English for an unsupported language, and q=0 refuses one', async () => {
    const japanese = await exportPdf({ ...RESERVATION, folioIds: [COMPANY_FOLIO] }, { language: 'ja' });
    expect(japanese.text).toMatch(/Description\s+.*Amount/);
    expect(japanese.text).toMatch(/Totals of folio Company folio[\s\S]*?Balance due\s+€10,000\.00/);

    const refused = await exportPdf({ ...RESERVATION, folioIds: [COMPANY_FOLIO] }, { language: 'es;q=0' });
    expect(refused.text).toMatch(/Description\s+.*Amount/);
    expect(refused.text).not.toContain('Importe');
  });
});

describe('status and file', () => {
  it('answers 202 with Prefer: respond-async; the status URL reaches completed and the file matches its sha256', async () => {
    const body = { ...RESERVATION, searchQuery: 'payment' };
    const res = await postExport(body, { prefer: 'respond-async' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const accepted = res.body as { exportId: string; status: string; statusUrl: string };
    expect(Object.keys(accepted).sort()).toEqual(['exportId', 'status', 'statusUrl']);
    expect(accepted.exportId).toMatch(UUID);
    expect(['queued', 'running']).toContain(accepted.status);
    expect(accepted.statusUrl).toBe(`${STATUS}/${accepted.exportId}`);
    expect(res.headers.location).toBe(accepted.statusUrl);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);

    const status = await untilEnded(accepted.statusUrl);
    expect(status).toEqual({
      exportId: accepted.exportId,
      status: 'completed',
      progress: 100,
      createdAt: expect.any(String),
      completedAt: expect.any(String),
      size: expect.any(Number),
      pages: 1,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      fileUrl: `${accepted.statusUrl}/file`,
      // Download links and retention: test/export-delivery.test.ts.
      expiresAt: expect.any(String),
      downloadUrl: expect.stringMatching(new RegExp(`^${accepted.statusUrl}/file\\?expires=\\d+&signature=[\\w-]{43}$`)),
      downloadUrlExpiresAt: expect.any(String),
    });
    expect(Date.parse(status.completedAt!)).toBeGreaterThanOrEqual(Date.parse(status.createdAt));

    const file = await getFile(status.fileUrl!);
    expect(file.status).toBe(200);
    const bytes = file.body as Buffer;
    expect(file.headers['content-type']).toBe('application/octet-stream');
    expect(file.headers['content-length']).toBe(String(bytes.length));
    expect(file.headers['x-export-id']).toBe(accepted.exportId);
    expect(file.headers['content-disposition']).toMatch(new RegExp(`^attachment; filename="folio-RESERVATION-${SOURCE}-\\d{8}\\.pdf"$`));
    expect(bytes.length).toBe(status.size);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(status.sha256);
    expect(descriptionsIn(await pdfText(bytes))).toEqual(described('8114', '8202'));
  });

  it('keeps an inline export behind its X-Export-Id, for its own property only', async () => {
    const pdf = await exportPdf({ ...RESERVATION, folioIds: [GUEST_FOLIO], posted: false });
    const exportId = pdf.res.headers['x-export-id'] as string;
    const url = `${STATUS}/${exportId}`;

    const status = await getStatus(url);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ exportId, status: 'completed', progress: 100, size: pdf.body.length });
    expect(status.body.sha256).toBe(createHash('sha256').update(pdf.body).digest('hex'));
    const again = await getFile(`${url}/file`);
    expect(again.status).toBe(200);
    expect((again.body as Buffer).equals(pdf.body)).toBe(true);

    // The token holds both properties; the export was made under property 1.
    expectError(await getStatus(url, { property: '2' }), 404, 'ENTITY_NOT_FOUND');
    expectError(await getFile(`${url}/file`, { property: '2' }), 404, 'ENTITY_NOT_FOUND');
    // Outside the token: 403; without read:payment: 403.
    expectError(await getStatus(url, { property: '3' }), 403, 'ACCESS_DENIED');
    expectError(await getStatus(url, { token: world.token({ properties: [1], scope: 'write:payment' }) }), 403, 'ACCESS_DENIED');
  });

  it('answers 404 for an unknown export id and 400 at exportId for one that is no UUID', async () => {
    const unknown = `${STATUS}/0190b3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b`;
    expectError(await getStatus(unknown), 404, 'ENTITY_NOT_FOUND');
    expectError(await getFile(`${unknown}/file`), 404, 'ENTITY_NOT_FOUND');
    expectInvalid(await getStatus(`${STATUS}/not-a-uuid`), 'exportId');
    expectInvalid(await getFile(`${STATUS}/12345/file`), 'exportId');
  });
});

describe('without a worker (EXPORT_WAIT_MS=1)', () => {
  let idle: TWorld;
  let worker: TRunningWorker | undefined;

  beforeAll(async () => {
    idle = await createWorld({ worker: false, env: { EXPORT_WAIT_MS: '1' } });
    await importLedger(idle, idle.token({ properties: [1, 2] }));
  });
  afterAll(async () => {
    await worker?.close();
    await idle?.close();
  });

  const on = () => ({ on: idle, token: idle.token({ properties: [1, 2] }) });

  it('answers 202 once EXPORT_WAIT_MS has passed; the export is queued and its file 409 EXPORT_NOT_READY', async () => {
    const res = await postExport({ ...RESERVATION, folioIds: [COMPANY_FOLIO] }, on());
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toEqual({ exportId: expect.stringMatching(UUID), status: 'queued', statusUrl: `${STATUS}/${res.body.exportId}` });
    expect(res.headers.location).toBe(res.body.statusUrl);
    expect(res.headers['retry-after']).toBe('2');

    const status = await getStatus(res.body.statusUrl, on());
    expect(status.status).toBe(200);
    expect(status.body).toEqual({ exportId: res.body.exportId, status: 'queued', progress: 0, createdAt: expect.any(String) });

    const file = await getStatus(`${res.body.statusUrl}/file`, on());
    expectError(file, 409, 'EXPORT_NOT_READY');
  });

  it('shares one export between identical requests in flight; a different request gets its own; a worker completes them all', async () => {
    const base = { ...RESERVATION, creditDebitView: true };
    // Sent at once; the second and third are the same request written differently (id as a
    // number, keys reordered, defaults spelled out).
    const [first, second, third] = await Promise.all([
      postExport(base, { ...on(), prefer: 'respond-async' }),
      postExport({ creditDebitView: true, sourceId: Number(SOURCE), sourceKind: 'RESERVATION', posted: null }, { ...on(), prefer: 'respond-async' }),
      postExport({ ...base, includeVoided: true, format: 'PDF' }, { ...on(), prefer: 'respond-async' }),
    ]);
    for (const res of [first!, second!, third!]) expect(res.status, JSON.stringify(res.body)).toBe(202);
    const shared = first!.body.exportId as string;
    expect(second!.body.exportId).toBe(shared);
    expect(third!.body.exportId).toBe(shared);

    // The same folios asked in another order are the same export.
    const [folios1, folios2] = await Promise.all([
      postExport({ ...base, folioIds: [GUEST_FOLIO, COMPANY_FOLIO] }, { ...on(), prefer: 'respond-async' }),
      postExport({ ...base, folioIds: [COMPANY_FOLIO, GUEST_FOLIO] }, { ...on(), prefer: 'respond-async' }),
    ]);
    expect(folios2!.body.exportId).toBe(folios1!.body.exportId);

    const german = await postExport(base, { ...on(), prefer: 'respond-async', language: 'de' });
    const filtered = await postExport({ ...base, posted: true }, { ...on(), prefer: 'respond-async' });
    expect(german.status).toBe(202);
    expect(filtered.status).toBe(202);
    const others = [german.body.exportId as string, filtered.body.exportId as string, folios1!.body.exportId as string];
    expect(new Set([shared, ...others]).size).toBe(4);
    // One export record each (the one queued by the previous test, and these four).
    const records = await idle.pool.query<{ status: string; error: string | null }>(`SELECT status, error FROM exports ORDER BY created_at`);
    expect(records.rows, JSON.stringify(records.rows)).toEqual(Array.from({ length: 5 }, () => ({ status: 'queued', error: null })));

    worker = await startTestWorker(idle.config, idle.logger);
    const ended = await Promise.all([shared, ...others].map((id) => untilEnded(`${STATUS}/${id}`, on())));
    for (const status of ended) expect(status).toMatchObject({ status: 'completed', progress: 100 });
    const [sharedFile, germanFile] = await Promise.all(
      [shared, others[0]].map(async (id) => {
        const res = await getFile(`${STATUS}/${id}/file`, on());
        expect(res.status).toBe(200);
        return pdfText(res.body as Buffer);
      }),
    );
    expect(sharedFile).toContain('Subtotal of debits');
    expect(germanFile).toContain('Summen aller Folios');

    // No longer in flight: the same request now starts (and answers) a new export.
    const fresh = await postExport(base, { ...on(), prefer: 'respond-async' });
    expect(fresh.status).toBe(202);
    expect(fresh.body.exportId).not.toBe(shared);
    expect(await untilEnded(fresh.body.statusUrl, on())).toMatchObject({ status: 'completed' });
  });
});
