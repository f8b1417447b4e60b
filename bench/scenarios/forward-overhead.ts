/**
 * Forward overhead: POST /vault/v1/tokens/{id}/forward through the real API and worker (separate
 * processes, NODE_ENV=production, rate limits lifted) to a local HTTPS gateway (packages/test-kit/src/gateway.ts:
 * an openssl-made test CA, the gateway echoing the body), against the baseline measured in the same
 * run: the same request — the body and headers the gateway received from the worker — sent by this
 * process straight to the same gateway with an undici Pool trusting the same CA (as the worker's
 * gateway client does); the forwards reach the API through an undici Pool as well. Each iteration
 * makes one direct call and one forward, interleaved, so both see the same machine; every forward
 * has a fresh Idempotency-Key and no {{card.cvv}} (a held CVV serves one forward only). Sequential
 * (one client), then 10 concurrent clients.
 *
 * Then the floor of the forward's shape (bench/baselines/service-floor.ts), one client, measured the same way:
 * an Express app that adds one BullMQ job a request and answers its result, and a worker process
 * whose handler only sends the template (placeholders left as they are: no card data in Redis) to
 * the same gateway with an undici Pool and answers its status and body. No authentication,
 * validation, rate limit, database, card or log line: what the shape costs before the vault's work.
 *
 * Then, against the same API and worker, hostile answers (bench/scenarios/forward-hostile-answers.ts):
 * the worker's event-loop cost of an answer over the cap and of answers built to make the masking
 * work, and another property's tokenize latency while four clients forward such answers.
 *
 *   BENCH_FORWARD_REQUESTS=1000 BENCH_FORWARD_CLIENTS=10 BENCH_FORWARD_HOSTILE_RUNS=5 npx tsx bench/scenarios/forward-overhead.ts
 */
import { randomBytes } from 'node:crypto';
import { Pool } from 'undici';
import { createPgPool } from '@folio-vault/shared/connections';
import { createTestPki, startGateway, type TReceivedRequest } from '@folio-vault/test-kit/gateway';
import { futureYear } from '@folio-vault/test-kit/cards';
import { startFloor } from '../baselines/service-floor.js';
import { HOSTILE_CARD, hostileGateway, measureHostileAnswers, type THostileFigures } from './forward-hostile-answers.js';
import { benchToken, freePort, liftedRateLimits, startService, type TServiceProcess } from '../support/service-processes.js';
import { benchEnvironment, writeResult } from '../support/environment.js';
import { machine, withLoad } from '../support/machine.js';
import { ms, summary } from '../support/stats.js';

const REQUESTS = Number(process.env.BENCH_FORWARD_REQUESTS ?? 1000);
const CLIENTS = Number(process.env.BENCH_FORWARD_CLIENTS ?? 10);
/** Forwards of each hostile answer measured (after one that warms the worker's code for it). */
const HOSTILE_RUNS = Number(process.env.BENCH_FORWARD_HOSTILE_RUNS ?? 5);
/** Iterations per client in the concurrent part: as many forwards in all as the sequential part. */
const PER_CLIENT = Math.max(10, Math.ceil(REQUESTS / CLIENTS));
const WARMUP = 30;
/** Quiet time after the worker starts (its render processes load code and fonts), as tokenize-load waits. */
const SETTLE_MS = 6_000;
const TEMPLATE = JSON.stringify({
  amount: 1000,
  currency: 'EUR',
  card: { number: '{{card.number}}', exp_month: '{{card.exp_month}}', exp_year: '{{card.exp_year}}', name: '{{card.holder_name}}' },
});
const TEST_CARDS = ['4111111111111111', '4242424242424242', '5555555555554444', '6011111111111117'];

export interface TForwardFigures {
  requests: number;
  direct: ReturnType<typeof summary>;
  forward: ReturnType<typeof summary>;
  overhead: { p50: number; p99: number };
  load: number;
}

const { config, ownerUrl, services, rawEnv } = await benchEnvironment();
{
  const pool = createPgPool(ownerUrl, { max: 1 });
  await pool.query(
    `INSERT INTO properties (id, name, currency, timezone, gateway_mode) VALUES (1, 'Bench Hotel', 'EUR', 'Europe/Madrid', 'test'), (2, 'Other Hotel', 'EUR', 'Europe/Madrid', 'test')`,
  );
  await pool.end();
}
const pki = await createTestPki();
const [gateway, hostile] = await Promise.all([startGateway({ pki }), startGateway({ pki, handler: hostileGateway })]);
const destination = {
  name: 'bench', url: gateway.origin, modes: ['test'], paths: ['/v1/charges'], methods: ['POST'],
  headers: { Authorization: 'env:BENCH_GATEWAY_KEY' }, timeoutMs: 15_000, ca: pki.ca,
};
const hostileDestination = { name: 'hostile', url: hostile.origin, modes: ['test'], paths: ['/v1/hostile/*'], methods: ['POST'], timeoutMs: 15_000, ca: pki.ca };
const port = await freePort();
const healthPort = await freePort();
const metricsToken = randomBytes(16).toString('hex');
const env = {
  ...rawEnv(), ...liftedRateLimits(), NODE_ENV: 'production', PORT: String(port), WORKER_HEALTH_PORT: String(healthPort), METRICS_TOKEN: metricsToken,
  VAULT_FORWARD_DESTINATIONS: JSON.stringify([destination, hostileDestination]), BENCH_GATEWAY_KEY: `Bearer sk_test_${randomBytes(12).toString('hex')}`,
};
const api = `http://127.0.0.1:${port}`;
const bearer = `Bearer ${benchToken(config, 'use:payment write:payment', [1, 2])}`;
const headersOf = (property: string) => ({ authorization: bearer, 'x-property-id': property, 'svc-tokenization-mode': 'test', 'content-type': 'application/json' });
const vaultHeaders = headersOf('1');
const workerMetrics = async () => (await fetch(`http://127.0.0.1:${healthPort}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).text();

async function tokenize(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const body = { card_number: TEST_CARDS[i % TEST_CARDS.length], cvv: '123', cardholder_name: 'Zoë Łukasiewicz', expiration: { month: '08', year: futureYear() } };
    const res = await fetch(`${api}/vault/v1/tokens/card`, { method: 'POST', headers: vaultHeaders, body: JSON.stringify(body) });
    const answer = (await res.json()) as { id?: string };
    if (res.status !== 200 || !answer.id) throw new Error(`tokenize answered ${res.status}`);
    ids.push(answer.id);
  }
  return ids;
}

/**
 * The vault's client is an undici Pool too, as the direct call's is: the overhead is the vault's,
 * not the difference between fetch and Pool.request.
 */
const apiClient = new Pool(api);

type TCall = (tokenId: string) => Promise<number>;

async function forward(tokenId: string): Promise<number> {
  const started = performance.now();
  const res = await apiClient.request({
    method: 'POST',
    path: `/vault/v1/tokens/${tokenId}/forward`,
    headers: { ...vaultHeaders, 'idempotency-key': `bench-${randomBytes(8).toString('hex')}` },
    body: JSON.stringify({ destination: 'bench', path: '/v1/charges', headers: { 'Content-Type': 'application/json' }, body: TEMPLATE }),
  });
  const answer = (await res.body.json()) as { status?: number };
  const elapsed = performance.now() - started;
  if (res.statusCode !== 200 || answer.status !== 200) throw new Error(`forward answered ${res.statusCode} (gateway ${answer.status})`);
  return elapsed;
}

/** The direct call: what the gateway received from the worker, sent again by this process. */
function directCaller(received: TReceivedRequest): () => Promise<number> {
  const pool = new Pool(gateway.origin, { connect: { ca: pki.ca, rejectUnauthorized: true } });
  const { host: _host, 'content-length': _length, 'idempotency-key': _key, connection: _connection, ...headers } = received.headers;
  return async () => {
    const started = performance.now();
    const res = await pool.request({
      method: 'POST', path: received.path, body: received.body,
      headers: { ...headers, 'idempotency-key': `bench-${randomBytes(8).toString('hex')}` },
    });
    await res.body.text();
    const elapsed = performance.now() - started;
    if (res.statusCode !== 200) throw new Error(`gateway answered ${res.statusCode} to the direct call`);
    return elapsed;
  };
}

/** The floor's forward: the template and its path to the floor's intake, answered by the gateway through its worker. */
function floorCaller(client: Pool): TCall {
  return async () => {
    const started = performance.now();
    const res = await client.request({
      method: 'POST',
      path: '/floor/forward',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path: '/v1/charges', headers: { 'content-type': 'application/json', 'idempotency-key': `bench-${randomBytes(8).toString('hex')}` }, body: TEMPLATE }),
    });
    const answer = (await res.body.json()) as { status?: number };
    const elapsed = performance.now() - started;
    if (res.statusCode !== 200 || answer.status !== 200) throw new Error(`the floor's forward answered ${res.statusCode} (gateway ${answer.status})`);
    return elapsed;
  };
}

/** `clients` callers, each `iterations` times: one direct call, then one forward of its own token. */
async function measure(clients: number, iterations: number, tokens: string[], direct: () => Promise<number>, viaVault: TCall = forward): Promise<TForwardFigures> {
  const directSamples: number[] = [];
  const forwardSamples: number[] = [];
  const { load } = await withLoad(() =>
    Promise.all(
      Array.from({ length: clients }, async (_, client) => {
        for (let i = 0; i < iterations; i += 1) {
          directSamples.push(await direct());
          forwardSamples.push(await viaVault(tokens[client % tokens.length]!));
        }
      }),
    ),
  );
  const d = summary(directSamples);
  const f = summary(forwardSamples);
  return { requests: forwardSamples.length, direct: d, forward: f, overhead: { p50: f.p50 - d.p50, p99: f.p99 - d.p99 }, load };
}

const processes: TServiceProcess[] = [];
let sequential: TForwardFigures;
let concurrent: TForwardFigures;
let floor: TForwardFigures;
let hostileFigures: THostileFigures;
try {
  processes.push(await startService('worker', env));
  processes.push(await startService('api', env));
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const tokens = await tokenize(CLIENTS);
  await forward(tokens[0]!);
  const direct = directCaller(gateway.requests[0]!);
  await measure(1, WARMUP, tokens, direct);
  sequential = await measure(1, REQUESTS, tokens, direct);
  await measure(CLIENTS, 3, tokens, direct);
  concurrent = await measure(CLIENTS, PER_CLIENT, tokens, direct);
  const hostileToken = await fetch(`${api}/vault/v1/tokens/card`, {
    method: 'POST', headers: vaultHeaders, body: JSON.stringify({ ...HOSTILE_CARD, expiration: { month: '08', year: futureYear() } }),
  });
  const tokenId = ((await hostileToken.json()) as { id: string }).id;
  hostileFigures = await measureHostileAnswers({ api, headers: headersOf, workerMetrics, tokenId, runs: HOSTILE_RUNS, tokenizeSamples: Math.min(REQUESTS, 300) });
  for (const spawned of processes.splice(0).reverse()) await spawned.stop();
  const floorPort = await freePort();
  const floorProcesses = await startFloor('express-queue', {
    REDIS_URL: config.REDIS_URL, QUEUE_PREFIX: config.QUEUE_PREFIX, PORT: String(floorPort), FLOOR_GATEWAY_URL: gateway.origin, FLOOR_GATEWAY_CA: pki.ca,
  });
  const floorClient = new Pool(`http://127.0.0.1:${floorPort}`);
  try {
    const viaFloor = floorCaller(floorClient);
    await measure(1, WARMUP, tokens, direct, viaFloor);
    floor = await measure(1, REQUESTS, tokens, direct, viaFloor);
  } finally {
    await floorClient.close();
    for (const spawned of floorProcesses.reverse()) await spawned.stop();
  }
} finally {
  await apiClient.close();
  for (const spawned of processes.reverse()) await spawned.stop();
  await Promise.all([gateway.close(), hostile.close()]);
  await services.stop();
}

const m = machine();
console.log(`machine: ${m.cores} × ${m.cpu}, ${m.memoryGiB} GiB, node ${m.node}; ${Object.entries(services.sources).map(([k, v]) => `${k}: ${v}`).join(', ')}`);
console.log(`forward = POST /vault/v1/tokens/{id}/forward via API + worker processes (NODE_ENV=production) to a local HTTPS gateway;`);
console.log(`direct  = the same request from this process to the same gateway (undici Pool, same CA); interleaved, after ${WARMUP} warm-up`);
console.log('                                   p50        p90        p99        max   load');
const row = (name: string, s: ReturnType<typeof summary>, load: number) =>
  console.log(`${name.padEnd(30)} ${[s.p50, s.p90, s.p99, s.max].map((v) => ms(v).padStart(10)).join(' ')} ${load.toFixed(1).padStart(6)}`);
for (const [label, figures] of [
  [`1 client, ${sequential.requests} forwards`, sequential],
  [`${CLIENTS} clients, ${concurrent.requests} forwards in all`, concurrent],
  [`the floor (Express + a job + a worker that only calls the gateway), 1 client, ${floor.requests} forwards`, floor],
] as const) {
  console.log(`\n${label}`);
  row('direct to the gateway', figures.direct, figures.load);
  row('forward through the vault', figures.forward, figures.load);
  console.log(`${'overhead (forward − direct)'.padEnd(30)} ${ms(figures.overhead.p50).padStart(10)} ${''.padStart(10)} ${ms(figures.overhead.p99).padStart(10)}`);
}

console.log(`\nhostile answers (cap ${hostileFigures.cap} bytes; ${hostileFigures.runs} forwards each): worker event-loop max delay, forward p50, masking alone`);
for (const answer of hostileFigures.answers) {
  const outcome = answer.errorCode ?? String(answer.status);
  console.log(`${answer.shape.padEnd(44)} ${String(answer.bytes).padStart(8)} B  ${outcome.padEnd(24)} ${ms(answer.eventLoopMaxMs).padStart(10)} ${ms(answer.forwardMs.p50).padStart(10)} ${answer.maskMs === undefined ? '' : ms(answer.maskMs).padStart(10)}`);
}
const { idle, underLoad, parallelForwards, forwardsDuringLoad } = hostileFigures.tokenize;
console.log(`another property's tokenize: idle p50 ${ms(idle.p50)} p99 ${ms(idle.p99)}; with ${parallelForwards} clients forwarding hostile answers (${forwardsDuringLoad} forwards) p50 ${ms(underLoad.p50)} p99 ${ms(underLoad.p99)}`);

writeResult({ benchmark: 'forward', machine: m, services: services.sources, clients: CLIENTS, sequential, concurrent, floor, hostile: hostileFigures });
process.exit(0);
