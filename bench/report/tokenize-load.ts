import { FLOOR_NAMES, type TFloorKind } from '../baselines/service-floor.js';
import type { TMachine } from '../support/machine.js';
import { header, int, mark, msText, table, type TRun } from './format.js';
import { GOALS, tokenizeOfFloor } from './goals.js';

interface TLatency {
  p50: number;
  p99: number;
}
/** bench/scenarios/tokenize-load.ts's result. */
export interface TTokenizeResult {
  machine: TMachine;
  connections: number;
  durationSeconds: number;
  bare: TLatency & { perSecond: number; load: number };
  bareRuns: Array<TLatency & { perSecond: number; load: number }>;
  shapes: Array<TLatency & {
    shape: TShape; perSecond: number; count: number; non2xx: number; errors: number; timeouts: number; ratio: number; load: number;
    cpuMsPerRequest?: Record<string, number>; runs?: Array<{ perSecond: number; p99: number; load: number }>;
  }>;
  /** Each kept measure's alternated pair (bench/scenarios/tokenize-load.ts, measurePair): the runs in the order taken. */
  pairRuns?: number;
  pairDurationSeconds?: number;
  pairs?: Array<{ measure: string; runs: Array<{ side: 'with' | 'without'; perSecond: number; p99: number; load: number }> }>;
}
/** The service's two shapes and the floors measured beside them (bench/baselines/service-floor.ts). */
type TShape = 'split' | 'single' | TFloorKind;
const shapeName = (shape: TShape): string =>
  shape === 'split'
    ? 'tokenize, API + worker processes'
    : shape === 'single'
      ? 'tokenize, one process (npm start)'
      : FLOOR_NAMES[shape as TFloorKind];
const isService = (shape: TShape): boolean => shape === 'split' || shape === 'single';

/** docs/benchmarks.md's "Tokenize under load" section (bench/scenarios/tokenize-load.ts). */
export function tokenizeSection(run: TRun): string[] {
  const r = run.result as TTokenizeResult | undefined;
  const lines = ['## Tokenize under load', '', ...header('tokenize', run)];
  if (!r) return lines;
  lines.push(
    `autocannon, ${r.connections} connections, ${r.durationSeconds} s after a 2 s warm-up, POST /vault/v1/tokens/card with a different generated card each request (test mode), NODE_ENV=production, rate limits lifted; each shape measured three times on one running service, the median run shown. Baseline: a bare BullMQ add → process → result round trip (waitUntilFinished) with ${r.connections} concurrent callers in one process, worker concurrency as the service's, on the same Redis, measured before and after the service runs (their mean is the ratio's denominator).`,
    '',
  );
  lines.push(
    table(
      ['', 'per s', 'p50', 'p99', 'non-2xx', 'errors', 'of bare BullMQ', 'of its floor', 'load'],
      [
        ...r.bareRuns.map((bare, i) => [`bare BullMQ round trip (${i === 0 ? 'before' : 'after'})`, int(bare.perSecond), msText(bare.p50), msText(bare.p99), '', '', '', '', bare.load.toFixed(1)]),
        ...r.shapes.map((shape) => [
          shapeName(shape.shape),
          int(shape.perSecond),
          msText(shape.p50),
          msText(shape.p99),
          String(shape.non2xx),
          String(shape.errors),
          `${(shape.ratio * 100).toFixed(0)} %`,
          ofFloor(r, shape.shape),
          shape.load.toFixed(1),
        ]),
      ],
    ),
    '',
  );
  const withRuns = r.shapes.filter((shape) => shape.runs);
  if (withRuns.length) {
    lines.push('Every run (the median is in the table): ' + withRuns.map((shape) => `${shapeName(shape.shape)}: ${shape.runs!.map((run) => `${int(run.perSecond)}/s, p99 ${msText(run.p99)} (load ${run.load.toFixed(1)})`).join('; ')}`).join('. ') + '.', '');
  }
  const withCpu = r.shapes.filter((shape) => shape.cpuMsPerRequest);
  if (withCpu.length) {
    lines.push(
      'CPU time per answered request, by process, read from /proc over the median run (bench/support/process-cpu.ts). The processes share the machine\'s cores, so their sum bounds the throughput: at 2 cores, 2,000 ms of CPU a second.',
      '',
      table(['', ...withCpu.map((shape) => shapeName(shape.shape))], cpuRows(withCpu.map((shape) => shape.cpuMsPerRequest!))),
      '',
    );
  }
  if (r.pairs?.length) {
    lines.push(
      `Kept performance measures' pairs (the verdicts: "Kept performance measures" above): for each, the API + worker shape started twice side by side, as it is and with PERFORMANCE_MEASURES_OFF=<measure>, each on its own port and queue prefix, both warmed up, then measured in turn, with, without, with…, ${r.pairRuns ?? 3} runs of each, ${r.pairDurationSeconds ?? r.durationSeconds} s a run. Every run in order: ` +
        r.pairs.map((pair) => `${pair.measure}: ${pair.runs.map((run) => `${run.side} ${int(run.perSecond)}/s (load ${run.load.toFixed(1)})`).join(', ')}`).join('. ') +
        '.',
      '',
    );
  }
  const floors = r.shapes.filter((shape) => !isService(shape.shape));
  if (floors.length) {
    lines.push(
      "The floors (bench/baselines/service-floor.ts) are the service's shape with none of its work: an Express app with its JSON parser answering a fixed token (no authentication, validation, rate limit, encryption, database or log line) — alone; with one BullMQ job a request, as the service does, and a worker whose handler does nothing, in a process of its own or in the API's process as `npm start` runs it; and with the requests that arrive while a job is being added gathered into one shared job (at most 50), which the service does not do. What the service spends above its floor is its own work, and each shape's goal is a share of its own floor. Against bare BullMQ, the floors reached: " +
        floors.map((floor) => `${shapeName(floor.shape)} ${(floor.ratio * 100).toFixed(0)} %`).join('; ') +
        '.',
      '',
    );
  }
  return lines;
}

/** A service shape's answers a second over its floor's, marked against the goal; empty for the floors. */
function ofFloor(r: TTokenizeResult, shape: TShape): string {
  if (shape !== 'split' && shape !== 'single') return '';
  const figures = tokenizeOfFloor(r, shape);
  return figures ? `${figures.ratio.toFixed(2)} ${mark(figures.ratio >= GOALS.tokenizeOfFloor)}` : '–';
}

/** One row per process role (the largest first), ms per request in each shape's column, and the total. */
function cpuRows(columns: Array<Record<string, number>>): string[][] {
  const roles = [...new Set(columns.flatMap((column) => Object.keys(column)))].filter((role) => columns.some((column) => (column[role] ?? 0) >= 0.005));
  roles.sort((a, b) => Math.max(...columns.map((c) => c[b] ?? 0)) - Math.max(...columns.map((c) => c[a] ?? 0)));
  const total = columns.map((column) => Object.values(column).reduce((sum, value) => sum + value, 0));
  return [
    ...roles.map((role) => [role, ...columns.map((column) => (column[role] === undefined ? '–' : `${column[role]!.toFixed(2)} ms`))]),
    ['**all processes**', ...total.map((value) => `**${value.toFixed(2)} ms**`)],
  ];
}
