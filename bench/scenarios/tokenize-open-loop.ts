/**
 * Tokenize at a fixed arrival rate (open loop, packages/test-kit/src/open-loop.ts): POST /vault/v1/tokens/card sent
 * on a precomputed schedule whether or not earlier requests were answered, each latency measured
 * from the request's scheduled send time, so queueing delay shows (a closed loop such as
 * bench/scenarios/tokenize-load.ts's autocannon hides it). Each request a different Luhn-valid card made up
 * at run time (test mode), through the real API, queue, worker and PostgreSQL, NODE_ENV=production,
 * rate limits lifted; API and worker as separate processes (`--shape single`: both in one, `npm start`).
 *
 * 1. --seconds at --rate.
 * 2. A rate search: --steps rates, --step-seconds each, stopping after the first step that does not
 *    hold (p99 > 50 ms, or any error, timeout or non-2xx), then --refine halvings between the last
 *    rate held and the first not held. Reported: the highest rate held at p99 ≤ 50 ms.
 * Baseline in the same run, before and after the service: the same schedule at --rate against a bare
 * BullMQ add → process → result round trip on the same Redis (bench/baselines/bare-bullmq.ts).
 *
 *   npx tsx bench/scenarios/tokenize-open-loop.ts [--rate 300] [--seconds 10] [--shape split|single]
 *       [--steps 100,200,300,400,500,600,800,1000,1200,1500,2000] [--step-seconds 5] [--refine 2]
 */
import { parseArgs } from 'node:util';
import { Queue } from 'bullmq';
import { request } from 'undici';
import { createPgPool, createRedis } from '@folio-vault/shared/connections';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { futureYear, generatedPan } from '@folio-vault/test-kit/cards';
import { bareBullmqOpenLoop } from '../baselines/bare-bullmq.js';
import { figuresOf, openLoop, type TOpenLoopRequest, type TOpenLoopResult } from '@folio-vault/test-kit/open-loop';
import { benchToken, freePort, liftedRateLimits, startShape, type TServiceProcess } from '../support/service-processes.js';
import { benchEnvironment, writeResult } from '../support/environment.js';
import { machine, withLoad } from '../support/machine.js';

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '300' },
    seconds: { type: 'string', default: '10' },
    shape: { type: 'string', default: 'split' },
    steps: { type: 'string', default: '100,200,300,400,500,600,800,1000,1200,1500,2000' },
    'step-seconds': { type: 'string', default: '5' },
    refine: { type: 'string', default: '2' },
  },
});
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const SHAPE = values.shape as 'split' | 'single';
const STEPS = values.steps.split(',').map(Number);
const STEP_SECONDS = Number(values['step-seconds']);
const REFINE = Number(values.refine);
if (SHAPE !== 'split' && SHAPE !== 'single') throw new Error(`--shape split|single, not ${SHAPE}`);
/**
 * Load at the fixed rate before the measured run, its figures reported apart: a service's slow
 * requests come mostly in its first seconds of load, whichever connection pool the run uses, and
 * only in the short clusters of a steady state after this long.
 */
const WARM_UP_SECONDS = 10;
/** As bench/scenarios/tokenize-load.ts: the worker's render processes start before anything is measured. */
const SETTLE_MS = 6_000;
/** The rate search's bar: a step holds when its p99 is at most this and every request got a 2xx. */
const SEARCH_P99_MS = 50;
const MAX_CONNECTIONS = 512;
/** Quiet time before each step, once the service's queue is empty. */
const PAUSE_MS = 1_000;
/** The longest wait for the queue to empty: jobs whose callers timed out stay queued, and a step must not start on them. */
const DRAIN_TIMEOUT_MS = 120_000;
const TIMEOUT_MS = 10_000;

export type TOpenLoopFigures = Omit<TOpenLoopResult, 'samples'> & { load: number };
export interface TRateStep extends TOpenLoopFigures {
  held: boolean;
  /** A step between the last rate held and the first not held. */
  refined: boolean;
}
export interface TTokenizeOpenLoopResult {
  benchmark: 'tokenize-open-loop';
  machine: ReturnType<typeof machine>;
  services: Record<string, string>;
  shape: 'split' | 'single';
  maxConnections: number;
  warmUpSeconds: number;
  /** The warm-up's own figures: the service's first seconds of load (absent in results before the seventh round). */
  warmUp?: TOpenLoopFigures;
  stepSeconds: number;
  searchP99LimitMs: number;
  bareRuns: TOpenLoopFigures[];
  fixed: TOpenLoopFigures;
  steps: TRateStep[];
  /** Highest rate of the search held at p99 ≤ searchP99LimitMs (0 if none was). */
  highestHeld: number;
}

const { config, ownerUrl, services, rawEnv } = await benchEnvironment();

// The hotel is known, as in production (its data imported): the API checks the header against its
// gateway mode on every request.
{
  const pool = createPgPool(ownerUrl, { max: 1 });
  await pool.query(`INSERT INTO properties (id, name, currency, timezone, gateway_mode) VALUES (1, 'Bench Hotel', 'EUR', 'Europe/Madrid', 'test')`);
  await pool.end();
}

function tokenizeRequest(token: string): () => TOpenLoopRequest {
  const headers = { authorization: `Bearer ${token}`, 'x-property-id': '1', 'svc-tokenization-mode': 'test', 'content-type': 'application/json' };
  const expiration = { month: '08', year: futureYear() };
  // A different card each request: no cache or duplicate path can flatter the figures.
  return () => ({
    method: 'POST',
    path: '/vault/v1/tokens/card',
    headers,
    body: JSON.stringify({ card_number: generatedPan('4', 16), cvv: '123', cardholder_name: 'Zoë Łukasiewicz', expiration }),
  });
}

/**
 * Waits until the service's vault queue has no job waiting or running. After an overloaded step,
 * requests the generator gave up on (timeouts) are still queued and the worker still runs them:
 * the next step would otherwise be measured on that backlog.
 */
async function drained(): Promise<void> {
  const connection = createRedis(config.REDIS_URL, 'producer');
  const queue = new Queue(QUEUE_NAMES.vault, { connection, prefix: config.QUEUE_PREFIX });
  const started = performance.now();
  try {
    for (;;) {
      const counts = await queue.getJobCounts('waiting', 'active', 'prioritized');
      const left = Object.values(counts).reduce((a, b) => a + b, 0);
      if (left === 0) break;
      if (performance.now() - started > DRAIN_TIMEOUT_MS) throw new Error(`the vault queue still holds ${left} jobs after ${DRAIN_TIMEOUT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await queue.close();
    connection.disconnect();
  }
  const waited = performance.now() - started;
  if (waited > 1_000) console.log(`  (the queue took ${(waited / 1000).toFixed(1)} s to empty before the step)`);
}

async function measure(url: string, token: string, rate: number, seconds: number, pause = true): Promise<TOpenLoopFigures> {
  if (pause) {
    await drained();
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
  }
  const makeRequest = tokenizeRequest(token);
  const { value, load } = await withLoad(() => openLoop({ url, rate, seconds, makeRequest, maxConnections: MAX_CONNECTIONS, timeoutMs: TIMEOUT_MS }));
  return { ...figuresOf(value), load };
}

const holds = (f: TOpenLoopFigures) => f.latency.p99 <= SEARCH_P99_MS && f.ok === f.scheduled;

/** Steps up until a rate does not hold, then halves the gap between the last held and the first not held. */
async function rateSearch(url: string, token: string): Promise<TRateStep[]> {
  const steps: TRateStep[] = [];
  for (const rate of STEPS) {
    const figures = await measure(url, token, rate, STEP_SECONDS);
    steps.push({ ...figures, held: holds(figures), refined: false });
    console.log(stepLine(steps.at(-1)!));
    if (!holds(figures)) break;
  }
  let low = Math.max(0, ...steps.filter((s) => s.held).map((s) => s.rate));
  let high = steps.find((s) => !s.held)?.rate;
  // When even the first step did not hold, the halvings go below it (from 0).
  for (let k = 0; k < REFINE && high !== undefined; k += 1) {
    const rate = Math.round((low + high) / 2 / 10) * 10;
    if (rate <= low || rate >= high) break;
    const figures = await measure(url, token, rate, STEP_SECONDS);
    steps.push({ ...figures, held: holds(figures), refined: true });
    console.log(stepLine(steps.at(-1)!));
    if (holds(figures)) low = rate;
    else high = rate;
  }
  return steps;
}

/** One request before any load: a service that refuses the request is a setup fault, said plainly. */
async function preflight(url: string, token: string): Promise<void> {
  const { method, path, headers, body } = tokenizeRequest(token)();
  const answer = await request(`${url}${path}`, { method, headers, body });
  const text = await answer.body.text();
  if (answer.statusCode !== 200) throw new Error(`tokenize answered ${answer.statusCode}: ${text.slice(0, 500)}`);
}

async function tokenizeService(): Promise<{ warmUp: TOpenLoopFigures; fixed: TOpenLoopFigures; steps: TRateStep[] }> {
  const port = await freePort();
  const env = { ...rawEnv(), ...liftedRateLimits(), NODE_ENV: 'production', PORT: String(port) };
  const processes: TServiceProcess[] = [];
  try {
    processes.push(...(await startShape(SHAPE, env)));
    const url = `http://127.0.0.1:${port}`;
    const token = benchToken(config, 'write:payment');
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    await preflight(url, token);
    const warmUp = await measure(url, token, RATE, WARM_UP_SECONDS, false);
    console.log(stepLine({ ...warmUp, held: holds(warmUp), refined: false }, `  (warm-up, first ${WARM_UP_SECONDS} s)`));
    const fixed = await measure(url, token, RATE, SECONDS, false);
    console.log(stepLine({ ...fixed, held: holds(fixed), refined: false }, `tokenize ${SHAPE} @ ${RATE}/s`));
    const steps = await rateSearch(url, token);
    return { warmUp, fixed, steps };
  } finally {
    for (const spawned of processes.reverse()) await spawned.stop();
  }
}

async function bare(): Promise<TOpenLoopFigures> {
  const { samples: _samples, ...figures } = await bareBullmqOpenLoop(config, RATE, SECONDS, WARM_UP_SECONDS, TIMEOUT_MS);
  console.log(stepLine({ ...figures, held: holds(figures), refined: false }, `bare BullMQ @ ${RATE}/s`));
  return figures;
}

const HEAD = `${'run'.padEnd(28)} ${'sent'.padStart(6)} ${'2xx'.padStart(6)} ${'other'.padStart(6)} ${'p50'.padStart(9)} ${'p90'.padStart(9)} ${'p99'.padStart(9)} ${'max'.padStart(9)} ${'ok/s'.padStart(6)} ${'late (max)'.padStart(16)} ${'peak'.padStart(5)} ${'cpu/req'.padStart(8)} ${'load'.padStart(5)}`;
function stepLine(f: TOpenLoopFigures & { held: boolean; refined: boolean }, name = `  step ${f.rate}/s${f.refined ? ' (refined)' : ''}`): string {
  const msCell = (value: number) => `${value.toFixed(1)} ms`.padStart(9);
  const other = f.non2xx + f.errors + f.timeouts;
  return `${name.padEnd(28)} ${String(f.sent).padStart(6)} ${String(f.ok).padStart(6)} ${String(other).padStart(6)} ${msCell(f.latency.p50)} ${msCell(f.latency.p90)} ${msCell(f.latency.p99)} ${msCell(f.latency.max)} ${f.achievedRate.toFixed(0).padStart(6)} ${`${f.lateSends} (${f.maxLateMs.toFixed(1)} ms)`.padStart(16)} ${String(f.peakInFlight).padStart(5)} ${`${(f.processCpuMs / f.sent).toFixed(2)} ms`.padStart(8)} ${f.load.toFixed(1).padStart(5)}${f.held ? '' : '  ✘'}`;
}

console.log(`open loop, ${SHAPE}: ${SECONDS} s at ${RATE}/s, then steps of ${STEP_SECONDS} s; latency from each request's schedule; NODE_ENV=production`);
console.log(HEAD);
const bareRuns: TOpenLoopFigures[] = [];
let service: Awaited<ReturnType<typeof tokenizeService>>;
try {
  bareRuns.push(await bare());
  service = await tokenizeService();
  bareRuns.push(await bare());
} finally {
  await services.stop();
}
const highestHeld = Math.max(0, ...service.steps.filter((s) => s.held).map((s) => s.rate));
const m = machine();
console.log(`machine: ${m.cores} × ${m.cpu}, ${m.memoryGiB} GiB, node ${m.node}; ${Object.entries(services.sources).map(([k, v]) => `${k}: ${v}`).join(', ')}`);
console.log(`tokenize ${SHAPE} @ ${RATE}/s: p50 ${service.fixed.latency.p50.toFixed(1)} ms, p99 ${service.fixed.latency.p99.toFixed(1)} ms (load ${service.fixed.load.toFixed(1)})`);
console.log(`bare BullMQ @ ${RATE}/s: p50 ${bareRuns.map((b) => b.latency.p50.toFixed(1)).join(' / ')} ms, p99 ${bareRuns.map((b) => b.latency.p99.toFixed(1)).join(' / ')} ms (load ${bareRuns.map((b) => b.load.toFixed(1)).join(' / ')})`);
console.log(`highest rate held at p99 ≤ ${SEARCH_P99_MS} ms: ${highestHeld}/s`);

const result: TTokenizeOpenLoopResult = {
  benchmark: 'tokenize-open-loop',
  machine: m,
  services: services.sources,
  shape: SHAPE,
  maxConnections: MAX_CONNECTIONS,
  warmUpSeconds: WARM_UP_SECONDS,
  warmUp: service.warmUp,
  stepSeconds: STEP_SECONDS,
  searchP99LimitMs: SEARCH_P99_MS,
  bareRuns,
  fixed: service.fixed,
  steps: service.steps,
  highestHeld,
};
writeResult(result);
if (service.fixed.ok === 0 || service.fixed.errors > 0) {
  console.error('tokenize open loop: the fixed-rate run answered no request or had connection errors');
  process.exitCode = 1;
}
