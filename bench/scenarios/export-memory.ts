/**
 * The worker's memory for a large export against a small one, in the same run: a rendered file
 * reaches object storage as a stream (storage.putFile) and the render processes hold a chunk of
 * pages at a time, so a 50,000-row export costs the worker's main process little more than a
 * 5,000-row one (docs/export.md#streaming; the goal is in bench/report/goals.ts).
 *
 * The real service: the API (`start:api`) and one worker (`start:worker`) as separate processes
 * with NODE_ENV=production, storing in S3 (STORAGE_DRIVER=minio against the provisioning module's
 * S3 server: MINIO_ENDPOINT, MinIO, or s3rver), so the upload is an HTTP PUT of the file, not a
 * file copy. For each format and size an N-row folio is exported (POST with `Prefer:
 * respond-async`, status polled every 50 ms) while every process of the worker's tree is sampled:
 * the peak (VmHWM, reset before each export) of the worker's main process — the one that builds the
 * document, plans the pages and uploads — and of the largest render process, apart. Each format
 * gets a fresh worker and a warm-up export first, so the figures are a running worker's and the
 * small export does not start at another format's large peak.
 *
 *   npx tsx bench/scenarios/export-memory.ts                        # PDF and XLSX, 5,000 and 50,000 rows
 *   npx tsx bench/scenarios/export-memory.ts --formats PDF --rows 5000,50000
 */
import { parseArgs } from 'node:util';
import { provisionServices } from '@folio-vault/dev-services/provision';
import { createPgPool } from '@folio-vault/shared/connections';
import { importRecords, recordsOfDocument } from '@folio-vault/shared/ledger/batch-import';
import { largeSource, largeSourceId } from '@folio-vault/test-kit/folio-document';
import { TreeMemorySampler } from '../support/process-memory.js';
import { benchToken, freePort, startService, type TServiceProcess } from '../support/service-processes.js';
import { benchEnvironment, writeResult } from '../support/environment.js';
import { machine, type TMachine } from '../support/machine.js';

const { values } = parseArgs({ options: { rows: { type: 'string' }, formats: { type: 'string' } } });
const SIZES = (values.rows ?? '5000,50000').split(',').map(Number);
const FORMATS = (values.formats ?? 'PDF,XLSX').split(',') as Array<'PDF' | 'XLSX'>;
const WARM_UP_ROWS = 3_000;

export interface TExportMemorySize {
  format: 'PDF' | 'XLSX';
  rows: number;
  bytes: number;
  pages: number;
  seconds: number;
  /** Peak RSS (MB) of the worker's main process. */
  workerMb: number;
  /** Peak RSS (MB) of the largest render process, and how many there were. */
  renderMb: number;
  renderProcesses: number;
}

export interface TExportMemoryResult {
  benchmark: 'export-memory';
  machine: TMachine;
  storage: string;
  sizes: TExportMemorySize[];
  /** Per format: the largest size's worker peak minus the smallest's (MB), and the render processes'. */
  growth: Array<{ format: 'PDF' | 'XLSX'; fromRows: number; toRows: number; workerMb: number; renderMb: number }>;
  failures: string[];
}

interface TStatus {
  exportId: string;
  status: string;
  size?: number;
  pages?: number;
  rows?: number;
}

const { config, ownerUrl, services, rawEnv } = await benchEnvironment();
const s3 = await provisionServices({ env: process.env, mode: 'ephemeral', need: { s3: true } });
const pool = createPgPool(ownerUrl, { max: 2 });
const port = await freePort();
const env = {
  ...rawEnv(),
  ...Object.fromEntries(['MINIO_ENDPOINT', 'MINIO_ACCESS_KEY', 'MINIO_SECRET_KEY'].flatMap((name) => (process.env[name] ? [[name, process.env[name]!]] : []))),
  ...s3.env,
  STORAGE_DRIVER: 'minio',
  MINIO_BUCKET: `fv-bench-${process.pid}`,
  NODE_ENV: 'production',
  PORT: String(port),
};
const base = `http://127.0.0.1:${port}`;
const headers = { authorization: `Bearer ${benchToken(config, 'read:payment')}`, 'x-property-id': '1', 'accept-language': 'en' };

/** One export from POST to completed; the status names the stored file's size and pages. */
async function exportOnce(rows: number, format: 'PDF' | 'XLSX'): Promise<{ seconds: number; status: TStatus }> {
  const started = performance.now();
  const res = await fetch(`${base}/fiscal-document/v1/folios/export`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', prefer: 'respond-async' },
    body: JSON.stringify({ sourceKind: 'RESERVATION', sourceId: String(largeSourceId(rows)), format }),
  });
  if (res.status !== 202) throw new Error(`${format} export of ${rows} rows answered ${res.status}: ${await res.text()}`);
  const { statusUrl } = (await res.json()) as { statusUrl: string };
  for (;;) {
    const polled = await fetch(`${base}${statusUrl}`, { headers });
    const status = (await polled.json()) as TStatus;
    if (status.status === 'completed') return { seconds: (performance.now() - started) / 1000, status };
    if (status.status === 'failed' || polled.status !== 200) throw new Error(`${format} export of ${rows} rows: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One export with the worker's tree sampled from a reset peak; the file's checks go to `failures`. */
async function measure(sampler: TreeMemorySampler, format: 'PDF' | 'XLSX', rows: number, failures: string[]): Promise<TExportMemorySize> {
  sampler.reset();
  sampler.start(50);
  let run: Awaited<ReturnType<typeof exportOnce>>;
  try {
    run = await exportOnce(rows, format);
  } finally {
    sampler.stop();
  }
  const recorded = (await pool.query<{ rows: number }>('SELECT rows FROM exports WHERE id = $1', [run.status.exportId])).rows[0]?.rows;
  if (recorded !== rows) failures.push(`${format} ${rows} rows: the export recorded ${recorded} rows`);
  if (!run.status.size) failures.push(`${format} ${rows} rows: no file size in the status`);
  const peaks = sampler.peaks();
  return {
    format,
    rows,
    bytes: run.status.size ?? 0,
    pages: run.status.pages ?? 0,
    seconds: run.seconds,
    workerMb: peaks.worker?.peakMb ?? 0,
    renderMb: peaks['render process']?.peakMb ?? 0,
    renderProcesses: peaks['render process']?.processes ?? 0,
  };
}

function growthOf(sizes: TExportMemorySize[]): TExportMemoryResult['growth'] {
  return FORMATS.map((format) => {
    const own = sizes.filter((size) => size.format === format).sort((a, b) => a.rows - b.rows);
    const [small, large] = [own[0]!, own[own.length - 1]!];
    const workerMb = large.workerMb - small.workerMb;
    return { format, fromRows: small.rows, toRows: large.rows, workerMb, renderMb: large.renderMb - small.renderMb };
  });
}

const sizes: TExportMemorySize[] = [];
const failures: string[] = [];
let api: TServiceProcess | undefined;
let worker: TServiceProcess | undefined;
try {
  for (const rows of [WARM_UP_ROWS, ...SIZES]) await importRecords(pool, '1', recordsOfDocument(largeSource(rows)));
  api = await startService('api', env);
  const m = machine();
  console.log(`machine: ${m.cores} × ${m.cpu}, ${m.memoryGiB} GiB, node ${m.node}; storage: ${s3.sources.s3 ?? 'MINIO_ENDPOINT'}`);
  console.log('format    rows   pages        bytes    time   peak RSS MB: worker main / largest render process (processes)');
  for (const format of FORMATS) {
    // A fresh, warmed worker per format: a heap does not shrink back after a large export, so the
    // second format's small export would otherwise start at the first format's large peak.
    await worker?.stop();
    worker = await startService('worker', env);
    await exportOnce(WARM_UP_ROWS, format);
    const sampler = new TreeMemorySampler([{ pid: worker.pid, label: 'worker' }]);
    for (const rows of SIZES) {
      const size = await measure(sampler, format, rows, failures);
      sizes.push(size);
      console.log(
        `${format.padEnd(6)} ${String(rows).padStart(7)} ${String(size.pages).padStart(7)} ${String(size.bytes).padStart(12)} ${`${size.seconds.toFixed(1)} s`.padStart(7)}   ${size.workerMb.toFixed(0).padStart(4)} / ${size.renderMb.toFixed(0)} (${size.renderProcesses})`,
      );
    }
  }
} finally {
  await worker?.stop();
  await api?.stop();
  await pool.end();
  await s3.stop();
  await services.stop();
}

const growth = growthOf(sizes);
for (const g of growth) {
  console.log(
    `${g.format}: worker main ${g.workerMb >= 0 ? '+' : ''}${g.workerMb.toFixed(0)} MB from ${g.fromRows} to ${g.toRows} rows; render process ${g.renderMb >= 0 ? '+' : ''}${g.renderMb.toFixed(0)} MB`,
  );
}
// An unmet goal is a figure (✘ in docs/benchmarks.md), not a failed run: only broken files fail it.
const result: TExportMemoryResult = { benchmark: 'export-memory', machine: machine(), storage: s3.sources.s3 ?? 'MINIO_ENDPOINT', sizes, growth, failures };
writeResult(result);
if (failures.length) {
  console.error(`export-memory bench: files that do not match:\n${failures.join('\n')}`);
  process.exitCode = 1;
}
