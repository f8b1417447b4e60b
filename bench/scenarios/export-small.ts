/**
 * Small on-demand exports end to end, against the service as `npm start` runs it: one process
 * (scripts/start.ts: API + worker, plus its render processes), NODE_ENV=production, default
 * settings except the rate limits lifted (the tokenize limits and EXPORT_QUEUE_CAP_PER_PROPERTY).
 * The ledger holds many typical 30-row folios (packages/test-kit/src/typical-ledger.ts) and one 1,000-row folio.
 *
 * 1. Cold start: the time from spawning the process until it says it is ready (API listening and
 *    worker ready), its first 1,000-row export, then the same export again three times (warm).
 *    One GET /healthz goes first, so the cold export does not carry the client's own first request.
 *    A first export is one sample: the service is started BENCH_EXPORT_SMALL_COLD_STARTS times
 *    (3), one after another, and the start with the median cold/warm ratio is the figure; the last
 *    start is kept for the steps below.
 * 2. One client, sequential exports of distinct 30-row folios: POST (no Prefer, so the API answers
 *    the file when it is ready within EXPORT_WAIT_MS), timed from the POST to the file's last byte.
 *    Also a few with `Prefer: respond-async` (202, the status polled every 20 ms, the file fetched).
 * 3. 20 clients doing the same at once: exports per second and latency.
 * 4. The alternated pair of each kept performance measure on this path, or named by BENCH_EXPORT_SMALL_PAIRS
 *    (packages/shared/src/performance-measures.ts): the service started twice side by side, as it
 *    is and with PERFORMANCE_MEASURES_OFF=<measure> (each on its own port and queue prefix, so
 *    neither takes the other's jobs), both warmed up (BENCH_EXPORT_SMALL_PAIR_WARM_UP_SECONDS of
 *    step 3's load each), then step 3 on each in turn, with, without,
 *    with… (bench/support/pairs.ts), BENCH_EXPORT_SMALL_PAIR_RUNS runs of each,
 *    BENCH_EXPORT_SMALL_PAIR_SECONDS seconds a run, each run followed by step 2's shape
 *    (BENCH_EXPORT_SMALL_PAIR_SEQUENTIAL exports of one client, their p50): a measure that makes
 *    the render cheaper shows in one client's wait even where the 20 clients' throughput is held
 *    by the rest of the path.
 * Baselines, in the same run: the worker's own render time of the same exports (its "document
 * rendered" log line), a bare BullMQ round trip on the same Redis, and, before the service starts
 * (the same cores, nothing else of the service running), the render processes alone
 * (bench/baselines/render-throughput.ts): a RenderPool of EXPORT_CONCURRENCY processes from source,
 * as `npm start` runs them, rendering every small folio's document (built beforehand by the
 * worker's buildFolioDocument) back to back, once to warm up and once timed. The clients' exports/s
 * over it is the share of the render processes' own throughput the service delivers. Each file is
 * checked (200, %PDF, as many bytes as Content-Length). The 1-minute load average is recorded
 * beside each figure.
 *
 *   npx tsx bench/scenarios/export-small.ts
 *   BENCH_EXPORT_SMALL_SEQUENTIAL=100 BENCH_EXPORT_SMALL_SECONDS=5 npx tsx bench/scenarios/export-small.ts
 *   BENCH_EXPORT_SMALL_PAIRS=shaping-cache BENCH_EXPORT_SMALL_PAIR_RUNS=5 npx tsx bench/scenarios/export-small.ts   # a measure's pair on this path
 *   BENCH_CPU_PROF_DIR=/tmp/prof npx tsx bench/scenarios/export-small.ts   # --cpu-prof (bench/support/service-processes.ts), render processes too
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Queue, QueueEvents, Worker } from 'bullmq';
import { Pool } from 'undici';
import { createPgPool, createRedis } from '@folio-vault/shared/connections';
import { ZFolioExportRequest } from '@folio-vault/shared/exports/schemas';
import { importRecords, recordsOfDocument } from '@folio-vault/shared/ledger/batch-import';
import { generateLargeSource } from '@folio-vault/test-kit/demo-ledger';
import { largeSource, largeSourceId } from '@folio-vault/test-kit/folio-document';
import { exportDocuments, renderThroughput, type TRenderThroughput } from '../baselines/render-throughput.js';
import { cpuPer, cpuSnapshot, postgresServerOf } from '../support/process-cpu.js';
import { benchToken, freePort, liftedRateLimits, startService, type TServiceProcess } from '../support/service-processes.js';
import { benchEnvironment, writeResult } from '../support/environment.js';
import { machine, withLoad } from '../support/machine.js';
import { median, summary } from '../support/stats.js';
import { typicalLedger } from '@folio-vault/test-kit/typical-ledger';
import type { TPerformanceMeasure } from '@folio-vault/shared/performance-measures';
import { alternated, otherQueuePrefix, type TPairSide } from '../support/pairs.js';

const SEQUENTIAL = Number(process.env.BENCH_EXPORT_SMALL_SEQUENTIAL ?? 300);
const ASYNC = Number(process.env.BENCH_EXPORT_SMALL_ASYNC ?? 30);
const CONCURRENT_SECONDS = Number(process.env.BENCH_EXPORT_SMALL_SECONDS ?? 15);
const CLIENTS = Number(process.env.BENCH_EXPORT_SMALL_CLIENTS ?? 20);
const FOLIOS = 600;
const LARGE_ROWS = 1_000;
const WARM_REPEAT = 3;
/** Other 1,000-row folios, a year apart each (step 1's `unseenMs`). */
const UNSEEN_SOURCES = Array.from({ length: 3 }, (_, index) =>
  generateLargeSource({ propertyId: 1, sourceId: largeSourceId(LARGE_ROWS) + 1 + index, rows: LARGE_ROWS, start: new Date(Date.UTC(2027 + index, 0, 1)) }),
);
const COLD_STARTS = Math.max(1, Number(process.env.BENCH_EXPORT_SMALL_COLD_STARTS ?? 3));
const METRICS_TOKEN = `bench-${Date.now()}-metrics`;
/** The kept performance measures of the small export's path, each paired (step 4). */
const EXPORT_MEASURES: TPerformanceMeasure[] = ['shaping-cache'];
const PAIRS = (process.env.BENCH_EXPORT_SMALL_PAIRS ?? EXPORT_MEASURES.join(',')).split(',').filter((name) => name && name !== 'none') as TPerformanceMeasure[];
const PAIR_RUNS = Number(process.env.BENCH_EXPORT_SMALL_PAIR_RUNS ?? 3);
const PAIR_SECONDS = Number(process.env.BENCH_EXPORT_SMALL_PAIR_SECONDS ?? 5);
/**
 * Seconds of step 3's load on each of a pair's services before its runs, given in turn (two
 * rounds): the render processes reach their speed only after some hundreds of documents (their
 * code optimised as it runs), as the service of steps 1–3 has by step 3.
 */
const PAIR_WARM_UP_SECONDS = Number(process.env.BENCH_EXPORT_SMALL_PAIR_WARM_UP_SECONDS ?? 10);
/** Exports of one client, one after another, in each run of a pair after its 20 clients (step 2's shape; its p50). */
const PAIR_SEQUENTIAL = Number(process.env.BENCH_EXPORT_SMALL_PAIR_SEQUENTIAL ?? 150);

type TSummary = ReturnType<typeof summary>;
/**
 * One start of step 1. `warmMs`: the median of the same export again, WARM_REPEAT times. `unseenMs`:
 * the median of the exports of UNSEEN_SOURCES, other 1,000-row folios taken after those, each drawn
 * once by this service and dated differently, so their dates and times were never shaped by its
 * render processes (shaping-cache.ts): what a warm service takes for a folio it has not drawn, to
 * tell the service's cold start from what the same export's repeat finds cached.
 */
type TStart = {
  readyMs: number;
  readyCpuMs: number;
  coldMs: number;
  warmMs: number;
  ratio: number;
  unseenMs: number;
  coldRenderMs?: number;
  warmRenderMs?: number;
  unseenRenderMs?: number;
  load: number;
};
export interface TExportSmallResult {
  machine: ReturnType<typeof machine>;
  /** Step 1: the start with the median cold/warm ratio. */
  startup: TStart;
  /** Every start of step 1, in the order taken. */
  starts?: TStart[];
  sequential: { exports: number; e2e: TSummary; renderMs: TSummary; perSecond: number; cpuMsPerExport: number; load: number };
  async: { exports: number; e2e: TSummary; load: number };
  /** Step 4: each kept measure's alternated pair, the runs of step 3 in the order taken. */
  pairRuns?: number;
  pairSeconds?: number;
  pairSequential?: number;
  /** `oneClientP50`: the p50 of PAIR_SEQUENTIAL exports of one client, one after another, taken after the run's 20 clients. */
  pairs?: Array<{ measure: TPerformanceMeasure; runs: Array<{ side: TPairSide; perSecond: number; exports: number; p50: number; oneClientP50?: number; load: number }> }>;
  concurrent: {
    clients: number; exports: number; seconds: number; perSecond: number; e2e: TSummary; renderMs: TSummary; cpuMsPerExport: number; load: number;
    /** CPU ms an export by process role, every process of the run (bench/support/process-cpu.ts): service, render processes, PostgreSQL, Redis, the clients. */
    cpuByProcess?: Record<string, number>;
  };
  /** Render processes replaced over the whole run, by reason (export_render_process_replacements_total). */
  replacements?: Record<string, number>;
  bare: TSummary;
  /** The render processes alone on the same small folios (bench/baselines/render-throughput.ts). */
  renderAlone?: TRenderThroughput;
  failures: string[];
}

const { config, ownerUrl, services, rawEnv } = await benchEnvironment();
const pool = createPgPool(ownerUrl, { max: 2 });
const port = await freePort();
const env = {
  ...rawEnv(), ...liftedRateLimits(), EXPORT_QUEUE_CAP_PER_PROPERTY: '1000000', NODE_ENV: 'production', PORT: String(port), METRICS_TOKEN,
};
const base = `http://127.0.0.1:${port}`;
const headers = { authorization: `Bearer ${benchToken(config, 'read:payment')}`, 'x-property-id': '1', 'accept-language': 'en' };
const failures: string[] = [];
const ledger = typicalLedger(1, FOLIOS + 1);
const smallSources = ledger.folios.filter((folio) => folio.sourceKind === 'RESERVATION').map((folio) => String(folio.sourceId));
let nextSmall = 0;
const nextSource = () => smallSources[nextSmall++ % smallSources.length]!;

/**
 * The clients' connections: an undici Pool, as bench/scenarios/forward-overhead.ts uses, so the load
 * generator takes less of the cores the service runs on than `fetch` would.
 */
const client = new Pool(base, { connections: CLIENTS });

async function call(path: string, init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {}, pool: Pool = client) {
  const res = await pool.request({ path, method: init.method ?? 'GET', headers: init.headers, body: init.body });
  return { status: res.statusCode, header: (name: string) => res.headers[name] as string | undefined, body: res.body };
}

/** One export, from the POST to the file's last byte (the file answered by the POST, or fetched after polling). */
async function exportOnce(sourceId: string, respondAsync = false, pool: Pool = client): Promise<{ ms: number; exportId: string }> {
  const started = performance.now();
  const res = await call('/fiscal-document/v1/folios/export', {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', ...(respondAsync ? { prefer: 'respond-async' } : {}) },
    body: JSON.stringify({ sourceKind: 'RESERVATION', sourceId }),
  }, pool);
  let file = res;
  let exportId = res.header('x-export-id') ?? '';
  if (res.status === 202) {
    const { statusUrl, exportId: id } = (await res.body.json()) as { statusUrl: string; exportId: string };
    exportId = id;
    for (;;) {
      const status = (await (await call(statusUrl, { headers }, pool)).body.json()) as { status: string; fileUrl?: string };
      if (status.status === 'completed') {
        file = await call(status.fileUrl!, { headers }, pool);
        break;
      }
      if (status.status !== 'queued' && status.status !== 'running') throw new Error(`export of ${sourceId}: ${JSON.stringify(status)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  if (file.status !== 200) throw new Error(`export of ${sourceId} answered ${file.status}: ${await file.body.text()}`);
  const bytes = Buffer.from(await file.body.arrayBuffer());
  const ms = performance.now() - started;
  if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-') failures.push(`${exportId}: not a PDF`);
  if (String(bytes.length) !== file.header('content-length')) failures.push(`${exportId}: ${bytes.length} bytes of ${file.header('content-length')}`);
  return { ms, exportId };
}

/** The service's render-process replacements so far, by reason, from its /metrics. */
async function renderReplacements(): Promise<Record<string, number>> {
  const text = await (await call('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).body.text();
  const counts: Record<string, number> = {};
  for (const [, reason, value] of text.matchAll(/^export_render_process_replacements_total\{reason="(\w+)"\} (\d+)$/gm)) counts[reason!] = Number(value);
  return counts;
}

/** The worker's own render times (ms) of these exports, from its "document rendered" lines. */
function renderTimes(service: TServiceProcess, exportIds: string[]): number[] {
  const wanted = new Set(exportIds);
  const times: number[] = [];
  for (const line of service.log().split('\n')) {
    if (!line.includes('"msg":"document rendered"')) continue;
    const entry = JSON.parse(line) as { exportId?: string; ms: number };
    if (entry.exportId && wanted.has(entry.exportId)) times.push(entry.ms);
  }
  return times;
}

async function bareBullmq(count: number): Promise<number[]> {
  const connection = createRedis(config.REDIS_URL, 'worker');
  const eventsConnection = createRedis(config.REDIS_URL, 'events');
  const prefix = `${config.QUEUE_PREFIX}-bare`;
  const queue = new Queue('bare', { connection, prefix });
  const events = new QueueEvents('bare', { connection: eventsConnection, prefix });
  await events.waitUntilReady();
  const worker = new Worker('bare', async () => ({ ok: true }), { connection, prefix, concurrency: 16 });
  await worker.waitUntilReady();
  const samples: number[] = [];
  for (let i = 0; i < count + 20; i += 1) {
    const started = performance.now();
    const job = await queue.add('bare', { i }, { removeOnComplete: { age: 60 } });
    await job.waitUntilFinished(events, 10_000);
    if (i >= 20) samples.push(performance.now() - started);
  }
  await worker.close();
  await events.close();
  await queue.obliterate({ force: true });
  await queue.close();
  connection.disconnect();
  eventsConnection.disconnect();
  return samples;
}

/**
 * CPU time (ms) used so far by the service's process tree (the tsx launcher, the service, its render
 * processes, and the children they reaped): a figure the other work on a shared machine barely moves,
 * so a change can be judged even when the load average is high.
 */
function treeCpuMs(root: number): number {
  const table = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' }).trim().split('\n').map((line) => line.trim().split(/\s+/).map(Number));
  const tree = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of table) if (tree.has(ppid!) && !tree.has(pid!)) grew = tree.add(pid!) !== undefined;
  }
  let ticks = 0;
  for (const pid of tree) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      // Ended meanwhile: its parent counts it once reaped.
    }
  }
  return ticks * 10; // USER_HZ is 100 on Linux
}

/** Spawns the service and times it until ready, by the clock of its own ready lines. */
async function startTimed(): Promise<{ service: TServiceProcess; readyMs: number; readyCpuMs: number }> {
  const spawned = Date.now();
  const service = await startService('all', env);
  const times = service
    .log()
    .split('\n')
    .filter((line) => /"msg":"(worker ready|api listening)"/.test(line))
    .map((line) => (JSON.parse(line) as { time: number }).time);
  return { service, readyMs: Math.max(...times) - spawned, readyCpuMs: treeCpuMs(service.pid) };
}

/**
 * Step 1 on a service just started: one health check (the client's own first request compiles its
 * HTTP code and opens the connection, which is not the service's cold start), then the first
 * 1,000-row export and the same export WARM_REPEAT times more.
 */
async function firstExports(service: TServiceProcess, started: { readyMs: number; readyCpuMs: number }): Promise<TStart> {
  const large = String(largeSourceId(LARGE_ROWS));
  const health = await call('/healthz');
  await health.body.dump();
  if (health.status !== 200) throw new Error('the service is not healthy');
  const startup = await withLoad(async () => {
    const cold = await exportOnce(large);
    const warm: { ms: number; exportId: string }[] = [];
    for (let i = 0; i < WARM_REPEAT; i += 1) warm.push(await exportOnce(large));
    const unseen: { ms: number; exportId: string }[] = [];
    for (const source of UNSEEN_SOURCES) unseen.push(await exportOnce(String(source.folios[0]!.sourceId)));
    return { cold, warm, unseen };
  });
  const warmMs = median(startup.value.warm.map((run) => run.ms));
  const warmRenders = renderTimes(service, startup.value.warm.map((run) => run.exportId));
  const unseenRenders = renderTimes(service, startup.value.unseen.map((run) => run.exportId));
  return {
    readyMs: started.readyMs,
    readyCpuMs: started.readyCpuMs,
    coldMs: startup.value.cold.ms,
    warmMs,
    ratio: startup.value.cold.ms / warmMs,
    unseenMs: median(startup.value.unseen.map((run) => run.ms)),
    coldRenderMs: renderTimes(service, [startup.value.cold.exportId])[0],
    warmRenderMs: warmRenders.length ? median(warmRenders) : undefined,
    unseenRenderMs: unseenRenders.length ? median(unseenRenders) : undefined,
    load: startup.load,
  };
}

/** CLIENTS clients exporting at once for `seconds` (step 3's load) against the service `pool` reaches: its exports a second. */
async function clientsAtOnce(pool: Pool, seconds: number): Promise<{ perSecond: number; exports: number; p50: number }> {
  const runs: number[] = [];
  const begun = performance.now();
  const until = begun + seconds * 1000;
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (performance.now() < until) runs.push((await exportOnce(nextSource(), false, pool)).ms);
  }));
  return { perSecond: runs.length / ((performance.now() - begun) / 1000), exports: runs.length, p50: summary(runs).p50 };
}

/** Step 4 for one measure: the service as it is and without the measure, started side by side, each warmed up, then measured in turn. */
async function measurePair(measure: TPerformanceMeasure): Promise<NonNullable<TExportSmallResult['pairs']>[number]> {
  const sides = {} as Record<TPairSide, { service: TServiceProcess; pool: Pool }>;
  try {
    for (const side of ['with', 'without'] as const) {
      const sidePort = await freePort();
      const sideEnv = { ...env, PORT: String(sidePort), ...(side === 'with' ? {} : { QUEUE_PREFIX: otherQueuePrefix(config.QUEUE_PREFIX, 'without'), PERFORMANCE_MEASURES_OFF: measure }) };
      const service = await startService('all', sideEnv);
      sides[side] = { service, pool: new Pool(`http://127.0.0.1:${sidePort}`, { connections: CLIENTS }) };
    }
    for (const side of ['with', 'without'] as const) for (let i = 0; i < 10; i += 1) await exportOnce(nextSource(), false, sides[side].pool);
    await alternated(2, async (side) => clientsAtOnce(sides[side].pool, PAIR_WARM_UP_SECONDS / 2));
    const runs = await alternated(PAIR_RUNS, async (side) => {
      const { value, load } = await withLoad(() => clientsAtOnce(sides[side].pool, PAIR_SECONDS));
      const oneClient: number[] = [];
      for (let i = 0; i < PAIR_SEQUENTIAL; i += 1) oneClient.push((await exportOnce(nextSource(), false, sides[side].pool)).ms);
      return { ...value, oneClientP50: summary(oneClient).p50, load };
    });
    return { measure, runs };
  } finally {
    for (const side of ['without', 'with'] as const) {
      await sides[side]?.pool.close();
      await sides[side]?.service.stop();
    }
  }
}

const fmt = (s: TSummary) => `p50 ${s.p50.toFixed(1)} ms, p90 ${s.p90.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms`;

let service: TServiceProcess | undefined;
try {
  await importRecords(pool, '1', recordsOfDocument(largeSource(LARGE_ROWS)));
  for (const source of UNSEEN_SOURCES) await importRecords(pool, '1', recordsOfDocument(source));
  await importRecords(pool, '1', recordsOfDocument(ledger));
  const bare = summary(await bareBullmq(200));
  console.log(`bare BullMQ round trip: ${fmt(bare)}`);
  const documents = await exportDocuments(pool, '1', smallSources.map((sourceId) => ZFolioExportRequest.parse({ sourceKind: 'RESERVATION', sourceId })));
  const renderAlone = await renderThroughput(documents, { processes: config.EXPORT_CONCURRENCY, compiled: false });
  console.log(`render processes alone (${renderAlone.processes}), the same ${renderAlone.documents} folios back to back: ${renderAlone.perSecond.toFixed(1)}/s, load ${renderAlone.load.toFixed(2)}`);

  const starts: TStart[] = [];
  for (let round = 0; round < COLD_STARTS; round += 1) {
    const started = await startTimed();
    service = started.service;
    const s = await firstExports(service, started);
    starts.push(s);
    console.log(`start ${round + 1}: until ready ${s.readyMs} ms (${s.readyCpuMs} ms of CPU); first ${LARGE_ROWS}-row export ${s.coldMs.toFixed(0)} ms (render ${s.coldRenderMs} ms), warm ${s.warmMs.toFixed(0)} ms (render ${s.warmRenderMs} ms): cold/warm ${s.ratio.toFixed(2)}×; other folios, warm ${s.unseenMs.toFixed(0)} ms (render ${s.unseenRenderMs} ms): cold/that ${(s.coldMs / s.unseenMs).toFixed(2)}×, load ${s.load.toFixed(2)}`);
    if (round < COLD_STARTS - 1) {
      await service.stop();
      service = undefined;
    }
  }
  const byRatio = [...starts].sort((a, b) => a.ratio - b.ratio);
  const result: Partial<TExportSmallResult> = { machine: machine(), bare, renderAlone, startup: byRatio[Math.floor((byRatio.length - 1) / 2)]!, starts };
  console.log(`first export / warm over ${COLD_STARTS} starts: ${starts.map((s) => `${s.ratio.toFixed(2)}×`).join(', ')}; median ${result.startup!.ratio.toFixed(2)}×`);
  if (!service) throw new Error('no service was started');

  for (let i = 0; i < 10; i += 1) await exportOnce(nextSource());
  const sequential = await withLoad(async () => {
    const runs: { ms: number; exportId: string }[] = [];
    const begun = performance.now();
    const cpu = treeCpuMs(service!.pid);
    for (let i = 0; i < SEQUENTIAL; i += 1) runs.push(await exportOnce(nextSource()));
    return { runs, wall: performance.now() - begun, cpu: treeCpuMs(service!.pid) - cpu };
  });
  result.sequential = {
    exports: SEQUENTIAL,
    e2e: summary(sequential.value.runs.map((run) => run.ms)),
    renderMs: summary(renderTimes(service, sequential.value.runs.map((run) => run.exportId))),
    perSecond: SEQUENTIAL / (sequential.value.wall / 1000),
    cpuMsPerExport: sequential.value.cpu / SEQUENTIAL,
    load: sequential.load,
  };
  console.log(`one client, ${SEQUENTIAL} exports of 30 rows: ${fmt(result.sequential.e2e)}; worker render ${fmt(result.sequential.renderMs)}; ${result.sequential.perSecond.toFixed(1)}/s, service CPU ${result.sequential.cpuMsPerExport.toFixed(1)} ms an export, load ${sequential.load.toFixed(2)}`);

  const asyncRuns = await withLoad(async () => {
    const runs: number[] = [];
    for (let i = 0; i < ASYNC; i += 1) runs.push((await exportOnce(nextSource(), true)).ms);
    return runs;
  });
  result.async = { exports: ASYNC, e2e: summary(asyncRuns.value), load: asyncRuns.load };
  console.log(`one client, respond-async + polling every 20 ms: ${fmt(result.async.e2e)}, load ${asyncRuns.load.toFixed(2)}`);

  const concurrent = await withLoad(async () => {
    const runs: { ms: number; exportId: string }[] = [];
    const begun = performance.now();
    const until = begun + CONCURRENT_SECONDS * 1000;
    const cpu = treeCpuMs(service!.pid);
    const processes = cpuSnapshot(postgresServerOf(ownerUrl));
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (performance.now() < until) runs.push(await exportOnce(nextSource()));
      }),
    );
    return { runs, wall: performance.now() - begun, cpu: treeCpuMs(service!.pid) - cpu, processes: cpuSnapshot(postgresServerOf(ownerUrl)), before: processes };
  });
  const { runs, wall } = concurrent.value;
  result.concurrent = {
    clients: CLIENTS,
    exports: runs.length,
    seconds: wall / 1000,
    perSecond: runs.length / (wall / 1000),
    cpuMsPerExport: concurrent.value.cpu / runs.length,
    e2e: summary(runs.map((run) => run.ms)),
    renderMs: summary(renderTimes(service, runs.map((run) => run.exportId))),
    cpuByProcess: cpuPer(concurrent.value.before, concurrent.value.processes, runs.length),
    load: concurrent.load,
  };
  const c = result.concurrent;
  console.log(`${CLIENTS} clients, ${c.exports} exports in ${c.seconds.toFixed(1)} s: ${c.perSecond.toFixed(1)} exports/s, ${fmt(c.e2e)}; worker render ${fmt(c.renderMs)}; service CPU ${c.cpuMsPerExport.toFixed(1)} ms an export; load ${c.load.toFixed(2)}`);
  console.log(`the service at ${CLIENTS} clients: ${(c.perSecond / renderAlone.perSecond).toFixed(2)}× the render processes' own throughput`);
  console.log(`CPU an export by process: ${Object.entries(c.cpuByProcess ?? {}).map(([role, ms]) => `${role} ${ms.toFixed(2)} ms`).join(', ')}`);
  result.replacements = await renderReplacements();

  await service.stop();
  service = undefined;
  result.pairRuns = PAIR_RUNS;
  result.pairSeconds = PAIR_SECONDS;
  result.pairSequential = PAIR_SEQUENTIAL;
  result.pairs = [];
  for (const measure of PAIRS) {
    const pair = await measurePair(measure);
    result.pairs.push(pair);
    console.log(`pair ${measure}, ${CLIENTS} clients then one: ${pair.runs.map((run) => `${run.side} ${run.perSecond.toFixed(1)}/s, one client p50 ${run.oneClientP50?.toFixed(1)} ms (load ${run.load.toFixed(1)})`).join(', ')}`);
  }
  console.log(`render processes replaced over the run: ${JSON.stringify(result.replacements)}`);
  result.failures = failures;
  writeResult(result);
} finally {
  await client.close();
  await service?.stop();
  await pool.end();
  await rm(config.STORAGE_DIR, { recursive: true, force: true });
  await services.stop();
}
if (failures.length) {
  console.error(`export-small bench: files that do not match:\n${failures.slice(0, 20).join('\n')}`);
  process.exitCode = 1;
}
