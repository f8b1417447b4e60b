/**
 * `npm run bench`: every benchmark in turn, each in its own process, then docs/benchmarks.md with
 * the machine, a table per benchmark (figures, ratios to the baselines measured in the same run,
 * goals met or not) and the commands to reproduce, rendered from the raw figures in
 * bench/results.json (bench/report/results.ts), so `--only` re-measures some benchmarks and keeps
 * the others' last figures. Exits 1 while the report marks a goal or a kept measure ✘, or a
 * benchmark failed.
 *
 *   npm run bench                                   # everything, full sizes (slow: tens of minutes)
 *   npm run bench -- --only export,tokenize         # export | export-small | export-memory | invoice | tokenize | tokenize-open-loop | night-audit | render | listing | latency | forward | key-custody | tenants | tracing
 *   npm run bench:quick                             # small sizes, a smoke check; writes out/benchmarks-quick.md
 *   npm run bench -- --only export --export-rows 1000,5000   # some export sizes only
 *   npm run bench -- --out /tmp/bench.md            # its figures in /tmp/bench.results.json
 *   npm run bench -- --report-only                  # no benchmark: the report again from its stored figures
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ROOT } from '@folio-vault/test-kit/processes';
import { failures } from './report/goals.js';
import { renderReport } from './report/report.js';
import { readResults, writeResults } from './report/results.js';
import type { TRun } from './report/format.js';
import { machine } from './support/machine.js';
import { parseCommandLine } from '../scripts/cli-support.js';

const BENCHMARKS = ['render', 'listing', 'export', 'export-small', 'export-memory', 'invoice', 'tokenize', 'tokenize-open-loop', 'latency', 'forward', 'key-custody', 'night-audit', 'tenants', 'tracing'] as const;
type TName = (typeof BENCHMARKS)[number];

/** Script, arguments and environment of each benchmark, full and quick. */
const PLAN: Record<TName, { script: string; full: { args?: string[]; env?: Record<string, string> }; quick: { args?: string[]; env?: Record<string, string> } }> = {
  render: { script: 'bench/scenarios/render-pdf.ts', full: {}, quick: { args: ['--sizes', '100,1000'] } },
  listing: { script: 'bench/scenarios/ledger-listing.ts', full: {}, quick: { env: { BENCH_LEDGER_ROWS: '2000' } } },
  export: { script: 'bench/scenarios/export-e2e.ts', full: {}, quick: { args: ['--rows', '1000'] } },
  'export-small': { script: 'bench/scenarios/export-small.ts', full: {}, quick: { env: { BENCH_EXPORT_SMALL_SEQUENTIAL: '50', BENCH_EXPORT_SMALL_ASYNC: '10', BENCH_EXPORT_SMALL_SECONDS: '3' } } },
  'export-memory': { script: 'bench/scenarios/export-memory.ts', full: {}, quick: { args: ['--formats', 'PDF', '--rows', '500,2000'] } },
  invoice: { script: 'bench/scenarios/fiscal-invoice.ts', full: {}, quick: { env: { BENCH_INVOICE_FOLIOS: '10' } } },
  tokenize: { script: 'bench/scenarios/tokenize-load.ts', full: {}, quick: { args: ['--duration', '3'] } },
  'tokenize-open-loop': { script: 'bench/scenarios/tokenize-open-loop.ts', full: {}, quick: { args: ['--seconds', '3', '--step-seconds', '2', '--steps', '100,300,600', '--refine', '0'] } },
  latency: { script: 'bench/scenarios/tokenize-latency.ts', full: {}, quick: { env: { BENCH_REQUESTS: '200' } } },
  forward: { script: 'bench/scenarios/forward-overhead.ts', full: {}, quick: { env: { BENCH_FORWARD_REQUESTS: '200' } } },
  'key-custody': { script: 'bench/scenarios/key-custody.ts', full: {}, quick: { env: { BENCH_KEYS_SECONDS: '2', BENCH_KEYS_ROUNDS: '1' } } },
  'night-audit': {
    script: 'bench/scenarios/night-audit.ts',
    full: { env: { BENCH_NIGHT_AUDIT_FOLIOS: '1000', BENCH_NIGHT_AUDIT_CONFIGS: '1x1,2x1,1x2,2x2' } },
    quick: { env: { BENCH_NIGHT_AUDIT_FOLIOS: '100', BENCH_NIGHT_AUDIT_CONFIGS: '1x1,2x1' } },
  },
  tenants: {
    script: 'bench/scenarios/tenants.ts',
    full: {},
    quick: { env: { BENCH_TENANTS_BATCH_FOLIOS: '200', BENCH_TENANTS_IMPORT_FOLIOS: '200', BENCH_TENANTS_IDLE_EXPORTS: '5', BENCH_TENANTS_LISTING_ROWS: '20000', BENCH_TENANTS_HEAVY_SECONDS: '4' } },
  },
  tracing: { script: 'bench/scenarios/tracing.ts', full: {}, quick: { args: ['--duration', '3', '--export-seconds', '3'] } },
};

const USAGE = `
usage: npm run bench [-- --only NAME,…] [--export-rows N,…] [--out FILE] [--report-only]
       npm run bench:quick

Runs the benchmarks, each in its own process, and writes docs/benchmarks.md (figures, ratios to the
baselines measured in the same run, goals met or not) from the raw figures in bench/results.json.
Exits 1 while a goal or a kept measure is not met. Full sizes take tens of minutes.
  --only NAMES        some benchmarks only, keeping the others' last figures: ${BENCHMARKS.join(', ')}
  --quick             small sizes, a smoke check; writes out/benchmarks-quick.md
  --export-rows N,…   some export sizes only
  --out FILE          write the report there, its figures beside it (FILE without .md + .results.json)
  --report-only       no benchmark: the report again from its stored figures`;
const { values } = parseCommandLine('bench', USAGE, {
  options: {
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    out: { type: 'string' },
    'export-rows': { type: 'string' },
    'report-only': { type: 'boolean', default: false },
  },
});
const selected = (values['report-only'] ? [] : (values.only?.split(',').map((name) => name.trim()) ?? [...BENCHMARKS])) as TName[];
const unknown = selected.filter((name) => !BENCHMARKS.includes(name));
if (unknown.length) {
  console.error(`bench: unknown benchmark ${unknown.join(', ')}; pick from ${BENCHMARKS.join(', ')}`);
  process.exit(2);
}
const quick = values.quick;
// A smoke run never replaces the real figures unless asked to.
// resolve, not join: an absolute --out is used as it is (join put it under the repository).
const out = resolve(ROOT, values.out ?? (quick ? 'out/benchmarks-quick.md' : 'docs/benchmarks.md'));

const DEFAULT_OUT = resolve(ROOT, 'docs/benchmarks.md');
const resultsFile = out === DEFAULT_OUT ? resolve(ROOT, 'bench/results.json') : `${out.replace(/\.md$/, '')}.results.json`;

function runOne(name: TName): Promise<TRun> {
  const step = PLAN[name];
  const variant = { ...(quick ? step.quick : step.full) };
  if (name === 'export' && values['export-rows']) variant.args = ['--rows', values['export-rows']];
  const resultFile = join(tmpdir(), `fv-bench-result-${name}-${process.pid}.json`);
  rmSync(resultFile, { force: true });
  const args = ['--import', 'tsx', step.script, ...(variant.args ?? [])];
  const command = `${Object.entries(variant.env ?? {}).map(([k, v]) => `${k}=${v} `).join('')}npx tsx ${[step.script, ...(variant.args ?? [])].join(' ')}`;
  console.log(`\n=== ${name}: ${command}`);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...variant.env, BENCH_RESULT_FILE: resultFile }, stdio: 'inherit' });
    child.on('exit', (code, signal) => {
      const seconds = (Date.now() - started) / 1000;
      let result: unknown;
      try {
        result = JSON.parse(readFileSync(resultFile, 'utf8'));
      } catch {
        result = undefined;
      }
      rmSync(resultFile, { force: true });
      const error = code === 0 && result ? undefined : `exited with ${signal ?? code}${result ? '' : ', no result'}`;
      resolve({ command, quick, seconds, result, ...(error ? { error } : {}) });
    });
  });
}

const runs = readResults(resultsFile);
for (const name of BENCHMARKS) {
  if (!selected.includes(name)) continue;
  runs[name] = await runOne(name);
}

mkdirSync(dirname(out), { recursive: true });
writeResults(resultsFile, runs);
// Rendered from the file as written, so the report shows the figures the file keeps.
const stored = readResults(resultsFile);
writeFileSync(out, renderReport(stored, machine()));
console.log(`\nbench: wrote ${out} and ${resultsFile}`);
const failed = selected.filter((name) => stored[name]?.error);
if (failed.length) console.error(`bench: failed: ${failed.map((name) => `${name} (${stored[name]!.error})`).join(', ')}`);
const unmet = failures(stored);
for (const line of unmet) console.error(`bench: ✘ ${line}`);
if (failed.length || unmet.length) process.exitCode = 1;
