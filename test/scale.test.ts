import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { Queue } from 'bullmq';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importRecords, recordsOfDocument } from '@folio-vault/shared/ledger/batch-import';
import { sourcesPerJob } from '@folio-vault/shared/night-audit/night-audit-job';
import { auditObjectKey, manifestKey } from '@folio-vault/shared/night-audit/selection';
import { retentionSweepJob } from '@folio-vault/shared/exports/retention-sweep-job';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { spawnTs, waitForOutput, type TSpawned } from '@folio-vault/test-kit/processes';
import { createWorld, type TWorld } from './support/world.js';

/**
 * Multi-process scale (docs/night-audit.md#scale-and-worker-loss): the API and three
 * separate worker processes (`npm run start:worker`), a 300-source night audit, one worker killed
 * with SIGKILL mid-batch. Its active job stalls; once its lock lapses (WORKER_LOCK_MS) a surviving
 * worker takes it over. Delivery is at least once, the effect exactly once: 300 objects, 300
 * manifest entries, one manifest run, nothing lost, nothing doubled.
 */
const SOURCES = 300;
const BUSINESS_DATE = '2026-11-21';
const LOCK_MS = '5000';

let world: TWorld;
const workers: TSpawned[] = [];

/** 299 small reservations and one house account, each with a transaction on the business date. */
function scaleLedger() {
  const folios: Record<string, unknown>[] = [];
  const transactions: Record<string, unknown>[] = [];
  let nextId = 1;
  const tx = (folio: { id: number; sourceKind: string; sourceId: number }, when: string, code: string, group: string, description: string, amount: string, extra: Record<string, unknown> = {}) =>
    transactions.push({
      id: nextId++, folioId: folio.id, sourceKind: folio.sourceKind, sourceId: folio.sourceId, transactionDatetime: when, serviceDate: when.slice(0, 10),
      internalTransactionCode: code, internalCodeGroup: group, description, quantity: 1, amount, currency: 'EUR', posted: true, ...extra,
    });
  for (let r = 1; r < SOURCES; r += 1) {
    const folio = { id: 10_000 + r, sourceKind: 'RESERVATION', sourceId: 5_000 + r };
    folios.push({ ...folio, name: `Guest ${r}` });
    // Two nights (the 20th and the 21st, Madrid day time), an item and a payment: 6 rows.
    for (const day of ['2026-11-20', BUSINESS_DATE]) {
      tx(folio, `${day}T21:00:00Z`, '1000', 'ROOM_REVENUE_RATE', 'Room — nightly rate', '110.00');
      tx(folio, `${day}T21:00:00Z`, '3000', 'TAX', 'VAT 10%', '11.00', { originId: '11' });
    }
    tx(folio, `${BUSINESS_DATE}T12:00:00Z`, '2000', 'ITEM_SERVICE', 'Minibar — water', '3.50', { originId: '301' });
    tx(folio, `${BUSINESS_DATE}T09:00:00Z`, '9000', 'PAYMENT', 'Card payment', '-100.00', { paymentMethod: 'cards_visa' });
  }
  const house = { id: 19_999, sourceKind: 'HOUSE_ACCOUNT', sourceId: 9_999 };
  folios.push({ ...house, name: 'Lobby bar' });
  for (let k = 0; k < 5; k += 1) tx(house, `${BUSINESS_DATE}T1${k}:30:00Z`, '2300', 'ITEM_SERVICE', `Bar — round ${k + 1}`, '7.00', { originId: '600' });
  return {
    property: { id: 1, name: 'Scale Hotel', currency: 'EUR', timezone: 'Europe/Madrid', gatewayMode: 'test', language: 'en' },
    folios,
    transactions,
  };
}

const auth = () => ({ Authorization: `Bearer ${world.token({ properties: [1] })}`, 'X-Property-Id': '1' });

async function batchStatus(batchId: string) {
  const res = await request(world.url).get(`/fiscal-document/v1/night-audit/exports/${batchId}`).set(auth());
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { status: string; total: number; completed: number; failed: number; manifestKey: string | null };
}

/** Polls the batch until `done` says so, within a bounded time. */
async function untilStatus(batchId: string, done: (status: Awaited<ReturnType<typeof batchStatus>>) => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await batchStatus(batchId);
    if (done(status)) return status;
    if (Date.now() > deadline) throw new Error(`the batch did not get there in ${timeoutMs} ms: ${JSON.stringify(status)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

/** The JSON log lines of a process's output with this message. */
function logLines(spawned: TSpawned, msg: string): Array<Record<string, unknown>> {
  return spawned
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes(`"msg":"${msg}"`))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

beforeAll(async () => {
  world = await createWorld({ worker: false });
  const counts = await importRecords(world.pool, '1', recordsOfDocument(scaleLedger()));
  expect(counts.folios).toBe(SOURCES);
  const env = { ...world.env, LOG_LEVEL: 'info', EXPORT_CONCURRENCY: '1', WORKER_CONCURRENCY: '4', WORKER_LOCK_MS: LOCK_MS };
  // Each in its own process group, so a SIGKILL reaches the worker itself, not only tsx around it.
  for (let i = 0; i < 3; i += 1) workers.push(spawnTs('apps/worker/src/main.ts', [], env, { group: true }));
  await Promise.all(workers.map((worker) => waitForOutput(worker, /worker ready/, 60_000)));
});

afterAll(async () => {
  for (const worker of workers) worker.kill('SIGKILL');
  await Promise.all(workers.map((worker) => worker.exited));
  await world?.close();
});

describe('three worker processes, one killed with SIGKILL mid-batch', () => {
  it('exports every one of 300 sources exactly once and completes the batch', { timeout: 120_000 }, async () => {
    const res = await request(world.url).post('/fiscal-document/v1/night-audit/exports').set(auth()).send({ businessDate: BUSINESS_DATE });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const batchId = res.body.batchId as string;

    await untilStatus(batchId, (s) => s.completed >= SOURCES * 0.3 || !['queued', 'running'].includes(s.status), 60_000);
    const [victim, ...survivors] = workers as [TSpawned, TSpawned, TSpawned];
    victim.kill('SIGKILL');
    expect(await victim.exited).toBe('SIGKILL');
    const atKill = await batchStatus(batchId);
    expect(atKill.status, 'the batch must still be running when the worker dies').toBe('running');

    const status = await untilStatus(batchId, (s) => !['queued', 'running'].includes(s.status), 90_000);
    const key = manifestKey('1', BUSINESS_DATE);
    expect(status).toMatchObject({ status: 'completed', total: SOURCES, completed: SOURCES, failed: 0, manifestKey: key });
    for (const survivor of survivors) expect(survivor.child.exitCode, survivor.output()).toBeNull();

    // The manifest: 300 files, 300 keys, 300 sources, each object whole with its size and sha256.
    const root = resolve(world.config.STORAGE_DIR);
    const manifest = JSON.parse(readFileSync(join(root, key), 'utf8')) as {
      run: number; total: number; failures: unknown[];
      files: Array<{ key: string; sourceKind: 'RESERVATION' | 'HOUSE_ACCOUNT'; sourceId: string; size: number; sha256: string }>;
    };
    expect(manifest).toMatchObject({ run: 1, total: SOURCES, failures: [] });
    expect(manifest.files).toHaveLength(SOURCES);
    const keys = new Set(manifest.files.map((f) => f.key));
    const sources = new Set(manifest.files.map((f) => `${f.sourceKind}-${f.sourceId}`));
    expect(keys.size).toBe(SOURCES);
    expect(sources).toEqual(new Set([...Array.from({ length: SOURCES - 1 }, (_, i) => `RESERVATION-${5_001 + i}`), 'HOUSE_ACCOUNT-9999']));
    for (const file of manifest.files) {
      expect(file.key).toBe(auditObjectKey('1', BUSINESS_DATE, file, 'PDF'));
      const body = readFileSync(join(root, file.key));
      expect(body.length, file.key).toBe(file.size);
      expect(createHash('sha256').update(body).digest('hex'), file.key).toBe(file.sha256);
    }

    // The storage folder: exactly the 300 objects and the manifest. A `.tmp` can only be a write
    // the killed worker had in flight (write-then-rename, cut between the two): at most two (a job
    // has two sources in flight), for keys that a surviving worker then wrote whole.
    const stored = filesUnder(root);
    const temps = stored.filter((path) => path.endsWith('.tmp'));
    expect(stored.filter((path) => !path.endsWith('.tmp')).sort()).toEqual([...keys, key].sort());
    expect(temps.length, temps.join(', ')).toBeLessThanOrEqual(2);
    for (const temp of temps) expect(keys.has(temp.replace(/\.[0-9a-f-]{36}\.tmp$/, '')), temp).toBe(true);

    // BullMQ's side: the manifest (parent) job ran once for this run; every source job (a chunk of
    // sources) completed, at least one stalled (the one the killed worker held) and was run again elsewhere.
    const nightAudit = new Queue(QUEUE_NAMES.nightAudit, { connection: world.redis, prefix: world.config.QUEUE_PREFIX });
    const exports = new Queue(QUEUE_NAMES.nightAuditExport, { connection: world.redis, prefix: world.config.QUEUE_PREFIX });
    try {
      const parent = await nightAudit.getJob(`na-${batchId}-1`);
      expect(parent?.returnvalue).toEqual({ manifestKey: key, total: SOURCES, completed: SOURCES, failed: 0 });
      expect(parent?.attemptsStarted).toBe(1);
      expect(workers.flatMap((worker) => logLines(worker, 'job done')).filter((line) => line.job === 'night-audit-manifest')).toHaveLength(1);

      const completed = (await exports.getJobs(['completed'], 0, -1)).filter((job) => job.name === 'night-audit-source');
      expect(completed).toHaveLength(Math.ceil(SOURCES / sourcesPerJob(SOURCES)));
      expect(completed.flatMap((job) => job.data.sources as unknown[])).toHaveLength(SOURCES);
      // Nothing of the batch is left behind (the retention sweep's scheduled run is the workers' own housekeeping).
      const left = (await exports.getJobs(['failed', 'active', 'wait', 'delayed'], 0, -1)).filter((job) => job.name !== retentionSweepJob.name);
      expect(left.map((job) => `${job.name} ${job.id}`)).toEqual([]);
      const stalled = completed.filter((job) => job.stalledCounter > 0).length;
      const startedTwice = completed.filter((job) => job.attemptsStarted > 1).length;
      expect(stalled).toBeGreaterThanOrEqual(1);

      // At least once: a source whose worker died after rendering it is rendered again, but it is
      // still one object and one manifest entry (checked above). A job run again skips the sources
      // it recorded, so only those in flight (two a job) are rendered twice.
      const renders = new Map<string, number>();
      for (const line of workers.flatMap((worker) => logLines(worker, 'document rendered'))) {
        renders.set(String(line.key), (renders.get(String(line.key)) ?? 0) + 1);
      }
      for (const rendered of renders.keys()) expect(keys.has(rendered), rendered).toBe(true);
      const reRendered = [...renders.values()].filter((count) => count > 1).length;
      expect(reRendered).toBeLessThanOrEqual(2 * startedTwice);
      console.warn(
        `scale: ${SOURCES} sources, 3 workers, one SIGKILLed at ${atKill.completed} completed; ` +
          `${stalled} job(s) stalled, ${startedTwice} started twice, ${reRendered} source(s) rendered more than once; ` +
          `killed worker rendered ${logLines(victim, 'document rendered').length}, survivors ${survivors.map((s) => logLines(s, 'document rendered').length).join(' + ')}; ` +
          `${temps.length} .tmp left`,
      );
    } finally {
      await nightAudit.close();
      await exports.close();
    }
  });
});
