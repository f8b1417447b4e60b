/**
 * Folio PDF render time and memory: 100, 1,000 and 10,000 rows (or --rows N), each in a fresh
 * process so peak RSS (process.resourceUsage().maxRSS) belongs to that size alone. Times include
 * loading the fonts, as the first export of a worker process does. The children run with
 * NODE_ENV=production unless NODE_ENV is set: React's development build (what tests run) is about
 * a third slower.
 *
 *   npx tsx bench/scenarios/render-pdf.ts            # all sizes
 *   npx tsx bench/scenarios/render-pdf.ts --rows 5000
 *   npx tsx bench/scenarios/render-pdf.ts --sizes 100,1000   # those sizes, each with the raw-pdfkit ratio
 *   npx tsx bench/scenarios/render-pdf.ts --pairs <measure> --pair-rows 10000 --pair-runs 3
 *
 * After the sizes, each performance measure named by --pairs (packages/shared/src/performance-measures.ts;
 * none by default: no kept measure lives on the render path) gets its alternated pair: the
 * --pair-rows folio rendered in a fresh process as it is and with PERFORMANCE_MEASURES_OFF=<measure>,
 * in turn, with, without, with… (bench/support/pairs.ts), --pair-runs of each.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
// A relative import: the worker's folio-pdf module is .tsx, which its package exports do not name.
import { renderFolioPdf } from '../../apps/worker/src/exports/pdf/folio-pdf.js';
import { sampleDocument } from '@folio-vault/test-kit/folio-document';
import { baselineInChild, type TBaselineResult } from '../baselines/raw-pdfkit.js';
import { writeResult } from '../support/environment.js';
import { machine } from '../support/machine.js';
import { alternated } from '../support/pairs.js';


const SIZES = [100, 1_000, 10_000];

interface TResult {
  rows: number;
  pages: number;
  ms: number;
  maxRssMb: number;
  bytes: number;
}

async function renderOnce(rows: number): Promise<TResult> {
  const document = sampleDocument(rows);
  const dir = await mkdtemp(join(tmpdir(), 'fv-bench-pdf-'));
  try {
    const file = join(dir, 'folio.pdf');
    const started = performance.now();
    const rendered = await renderFolioPdf(document, file);
    const ms = performance.now() - started;
    const { size } = await stat(file);
    return { rows: rendered.rows, pages: rendered.pages, ms, maxRssMb: process.resourceUsage().maxRSS / 1024, bytes: size };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function line(r: TResult): string {
  const perSecond = Math.round(r.rows / (r.ms / 1000));
  return `${String(r.rows).padStart(6)} rows  ${String(r.pages).padStart(4)} pages  ${(r.ms / 1000).toFixed(2).padStart(7)} s  ${String(perSecond).padStart(6)} rows/s  peak RSS ${r.maxRssMb.toFixed(0).padStart(5)} MB  ${(r.bytes / 1024).toFixed(0)} KiB`;
}

const { values } = parseArgs({
  options: {
    rows: { type: 'string' },
    sizes: { type: 'string' },
    json: { type: 'boolean', default: false },
    pairs: { type: 'string', default: '' },
    'pair-rows': { type: 'string', default: '10000' },
    'pair-runs': { type: 'string', default: '3' },
  },
});

if (values.rows) {
  const result = await renderOnce(Number(values.rows));
  console.log(values.json ? JSON.stringify(result) : line(result));
} else {
  const run = promisify(execFile);
  const self = fileURLToPath(import.meta.url);
  const env = { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'production' };
  console.log(`NODE_ENV=${env.NODE_ENV}; each size then raw pdfkit drawing the same document (bench/baselines/raw-pdfkit.ts)`);
  const sizes: Array<TResult & { baseline: TBaselineResult; ratio: number }> = [];
  /** One render in a fresh process (its first document), with `extra` in its environment. */
  const renderInChild = async (rows: number, extra: Record<string, string> = {}): Promise<TResult> => {
    const args = ['--import', import.meta.resolve('tsx'), self, '--rows', String(rows), '--json'];
    const { stdout } = await run(process.execPath, args, { env: { ...env, ...extra }, maxBuffer: 1 << 20 });
    return JSON.parse(stdout.trim().split('\n').pop()!) as TResult;
  };
  for (const rows of values.sizes ? values.sizes.split(',').map(Number) : SIZES) {
    // A child per size: maxRSS is a high-water mark of the whole process.
    const result = await renderInChild(rows);
    // Cold too: both times are a process's first document, fonts loaded.
    const baseline = await baselineInChild(rows, 'sample', true);
    sizes.push({ ...result, baseline, ratio: result.ms / baseline.ms });
    console.log(`${line(result)}   raw pdfkit ${(baseline.ms / 1000).toFixed(2)} s (${(result.ms / baseline.ms).toFixed(1)}×)`);
  }
  const pairRows = Number(values['pair-rows']);
  const pairs = [];
  for (const measure of values.pairs.split(',').filter((name) => name && name !== 'none')) {
    const runs = await alternated(Number(values['pair-runs']), async (side) => ({ ms: (await renderInChild(pairRows, side === 'with' ? {} : { PERFORMANCE_MEASURES_OFF: measure })).ms }));
    pairs.push({ measure, rows: pairRows, runs });
    console.log(`pair ${measure}, ${pairRows} rows: ${runs.map((r) => `${r.side} ${(r.ms / 1000).toFixed(2)} s`).join(', ')}`);
  }
  writeResult({ benchmark: 'render', machine: machine(), nodeEnv: env.NODE_ENV, sizes, pairs });
}
