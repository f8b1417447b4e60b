/**
 * Tokenize under load: autocannon with 50 connections for ~10 s against POST /vault/v1/tokens/card
 * (each request a different Luhn-valid card made up at run time, test mode), through the real API,
 * queue, worker and PostgreSQL, in two shapes: API and worker as separate processes
 * (`start:api` + `start:worker`) and both in one process (`npm start`). NODE_ENV=production, rate
 * limits lifted. The baseline, measured on the same Redis in the same run (before and after, their
 * mean used): a bare BullMQ add → process → result round trip with 50 concurrent callers in one
 * process (the worker's concurrency as the service's), jobs/s and p50/p99.
 *
 * Each shape is measured --repeat times on one running service (the median run is reported) and
 * the CPU time every process spent per answered request is read from /proc (bench/support/process-cpu.ts).
 * The same measurement of the shape's floor (bench/baselines/service-floor.ts: Express alone, Express with one
 * job a request and a no-op worker process, the same in one process, Express with requests gathered
 * into shared jobs) runs after the shapes, so each figure has both yardsticks from the same run (--floors none skips it).
 *
 * Then each kept performance measure of the tokenize path (packages/shared/src/performance-measures.ts)
 * gets its pair: the split shape started twice side by side, as it is and with
 * PERFORMANCE_MEASURES_OFF=<measure> (each on its own port and queue prefix, so neither takes the
 * other's jobs; the idle one waits on Redis), both warmed up in turn (--pair-warm-up seconds each), then measured in turn, with, without,
 * with, without… (bench/support/pairs.ts), --pair-runs times each for --pair-duration seconds.
 *
 *   npx tsx bench/scenarios/tokenize-load.ts [--duration 10] [--connections 50] [--shapes split,single] [--repeat 3] [--floors express,express-queue,express-queue-one-process,express-batch | none] [--pairs hpke-native,… | none] [--pair-runs 3] [--pair-duration 10] [--pair-warm-up 10]
 */
import { parseArgs } from 'node:util';
import type autocannon from 'autocannon';
import { createPgPool } from '@folio-vault/shared/connections';
import { bareBullmq, type TLoadFigures } from '../baselines/bare-bullmq.js';
import { FLOOR_KINDS, FLOOR_NAMES, startFloor, type TFloorKind } from '../baselines/service-floor.js';
import type { TPerformanceMeasure } from '@folio-vault/shared/performance-measures';

/** The kept performance measures on the tokenize path, each measured against the split shape without it. */
const TOKENIZE_MEASURES: TPerformanceMeasure[] = ['hpke-native'];
import { benchToken, freePort, liftedRateLimits, startShape } from '../support/service-processes.js';
import { benchEnvironment, writeResult } from '../support/environment.js';
import { machine, withLoad } from '../support/machine.js';
import { cpuPer, cpuSnapshot, postgresServerOf } from '../support/process-cpu.js';
import { alternated, otherQueuePrefix, type TPairSide } from '../support/pairs.js';
import { tokenizeCannon } from '../support/tokenize-cannon.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    shapes: { type: 'string', default: 'split,single' },
    repeat: { type: 'string', default: '3' },
    floors: { type: 'string', default: FLOOR_KINDS.join(',') },
    pairs: { type: 'string', default: TOKENIZE_MEASURES.join(',') },
    'pair-runs': { type: 'string', default: '3' },
    'pair-duration': { type: 'string', default: '10' },
    'pair-warm-up': { type: 'string', default: '10' },
  },
});
/** Measured runs per shape, one after the other on the same running service; the median run (by requests/s) is the shape's figure. */
const REPEAT = Number(values.repeat);
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const WARM_UP_SECONDS = 2;
/**
 * Quiet time after the service starts, before the warm-up: a worker starts its render processes
 * at once (each loads its code and fonts), which would otherwise be measured
 * as tokenization's cost. The figures are a running service's.
 */
const SETTLE_MS = 6_000;
type TServiceShape = 'split' | 'single';
const SHAPES = values.shapes.split(',') as TServiceShape[];
const PAIRS = values.pairs === 'none' ? [] : (values.pairs.split(',') as TPerformanceMeasure[]);
/** Runs of each side of a pair, and the seconds of each run. */
const PAIR_RUNS = Number(values['pair-runs']);
const PAIR_DURATION = Number(values['pair-duration']);
/**
 * Seconds of load on each side of a pair before its runs, given in turn too (two rounds): a
 * service just started answers faster run after run for its first tens of seconds of load (code
 * optimised as it runs, connections opened), which would otherwise fall on the runs.
 */
const PAIR_WARM_UP_SECONDS = Number(values['pair-warm-up']);
const FLOORS = values.floors === 'none' ? [] : (values.floors.split(',') as TFloorKind[]);

export type { TLoadFigures };
export interface TTokenizeShape extends TLoadFigures {
  /** The service's shapes, or a floor of them (bench/baselines/service-floor.ts). */
  shape: TServiceShape | TFloorKind;
  non2xx: number;
  errors: number;
  timeouts: number;
  ratio: number;
  /** CPU milliseconds per answered request, by process (bench/support/process-cpu.ts). */
  cpuMsPerRequest: Record<string, number>;
  /** Every measured run's requests/s, p99 and load, in order (the figures above are the median run's). */
  runs: Array<{ perSecond: number; p99: number; load: number }>;
}
/** A kept measure's pair: the split shape's runs with it and without it, in the order taken. */
export interface TTokenizePair {
  measure: TPerformanceMeasure;
  runs: Array<{ side: TPairSide; perSecond: number; p99: number; load: number; non2xx: number; errors: number }>;
}

const { config, ownerUrl, services, rawEnv } = await benchEnvironment();

// The hotel is known, as in production (its data imported): the API checks the header against its
// gateway mode on every request.
{
  const pool = createPgPool(ownerUrl, { max: 1 });
  await pool.query(`INSERT INTO properties (id, name, currency, timezone, gateway_mode) VALUES (1, 'Bench Hotel', 'EUR', 'Europe/Madrid', 'test')`);
  await pool.end();
}

function cannon(url: string, token: string, seconds: number): Promise<autocannon.Result> {
  return tokenizeCannon(url, token, { connections: CONNECTIONS, seconds });
}

async function tokenizeShape(shape: TTokenizeShape['shape'], bareJobsPerSecond: () => number): Promise<Omit<TTokenizeShape, 'ratio'> & { ratioOf: () => number }> {
  const port = await freePort();
  const env = { ...rawEnv(), ...liftedRateLimits(), NODE_ENV: 'production', PORT: String(port) };
  const processes: Array<{ stop(): Promise<void> }> = [];
  try {
    const floor = (FLOOR_KINDS as readonly string[]).includes(shape);
    if (floor) processes.push(...(await startFloor(shape as TFloorKind, env)));
    else processes.push(...(await startShape(shape as 'split' | 'single', env)));
    const url = `http://127.0.0.1:${port}`;
    const token = benchToken(config, 'write:payment');
    // A floor starts no render processes: nothing to settle.
    if (!floor) await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    await cannon(url, token, WARM_UP_SECONDS);
    const postgres = postgresServerOf(ownerUrl);
    const runs = [];
    for (let i = 0; i < REPEAT; i += 1) {
      const cpuBefore = cpuSnapshot(postgres);
      const { value: result, load } = await withLoad(() => cannon(url, token, DURATION));
      runs.push({ result, load, perSecond: result['2xx'] / result.duration, cpuMsPerRequest: cpuPer(cpuBefore, cpuSnapshot(postgres), result['2xx']) });
    }
    const median = [...runs].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(runs.length / 2)]!;
    const { result, load, perSecond, cpuMsPerRequest } = median;
    return {
      shape,
      perSecond,
      p50: result.latency.p50,
      p99: result.latency.p99,
      count: result['2xx'],
      non2xx: runs.reduce((sum, run) => sum + run.result.non2xx, 0),
      errors: runs.reduce((sum, run) => sum + run.result.errors, 0),
      timeouts: runs.reduce((sum, run) => sum + run.result.timeouts, 0),
      load,
      cpuMsPerRequest,
      runs: runs.map((run) => ({ perSecond: run.perSecond, p99: run.result.latency.p99, load: run.load })),
      ratioOf: () => perSecond / bareJobsPerSecond(),
    };
  } finally {
    for (const spawned of processes.reverse()) await spawned.stop();
  }
}

/**
 * A measure's pair: the split shape with it and without it, started side by side, then measured in
 * turn (with, without, with…), PAIR_RUNS runs of each.
 */
async function measurePair(measure: TPerformanceMeasure): Promise<TTokenizePair> {
  const token = benchToken(config, 'write:payment');
  const sides: Record<TPairSide, { url: string; processes: Array<{ stop(): Promise<void> }> }> = {
    with: { url: '', processes: [] },
    without: { url: '', processes: [] },
  };
  try {
    for (const side of ['with', 'without'] as const) {
      const port = await freePort();
      const base = { ...rawEnv(), ...liftedRateLimits(), NODE_ENV: 'production', PORT: String(port) };
      const env = side === 'with' ? base : { ...base, QUEUE_PREFIX: otherQueuePrefix(config.QUEUE_PREFIX, 'without'), PERFORMANCE_MEASURES_OFF: measure };
      sides[side].url = `http://127.0.0.1:${port}`;
      sides[side].processes.push(...(await startShape('split', env)));
    }
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    await alternated(2, async (side) => {
      await cannon(sides[side].url, token, PAIR_WARM_UP_SECONDS / 2);
      return {};
    });
    const runs = await alternated(PAIR_RUNS, async (side) => {
      const { value: result, load } = await withLoad(() => cannon(sides[side].url, token, PAIR_DURATION));
      return { perSecond: result['2xx'] / result.duration, p99: result.latency.p99, load, non2xx: result.non2xx, errors: result.errors };
    });
    return { measure, runs };
  } finally {
    for (const side of ['without', 'with'] as const) for (const spawned of sides[side].processes.reverse()) await spawned.stop();
  }
}

let before: TLoadFigures;
let after: TLoadFigures;
const shapes = [];
const pairs: TTokenizePair[] = [];
try {
  before = await bareBullmq(config, DURATION, CONNECTIONS, WARM_UP_SECONDS);
  for (const shape of [...SHAPES, ...FLOORS]) shapes.push(await tokenizeShape(shape, () => bare.perSecond));
  after = await bareBullmq(config, DURATION, CONNECTIONS, WARM_UP_SECONDS);
  for (const measure of PAIRS) {
    const pair = await measurePair(measure);
    pairs.push(pair);
    console.log(`pair ${measure}: ${pair.runs.map((run) => `${run.side} ${run.perSecond.toFixed(0)}/s (load ${run.load.toFixed(1)})`).join(', ')}`);
  }
} finally {
  await services.stop();
}
const bare: TLoadFigures = {
  perSecond: (before.perSecond + after.perSecond) / 2,
  p50: (before.p50 + after.p50) / 2,
  p99: (before.p99 + after.p99) / 2,
  count: before.count + after.count,
  load: (before.load + after.load) / 2,
};
const results: TTokenizeShape[] = shapes.map(({ ratioOf, ...figures }) => ({ ...figures, ratio: ratioOf() }));

const m = machine();
console.log(`machine: ${m.cores} × ${m.cpu}, ${m.memoryGiB} GiB, node ${m.node}; ${Object.entries(services.sources).map(([k, v]) => `${k}: ${v}`).join(', ')}`);
console.log(`${CONNECTIONS} connections / callers, ${DURATION} s each after ${WARM_UP_SECONDS} s warm-up, ${REPEAT} runs per shape (median shown); NODE_ENV=production`);
console.log(`${''.padEnd(73)}per s        p50        p99    non-2xx  errors  vs bare   load`);
const line = (name: string, f: TLoadFigures, extra = '') =>
  console.log(`${name.padEnd(70)} ${f.perSecond.toFixed(0).padStart(8)} ${`${f.p50.toFixed(1)} ms`.padStart(10)} ${`${f.p99.toFixed(1)} ms`.padStart(10)} ${extra} ${f.load.toFixed(1).padStart(6)}`);
line('bare BullMQ round trip (before)', before, ''.padStart(25));
line('bare BullMQ round trip (after)', after, ''.padStart(25));
const shapeName = (shape: TTokenizeShape['shape']): string =>
  shape === 'split'
    ? 'tokenize, API + worker processes'
    : shape === 'single'
      ? 'tokenize, one process'
      : FLOOR_NAMES[shape as TFloorKind];
for (const r of results) {
  const name = shapeName(r.shape);
  line(name, r, `${String(r.non2xx).padStart(10)} ${String(r.errors).padStart(7)} ${`${(r.ratio * 100).toFixed(0)} %`.padStart(8)}`);
  console.log(`  runs: ${r.runs.map((run) => `${run.perSecond.toFixed(0)}/s p99 ${run.p99.toFixed(0)} ms (load ${run.load.toFixed(1)})`).join(', ')}`);
  console.log(`  CPU ms per request: ${Object.entries(r.cpuMsPerRequest).map(([role, value]) => `${role} ${value.toFixed(2)}`).join(', ')}`);
}

writeResult({
  benchmark: 'tokenize', machine: m, services: services.sources, connections: CONNECTIONS, durationSeconds: DURATION, bare, bareRuns: [before, after], shapes: results,
  pairRuns: PAIR_RUNS, pairDurationSeconds: PAIR_DURATION, pairs,
});
if (results.some((r) => r.count === 0 || r.errors > 0) || pairs.some((pair) => pair.runs.some((run) => run.perSecond === 0 || run.errors > 0))) {
  console.error('tokenize bench: a shape answered no request or had connection errors');
  process.exitCode = 1;
}
