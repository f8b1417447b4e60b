/**
 * What tracing costs (docs/operations.md#tracing): tokenize and small exports on the service as
 * deployed (API and worker as separate compiled processes, NODE_ENV=production, the rate limits
 * lifted), once with tracing off and once with every request traced (the default sampler,
 * parent-based always on: a ratio of 1.0) and its spans sent over OTLP/HTTP in protobuf to a local
 * receiver (packages/test-kit/src/otlp-receiver.ts, counting what it receives). The two services
 * run side by side on their own queues and are measured in turn — on, off, on, off… (bench/support/
 * pairs.ts) — after --warm-up-rounds of the same in turn, so a change in the machine's load falls on
 * both alike and neither is measured cold. A round: tokenize with autocannon (--connections, a
 * different card each request) for --duration s, then --clients clients each POSTing an export of a
 * typical 30-row folio (packages/test-kit/src/typical-ledger.ts, the file in the answer) for
 * --export-seconds. The figures: requests/s and exports/s with tracing on over off (the medians of
 * each side's rounds), the CPU each kind of process spent a request (both services' processes:
 * the idle one's share is small), and the spans the receiver got over the measured rounds.
 *
 *   npx tsx bench/scenarios/tracing.ts [--rounds 4] [--warm-up-rounds 3] [--duration 5] [--connections 50] [--clients 20] [--export-seconds 5]
 */
import { parseArgs } from 'node:util';
import type autocannon from 'autocannon';
import { Pool } from 'undici';
import { createPgPool } from '@folio-vault/shared/connections';
import { importRecords, recordsOfDocument } from '@folio-vault/shared/ledger/batch-import';
import { startOtlpReceiver } from '@folio-vault/test-kit/otlp-receiver';
import { typicalLedger } from '@folio-vault/test-kit/typical-ledger';
import { benchEnvironment, writeResult } from '../support/environment.js';
import { machine, withLoad } from '../support/machine.js';
import { cpuPer, cpuSnapshot, postgresServerOf } from '../support/process-cpu.js';
import { alternated, otherQueuePrefix, type TPairSide } from '../support/pairs.js';
import { benchToken, freePort, liftedRateLimits, startShape } from '../support/service-processes.js';
import { summary } from '../support/stats.js';
import { tokenizeCannon } from '../support/tokenize-cannon.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '4' },
    'warm-up-rounds': { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    clients: { type: 'string', default: '20' },
    'export-seconds': { type: 'string', default: '5' },
  },
});
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const CLIENTS = Number(values.clients);
const EXPORT_SECONDS = Number(values['export-seconds']);
const ROUNDS = Number(values.rounds);
const WARM_UP_ROUNDS = Number(values['warm-up-rounds']);
const WARM_UP_SECONDS = 5;
/** As tokenize-load.ts: the worker's render processes load while the service settles, not while it is measured. */
const SETTLE_MS = 6_000;
const FOLIOS = 600;

type TSummary = ReturnType<typeof summary>;
export interface TTracingRun {
  tracing: 'off' | 'on';
  tokenize: { perSecond: number; p50: number; p99: number; count: number; non2xx: number; errors: number; load: number; cpuMsPerRequest: Record<string, number> };
  exports: { perSecond: number; e2e: TSummary; count: number; load: number; cpuMsPerExport: Record<string, number> };
}
export interface TTracingResult {
  machine: ReturnType<typeof machine>;
  services: Record<string, string>;
  connections: number;
  durationSeconds: number;
  clients: number;
  exportSeconds: number;
  rounds: number;
  warmUpRounds: number;
  runs: TTracingRun[];
  /** What the receiver got over the measured rounds (spans), and over the whole run (exports, bytes). */
  received: { spans: number; requests: number; bytes: number };
  /** With tracing on over off, the medians of each side's rounds: tokenize's requests/s, small exports' exports/s. */
  tokenizeRatio: number;
  exportRatio: number;
}

const { config, ownerUrl, services, rawEnv } = await benchEnvironment();
const ledger = typicalLedger(1, FOLIOS);
const sources = ledger.folios.filter((folio) => folio.sourceKind === 'RESERVATION').map((folio) => String(folio.sourceId));
let next = 0;
const failures: string[] = [];

function tokenize(url: string, token: string, seconds: number): Promise<autocannon.Result> {
  return tokenizeCannon(url, token, { connections: CONNECTIONS, seconds });
}

/** CLIENTS clients exporting distinct 30-row folios, each waiting for its PDF, for `seconds`. */
async function exportFor(client: Pool, token: string, seconds: number): Promise<number[]> {
  const times: number[] = [];
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < until) {
        const started = performance.now();
        const sourceId = sources[next++ % sources.length]!;
        const res = await client.request({
          path: '/fiscal-document/v1/folios/export',
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'x-property-id': '1', 'accept-language': 'en', 'content-type': 'application/json' },
          body: JSON.stringify({ sourceKind: 'RESERVATION', sourceId }),
        });
        const bytes = Buffer.from(await res.body.arrayBuffer());
        if (res.statusCode !== 200 || bytes.subarray(0, 5).toString('latin1') !== '%PDF-') failures.push(`export of ${sourceId}: ${res.statusCode}`);
        else times.push(performance.now() - started);
      }
    }),
  );
  return times;
}

interface TSide {
  tracing: 'off' | 'on';
  url: string;
  client: Pool;
  processes: Array<{ stop(): Promise<void> }>;
}

/** One run on one side: tokenize for `seconds`, then small exports for `exportSeconds`. */
async function measureSide(side: TSide, seconds: number, exportSeconds: number): Promise<TTracingRun> {
  const vaultToken = benchToken(config, 'write:payment');
  const exportToken = benchToken(config, 'read:payment');
  const postgres = postgresServerOf(ownerUrl);
  let before = cpuSnapshot(postgres);
  const { value: load, load: tokenizeLoad } = await withLoad(() => tokenize(side.url, vaultToken, seconds));
  const tokenizeCpu = cpuPer(before, cpuSnapshot(postgres), load['2xx']);
  before = cpuSnapshot(postgres);
  const { value: times, load: exportLoad } = await withLoad(() => exportFor(side.client, exportToken, exportSeconds));
  const exportCpu = cpuPer(before, cpuSnapshot(postgres), times.length);
  return {
    tracing: side.tracing,
    tokenize: {
      perSecond: load['2xx'] / load.duration, p50: load.latency.p50, p99: load.latency.p99, count: load['2xx'], non2xx: load.non2xx, errors: load.errors,
      load: tokenizeLoad, cpuMsPerRequest: tokenizeCpu,
    },
    exports: { perSecond: times.length / exportSeconds, e2e: summary(times), count: times.length, load: exportLoad, cpuMsPerExport: exportCpu },
  };
}

const runs: TTracingRun[] = [];
let received: TTracingResult['received'] = { spans: 0, requests: 0, bytes: 0 };
const receiver = await startOtlpReceiver({ countOnly: true });
const sides: Record<TPairSide, TSide | undefined> = { with: undefined, without: undefined };
try {
  const pool = createPgPool(ownerUrl, { max: 2 });
  await importRecords(pool, '1', recordsOfDocument(ledger));
  await pool.end();
  // Both services run side by side, each on its own queues, so that every round of the one is
  // taken next to a round of the other on the same machine.
  for (const side of ['with', 'without'] as const) {
    const port = await freePort();
    const base = { ...rawEnv(), ...liftedRateLimits(), EXPORT_QUEUE_CAP_PER_PROPERTY: '1000000', NODE_ENV: 'production', PORT: String(port) };
    const env = side === 'with' ? { ...base, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } : { ...base, QUEUE_PREFIX: otherQueuePrefix(config.QUEUE_PREFIX, 'untraced') };
    const url = `http://127.0.0.1:${port}`;
    sides[side] = { tracing: side === 'with' ? 'on' : 'off', url, client: new Pool(url, { connections: CLIENTS }), processes: await startShape('split', env) };
  }
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  // A traced process takes tens of seconds of load to reach its speed (its instrumentation's code
  // paths are optimised late); both sides are warmed alike, in turn, before any round counts.
  await alternated(WARM_UP_ROUNDS, (side) => measureSide(sides[side]!, WARM_UP_SECONDS, WARM_UP_SECONDS));
  const spansBefore = receiver.counts.spans;
  for (const run of await alternated(ROUNDS, (side) => measureSide(sides[side]!, DURATION, EXPORT_SECONDS))) {
    runs.push(run);
    const t = run.tokenize;
    const e = run.exports;
    console.log(
      `tracing ${run.tracing.padEnd(3)}: tokenize ${t.perSecond.toFixed(0)}/s p50 ${t.p50.toFixed(1)} ms p99 ${t.p99.toFixed(1)} ms (load ${t.load.toFixed(1)}); ` +
        `exports ${e.perSecond.toFixed(1)}/s p50 ${e.e2e.p50.toFixed(0)} ms p99 ${e.e2e.p99.toFixed(0)} ms (load ${e.load.toFixed(1)})`,
    );
  }
  received = { spans: receiver.counts.spans - spansBefore, requests: receiver.counts.requests, bytes: receiver.counts.bytes };
} finally {
  for (const side of ['without', 'with'] as const) {
    await sides[side]?.client.close();
    for (const spawned of (sides[side]?.processes ?? []).reverse()) await spawned.stop();
  }
  await receiver.close();
  await services.stop();
}

const median = (tracing: 'off' | 'on', figure: (run: TTracingRun) => number) => summary(runs.filter((run) => run.tracing === tracing).map(figure)).p50;
const tokenizeRatio = median('on', (run) => run.tokenize.perSecond) / median('off', (run) => run.tokenize.perSecond);
const exportRatio = median('on', (run) => run.exports.perSecond) / median('off', (run) => run.exports.perSecond);
console.log(`tracing on over off: tokenize ${tokenizeRatio.toFixed(2)}, small exports ${exportRatio.toFixed(2)}`);
const result: TTracingResult = {
  machine: machine(), services: services.sources, connections: CONNECTIONS, durationSeconds: DURATION, clients: CLIENTS, exportSeconds: EXPORT_SECONDS,
  rounds: ROUNDS, warmUpRounds: WARM_UP_ROUNDS, runs, received, tokenizeRatio, exportRatio,
};
writeResult(result);
if (failures.length > 0 || runs.some((run) => run.tokenize.errors > 0 || run.tokenize.count === 0 || run.exports.count === 0) || received.spans === 0) {
  console.error(`tracing bench: ${failures.length} failed exports${failures.length ? ` (${failures.slice(0, 3).join('; ')})` : ''}, or a run answered nothing, or no span was received`);
  process.exitCode = 1;
}
