/**
 * Folio export end to end through the real service: the API (`start:api`) and the worker
 * (`start:worker`) as separate processes with NODE_ENV=production; an N-row folio (one
 * reservation, one folio, N transactions) imported the way `ledger:import` does; then
 * POST /fiscal-document/v1/folios/export with `Prefer: respond-async`, the status polled every
 * 50 ms, the file downloaded. The time runs from the POST to the file's last byte. Peak RSS is
 * sampled for every process of both trees (tsx launchers, API, worker, each render process the
 * worker forks) and reported per kind. Each size is also drawn by raw pdfkit in its own process
 * (bench/baselines/raw-pdfkit.ts) for the ratio. Two warm-up exports run first, so the figures are a
 * running service's (render process started, code compiled), not its start. Each size runs --runs
 * times (3 by default), the export and raw pdfkit in turn (export, raw, export, raw…), so a burst of
 * other work on the machine lands on both sides; the figures are the medians, the ratio the median
 * of the runs' own ratios, and every run's ratio is kept beside it.
 *
 * The file is checked so a broken render cannot look fast: the export's recorded row count must
 * be N, its page count above 0 and equal to the PDF's own (pdfinfo when installed, else the page
 * objects counted), the bytes downloaded equal to its size.
 *
 *   npx tsx bench/scenarios/export-e2e.ts                   # 1,000 / 5,000 / 20,000 / 50,000 rows
 *   npx tsx bench/scenarios/export-e2e.ts --rows 1000,5000 --runs 1
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { parseArgs } from 'node:util';
import { PDFDocument } from 'pdf-lib';
import { createPgPool } from '@folio-vault/shared/connections';
import { importRecords, recordsOfDocument } from '@folio-vault/shared/ledger/batch-import';
import { baselineInChild, type TBaselineResult } from '../baselines/raw-pdfkit.js';
import { largeSource, largeSourceId } from '@folio-vault/test-kit/folio-document';
import { TreeMemorySampler } from '../support/process-memory.js';
import { benchToken, freePort, startService, type TServiceProcess } from '../support/service-processes.js';
import { benchEnvironment, writeResult } from '../support/environment.js';
import { machine, meanLoad } from '../support/machine.js';
import { median } from '../support/stats.js';

const { values } = parseArgs({ options: { rows: { type: 'string' }, runs: { type: 'string', default: '3' } } });
const SIZES = (values.rows ?? '1000,5000,20000,50000').split(',').map(Number);
const RUNS = Number(values.runs);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`--runs must be a whole number of at least 1, not ${values.runs}`);
/**
 * The warm-up export: large enough to be cut into chunks for every render process, so each has
 * rendered once (its code compiled, as in a worker that has been running) before anything is timed.
 */
const WARM_UP_ROWS = 3_000;

/** One run of a size: the export end to end, then raw pdfkit drawing the same table. */
export interface TExportE2eRun {
  ms: number;
  baselineMs: number;
  ratio: number;
}

export interface TExportE2eSize {
  rows: number;
  /** Medians of the runs (baseline: the run nearest its median). */
  ms: number;
  rowsPerSecond: number;
  bytes: number;
  pages: number;
  /** The worker's own render time for the document (its "document rendered" log line). */
  renderMs?: number;
  /** Peak RSS (MB) of the largest process of each kind. */
  peaks: Record<string, { peakMb: number; processes: number }>;
  load: number;
  baseline: TBaselineResult;
  /** End-to-end time over raw pdfkit's draw time (lower is better): the median of the runs' ratios. */
  ratio: number;
  /** Every run, in the order measured. */
  runs: TExportE2eRun[];
}


const { config, ownerUrl, services, rawEnv } = await benchEnvironment();
const pool = createPgPool(ownerUrl, { max: 2 });
const work = await mkdtemp(join(tmpdir(), 'fv-bench-export-'));

const port = await freePort();
const env = { ...rawEnv(), NODE_ENV: 'production', PORT: String(port) };
const base = `http://127.0.0.1:${port}`;
const headers = { authorization: `Bearer ${benchToken(config, 'read:payment')}`, 'x-property-id': '1', 'accept-language': 'en' };

interface TStatus {
  exportId: string;
  status: string;
  size?: number;
  pages?: number;
  error?: string;
  fileUrl?: string;
}

/** One export from POST to the file's last byte, written to `file`. */
async function exportOnce(rows: number, file: string): Promise<{ ms: number; status: TStatus; bytes: number }> {
  const started = performance.now();
  const res = await fetch(`${base}/fiscal-document/v1/folios/export`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', prefer: 'respond-async' },
    body: JSON.stringify({ sourceKind: 'RESERVATION', sourceId: String(largeSourceId(rows)) }),
  });
  if (res.status !== 202) throw new Error(`export of ${rows} rows answered ${res.status}: ${await res.text()}`);
  const { statusUrl } = (await res.json()) as { statusUrl: string };
  let status: TStatus;
  for (;;) {
    const polled = await fetch(`${base}${statusUrl}`, { headers });
    status = (await polled.json()) as TStatus;
    if (status.status === 'completed') break;
    if (status.status === 'failed' || polled.status !== 200) throw new Error(`export of ${rows} rows: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const download = await fetch(`${base}${status.fileUrl!}`, { headers });
  if (download.status !== 200 || !download.body) throw new Error(`file of ${rows} rows answered ${download.status}`);
  let bytes = 0;
  const counted = Readable.fromWeb(download.body as WebReadableStream<Uint8Array>).on('data', (chunk: Buffer) => (bytes += chunk.length));
  await pipeline(counted, createWriteStream(file));
  return { ms: performance.now() - started, status, bytes };
}

/** The PDF's page count by its own structure: pdfinfo when installed, else pdf-lib's reading of its page tree (page objects may sit in compressed object streams). */
async function pdfPages(file: string): Promise<number> {
  try {
    const info = execFileSync('pdfinfo', [file], { encoding: 'utf8' });
    return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1] ?? 0);
  } catch {
    return (await PDFDocument.load(await readFile(file), { updateMetadata: false })).getPageCount();
  }
}

function renderMsOf(log: string, exportId: string): number | undefined {
  const line = log.split('\n').filter((l) => l.includes('"msg":"document rendered"') && l.includes(exportId)).pop();
  return line ? (JSON.parse(line) as { ms: number }).ms : undefined;
}

const results: TExportE2eSize[] = [];
const failures: string[] = [];
const imported: Record<number, number> = {};
let api: TServiceProcess | undefined;
let worker: TServiceProcess | undefined;
try {
  for (const rows of [WARM_UP_ROWS, ...SIZES]) {
    const started = performance.now();
    await importRecords(pool, '1', recordsOfDocument(largeSource(rows)));
    imported[rows] = (performance.now() - started) / 1000;
  }
  api = await startService('api', env);
  worker = await startService('worker', env);
  await exportOnce(WARM_UP_ROWS, join(work, 'warm-up.pdf'));
  await exportOnce(WARM_UP_ROWS, join(work, 'warm-up-2.pdf'));
  const sampler = new TreeMemorySampler([
    { pid: api.pid, label: 'api' },
    { pid: worker.pid, label: 'worker' },
  ]);
  const m = machine();
  console.log(`machine: ${m.cores} × ${m.cpu}, ${m.memoryGiB} GiB, node ${m.node}; ${Object.entries(services.sources).map(([k, v]) => `${k}: ${v}`).join(', ')}`);
  console.log(`imported: ${SIZES.map((rows) => `${rows} rows in ${imported[rows]!.toFixed(1)} s`).join(', ')}`);
  console.log('  rows   pages    e2e time     rows/s   render   raw pdfkit  ratio   peak RSS MB (api / worker / render / tsx launchers)   load');
  for (const rows of SIZES) {
    const loads: number[] = [];
    const loadTimer = setInterval(() => loads.push(os.loadavg()[0]!), 1000);
    sampler.reset();
    sampler.start(50);
    const runs: Array<TExportE2eRun & { baseline: TBaselineResult; renderMs: number | undefined; bytes: number; pages: number }> = [];
    try {
      for (let index = 0; index < RUNS; index += 1) {
        const file = join(work, `folio-${rows}.pdf`);
        const run = await exportOnce(rows, file);
        const { rows: recorded } = (await pool.query<{ rows: number }>('SELECT rows FROM exports WHERE id = $1', [run.status.exportId])).rows[0] ?? { rows: -1 };
        const pages = await pdfPages(file);
        if (recorded !== rows) failures.push(`${rows} rows: the export recorded ${recorded} rows`);
        if (!run.status.pages || pages !== run.status.pages) failures.push(`${rows} rows: status says ${run.status.pages} pages, the PDF has ${pages}`);
        if (run.bytes !== run.status.size) failures.push(`${rows} rows: downloaded ${run.bytes} bytes of ${run.status.size}`);
        await rm(file, { force: true });
        const baseline = await baselineInChild(rows, 'ledger');
        runs.push({ ms: run.ms, baselineMs: baseline.ms, ratio: run.ms / baseline.ms, baseline, renderMs: renderMsOf(worker.log(), run.status.exportId), bytes: run.bytes, pages });
      }
    } finally {
      sampler.stop();
      clearInterval(loadTimer);
      loads.push(os.loadavg()[0]!);
    }
    const peaks = sampler.peaks();
    const ms = median(runs.map((run) => run.ms));
    const baselineMs = median(runs.map((run) => run.baselineMs));
    const renders = runs.flatMap((run) => (run.renderMs === undefined ? [] : [run.renderMs]));
    const result: TExportE2eSize = {
      rows,
      ms,
      rowsPerSecond: rows / (ms / 1000),
      bytes: runs[0]!.bytes,
      pages: runs[0]!.pages,
      ...(renders.length ? { renderMs: median(renders) } : {}),
      peaks,
      load: meanLoad(loads),
      baseline: runs.reduce((near, run) => (Math.abs(run.baselineMs - baselineMs) < Math.abs(near.baselineMs - baselineMs) ? run : near)).baseline,
      ratio: median(runs.map((run) => run.ratio)),
      runs: runs.map(({ ms: runMs, baselineMs: runBaseline, ratio }) => ({ ms: runMs, baselineMs: runBaseline, ratio })),
    };
    results.push(result);
    const mb = (kind: string) => (peaks[kind] ? peaks[kind].peakMb.toFixed(0) : '-');
    const launchers = Math.max(peaks['api (tsx launcher)']?.peakMb ?? 0, peaks['worker (tsx launcher)']?.peakMb ?? 0).toFixed(0);
    console.log(
      `${String(rows).padStart(6)} ${String(result.pages).padStart(7)} ${`${(ms / 1000).toFixed(2)} s`.padStart(11)} ${Math.round(result.rowsPerSecond).toString().padStart(10)} ${`${((result.renderMs ?? 0) / 1000).toFixed(2)} s`.padStart(8)} ${`${(baselineMs / 1000).toFixed(2)} s`.padStart(12)} ${`${result.ratio.toFixed(2)}×`.padStart(6)}   ${`${mb('api')} / ${mb('worker')} / ${mb('render process')} / ${launchers}`.padStart(52)} ${result.load.toFixed(1).padStart(6)}   runs: ${result.runs.map((run) => `${run.ratio.toFixed(2)}×`).join(', ')}`,
    );
  }
} finally {
  await worker?.stop();
  await api?.stop();
  await pool.end();
  await rm(work, { recursive: true, force: true });
  await rm(config.STORAGE_DIR, { recursive: true, force: true });
  await services.stop();
}

writeResult({ benchmark: 'export', machine: machine(), services: services.sources, sizes: results, failures });
if (failures.length) {
  console.error(`export bench: files that do not match:\n${failures.join('\n')}`);
  process.exitCode = 1;
}
