// docs/benchmarks.md from the benchmarks' JSON results (bench/run.ts): the machine the figures were
// measured on, the goals met or not, a section per benchmark with its ratios to the baselines
// measured in the same run, and the commands to reproduce. It holds the latest run only; earlier
// runs are in the repository's history. Pure: results in, Markdown out.
import type { TMachine } from '../support/machine.js';
import { exportE2eSection } from './export-e2e.js';
import { exportMemorySection } from './export-memory.js';
import { exportSmallSection } from './export-small.js';
import { fiscalInvoiceSection } from './fiscal-invoice.js';
import { machineLine, type TRun } from './format.js';
import { forwardSection } from './forward-overhead.js';
import { goalsTable, KEPT_MEASURE_MIN_GAIN, KEPT_MEASURE_MIN_RUNS, keptMeasuresTable } from './goals.js';
import { keyCustodySection } from './key-custody.js';
import { listingSection } from './ledger-listing.js';
import { nightAuditSection } from './night-audit.js';
import { renderPdfSection } from './render-pdf.js';
import { tenantsSection } from './tenants.js';
import { tokenizeLatencySection } from './tokenize-latency.js';
import { tokenizeSection } from './tokenize-load.js';
import { openLoopSection } from './tokenize-open-loop.js';
import { tracingSection } from './tracing.js';

/** Each benchmark's section, in the report's order. */
const SECTIONS: Array<[string, (run: TRun) => string[]]> = [
  ['export', exportE2eSection],
  ['export-small', exportSmallSection],
  ['export-memory', exportMemorySection],
  ['invoice', fiscalInvoiceSection],
  ['tokenize', tokenizeSection],
  ['tokenize-open-loop', openLoopSection],
  ['night-audit', nightAuditSection],
  ['tenants', tenantsSection],
  ['render', renderPdfSection],
  ['latency', tokenizeLatencySection],
  ['forward', forwardSection],
  ['key-custody', keyCustodySection],
  ['listing', listingSection],
  ['tracing', tracingSection],
];

/** The machine the figures were measured on (each result names its own), or the writer's when there are none. */
function machineLines(runs: Partial<Record<string, TRun>>, written: TMachine): string[] {
  const measured = new Map<string, TMachine>();
  for (const run of Object.values(runs)) {
    const machine = (run?.result as { machine?: TMachine } | undefined)?.machine;
    if (machine) measured.set(machineLine(machine), machine);
  }
  if (measured.size > 1) return [`- Sections measured on several machines: ${[...measured.keys()].join('; ')}`];
  const machine = [...measured.values()][0] ?? written;
  return [`- CPU: ${machine.cpu}, ${machine.cores} cores`, `- Memory: ${machine.memoryGiB} GiB`, `- Node ${machine.node}, ${machine.os}`];
}

export function renderReport(runs: Partial<Record<string, TRun>>, written: TMachine): string {
  const sections = SECTIONS.flatMap(([name, section]) => (runs[name] ? section(runs[name]) : []));
  return [
    '# Benchmarks',
    '',
    "Written by `npm run bench` (bench/run.ts); do not edit by hand. The latest run only: earlier figures are in the repository's history. Each benchmark runs in its own process against real Redis, PostgreSQL and the service as deployed, beside baselines measured in the same run on the same machine: raw pdfkit drawing the same table, a bare BullMQ round trip on the same Redis, the service's shape with none of its work (its floor), the render processes alone on the same folios.",
    '',
    '## Machine',
    '',
    ...machineLines(runs, written),
    `- Report written ${written.date.slice(0, 16).replace('T', ' ')} UTC`,
    '- The "load" columns give the mean 1-minute load average during a measurement: above the core count, other work shared the machine and the figures are low.',
    '',
    '## Goals',
    '',
    'Absolute figures swing two to three times across machines of this kind, so each goal is a ratio to a baseline measured in the same run (bench/report/goals.ts).',
    '',
    goalsTable(runs),
    '',
    '## Kept performance measures',
    '',
    'A performance measure on a critical path stays only while its alternated pair (the service with it and with it switched off by PERFORMANCE_MEASURES_OFF, started side by side and measured in turn, with, without, with…, ' +
      `at least ${KEPT_MEASURE_MIN_RUNS} runs of each) shows a median gain of at least ${KEPT_MEASURE_MIN_GAIN * 100} % in a figure a user sees, with the two sides' ranges apart: the worst run with it beats the best run without it (bench/report/goals.ts, bench/support/pairs.ts).`,
    '',
    keptMeasuresTable(runs),
    '',
    ...sections,
    '## Reproduce',
    '',
    '```sh',
    'npm run bench                                  # everything (tens of minutes on 2 cores)',
    'npm run bench -- --only export,tokenize        # some: export | export-small | export-memory | invoice | tokenize | tokenize-open-loop | night-audit | render | listing | latency | forward | key-custody | tenants | tracing',
    'npm run bench:quick                            # smoke check at small sizes → out/benchmarks-quick.md',
    'npm run bench -- --report-only                 # this file again from its stored figures, no benchmark',
    'npx tsx bench/scenarios/export-e2e.ts --rows 1000,5000 --runs 1   # one benchmark by hand, printed only',
    'npx tsx bench/scenarios/export-memory.ts --formats PDF --rows 5000,50000',
    'npx tsx bench/scenarios/tokenize-load.ts --duration 10 --connections 50',
    'npx tsx bench/scenarios/tokenize-open-loop.ts --rate 300 --seconds 10 --shape split',
    'BENCH_FORWARD_REQUESTS=1000 BENCH_FORWARD_CLIENTS=10 npx tsx bench/scenarios/forward-overhead.ts',
    'BENCH_KEYS_SECONDS=8 BENCH_KEYS_ROUNDS=2 npx tsx bench/scenarios/key-custody.ts   # needs softhsm2',
    'npx tsx bench/baselines/raw-pdfkit.ts --rows 5000 --out /tmp/folio.pdf',
    'BENCH_NIGHT_AUDIT_FOLIOS=1000 BENCH_NIGHT_AUDIT_CONFIGS=1x1,2x1 npx tsx bench/scenarios/night-audit.ts',
    'BENCH_TENANTS_BATCH_FOLIOS=300 BENCH_TENANTS_IMPORT_FOLIOS=200 npx tsx bench/scenarios/tenants.ts',
    'BENCH_INVOICE_FOLIOS=10 npx tsx bench/scenarios/fiscal-invoice.ts',
    'npx tsx bench/scenarios/tracing.ts --duration 10 --export-seconds 10',
    '```',
    '',
    'Redis and PostgreSQL: `REDIS_URL` / `DATABASE_URL` when set, else local `redis-server` and PostgreSQL binaries started in a temporary directory (each run gets a fresh database). `pdfinfo` (poppler-utils) is used to check page counts when installed.',
    '',
  ].join('\n');
}
