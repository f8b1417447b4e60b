/**
 * What tracing costs (docs/operations.md#tracing): tokenize and small exports on the service as
 * deployed (API and worker as separate compiled processes, NODE_ENV=production, the rate limits
 * lifted), with tracing off, then on — every request traced (the default sampler, parent-based
 * always on: a ratio of 1.0) and its spans sent over OTLP/HTTP in protobuf to a local receiver
 * (packages/test-kit/src/otlp-receiver.ts, counting what it receives) — in the order off, on, on,
 * off, so a drift of the machine over the run weighs on both alike. Each service started anew:
 * tokenize with autocannon (--connections, a different card each request, --duration s after a
 * warm-up), then small exports of typical 30-row folios (packages/test-kit/src/typical-ledger.ts),
 * --clients clients each POSTing an export (the file in the answer) and reading the PDF, for
 * --export-seconds. The figures: requests/s and exports/s with tracing on over off (the mean of
 * the two runs each), the CPU each process spent a request, and the spans the receiver got.
 *
 *   npx tsx bench/scenarios/tracing.ts [--duration 10] [--connections 50] [--clients 20] [--export-seconds 10] [--order off,on,on,off]
 */
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { createPgPool } from '@folio-vault/shared/connections';
import { importRecords, recordsOfDocument } from '@folio-vault/shared/ledger/batch-import';
import { futureYear, generatedPan } from '@folio-vault/test-kit/cards';
import { startOtlpReceiver } from '@folio-vault/test-kit/otlp-receiver';
import { typicalLedger } from '@folio-vault/test-kit/typical-ledger';
import { benchEnvironment, writeResult } from '../support/environment.js';
import { machine, withLoad } from '../support/machine.js';
import { cpuPer, cpuSnapshot, postgresServerOf } from '../support/process-cpu.js';
import { benchToken, freePort, liftedRateLimits, startShape } from '../support/service-processes.js';
import { summary } from '../support/stats.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    clients: { type: 'string', default: '20' },
    'export-seconds': { type: 'string', default: '10' },
    // Another order, or one run alone (profiling one shape: BENCH_CPU_PROF_DIR, bench/support/service-processes.ts).
    order: { type: 'string', default: 'off,on,on,off' },
  },
});
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const CLIENTS = Number(values.clients);
const EXPORT_SECONDS = Number(values['export-seconds']);
const WARM_UP_SECONDS = 2;
/** As tokenize-load.ts: the worker's render processes load while the service settles, not while it is measured. */
const SETTLE_MS = 6_000;
const FOLIOS = 600;
const ORDER = values.order.split(',') as Array<'off' | 'on'>;

type TSummary = ReturnType<typeof summary>;
export interface TTracingRun {
  tracing: 'off' | 'on';
  tokenize: { perSecond: number; p50: number; p99: number; count: number; non2xx: number; errors: number; load: number; cpuMsPerRequest: Record<string, number> };
  exports: { perSecond: number; e2e: TSummary; count: number; load: number; cpuMsPerExport: Record<string, number> };
  /** What the receiver got while the service ran (tracing on). */
  received?: { spans: number; requests: number; bytes: number };
}
export interface TTracingResult {
  machine: ReturnType<typeof machine>;
  services: Record<string, string>;
  connections: number;
  durationSeconds: number;
  clients: number;
  exportSeconds: number;
  runs: TTracingRun[];
  /** With tracing on over off, the mean of each's runs: tokenize's requests/s, small exports' exports/s. */
  tokenizeRatio: number;
  exportRatio: number;
}

const { config, ownerUrl, services, rawEnv } = await benchEnvironment();
const ledger = typicalLedger(1, FOLIOS);
const sources = ledger.folios.filter((folio) => folio.sourceKind === 'RESERVATION').map((folio) => String(folio.sourceId));
let next = 0;
const failures: string[] = [];

function tokenize(url: string, token: string, seconds: number): Promise<autocannon.Result> {
  const expiration = { month: '08', year: futureYear() };
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 20,
    requests: [
      {
        method: 'POST',
        path: '/vault/v1/tokens/card',
        headers: { authorization: `Bearer ${token}`, 'x-property-id': '1', 'svc-tokenization-mode': 'test', 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: JSON.stringify({ card_number: generatedPan('4', 16), cvv: '123', cardholder_name: 'Zoë Łukasiewicz', expiration }) }),
      },
    ],
  });
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

async function measure(tracing: 'off' | 'on'): Promise<TTracingRun> {
  const receiver = tracing === 'on' ? await startOtlpReceiver({ countOnly: true }) : undefined;
  const port = await freePort();
  const env = {
    ...rawEnv(), ...liftedRateLimits(), EXPORT_QUEUE_CAP_PER_PROPERTY: '1000000', NODE_ENV: 'production', PORT: String(port),
    ...(receiver ? { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } : {}),
  };
  const processes = await startShape('split', env);
  const url = `http://127.0.0.1:${port}`;
  const client = new Pool(url, { connections: CLIENTS });
  try {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const vaultToken = benchToken(config, 'write:payment');
    const exportToken = benchToken(config, 'read:payment');
    const postgres = postgresServerOf(ownerUrl);
    await tokenize(url, vaultToken, WARM_UP_SECONDS);
    let before = cpuSnapshot(postgres);
    const { value: load, load: tokenizeLoad } = await withLoad(() => tokenize(url, vaultToken, DURATION));
    const tokenizeCpu = cpuPer(before, cpuSnapshot(postgres), load['2xx']);
    await exportFor(client, exportToken, WARM_UP_SECONDS);
    before = cpuSnapshot(postgres);
    const { value: times, load: exportLoad } = await withLoad(() => exportFor(client, exportToken, EXPORT_SECONDS));
    const exportCpu = cpuPer(before, cpuSnapshot(postgres), times.length);
    return {
      tracing,
      tokenize: {
        perSecond: load['2xx'] / load.duration, p50: load.latency.p50, p99: load.latency.p99, count: load['2xx'], non2xx: load.non2xx, errors: load.errors,
        load: tokenizeLoad, cpuMsPerRequest: tokenizeCpu,
      },
      exports: { perSecond: times.length / EXPORT_SECONDS, e2e: summary(times), count: times.length, load: exportLoad, cpuMsPerExport: exportCpu },
      ...(receiver ? { received: { ...receiver.counts } } : {}),
    };
  } finally {
    await client.close();
    for (const spawned of processes.reverse()) await spawned.stop();
    // The spans sent at the service's shutdown are counted too.
    await receiver?.close();
  }
}

const runs: TTracingRun[] = [];
try {
  const pool = createPgPool(ownerUrl, { max: 2 });
  await importRecords(pool, '1', recordsOfDocument(ledger));
  await pool.end();
  for (const tracing of ORDER) {
    const run = await measure(tracing);
    runs.push(run);
    const t = run.tokenize;
    const e = run.exports;
    console.log(
      `tracing ${tracing.padEnd(3)}: tokenize ${t.perSecond.toFixed(0)}/s p50 ${t.p50.toFixed(1)} ms p99 ${t.p99.toFixed(1)} ms (load ${t.load.toFixed(1)}); ` +
        `exports ${e.perSecond.toFixed(1)}/s p50 ${e.e2e.p50.toFixed(0)} ms p99 ${e.e2e.p99.toFixed(0)} ms (load ${e.load.toFixed(1)})` +
        (run.received ? `; ${run.received.spans} spans in ${run.received.requests} exports (${(run.received.bytes / 1e6).toFixed(1)} MB)` : ''),
    );
    console.log(`  CPU ms a request: ${Object.entries(t.cpuMsPerRequest).map(([role, ms]) => `${role} ${ms.toFixed(2)}`).join(', ')}; an export: ${Object.entries(e.cpuMsPerExport).map(([role, ms]) => `${role} ${ms.toFixed(1)}`).join(', ')}`);
  }
} finally {
  await services.stop();
}

const mean = (tracing: 'off' | 'on', figure: (run: TTracingRun) => number) => {
  const chosen = runs.filter((run) => run.tracing === tracing);
  return chosen.reduce((sum, run) => sum + figure(run), 0) / chosen.length;
};
const tokenizeRatio = mean('on', (run) => run.tokenize.perSecond) / mean('off', (run) => run.tokenize.perSecond);
const exportRatio = mean('on', (run) => run.exports.perSecond) / mean('off', (run) => run.exports.perSecond);
console.log(`tracing on over off: tokenize ${tokenizeRatio.toFixed(2)}, small exports ${exportRatio.toFixed(2)}`);
const result: TTracingResult = {
  machine: machine(), services: services.sources, connections: CONNECTIONS, durationSeconds: DURATION, clients: CLIENTS, exportSeconds: EXPORT_SECONDS, runs, tokenizeRatio, exportRatio,
};
writeResult(result);
if (failures.length > 0 || runs.some((run) => run.tokenize.errors > 0 || run.tokenize.count === 0 || (run.tracing === 'on' && !run.received?.spans))) {
  console.error(`tracing bench: ${failures.length} failed exports${failures.length ? ` (${failures.slice(0, 3).join('; ')})` : ''}, or a run answered nothing, or no span was received`);
  process.exitCode = 1;
}
