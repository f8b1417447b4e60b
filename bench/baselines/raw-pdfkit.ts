/**
 * The raw-pdfkit baseline of the export and render benchmarks: plain pdfkit drawing the same folio
 * table as the service (packages/test-kit/src/raw-pdfkit-folio.ts), timed, in a process of its own
 * per size so its peak RSS is that size's alone. What the service's render and export cost above it
 * is what their layers cost.
 *
 *   npx tsx bench/baselines/raw-pdfkit.ts                      # 1,000 / 5,000 / 20,000 / 50,000 rows, a process each
 *   npx tsx bench/baselines/raw-pdfkit.ts --rows 5000 [--document sample] [--cold] [--out folio.pdf] [--json]
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { largeSourceDocument, sampleDocument } from '@folio-vault/test-kit/folio-document';
import { renderBaselinePdf } from '@folio-vault/test-kit/raw-pdfkit-folio';

export interface TBaselineResult {
  rows: number;
  pages: number;
  ms: number;
  rowsPerSecond: number;
  maxRssMb: number;
  bytes: number;
}

/**
 * Builds the named document and draws it, timing the draw. Unless `cold`, a small document is drawn
 * first in the same process: the end-to-end export is measured warm too (code compiled, render
 * processes started), and a first draw pays for JIT compilation and font-file parsing, which
 * the rows do not cost. `cold` matches bench/scenarios/render-pdf.ts, which times a process's first render.
 */
export async function measureBaseline(rows: number, kind: 'ledger' | 'sample', options: { outputPath?: string; cold?: boolean } = {}): Promise<TBaselineResult> {
  const { outputPath, cold = false } = options;
  const document = kind === 'ledger' ? largeSourceDocument(rows) : sampleDocument(rows);
  const dir = await mkdtemp(join(tmpdir(), 'fv-bench-pdfkit-'));
  const file = outputPath ?? join(dir, 'folio.pdf');
  try {
    if (!cold) await renderBaselinePdf(kind === 'ledger' ? largeSourceDocument(100) : sampleDocument(100), join(dir, 'warm-up.pdf'));
    const started = performance.now();
    const drawn = await renderBaselinePdf(document, file);
    const ms = performance.now() - started;
    const { size } = await stat(file);
    return { ...drawn, ms, rowsPerSecond: drawn.rows / (ms / 1000), maxRssMb: process.resourceUsage().maxRSS / 1024, bytes: size };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs the baseline for `rows` in a fresh process, so its peak RSS is that size's alone. */
export async function baselineInChild(rows: number, kind: 'ledger' | 'sample' = 'ledger', cold = false): Promise<TBaselineResult> {
  const self = fileURLToPath(import.meta.url);
  const args = ['--import', import.meta.resolve('tsx'), self, '--rows', String(rows), '--document', kind, '--json', ...(cold ? ['--cold'] : [])];
  const { stdout } = await promisify(execFile)(process.execPath, args, { env: { ...process.env, NODE_ENV: 'production' }, maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').pop()!) as TBaselineResult;
}

export function baselineLine(r: TBaselineResult): string {
  return `${String(r.rows).padStart(6)} rows  ${String(r.pages).padStart(4)} pages  ${(r.ms / 1000).toFixed(2).padStart(7)} s  ${String(Math.round(r.rowsPerSecond)).padStart(7)} rows/s  peak RSS ${r.maxRssMb.toFixed(0).padStart(4)} MB  ${(r.bytes / 1024).toFixed(0)} KiB`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      rows: { type: 'string' },
      document: { type: 'string', default: 'ledger' },
      out: { type: 'string' },
      cold: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const kind = values.document === 'sample' ? 'sample' : 'ledger';
  if (values.rows) {
    const result = await measureBaseline(Number(values.rows), kind, { outputPath: values.out, cold: values.cold });
    console.log(values.json ? JSON.stringify(result) : baselineLine(result));
  } else {
    console.log(`raw pdfkit, ${kind} document, a process per size${values.cold ? ', first draw of the process' : ''}`);
    for (const rows of [1_000, 5_000, 20_000, 50_000]) console.log(baselineLine(await baselineInChild(rows, kind, values.cold)));
  }
}
