/**
 * Issue to files for a 30-line invoice (docs/fiscal-documents.md), against the service as
 * `npm start` runs it (one process: API + worker and its render processes, NODE_ENV=production).
 * Each source is a French hotel's folio of ten nights (room with its VAT row beside it, the city tax
 * as a fee, a breakfast with its VAT inside): 30 invoice lines from 42 ledger rows. For each source,
 * in alternating order, the same folio is
 *
 * - exported as a plain PDF: POST /fiscal-document/v1/folios/export, the file answered by the POST,
 *   timed to its last byte (the baseline);
 * - issued as an invoice in all three formats: POST /fiscal-document/v1/invoices with `Prefer: wait=10`
 *   (answered once the files are stored; its status polled every 10 ms should it still be issuing),
 *   then its Factur-X PDF, CII and UBL fetched, timed to the last byte.
 *
 * The goal is the invoice's p50 within 2× the export's (bench/report/goals.ts). Each file is checked
 * (%PDF, the XML's root). Validation is not on the request path, so it is not in the figures.
 *
 *   npx tsx bench/scenarios/fiscal-invoice.ts
 *   BENCH_INVOICE_FOLIOS=10 npx tsx bench/scenarios/fiscal-invoice.ts
 */
import { rm } from 'node:fs/promises';
import { Pool } from 'undici';
import { createPgPool } from '@folio-vault/shared/connections';
import { importRecords, recordsOfDocument } from '@folio-vault/shared/ledger/batch-import';
import { benchToken, freePort, liftedRateLimits, startService, type TServiceProcess } from '../support/service-processes.js';
import { benchEnvironment, writeResult } from '../support/environment.js';
import { machine, withLoad } from '../support/machine.js';
import { summary } from '../support/stats.js';

const FOLIOS = Number(process.env.BENCH_INVOICE_FOLIOS ?? 40);
const WARM_UP = 3;
const NIGHTS = 10;

type TSummary = ReturnType<typeof summary>;
export interface TFiscalInvoiceResult {
  machine: ReturnType<typeof machine>;
  folios: number;
  lines: number;
  rows: number;
  export: TSummary;
  invoice: TSummary;
  /** invoice p50 / export p50. */
  ratio: number;
  /** The worker's own time to build and store the three files (its "fiscal document rendered" lines). */
  renderMs: TSummary;
  load: number;
  failures: string[];
}

type TRecord = Record<string, unknown>;

/** The French hotel and `folios` stays of NIGHTS nights each: 30 invoice lines, 42 rows. */
function invoiceLedger(folios: number) {
  const transactions: TRecord[] = [];
  const folioRecords: TRecord[] = [];
  let next = 1;
  for (let s = 1; s <= folios; s += 1) {
    const sourceId = String(70_000 + s);
    const folioId = String(700_000 + s);
    folioRecords.push({ id: folioId, sourceKind: 'RESERVATION', sourceId, sourceIdentifier: `RES-${sourceId}`, name: 'Main folio' });
    const tx = (day: number, hour: number, fields: TRecord) => {
      const id = String(next++);
      const date = new Date(Date.UTC(2026, 10, 1 + day, hour)).toISOString();
      transactions.push({ id, folioId, sourceKind: 'RESERVATION', sourceId, transactionDatetime: date, serviceDate: date.slice(0, 10), currency: 'EUR', posted: true, quantity: '1', ...fields });
      return id;
    };
    tx(0, 9, { internalTransactionCode: '9000', internalCodeGroup: 'PAYMENT', paymentMethod: 'cards_visa', description: 'Card deposit', amount: '-300.00', payment: { paymentId: `dep-${sourceId}`, transactionType: 'Purchase', creditCardType: 'visa', cardTrailingDigits: '1111' } });
    for (let night = 0; night < NIGHTS; night += 1) {
      const room = tx(night, 21, { internalTransactionCode: '1000', internalCodeGroup: 'ROOM_REVENUE_RATE', description: 'Chambre Supérieure', amount: '120.00' });
      tx(night, 21, { internalTransactionCode: '3000', internalCodeGroup: 'TAX', originId: '11', parentId: room, rootId: room, description: 'TVA 10 %', amount: '12.00' });
      tx(night, 21, { internalTransactionCode: '4000', internalCodeGroup: 'FEE', description: 'Taxe de séjour', amount: '2.50', vat: { category: 'E', rate: '0', exemptionReasonCode: 'VATEX-EU-79-C' } });
      tx(night + 1, 8, { internalTransactionCode: '2100', internalCodeGroup: 'ADDON', description: 'Petit-déjeuner', amount: '18.00', vat: { category: 'S', rate: '10' } });
    }
    tx(NIGHTS, 10, { internalTransactionCode: '9000', internalCodeGroup: 'PAYMENT', paymentMethod: 'cards_visa', description: 'Card payment', amount: '-500.00', payment: { paymentId: `pay-${sourceId}`, transactionType: 'Purchase', creditCardType: 'visa', cardTrailingDigits: '1111' } });
  }
  return {
    property: {
      id: 1, name: 'Hôtel Miramar Lyon', currency: 'EUR', timezone: 'Europe/Paris', language: 'fr', gatewayMode: 'test',
      legalName: 'Miramar Hôtellerie SAS', vatId: 'FR32123456789', companyId: '123456789', iban: 'FR7630006000011234567890189',
      postalAddress: { lines: ['12 rue de la République'], city: 'Lyon', postcode: '69002', countryCode: 'FR' },
      electronicAddress: { scheme: '0225', id: '123456789' },
      taxes: [{ id: 11, name: 'TVA 10 %', kind: 'VAT', rate: '10', category: 'S' }],
    },
    recipients: [{
      type: 'COMPANY', id: 1001, name: 'ACME Conseil SAS', vatId: 'FR61987654321', companyId: '987654321',
      postalAddress: { lines: ['8 avenue de l’Opéra'], city: 'Paris', postcode: '75001', countryCode: 'FR' }, electronicAddress: { scheme: '0225', id: '987654321' },
    }],
    folios: folioRecords,
    transactions,
  };
}

const { config, ownerUrl, services, rawEnv } = await benchEnvironment();
const pool = createPgPool(ownerUrl, { max: 2 });
const port = await freePort();
const env = { ...rawEnv(), ...liftedRateLimits(), EXPORT_QUEUE_CAP_PER_PROPERTY: '1000000', NODE_ENV: 'production', PORT: String(port) };
const headers = { authorization: `Bearer ${benchToken(config, 'read:payment write:payment')}`, 'x-property-id': '1', 'accept-language': 'fr' };
const client = new Pool(`http://127.0.0.1:${port}`, { connections: 4 });
const failures: string[] = [];

async function call(path: string, init: { method?: 'GET' | 'POST'; body?: unknown; headers?: Record<string, string> } = {}) {
  const res = await client.request({
    path, method: init.method ?? 'GET', headers: { ...headers, ...init.headers, ...(init.body ? { 'content-type': 'application/json' } : {}) }, body: init.body ? JSON.stringify(init.body) : undefined,
  });
  return { status: res.statusCode, bytes: async () => Buffer.from(await res.body.arrayBuffer()), json: async () => (await res.body.json()) as Record<string, unknown> };
}

/** The folio's plain PDF export, from the POST to the file's last byte. */
async function exportOnce(sourceId: string): Promise<number> {
  const started = performance.now();
  const res = await call('/fiscal-document/v1/folios/export', { method: 'POST', body: { sourceKind: 'RESERVATION', sourceId } });
  const bytes = await res.bytes();
  const ms = performance.now() - started;
  if (res.status !== 200 || bytes.subarray(0, 5).toString('latin1') !== '%PDF-') failures.push(`export of ${sourceId}: ${res.status}`);
  return ms;
}

/** The folio issued as an invoice in the three formats, from the POST to the last file's last byte. */
async function invoiceOnce(sourceId: string): Promise<number> {
  const started = performance.now();
  const issued = await call('/fiscal-document/v1/invoices', { method: 'POST', headers: { prefer: 'wait=10' }, body: { sourceKind: 'RESERVATION', sourceId, recipient: { type: 'COMPANY', id: 1001 }, formats: ['FACTURX', 'CII', 'UBL'] } });
  const invoice = await issued.json();
  if (issued.status !== 201) throw new Error(`issue of ${sourceId} answered ${issued.status}: ${JSON.stringify(invoice)}`);
  for (let status = invoice.status; status !== 'issued'; ) {
    if (status === 'failed') throw new Error(`invoice of ${sourceId} failed`);
    await new Promise((resolve) => setTimeout(resolve, 10));
    status = (await (await call(`/fiscal-document/v1/invoices/${String(invoice.id)}`)).json()).status;
  }
  const files = invoice.files as Record<string, string>;
  const [pdf, cii, ubl] = await Promise.all(['FACTURX', 'CII', 'UBL'].map(async (format) => (await call(files[format]!)).bytes()));
  const ms = performance.now() - started;
  if (pdf!.subarray(0, 5).toString('latin1') !== '%PDF-') failures.push(`${String(invoice.number)}: Factur-X is not a PDF`);
  if (!cii!.toString('utf8').includes('<rsm:CrossIndustryInvoice')) failures.push(`${String(invoice.number)}: CII is not a CrossIndustryInvoice`);
  if (!ubl!.toString('utf8').includes('<Invoice')) failures.push(`${String(invoice.number)}: UBL is not an Invoice`);
  const totals = invoice.totals as { gross: string; rounding: string };
  if (totals.gross !== '1524.96' || totals.rounding !== '0.04') failures.push(`${String(invoice.number)}: gross ${totals.gross} rounding ${totals.rounding}`);
  return ms;
}

/** The worker's own build-and-store times of the invoices, from its "fiscal document rendered" lines. */
function renderTimes(service: TServiceProcess): number[] {
  return service.log().split('\n').filter((line) => line.includes('"msg":"fiscal document rendered"')).map((line) => (JSON.parse(line) as { ms: number }).ms);
}

let service: TServiceProcess | undefined;
try {
  const ledger = invoiceLedger(FOLIOS + WARM_UP);
  await importRecords(pool, '1', recordsOfDocument(ledger));
  const sources = ledger.folios.map((folio) => String(folio.sourceId));
  service = await startService('all', env);
  for (const sourceId of sources.slice(0, WARM_UP)) {
    await exportOnce(sourceId);
    await invoiceOnce(sourceId);
  }
  const measured = await withLoad(async () => {
    const exports: number[] = [];
    const invoices: number[] = [];
    for (const [i, sourceId] of sources.slice(WARM_UP).entries()) {
      // Alternating which goes first: neither always finds the other's warm caches.
      if (i % 2 === 0) {
        exports.push(await exportOnce(sourceId));
        invoices.push(await invoiceOnce(sourceId));
      } else {
        invoices.push(await invoiceOnce(sourceId));
        exports.push(await exportOnce(sourceId));
      }
    }
    return { exports, invoices };
  });
  const exportSummary = summary(measured.value.exports);
  const invoiceSummary = summary(measured.value.invoices);
  const result: TFiscalInvoiceResult = {
    machine: machine(),
    folios: FOLIOS,
    lines: 3 * NIGHTS,
    rows: 4 * NIGHTS + 2,
    export: exportSummary,
    invoice: invoiceSummary,
    ratio: invoiceSummary.p50 / exportSummary.p50,
    renderMs: summary(renderTimes(service).slice(WARM_UP)),
    load: measured.load,
    failures,
  };
  const fmt = (s: TSummary) => `p50 ${s.p50.toFixed(1)} ms, p90 ${s.p90.toFixed(1)} ms, max ${s.max.toFixed(1)} ms`;
  console.log(`plain PDF export of the folio (${result.rows} rows): ${fmt(exportSummary)}`);
  console.log(`invoice issued to its three files (${result.lines} lines): ${fmt(invoiceSummary)}; the worker's build and store ${fmt(result.renderMs)}`);
  console.log(`invoice / export at p50: ${result.ratio.toFixed(2)}×, load ${result.load.toFixed(2)}`);
  writeResult(result);
} finally {
  await client.close();
  await service?.stop();
  await pool.end();
  await rm(config.STORAGE_DIR, { recursive: true, force: true });
  await services.stop();
}
if (failures.length) {
  console.error(`fiscal-invoice bench:\n${failures.slice(0, 20).join('\n')}`);
  process.exitCode = 1;
}
