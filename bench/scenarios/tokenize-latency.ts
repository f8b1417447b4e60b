import os from 'node:os';
import { Queue, QueueEvents, Worker } from 'bullmq';
import jwt from 'jsonwebtoken';
import { startApi } from '@folio-vault/api/server';
import { createRedis } from '@folio-vault/shared/connections';
import { startWorker } from '@folio-vault/worker/worker';
import { spawnTs, waitForOutput } from '@folio-vault/test-kit/processes';
import { benchEnvironment, writeResult } from '../support/environment.js';
import { machine } from '../support/machine.js';
import { ms, summary } from '../support/stats.js';

/**
 * Tokenize latency: 1,000 sequential POST /vault/v1/tokens/card through the real API, queue,
 * worker and PostgreSQL, against a baseline measured in the same run on the same Redis: a bare
 * BullMQ add → process → result round trip. Measured twice: API and worker in one process (as
 * `npm start` runs them) and the worker in its own process (as `start:api` + `start:worker`).
 */
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1000);
const WARMUP = 50;

const { config, logger, services, rawEnv } = await benchEnvironment();

async function bareBullmq(count: number): Promise<number[]> {
  const connection = createRedis(config.REDIS_URL, 'worker');
  const prefix = `${config.QUEUE_PREFIX}-bare`;
  const queue = new Queue('bare', { connection, prefix });
  const events = new QueueEvents('bare', { connection: createRedis(config.REDIS_URL, 'events'), prefix });
  await events.waitUntilReady();
  const worker = new Worker('bare', async () => ({ ok: true }), { connection, prefix, concurrency: 16 });
  await worker.waitUntilReady();
  const samples: number[] = [];
  for (let i = 0; i < count + WARMUP; i += 1) {
    const started = performance.now();
    const job = await queue.add('bare', { i }, { removeOnComplete: { age: 60 } });
    await job.waitUntilFinished(events, 10_000);
    if (i >= WARMUP) samples.push(performance.now() - started);
  }
  await worker.close();
  await events.close();
  await queue.obliterate({ force: true });
  await queue.close();
  connection.disconnect();
  return samples;
}

async function tokenize(count: number, separateWorker: boolean): Promise<number[]> {
  const worker = separateWorker ? await workerProcess() : await startWorker(config, logger);
  const api = await startApi(config, logger, { port: 0 });
  const token = jwt.sign({ scope: 'write:payment', property_ids: [1] }, config.JWT_SECRET!, {
    algorithm: 'HS256', expiresIn: 3600, subject: 'bench', issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE,
  });
  const url = `http://127.0.0.1:${api.port}/vault/v1/tokens/card`;
  const body = JSON.stringify({
    card_number: '4111111111111111',
    cvv: '123',
    cardholder_name: 'Zoë Łukasiewicz',
    expiration: { month: '08', year: String(new Date().getUTCFullYear() + 3) },
  });
  const headers = { authorization: `Bearer ${token}`, 'x-property-id': '1', 'svc-tokenization-mode': 'test', 'content-type': 'application/json' };
  const samples: number[] = [];
  for (let i = 0; i < count + WARMUP; i += 1) {
    const started = performance.now();
    const res = await fetch(url, { method: 'POST', headers, body });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`tokenize answered ${res.status}`);
    if (i >= WARMUP) samples.push(performance.now() - started);
  }
  await api.close();
  await worker.close();
  return samples;
}

async function workerProcess(): Promise<{ close(): Promise<void> }> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), ...rawEnv() };
  const spawned = spawnTs('apps/worker/src/main.ts', [], env);
  await waitForOutput(spawned, /worker ready/);
  return {
    async close() {
      spawned.child.kill('SIGTERM');
      await spawned.exited;
    },
  };
}

const bare = summary(await bareBullmq(REQUESTS));
let started = performance.now();
const vault = summary(await tokenize(REQUESTS, false));
const wall = (performance.now() - started) / 1000;
started = performance.now();
const vaultSeparate = summary(await tokenize(REQUESTS, true));
const wallSeparate = (performance.now() - started) / 1000;

console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);
console.log(`services: ${Object.entries(services.sources).map(([k, v]) => `${k} ${v}`).join(', ')}`);
console.log(`\n${REQUESTS} sequential requests each (after ${WARMUP} warm-up)`);
console.log('                         p50        p90        p99        max       mean');
const row = (name: string, s: ReturnType<typeof summary>) =>
  console.log(`${name.padEnd(22)} ${[s.p50, s.p90, s.p99, s.max, s.mean].map((v) => ms(v).padStart(10)).join(' ')}`);
row('bare BullMQ round trip', bare);
row('tokenize, 1 process', vault);
row('tokenize, worker apart', vaultSeparate);
console.log(`\none process:    p50 ${(vault.p50 / bare.p50).toFixed(1)}× bare, p99 ${(vault.p99 / bare.p99).toFixed(1)}× bare, ${(REQUESTS / wall).toFixed(0)} req/s sequential`);
console.log(`worker apart:   p50 ${(vaultSeparate.p50 / bare.p50).toFixed(1)}× bare, p99 ${(vaultSeparate.p99 / bare.p99).toFixed(1)}× bare, ${(REQUESTS / wallSeparate).toFixed(0)} req/s sequential`);

writeResult({
  benchmark: 'latency',
  machine: machine(),
  requests: REQUESTS,
  bare,
  single: { ...vault, perSecond: REQUESTS / wall },
  split: { ...vaultSeparate, perSecond: REQUESTS / wallSeparate },
});
await services.stop();
process.exit(0);
