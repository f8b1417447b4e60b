// The goals of docs/benchmarks.md, each judged on the figures of one run. Absolute figures swing two
// to three times across machines of the same kind, so every goal is a ratio to a baseline measured in
// the same run on the same machine: tokenize against the floor of its shape (the service's shape
// with none of its work, bench/baselines/service-floor.ts), the forward's overhead against the
// floor of the forward's shape, exports against raw pdfkit drawing the same table
// (bench/baselines/raw-pdfkit.ts), the night audit and small exports against the render processes
// alone on the same folios (bench/baselines/render-throughput.ts), the first export after start
// against the same export warm, an invoice's issue to its files against the same folio's plain PDF
// export. Absolute bounds: memory growth (a large export against a small one on
// the same worker), and what a hostile gateway answer may cost: the time it holds the worker's event
// loop, and another property's tokenize latency beside it (a limit a tenant sees, whatever the
// machine), and tracing every request against tracing none, in the same run. A goal whose figures
// the run lacks says so.
import type { TExportMemoryResult } from '../scenarios/export-memory.js';
import type { TExportSmallResult } from '../scenarios/export-small.js';
import type { TTracingResult } from '../scenarios/tracing.js';
import type { TExportResult } from './export-e2e.js';
import { int, mark, msText, renderProcesses, sec, table, type TRun } from './format.js';
import type { TForwardResult } from './forward-overhead.js';
import type { TNightAuditResult } from './night-audit.js';
import type { TTokenizeResult } from './tokenize-load.js';
import type { TRenderResult } from './render-pdf.js';
import { tenantGoals } from './tenants.js';
import type { TTenantsResult } from '../scenarios/tenants.js';
import type { TFiscalInvoiceResult } from '../scenarios/fiscal-invoice.js';
import { PERFORMANCE_MEASURE_NAMES, PERFORMANCE_MEASURES, type TPerformanceMeasure } from '@folio-vault/shared/performance-measures';
import { median } from '../support/stats.js';

export const GOALS = {
  /** Tokenize's answers a second over its shape's floor's, both shapes: held, not pushed. */
  tokenizeOfFloor: 0.5,
  /** The forward's overhead over a direct call at p50, over the forward floor's. */
  forwardOverheadOfFloor: 2,
  /** An export's time end to end over raw pdfkit's drawing the same table, in this range of rows. */
  exportOfRawPdfkit: 1,
  exportRows: { from: 5_000, to: 50_000 },
  /** The night audit's folios a second, and small exports' exports a second, over the render processes' alone. */
  ofRenderAlone: 0.7,
  /** The first 1,000-row export after start over the same export warm. */
  coldOfWarm: 1.5,
  /** A 30-line invoice's issue to its three files over the same folio's plain PDF export, at p50. */
  invoiceOfExport: 2,
  /** The worker main process's peak at the largest export over the smallest, per format (MB). */
  memoryGrowthMb: 60,
  /** The worker's largest event-loop delay over one forward of a hostile answer, any shape (ms). */
  hostileAnswerEventLoopMs: 100,
  /** Another property's tokenize p99 while four clients forward hostile answers (ms). */
  tokenizeBesideHostileMs: 1000,
  /** Tokenize's requests/s and small exports' exports/s with every request traced, over the same with tracing off. */
  tracedOfUntraced: 0.85,
} as const;

/** The floor each of tokenize's shapes is read against: its own shape, with one job a request. */
export const FLOOR_OF = { split: 'express-queue', single: 'express-queue-one-process' } as const;

/** A tokenize shape's answers a second over its floor's, when the run measured both. */
export function tokenizeOfFloor(result: TTokenizeResult, shape: keyof typeof FLOOR_OF): { ratio: number; perSecond: number; floorPerSecond: number } | undefined {
  const service = result.shapes.find((figures) => figures.shape === shape);
  const floor = result.shapes.find((figures) => figures.shape === FLOOR_OF[shape]);
  if (!service || !floor) return undefined;
  return { ratio: service.perSecond / floor.perSecond, perSecond: service.perSecond, floorPerSecond: floor.perSecond };
}

/** An export size the export goal covers. */
export const inExportRange = (rows: number) => rows >= GOALS.exportRows.from && rows <= GOALS.exportRows.to;

interface TGoal {
  path: string;
  goal: string;
  /** The run the figures come from; none when the report holds no run of that benchmark. */
  run?: TRun;
  /** What was measured and whether it meets the goal; none when the run lacks the figures. */
  outcome?: { measured: string; met: boolean };
}

const ratio = (value: number) => value.toFixed(2);

function tokenizeGoals(run: TRun | undefined): TGoal[] {
  const result = run?.result as TTokenizeResult | undefined;
  const goal = (shape: keyof typeof FLOOR_OF, path: string, floor: string): TGoal => {
    const figures = result && tokenizeOfFloor(result, shape);
    return {
      path,
      goal: `≥ ${GOALS.tokenizeOfFloor} of its shape's floor (${floor}); hold, not push`,
      run,
      outcome: figures && {
        measured: `${ratio(figures.ratio)}: ${int(figures.perSecond)} req/s against ${int(figures.floorPerSecond)}`,
        met: figures.ratio >= GOALS.tokenizeOfFloor,
      },
    };
  };
  return [
    goal('split', 'tokenize, API + worker apart', 'Express + one BullMQ job a request, no-op worker process'),
    goal('single', 'tokenize, one process (`npm start`)', 'the same with the no-op worker in the API\'s process'),
  ];
}

function forwardGoals(run: TRun | undefined): TGoal[] {
  const result = run?.result as TForwardResult | undefined;
  const vault = result?.sequential.overhead.p50;
  const floor = result?.floor?.overhead.p50;
  const hostile = result?.hostile;
  const worst = hostile?.answers.reduce((a, b) => (b.eventLoopMaxMs > a.eventLoopMaxMs ? b : a));
  return [
    {
      path: 'forward, overhead over a direct call, p50 (one client)',
      goal: `≤ ${GOALS.forwardOverheadOfFloor}× the forward shape's floor`,
      run,
      outcome:
        vault !== undefined && floor !== undefined
          ? { measured: `${ratio(vault / floor)}×: ${msText(vault)} against ${msText(floor)}`, met: vault / floor <= GOALS.forwardOverheadOfFloor }
          : undefined,
    },
    {
      path: 'forward, a hostile answer (over the cap, or built for the masking)',
      goal: `≤ ${GOALS.hostileAnswerEventLoopMs} ms of the worker's event loop, every shape`,
      run,
      outcome: worst && { measured: `${msText(worst.eventLoopMaxMs)} at most (${worst.shape})`, met: worst.eventLoopMaxMs <= GOALS.hostileAnswerEventLoopMs },
    },
    {
      path: "another property's tokenize beside 4 hostile forwards, p99",
      goal: `< ${GOALS.tokenizeBesideHostileMs} ms`,
      run,
      outcome: hostile && {
        measured: `${msText(hostile.tokenize.underLoad.p99)} (idle ${msText(hostile.tokenize.idle.p99)})`,
        met: hostile.tokenize.underLoad.p99 < GOALS.tokenizeBesideHostileMs,
      },
    },
  ];
}

function exportGoal(run: TRun | undefined): TGoal {
  const sizes = ((run?.result as TExportResult | undefined)?.sizes ?? []).filter((size) => inExportRange(size.rows));
  const worst = Math.max(...sizes.map((size) => size.ratio));
  return {
    path: `export end to end, ${int(GOALS.exportRows.from)}–${int(GOALS.exportRows.to)} rows`,
    goal: `≤ ${GOALS.exportOfRawPdfkit.toFixed(1)}× raw pdfkit drawing the same table`,
    run,
    outcome: sizes.length
      ? { measured: `${ratio(worst)}× at worst (${sizes.map((size) => `${int(size.rows)} rows ${ratio(size.ratio)}×`).join(', ')})`, met: worst <= GOALS.exportOfRawPdfkit }
      : undefined,
  };
}

const RENDER_ALONE_GOAL = `≥ ${GOALS.ofRenderAlone} of the render processes' own throughput on the same folios (warm render, same cores)`;

function nightAuditGoal(run: TRun | undefined): TGoal {
  const measured = ((run?.result as TNightAuditResult | undefined)?.configs ?? []).filter((config) => config.renderAlone);
  // Judged at the setting the service runs fastest with, against as many render processes alone.
  const fastest = measured.length ? measured.reduce((a, b) => (b.foliosPerSecond > a.foliosPerSecond ? b : a)) : undefined;
  const share = fastest && fastest.foliosPerSecond / fastest.renderAlone!.perSecond;
  return {
    path: 'night audit',
    goal: RENDER_ALONE_GOAL,
    run,
    outcome:
      fastest && share !== undefined
        ? {
            measured: `${ratio(share)} at its fastest setting, ${fastest.workers} × ${fastest.concurrency}: ${fastest.foliosPerSecond.toFixed(1)} folios/s against ${fastest.renderAlone!.perSecond.toFixed(1)} from ${renderProcesses(fastest.renderAlone!.processes)} alone`,
            met: share >= GOALS.ofRenderAlone,
          }
        : undefined,
  };
}

function exportSmallGoals(run: TRun | undefined): TGoal[] {
  const result = run?.result as TExportSmallResult | undefined;
  const clients = result?.concurrent?.clients ?? 20;
  const alone = result?.renderAlone;
  const many = result?.concurrent;
  const startup = result?.startup;
  return [
    {
      path: `small exports, ${clients} clients`,
      goal: RENDER_ALONE_GOAL,
      run,
      outcome:
        alone && many
          ? {
              measured: `${ratio(many.perSecond / alone.perSecond)}: ${many.perSecond.toFixed(1)} exports/s against ${alone.perSecond.toFixed(1)} from ${renderProcesses(alone.processes)} alone`,
              met: many.perSecond / alone.perSecond >= GOALS.ofRenderAlone,
            }
          : undefined,
    },
    {
      path: 'first 1,000-row export after start',
      goal: `≤ ${GOALS.coldOfWarm}× the same export warm`,
      run,
      outcome: startup && {
        measured: `${ratio(startup.ratio)}×: ${sec(startup.coldMs)} against ${sec(startup.warmMs)}${result?.starts && result.starts.length > 1 ? ` (the median of ${result.starts.length} starts: ${result.starts.map((start) => `${ratio(start.ratio)}×`).join(', ')})` : ''}`,
        met: startup.ratio <= GOALS.coldOfWarm,
      },
    },
  ];
}

function invoiceGoal(run: TRun | undefined): TGoal {
  const result = run?.result as TFiscalInvoiceResult | undefined;
  return {
    path: `invoice issue to its three files, ${result?.lines ?? 30} lines`,
    goal: `≤ ${GOALS.invoiceOfExport}× the same folio's plain PDF export, p50`,
    run,
    outcome: result && { measured: `${ratio(result.ratio)}×: ${msText(result.invoice.p50)} against ${msText(result.export.p50)}`, met: result.ratio <= GOALS.invoiceOfExport },
  };
}

function memoryGoals(run: TRun | undefined): TGoal[] {
  const growth = (run?.result as TExportMemoryResult | undefined)?.growth ?? [];
  return (['PDF', 'XLSX'] as const).map((format) => {
    const g = growth.find((entry) => entry.format === format);
    return {
      path: `memory, ${int(GOALS.exportRows.to)} vs ${int(GOALS.exportRows.from)} rows, ${format}`,
      goal: `≤ ${GOALS.memoryGrowthMb} MB growth of the worker's main process`,
      run,
      outcome: g && {
        measured: `${g.workerMb >= 0 ? '+' : ''}${g.workerMb.toFixed(0)} MB (${int(g.fromRows)} → ${int(g.toRows)} rows)`,
        met: g.workerMb <= GOALS.memoryGrowthMb,
      },
    };
  });
}

function tracingGoals(run: TRun | undefined): TGoal[] {
  const result = run?.result as TTracingResult | undefined;
  const goal = (path: string, ratio: number | undefined): TGoal => ({
    path,
    goal: `≥ ${GOALS.tracedOfUntraced} of the same with tracing off`,
    run,
    outcome: ratio === undefined ? undefined : { measured: ratio.toFixed(2), met: ratio >= GOALS.tracedOfUntraced },
  });
  return [goal('tokenize, every request traced (sampling 1.0)', result?.tokenizeRatio), goal('small exports, every request traced', result?.exportRatio)];
}

function tenantsGoals(run: TRun | undefined): TGoal[] {
  const result = run?.result as TTenantsResult | undefined;
  if (!result) return [{ path: 'many hotels on one service', goal: 'bench/report/tenants.ts', run }];
  return tenantGoals(result).map((goal) => ({ path: goal.row, goal: goal.goal, run, outcome: { measured: goal.measured, met: goal.met } }));
}

function allGoals(runs: Partial<Record<string, TRun>>): TGoal[] {
  return [
    ...tokenizeGoals(runs.tokenize),
    ...forwardGoals(runs.forward),
    exportGoal(runs.export),
    nightAuditGoal(runs['night-audit']),
    ...exportSmallGoals(runs['export-small']),
    ...memoryGoals(runs['export-memory']),
    invoiceGoal(runs.invoice),
    ...tenantsGoals(runs.tenants),
    ...tracingGoals(runs.tracing),
  ];
}

/** The goals table: every goal, measured or not; figures of a quick run are marked as such. */
export function goalsTable(runs: Partial<Record<string, TRun>>): string {
  return table(
    ['path', 'goal', 'measured', ''],
    allGoals(runs).map(({ path, goal, run, outcome }) =>
      outcome ? [path, goal, `${outcome.measured}${run?.quick ? ' — *quick run*' : ''}`, mark(outcome.met)] : [path, goal, 'not measured in this run', ''],
    ),
  );
}

/**
 * A performance measure the service keeps (a trick on a critical path) stays only while its
 * alternated pair (bench/support/pairs.ts: runs with it and without it taken in turn, at least
 * KEPT_MEASURE_MIN_RUNS of each) moves a figure a user sees: the median gain is at least
 * KEPT_MEASURE_MIN_GAIN and the two sides' ranges do not overlap (the worst run with the measure
 * beats the best run without it), so one noisy run can neither make nor break it.
 */
export const KEPT_MEASURE_MIN_GAIN = 0.1;
export const KEPT_MEASURE_MIN_RUNS = 3;

interface TPair {
  measure: TPerformanceMeasure;
  figure: string;
  /** Every run's figure with the measure and without it; higher is better when `higherIsBetter`. */
  with: number[];
  without: number[];
  higherIsBetter: boolean;
  unit: (value: number) => string;
  quick?: boolean;
}

/** A pair's runs as bench/scenarios/* store them: in the order taken, each on one side. */
type TSidedRuns<T> = Array<T & { side: 'with' | 'without' }>;
const sideOf = <T>(runs: TSidedRuns<T>, side: 'with' | 'without', figure: (run: T) => number) => runs.filter((run) => run.side === side).map(figure);

/** The pairs the runs measured: tokenize's requests/s, small exports' exports/s and one client's wait, a large folio's render time. */
function measurePairs(runs: Partial<Record<string, TRun>>): TPair[] {
  const tokenize = runs.tokenize?.result as TTokenizeResult | undefined;
  const tokenizePairs: TPair[] = (tokenize?.pairs ?? []).map((pair) => ({
    measure: pair.measure as TPerformanceMeasure,
    figure: 'tokenize, API + worker apart, req/s',
    with: sideOf(pair.runs, 'with', (run) => run.perSecond),
    without: sideOf(pair.runs, 'without', (run) => run.perSecond),
    higherIsBetter: true,
    unit: int,
    quick: runs.tokenize?.quick,
  }));
  const small = runs['export-small']?.result as TExportSmallResult | undefined;
  const exportPairs: TPair[] = (small?.pairs ?? []).flatMap((pair) => [
    {
      measure: pair.measure as TPerformanceMeasure,
      figure: `small exports, ${small?.concurrent?.clients ?? 20} clients, exports/s`,
      with: sideOf(pair.runs, 'with', (run) => run.perSecond),
      without: sideOf(pair.runs, 'without', (run) => run.perSecond),
      higherIsBetter: true,
      unit: (value: number) => value.toFixed(1),
      quick: runs['export-small']?.quick,
    },
    // One client's export, POST to the last byte (p50 of each run): pairs measured before it have none.
    ...(pair.runs.every((run) => run.oneClientP50 !== undefined)
      ? [
          {
            measure: pair.measure as TPerformanceMeasure,
            figure: `small export, one client, p50 of ${small?.pairSequential ?? 150} (POST to the last byte)`,
            with: sideOf(pair.runs, 'with', (run) => run.oneClientP50!),
            without: sideOf(pair.runs, 'without', (run) => run.oneClientP50!),
            higherIsBetter: false,
            unit: (value: number) => `${value.toFixed(1)} ms`,
            quick: runs['export-small']?.quick,
          },
        ]
      : []),
  ]);
  const render = runs.render?.result as TRenderResult | undefined;
  const renderPairs: TPair[] = (render?.pairs ?? []).map((pair) => ({
    measure: pair.measure as TPerformanceMeasure,
    figure: `render alone, ${int(pair.rows)} rows, a fresh process's first document`,
    with: sideOf(pair.runs, 'with', (run) => run.ms),
    without: sideOf(pair.runs, 'without', (run) => run.ms),
    higherIsBetter: false,
    unit: sec,
    quick: runs.render?.quick,
  }));
  return [...tokenizePairs, ...exportPairs, ...renderPairs];
}

interface TJudged {
  /** The median gain from the measure (0.1 is 10 %). */
  gain: number;
  /** The worst run with the measure beats the best run without it. */
  apart: boolean;
  /** How the two ranges lie: apart in the measure's favour, overlapping, or apart against it. */
  ranges: 'apart' | 'overlap' | 'apart, against it';
  kept: boolean;
}

/** A pair's verdict, when both sides were measured. */
function judged(pair: TPair): TJudged | undefined {
  if (!pair.with.length || !pair.without.length) return undefined;
  const [withMedian, withoutMedian] = [median(pair.with), median(pair.without)];
  const gain = pair.higherIsBetter ? withMedian / withoutMedian - 1 : withoutMedian / withMedian - 1;
  const apart = pair.higherIsBetter ? Math.min(...pair.with) > Math.max(...pair.without) : Math.max(...pair.with) < Math.min(...pair.without);
  const against = pair.higherIsBetter ? Math.max(...pair.with) < Math.min(...pair.without) : Math.min(...pair.with) > Math.max(...pair.without);
  const enough = pair.with.length >= KEPT_MEASURE_MIN_RUNS && pair.without.length >= KEPT_MEASURE_MIN_RUNS;
  return { gain, apart, ranges: apart ? 'apart' : against ? 'apart, against it' : 'overlap', kept: enough && apart && gain >= KEPT_MEASURE_MIN_GAIN };
}

const percent = (gain: number) => `${gain >= 0 ? '+' : ''}${(gain * 100).toFixed(0)} %`;
const spread = (values: number[], unit: (value: number) => string) =>
  `${unit(median(values))} (${unit(Math.min(...values))}–${unit(Math.max(...values))}; ${values.length} runs)`;

/**
 * Each kept measure's alternated pairs: median and range (min–max) of each side, the median gain,
 * whether the ranges stay apart, and the verdict; a registered measure no run paired is listed as
 * not measured.
 */
export function keptMeasuresTable(runs: Partial<Record<string, TRun>>): string {
  const pairs = measurePairs(runs);
  const name = (measure: TPerformanceMeasure) => `\`${measure}\` (${PERFORMANCE_MEASURES[measure]})`;
  // A measure stays when one of its figures earns it (failures below): another figure short of the mark is not a ✘.
  const earned = new Set(pairs.filter((pair) => judged(pair)?.kept).map((pair) => pair.measure));
  const rows = pairs.map((pair) => {
    const verdict = judged(pair);
    if (!verdict) return [name(pair.measure), pair.figure, 'not measured in this run', '', '', '', ''];
    return [
      name(pair.measure),
      pair.figure,
      spread(pair.with, pair.unit),
      spread(pair.without, pair.unit),
      `${percent(verdict.gain)}${pair.quick ? ' — *quick run*' : ''}`,
      verdict.ranges,
      !verdict.kept && earned.has(pair.measure) ? 'no (another of its figures keeps it)' : mark(verdict.kept),
    ];
  });
  const unpaired = PERFORMANCE_MEASURE_NAMES.filter((measure) => !pairs.some((pair) => pair.measure === measure));
  rows.push(...unpaired.map((measure) => [name(measure), '', 'not measured in this run', '', '', '', '']));
  return table(['measure', 'figure', 'with it: median (min–max)', 'without it: median (min–max)', 'median gain', 'ranges', `≥ ${KEPT_MEASURE_MIN_GAIN * 100} % and apart`], rows);
}

/**
 * What the report marks ✘, one line each: every goal measured and not met, and every kept measure
 * none of whose measured pairs earns its place (judged). `npm run bench` exits non-zero while this
 * is not empty, so a report cannot say ✘ quietly.
 */
export function failures(runs: Partial<Record<string, TRun>>): string[] {
  const goals = allGoals(runs)
    .filter((goal) => goal.outcome && !goal.outcome.met)
    .map((goal) => `goal not met: ${goal.path} — ${goal.outcome!.measured} (goal ${goal.goal})`);
  const verdicts = new Map<TPerformanceMeasure, TJudged[]>();
  for (const pair of measurePairs(runs)) {
    const verdict = judged(pair);
    if (verdict) verdicts.set(pair.measure, [...(verdicts.get(pair.measure) ?? []), verdict]);
  }
  const measures = [...verdicts]
    .filter(([, measured]) => measured.every((verdict) => !verdict.kept))
    .map(
      ([measure, measured]) =>
        `kept measure without its gain: ${measure} (${measured.map((verdict) => `${percent(verdict.gain)}, ranges ${verdict.ranges}`).join('; ')}; needs ≥ ${KEPT_MEASURE_MIN_GAIN * 100} % with the ranges apart)`,
    );
  return [...goals, ...measures];
}
