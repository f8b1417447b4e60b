import type { TMachine } from '../support/machine.js';
import type { TExportE2eSize } from '../scenarios/export-e2e.js';
import type { TBaselineResult } from '../baselines/raw-pdfkit.js';
import { exportMemorySection } from './export-memory.js';
import { exportSmallSection } from './export-small.js';
import { forwardSection } from './forward-overhead.js';
import { openLoopSection } from './tokenize-open-loop.js';
import { tokenizeSection } from './tokenize-load.js';
import { listingSection } from './ledger-listing.js';
import { header, int, machineLine, mark, msText, sec, table, type TRun } from './format.js';

/**
 * docs/benchmarks.md from the benchmarks' JSON results (bench/run.ts): the machine, the goals of
 * issue 6 met or not, a table per benchmark with its ratios to the baselines measured in the same
 * run, and the commands to reproduce. Pure: results in, Markdown out.
 */

interface TLatency {
  p50: number;
  p90?: number;
  p99: number;
  max?: number;
  mean?: number;
  perSecond?: number;
}
interface TExportResult {
  machine: TMachine;
  sizes: TExportE2eSize[];
  failures: string[];
}
interface TNightAuditResult {
  machine: TMachine;
  folios: number;
  rowsPerFolio: number;
  configs: Array<{ workers: number; concurrency: number; folios: number; seconds: number; foliosPerSecond: number; runs?: number[]; peakMb: number; renderMs: number; jobMs: number; load: number }>;
  failures: string[];
}
interface TRenderResult {
  machine: TMachine;
  sizes: Array<{ rows: number; pages: number; ms: number; maxRssMb: number; bytes: number; baseline: TBaselineResult; ratio: number }>;
}
interface TLatencyResult {
  machine: TMachine;
  requests: number;
  bare: TLatency;
  single: TLatency;
  split: TLatency;
}

export const GOALS = {
  exportRowsPerSecond: 5_000,
  exportMinRows: 5_000,
  exportRatio: 5,
  peakRssMb: 400,
  nightAuditFoliosPerSecond: 80,
};

function exportSection(run: TRun, goals: string[][]): string[] {
  const r = run.result as TExportResult | undefined;
  const lines = ['## Folio export, end to end', '', ...header('export', run)];
  if (!r) return lines;
  lines.push(
    'API and worker as separate processes (NODE_ENV=production); one reservation, one folio, N transactions; POST with `Prefer: respond-async` → status polled every 50 ms → file downloaded. Time from the POST to the last byte. "Raw pdfkit" draws the same table (same rows, columns, fonts, page header and footer) in a process of its own, warm (bench/baselines/raw-pdfkit.ts). Peak RSS is the largest process of each kind (VmHWM, sampled every 50 ms over every process of both trees). Load is the mean 1-minute load average during the run (above 2, the machine was shared).',
    '',
  );
  const kinds = ['api', 'worker', 'render process', 'api (tsx launcher)', 'worker (tsx launcher)'];
  lines.push(
    table(
      ['rows', 'pages', 'end to end', 'rows/s', 'worker render', 'raw pdfkit', 'ratio', 'peak RSS MB api / worker / render / launchers', 'load', 'goals'],
      r.sizes.map((size) => {
        const peaks = kinds.map((kind) => size.peaks[kind]?.peakMb ?? 0);
        const maxRss = Math.max(...peaks);
        const inRange = size.rows >= GOALS.exportMinRows;
        const ok = [size.rowsPerSecond >= GOALS.exportRowsPerSecond || !inRange, size.ratio <= GOALS.exportRatio || !inRange, maxRss <= GOALS.peakRssMb];
        return [
          int(size.rows),
          String(size.pages),
          sec(size.ms),
          int(size.rowsPerSecond),
          size.renderMs === undefined ? '–' : sec(size.renderMs),
          sec(size.baseline.ms),
          `${size.ratio.toFixed(1)}×`,
          `${peaks.slice(0, 3).map((mb) => mb.toFixed(0)).join(' / ')} / ${Math.max(peaks[3]!, peaks[4]!).toFixed(0)}`,
          size.load.toFixed(1),
          inRange ? `${mark(ok[0]!)} rows/s ${mark(ok[1]!)} ratio ${mark(ok[2]!)} RSS` : `${mark(ok[2]!)} RSS`,
        ];
      }),
    ),
    '',
  );
  if (r.failures.length) lines.push(`**Files that did not check out:** ${r.failures.join('; ')}`, '');
  const inRange = r.sizes.filter((size) => size.rows >= GOALS.exportMinRows);
  if (inRange.length) {
    const slowest = Math.min(...inRange.map((size) => size.rowsPerSecond));
    const worstRatio = Math.max(...inRange.map((size) => size.ratio));
    goals.push([`export ≥ ${int(GOALS.exportRowsPerSecond)} rows/s end to end (${inRange.map((s) => int(s.rows)).join(', ')} rows)`, `${int(slowest)} rows/s (slowest)`, mark(slowest >= GOALS.exportRowsPerSecond)]);
    goals.push([`export within ${GOALS.exportRatio}× of raw pdfkit`, `${worstRatio.toFixed(1)}× (worst)`, mark(worstRatio <= GOALS.exportRatio)]);
  }
  const maxRss = Math.max(...r.sizes.flatMap((size) => Object.values(size.peaks).map((peak) => peak.peakMb)));
  goals.push([`peak RSS of any export process ≤ ${GOALS.peakRssMb} MB`, `${maxRss.toFixed(0)} MB`, mark(maxRss <= GOALS.peakRssMb)]);
  return lines;
}

function nightAuditSection(run: TRun, goals: string[][]): string[] {
  const r = run.result as TNightAuditResult | undefined;
  const lines = ['## Night audit', '', ...header('night-audit', run)];
  if (!r) return lines;
  lines.push(
    `One batch of ${int(r.folios)} folios (${r.rowsPerFolio.toFixed(0)} rows each), worker processes (\`start:worker\`, NODE_ENV=production) × EXPORT_CONCURRENCY each, after a small warm-up batch; the time runs until the batch's status says it ended. The batch runs several times per configuration and the median run is shown (every run's folios/s in the last column). Peak RSS is the sum over the workers and their render processes.`,
    '',
    table(
      ['workers × concurrency', 'wall time', 'folios/s', 'peak RSS (sum)', 'mean render / job', 'load', 'every run, folios/s'],
      r.configs.map((c) => [
        `${c.workers} × ${c.concurrency}`,
        `${c.seconds.toFixed(1)} s`,
        c.foliosPerSecond.toFixed(1),
        `${c.peakMb.toFixed(0)} MB`,
        `${c.renderMs.toFixed(0)} / ${c.jobMs.toFixed(0)} ms`,
        c.load.toFixed(1),
        (c.runs ?? [c.foliosPerSecond]).map((rate) => rate.toFixed(1)).join(', '),
      ]),
    ),
    '',
  );
  if (r.failures.length) lines.push(`**Batches that did not complete:** ${r.failures.join('; ')}`, '');
  const two = r.configs.filter((c) => c.workers === 2);
  if (two.length) {
    const best = two.reduce((a, b) => (b.foliosPerSecond > a.foliosPerSecond ? b : a));
    goals.push([`night audit ≥ ${GOALS.nightAuditFoliosPerSecond} folios/s with 2 worker processes`, `${best.foliosPerSecond.toFixed(1)} folios/s (2 × ${best.concurrency})`, mark(best.foliosPerSecond >= GOALS.nightAuditFoliosPerSecond)]);
  }
  return lines;
}

function renderSection(run: TRun): string[] {
  const r = run.result as TRenderResult | undefined;
  const lines = ['## PDF render alone', '', ...header('render', run)];
  if (!r) return lines;
  lines.push(
    "The worker's renderFolioPdf in a fresh process per size (its first document: fonts loaded, code compiled), against raw pdfkit drawing the same document in a fresh process, also its first.",
    '',
    table(
      ['rows', 'pages', 'render', 'rows/s', 'peak RSS', 'raw pdfkit', 'raw peak RSS', 'ratio'],
      r.sizes.map((s) => [int(s.rows), String(s.pages), sec(s.ms), int(s.rows / (s.ms / 1000)), `${s.maxRssMb.toFixed(0)} MB`, sec(s.baseline.ms), `${s.baseline.maxRssMb.toFixed(0)} MB`, `${s.ratio.toFixed(1)}×`]),
    ),
    '',
  );
  return lines;
}

function latencySection(run: TRun): string[] {
  const r = run.result as TLatencyResult | undefined;
  const lines = ['## Tokenize latency, sequential', '', ...header('latency', run)];
  if (!r) return lines;
  lines.push(
    `${int(r.requests)} sequential requests (one client), against a bare BullMQ round trip on the same Redis.`,
    '',
    table(
      ['', 'p50', 'p99', 'p50 vs bare', 'req/s'],
      [
        ['bare BullMQ round trip', msText(r.bare.p50), msText(r.bare.p99), '1.0×', ''],
        ['tokenize, one process', msText(r.single.p50), msText(r.single.p99), `${(r.single.p50 / r.bare.p50).toFixed(1)}×`, int(r.single.perSecond ?? 0)],
        ['tokenize, worker apart', msText(r.split.p50), msText(r.split.p99), `${(r.split.p50 / r.bare.p50).toFixed(1)}×`, int(r.split.perSecond ?? 0)],
      ],
    ),
    '',
  );
  return lines;
}

/** The section's goal lines, marked when they come from a quick run. */
function goalsOf(run: TRun, section: (run: TRun, goals: string[][]) => string[], goals: string[][]): string[] {
  const own: string[][] = [];
  const lines = section(run, own);
  goals.push(...own.map(([goal, ...rest]) => [run.quick ? `${goal} — *quick run*` : goal!, ...rest]));
  return lines;
}

/**
 * `changes`: bench/changes.md, written by hand (bench/run.ts reads it): which change moved which
 * figure, before and after, each pair measured back to back on the same machine. It sits beside the
 * generated sections because a "before" cannot be measured again once its change has landed.
 */
export function renderReport(runs: Partial<Record<string, TRun>>, here: TMachine, changes = ''): string {
  const goals: string[][] = [];
  const sections: string[] = [];
  if (runs.export) sections.push(...goalsOf(runs.export, exportSection, goals));
  if (runs['export-small']) sections.push(...goalsOf(runs['export-small'], exportSmallSection, goals));
  if (runs['export-memory']) sections.push(...goalsOf(runs['export-memory'], exportMemorySection, goals));
  if (runs.tokenize) sections.push(...goalsOf(runs.tokenize, tokenizeSection, goals));
  if (runs['tokenize-open-loop']) sections.push(...goalsOf(runs['tokenize-open-loop'], openLoopSection, goals));
  if (runs['night-audit']) sections.push(...goalsOf(runs['night-audit'], nightAuditSection, goals));
  if (runs.render) sections.push(...renderSection(runs.render));
  if (runs.latency) sections.push(...latencySection(runs.latency));
  if (runs.forward) sections.push(...goalsOf(runs.forward, forwardSection, goals));
  if (runs.listing) sections.push(...listingSection(runs.listing));
  const machines = new Set(Object.values(runs).map((run) => machineLine((run?.result as { machine?: TMachine } | undefined)?.machine)));
  return [
    '# Benchmarks',
    '',
    'Written by `npm run bench` (bench/run.ts); do not edit by hand. Each benchmark runs in its own process against real Redis, PostgreSQL and the service as deployed, and compares itself with a baseline measured in the same run on the same machine: raw pdfkit drawing the same table, a bare BullMQ round trip on the same Redis.',
    '',
    '## Machine',
    '',
    `- CPU: ${here.cpu}, ${here.cores} cores`,
    `- Memory: ${here.memoryGiB} GiB`,
    `- Node ${here.node}, ${here.os}`,
    `- Report written ${here.date.slice(0, 16).replace('T', ' ')} UTC`,
    ...(machines.size > 1 ? [`- Sections measured on: ${[...machines].join('; ')}`] : []),
    '- The "load" columns give the mean 1-minute load average during a measurement: above the core count, other work shared the machine and the figures are low.',
    '',
    '## Goals (issues 6, 14 and 15)',
    '',
    goals.length ? table(['goal', 'measured', ''], goals) : 'No goal measured in this report.',
    '',
    ...sections,
    ...(changes.trim() ? [changes.trim(), ''] : []),
    '## Reproduce',
    '',
    '```sh',
    'npm run bench                                  # everything (tens of minutes on 2 cores)',
    'npm run bench -- --only export,tokenize        # some: export | export-memory | tokenize | tokenize-open-loop | night-audit | render | listing | latency | forward',
    'npm run bench:quick                            # smoke check at small sizes → out/benchmarks-quick.md',
    'npx tsx bench/scenarios/export-e2e.ts --rows 1000,5000   # one benchmark by hand, printed only',
    'npx tsx bench/scenarios/export-memory.ts --formats PDF --rows 5000,50000',
    'npx tsx bench/scenarios/tokenize-load.ts --duration 10 --connections 50',
    'npx tsx bench/scenarios/tokenize-open-loop.ts --rate 300 --seconds 10 --shape split',
    'BENCH_FORWARD_REQUESTS=1000 BENCH_FORWARD_CLIENTS=10 npx tsx bench/scenarios/forward-overhead.ts',
    'npx tsx bench/baselines/raw-pdfkit.ts --rows 5000 --out /tmp/folio.pdf',
    'BENCH_NIGHT_AUDIT_FOLIOS=1000 BENCH_NIGHT_AUDIT_CONFIGS=1x1,2x1 npx tsx bench/scenarios/night-audit.ts',
    '```',
    '',
    'Redis and PostgreSQL: `REDIS_URL` / `DATABASE_URL` when set, else local `redis-server` and PostgreSQL binaries started in a temporary directory (each run gets a fresh database). `pdfinfo` (poppler-utils) is used to check page counts when installed.',
    '',
  ].join('\n');
}
