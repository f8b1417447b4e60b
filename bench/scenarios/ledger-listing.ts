import os from 'node:os';
import { createPgPool } from '@folio-vault/shared/connections';
import { importRecords, recordsOfDocument } from '@folio-vault/shared/ledger/batch-import';
import { generateLargeSource } from '@folio-vault/test-kit/demo-ledger';
import { listTransactions } from '@folio-vault/shared/ledger/list-transactions';
import { ZListTransactionsRequest } from '@folio-vault/shared/ledger/listing-schemas';
import { provisionServices } from '@folio-vault/dev-services/provision';
import { createBenchDatabase, writeResult } from '../support/environment.js';
import { machine } from '../support/machine.js';
import { ms, summary } from '../support/stats.js';

/**
 * Listing latency for one source of 20,000 transactions (the ledger module the API calls, against
 * real PostgreSQL): the first page, the first page with totals, and full walks with the cursor.
 * The source carries every field the import takes (stay, users, guest, payments, foreign tender);
 * a second source of the same size with only the fields the ledger had before them (no stay, no
 * users, no payment objects) is the baseline, imported and listed in the same run.
 */
const ROWS = Number(process.env.BENCH_LEDGER_ROWS ?? 20_000);
const services = await provisionServices({ env: process.env, mode: 'ephemeral', need: { postgres: true } });
const databaseUrl = await createBenchDatabase(services.env.DATABASE_URL ?? process.env.DATABASE_URL!);
const pool = createPgPool(databaseUrl, { max: 4 });

async function importSource(sourceId: number, rich: boolean): Promise<number> {
  const ledger = generateLargeSource({ propertyId: 1, sourceId, rows: ROWS, rich });
  const began = performance.now();
  await importRecords(pool, '1', recordsOfDocument(ledger));
  return (performance.now() - began) / 1000;
}
const PLAIN_SOURCE = 776;
const plainImportSeconds = await importSource(PLAIN_SOURCE, false);
const importSeconds = await importSource(777, true);
await pool.query('ANALYZE');

const request = (extra: object, sourceId = 777) => ZListTransactionsRequest.parse({ sourceId, sourceKind: 'RESERVATION', ...extra });
async function timed(runs: number, work: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < runs + 3; i += 1) {
    const t = performance.now();
    await work();
    if (i >= 3) samples.push(performance.now() - t);
  }
  return samples;
}
async function walk(limit: number, extra: object = {}): Promise<{ pages: number; rows: number }> {
  let pageToken: string | undefined;
  let pages = 0;
  let rows = 0;
  do {
    const page = await listTransactions(pool, '1', request({ limit, pageToken, ...extra }));
    pages += 1;
    rows += Object.values(page.groups).reduce((n, g) => n + g.transactions.length, 0);
    pageToken = page.nextPageToken ?? undefined;
  } while (pageToken);
  return { pages, rows };
}

const plainFirstPage = summary(await timed(30, () => listTransactions(pool, '1', request({ limit: 100 }, PLAIN_SOURCE))));
const plainFirstPageTotals = summary(await timed(30, () => listTransactions(pool, '1', request({ limit: 100, includeTotal: true }, PLAIN_SOURCE))));
const firstPage = summary(await timed(30, () => listTransactions(pool, '1', request({ limit: 100 }))));
const firstPageTotals = summary(await timed(30, () => listTransactions(pool, '1', request({ limit: 100, includeTotal: true }))));
const lastPage = summary(await timed(10, () => listTransactions(pool, '1', request({ limit: 100, sort: [{ field: 'amount', direction: 'desc' }], includeVoided: false }))));
let started = performance.now();
const walk1100 = await walk(1100);
const walk1100Ms = performance.now() - started;
started = performance.now();
const walk100 = await walk(100);
const walk100Ms = performance.now() - started;

console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}; PostgreSQL: ${services.sources.postgres}`);
console.log(`source of ${ROWS} transactions with every field; imported in ${importSeconds.toFixed(2)} s (${(ROWS / importSeconds).toFixed(0)} rows/s)`);
console.log(`baseline: the same rows with only the older fields; imported in ${plainImportSeconds.toFixed(2)} s (${(ROWS / plainImportSeconds).toFixed(0)} rows/s)`);
console.log('                                            p50        p99');
console.log(`first page (100)                     ${ms(firstPage.p50).padStart(10)} ${ms(firstPage.p99).padStart(10)}   baseline ${ms(plainFirstPage.p50)} / ${ms(plainFirstPage.p99)}`);
console.log(`first page (100) + includeTotal      ${ms(firstPageTotals.p50).padStart(10)} ${ms(firstPageTotals.p99).padStart(10)}   baseline ${ms(plainFirstPageTotals.p50)} / ${ms(plainFirstPageTotals.p99)}`);
console.log(`first page by amount desc, no voided ${ms(lastPage.p50).padStart(10)} ${ms(lastPage.p99).padStart(10)}`);
console.log(`full walk, limit 1100: ${walk1100.pages} pages, ${walk1100.rows} rows in ${ms(walk1100Ms)} (${((walk1100.rows / walk1100Ms) * 1000).toFixed(0)} rows/s)`);
console.log(`full walk, limit 100:  ${walk100.pages} pages, ${walk100.rows} rows in ${ms(walk100Ms)} (${(walk100Ms / walk100.pages).toFixed(2)} ms/page)`);

writeResult({
  benchmark: 'listing',
  machine: machine(),
  rows: ROWS,
  importRowsPerSecond: ROWS / importSeconds,
  firstPage,
  firstPageTotals,
  baseline: { importRowsPerSecond: ROWS / plainImportSeconds, firstPage: plainFirstPage, firstPageTotals: plainFirstPageTotals },
  firstPageByAmount: lastPage,
  walk1100: { ...walk1100, ms: walk1100Ms },
  walk100: { ...walk100, ms: walk100Ms },
});
await pool.end();
await services.stop();
