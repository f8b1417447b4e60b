/**
 * Many hotels on one service: what one property's heavy or hostile work does to another's requests,
 * against the same requests on the idle service in the same run. The service runs as deployed: a
 * worker process and an API process, compiled (bench/support/service-processes.ts), NODE_ENV=production,
 * default settings (the per-property limits are what is being measured, so none is lifted).
 *
 * The other property (2) reads one folio's transactions (POST /accounting/v1.0/folios/transactions)
 * every READ_EVERY_MS on an open loop — a read is sent on time whether or not the earlier ones have
 * answered, so a stalled service shows as long reads, not as fewer — and exports its own folios.
 *
 * 1. Night-audit starts: property 3 starts 40 night audits at once (40 business dates); the 40
 *    answers by status; property 2's reads from the first start until the last answer and 3 s after.
 * 2. Import: property 4 imports IMPORT_FOLIOS typical folios (30 rows each) in one request; property
 *    2's reads while it runs.
 * 3. Night audit beside on-demand exports: property 1 runs a night audit of BATCH_FOLIOS folios on
 *    the same worker; property 2 exports its folios one after another (POST, status polled every
 *    20 ms, file fetched) until the batch ends; against the same exports on the idle service. Then
 *    the same again (the batch run anew) with a second worker process beside the first, as a
 *    default deployment of two workers on two cores runs it, against that shape's own idle exports.
 * 4. A lock: another session holds an ACCESS EXCLUSIVE lock on the exports table (until both
 *    answers are in, LOCK_HOLD_MS at most) while property 2 asks for an export's status and, 200 ms
 *    later, /readyz is asked; each answer's status and time, LOCK_TRIES times; against the same
 *    requests without the lock.
 * 5. Heavy listings: property 5 keeps HEAVY_LISTINGS listings of its LISTING_ROWS-row source in
 *    flight (each with a searchQuery, a sort and includeTotal; the next sent as one answers) for
 *    HEAVY_SECONDS, while property 2 reads a one-row listing on the open loop; against property 2's
 *    one-row reads on the idle service just before. On the API as configured (DB_SHARE_PER_PROPERTY
 *    by default: half the pool) and, in the same run, on a second API process without the share
 *    (DB_SHARE_PER_PROPERTY=1), each with its own idle baseline.
 *
 *   npx tsx bench/scenarios/tenants.ts
 *   BENCH_TENANTS_BATCH_FOLIOS=300 BENCH_TENANTS_IMPORT_FOLIOS=200 npx tsx bench/scenarios/tenants.ts   # smaller
 *   BENCH_TENANTS_ONLY=listings npx tsx bench/scenarios/tenants.ts                                      # step 5 alone
 *   BENCH_TENANTS_ONLY=batch npx tsx bench/scenarios/tenants.ts                                         # step 3 alone, both shapes
 */
import { rm } from 'node:fs/promises';
import pg from 'pg';
import { Pool } from 'undici';
import { createPgPool } from '@folio-vault/shared/connections';
import { importRecords, recordsOfDocument } from '@folio-vault/shared/ledger/batch-import';
import { TYPICAL_BUSINESS_DATE, typicalLedger } from '@folio-vault/test-kit/typical-ledger';
import { generateLargeSource } from '@folio-vault/test-kit/demo-ledger';
import { benchEnvironment, writeResult } from '../support/environment.js';
import { machine } from '../support/machine.js';
import { benchToken, freePort, startService, type TServiceProcess } from '../support/service-processes.js';
import { summary } from '../support/stats.js';

const BATCH_FOLIOS = Number(process.env.BENCH_TENANTS_BATCH_FOLIOS ?? 2_500);
const IMPORT_FOLIOS = Number(process.env.BENCH_TENANTS_IMPORT_FOLIOS ?? 2_000);
const READER_FOLIOS = 200;
const STARTS = 40;
const READ_EVERY_MS = 25;
const IDLE_READ_MS = 5_000;
const IDLE_EXPORTS = Number(process.env.BENCH_TENANTS_IDLE_EXPORTS ?? 15);
const LOCK_TRIES = 5;
/** The lock is let go after this long whatever happened: a service without a budget answers only then. */
const LOCK_HOLD_MS = 15_000;
/** An export not done by then counts as left queued. */
const EXPORT_GIVE_UP_MS = 120_000;
/** `listings`: step 5 alone (its ledgers only); `batch`: step 3 alone, in both shapes. */
const ONLY_LISTINGS = process.env.BENCH_TENANTS_ONLY === 'listings';
const ONLY_BATCH = process.env.BENCH_TENANTS_ONLY === 'batch';
const LISTING_ROWS = Number(process.env.BENCH_TENANTS_LISTING_ROWS ?? 100_000);
const HEAVY_LISTINGS = 40;
const HEAVY_SECONDS = Number(process.env.BENCH_TENANTS_HEAVY_SECONDS ?? 10);
const HEAVY_PROPERTY = 5;
const HEAVY_SOURCE = 777;

type TSummary = ReturnType<typeof summary>;
interface TReads { count: number; failed: number; statuses: Record<string, number>; ms: TSummary }
interface TTimed { ms: TSummary; statuses: Record<string, number>; retryAfter?: string[] }

/** Step 5 on one API process: property 2's one-row reads idle, then beside property 5's heavy listings. */
export interface THeavyListings {
  /** DB_SHARE_PER_PROPERTY of that API process. */
  share: string;
  idle: TReads;
  reads: TReads;
  heavy: { count: number; statuses: Record<string, number>; ms: TSummary };
}

/** Step 3: property 2's on-demand exports idle, then beside property 1's night audit, on one shape of the service. */
export interface TBatchBeside { workers: number; folios: number; status: string; seconds: number; idle: TSummary; during: TSummary; exportsDuring: number; leftQueued: number; exportFailures: string[] }

/** Steps 1–4 are absent from a BENCH_TENANTS_ONLY=listings run, all but step 3 from a BENCH_TENANTS_ONLY=batch run. */
export interface TTenantsResult {
  machine: ReturnType<typeof machine>;
  idleReads?: TReads;
  starts?: { statuses: Record<string, number>; reads: TReads; spanMs: number };
  import?: { rows: number; megabytes: number; status: number; ms: number; reads: TReads };
  batch?: TBatchBeside;
  /** Step 3 again with two worker processes (absent from runs stored before it existed). */
  batchTwoWorkers?: TBatchBeside;
  lock?: { idleStatus: TTimed; idleReady: TTimed; lockedStatus: TTimed; lockedReady: TTimed };
  /** Absent from runs stored before step 5 existed. */
  listings?: { rows: number; inFlight: number; seconds: number; withShare: THeavyListings; withoutShare: THeavyListings };
  failures: string[];
}

const { config, ownerUrl, services, rawEnv } = await benchEnvironment();
const pool = createPgPool(ownerUrl, { max: 4 });
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env = { ...rawEnv(), NODE_ENV: 'production', PORT: String(port) };
const failures: string[] = [];
const client = new Pool(base, { connections: 64 });
const scope = 'read:payment write:payment';
const headersOf = (propertyId: number) => ({
  authorization: `Bearer ${benchToken(config, scope, [propertyId])}`,
  'x-property-id': String(propertyId),
  'content-type': 'application/json',
  'accept-language': 'en',
});
const reader = headersOf(2);

async function call(path: string, init: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string | Buffer } = {}, via: Pool = client) {
  const res = await via.request({ path, method: init.method ?? 'GET', headers: init.headers, body: init.body, headersTimeout: 600_000, bodyTimeout: 600_000 });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text };
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const count = (statuses: number[]) => statuses.reduce<Record<string, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});

// The ledgers: property 1's batch folios, property 2's and property 5's large source are written
// straight to the database; property 4's arrives through the API in step 2.
const readerLedger = typicalLedger(2, READER_FOLIOS + 1);
await importRecords(pool, '2', recordsOfDocument(readerLedger));
if (!ONLY_LISTINGS) {
  await importRecords(pool, '1', recordsOfDocument(typicalLedger(1, BATCH_FOLIOS))); // BATCH_FOLIOS − 1 reservations and a house account
  await importRecords(pool, '3', recordsOfDocument(typicalLedger(3, 21)));
}
if (!ONLY_BATCH) await importRecords(pool, String(HEAVY_PROPERTY), recordsOfDocument(generateLargeSource({ propertyId: HEAVY_PROPERTY, sourceId: HEAVY_SOURCE, rows: LISTING_ROWS, rich: true })));
await pool.query('ANALYZE');
const readerSources = readerLedger.folios.filter((folio) => folio.sourceKind === 'RESERVATION').map((folio) => String(folio.sourceId));
let nextRead = 0;
let nextExport = 0;

/** How property 2 reads: one folio's transactions, or its first row only (step 5), through an API process's client. */
interface TReadKind { via?: Pool; oneRow?: boolean }

/** One read by property 2: one folio's transactions. */
async function readOnce(kind: TReadKind = {}): Promise<{ ms: number; status: number }> {
  const sourceId = readerSources[nextRead++ % readerSources.length]!;
  const started = performance.now();
  try {
    const body = JSON.stringify({ sourceKind: 'RESERVATION', sourceId, ...(kind.oneRow ? { limit: 1 } : {}) });
    const res = await call('/accounting/v1.0/folios/transactions', { method: 'POST', headers: reader, body }, kind.via);
    return { ms: performance.now() - started, status: res.status };
  } catch {
    return { ms: performance.now() - started, status: 0 };
  }
}

/** Property 2's reads on an open loop while `work` runs (and at least `minMs`). */
async function readsDuring<T>(work: () => Promise<T>, minMs = 0, afterMs = 0, kind: TReadKind = {}): Promise<{ result: T; reads: TReads }> {
  const pending: Array<Promise<{ ms: number; status: number }>> = [];
  let done = false;
  const started = performance.now();
  const loop = (async () => {
    for (let i = 0; !done || performance.now() - started < minMs; i += 1) {
      pending.push(readOnce(kind));
      const next = started + (i + 1) * READ_EVERY_MS;
      await sleep(Math.max(0, next - performance.now()));
    }
  })();
  const result = await work();
  if (afterMs) await sleep(afterMs);
  done = true;
  await loop;
  const reads = await Promise.all(pending);
  const ok = reads.filter((read) => read.status === 200);
  return {
    result,
    reads: { count: reads.length, failed: reads.length - ok.length, statuses: count(reads.map((read) => read.status)), ms: summary(reads.map((read) => read.ms)) },
  };
}

/** One export by property 2, from the POST to the file's last byte; undefined when it was not done in time. */
async function exportOnce(): Promise<{ ms: number; exportId: string } | { error: string }> {
  const sourceId = readerSources[nextExport++ % readerSources.length]!;
  const started = performance.now();
  const posted = await call('/fiscal-document/v1/folios/export', {
    method: 'POST',
    headers: { ...reader, prefer: 'respond-async' },
    body: JSON.stringify({ sourceKind: 'RESERVATION', sourceId }),
  });
  if (posted.status !== 202) return { error: `export of ${sourceId} answered ${posted.status}: ${posted.text.slice(0, 200)}` };
  const { statusUrl, exportId } = JSON.parse(posted.text) as { statusUrl: string; exportId: string };
  for (;;) {
    const status = JSON.parse((await call(statusUrl, { headers: reader })).text) as { status: string; fileUrl?: string };
    if (status.status === 'completed') {
      const file = await call(status.fileUrl!, { headers: reader });
      if (file.status !== 200) return { error: `file of ${exportId} answered ${file.status}` };
      return { ms: performance.now() - started, exportId };
    }
    if (status.status !== 'queued' && status.status !== 'running') return { error: `export ${exportId}: ${JSON.stringify(status)}` };
    if (performance.now() - started > EXPORT_GIVE_UP_MS) return { error: `export ${exportId} still ${status.status} after ${EXPORT_GIVE_UP_MS / 1000} s` };
    await sleep(20);
  }
}

async function batchStatus(propertyId: number, batchId: string): Promise<{ status: string; completed: number; total?: number }> {
  return JSON.parse((await call(`/fiscal-document/v1/night-audit/exports/${batchId}`, { headers: headersOf(propertyId) })).text) as { status: string; completed: number };
}

async function waitForBatches(propertyId: number, batchIds: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const batchId of batchIds) {
    for (;;) {
      const { status } = await batchStatus(propertyId, batchId);
      if (status !== 'queued' && status !== 'running') break;
      if (Date.now() > deadline) {
        failures.push(`property ${propertyId}'s batch ${batchId} still ${status}`);
        return;
      }
      await sleep(200);
    }
  }
}

async function timedGet(path: string, headers: Record<string, string> = {}): Promise<{ ms: number; status: number; retryAfter?: string }> {
  const started = performance.now();
  const res = await call(path, { headers });
  return { ms: performance.now() - started, status: res.status, retryAfter: res.headers['retry-after'] as string | undefined };
}
const timed = (samples: Array<{ ms: number; status: number; retryAfter?: string }>): TTimed => ({
  ms: summary(samples.map((s) => s.ms)),
  statuses: count(samples.map((s) => s.status)),
  retryAfter: [...new Set(samples.flatMap((s) => (s.retryAfter ? [s.retryAfter] : [])))],
});

const stats = (label: string, s: TSummary) => `${label} p50 ${s.p50.toFixed(0)} ms, p90 ${s.p90.toFixed(0)} ms, max ${s.max.toFixed(0)} ms`;

/** Property 5's heavy listing: a searchQuery over every row of its source, a sort, and the totals of every match. */
const heavyListing = JSON.stringify({
  sourceKind: 'RESERVATION',
  sourceId: String(HEAVY_SOURCE),
  searchQuery: 'room',
  sort: [{ field: 'description', direction: 'desc' }, { field: 'amount', direction: 'asc' }],
  includeTotal: true,
  limit: 100,
});
const heavyHeaders = headersOf(HEAVY_PROPERTY);

/** Step 5 on the API process at `base`: property 2's one-row reads idle, then beside HEAVY_LISTINGS heavy listings kept in flight. */
async function heavyListings(base: string, share: string): Promise<THeavyListings> {
  const reads = new Pool(base, { connections: 128 });
  const heavy = new Pool(base, { connections: HEAVY_LISTINGS });
  try {
    const listOnce = async () => {
      const started = performance.now();
      const res = await call('/accounting/v1.0/folios/transactions', { method: 'POST', headers: heavyHeaders, body: heavyListing }, heavy).catch(() => ({ status: 0 }));
      return { ms: performance.now() - started, status: res.status };
    };
    for (let i = 0; i < 3; i += 1) await listOnce();
    for (let i = 0; i < 20; i += 1) await readOnce({ via: reads, oneRow: true });
    const idle = await readsDuring(() => sleep(IDLE_READ_MS), 0, 0, { via: reads, oneRow: true });
    const listed: Array<{ ms: number; status: number }> = [];
    let stop = false;
    const during = await readsDuring(
      async () => {
        const inFlight = Array.from({ length: HEAVY_LISTINGS }, async () => {
          while (!stop) listed.push(await listOnce());
        });
        await sleep(HEAVY_SECONDS * 1000);
        stop = true;
        await Promise.all(inFlight);
      },
      0,
      0,
      { via: reads, oneRow: true },
    );
    const result = {
      share,
      idle: idle.reads,
      reads: during.reads,
      heavy: { count: listed.length, statuses: count(listed.map((one) => one.status)), ms: summary(listed.map((one) => one.ms)) },
    };
    const p99 = (s: TSummary) => `p99 ${s.p99.toFixed(0)} ms`;
    console.log(
      `heavy listings, DB_SHARE_PER_PROPERTY=${share}: property 2's one-row reads idle ${stats('', idle.reads.ms)}, ${p99(idle.reads.ms)}; during ${during.reads.count} reads ${stats('', during.reads.ms)}, ${p99(during.reads.ms)}, ` +
        `statuses ${JSON.stringify(during.reads.statuses)}; property 5's ${listed.length} listings ${stats('', result.heavy.ms)}, statuses ${JSON.stringify(result.heavy.statuses)}`,
    );
    return result;
  } finally {
    await Promise.all([reads.close(), heavy.close()]);
  }
}

let processes: TServiceProcess[] = [];
let result: TTenantsResult | undefined;
try {
  processes = [await startService('worker', env)];
  processes.push(await startService('api', env));
  let steps: Omit<TTenantsResult, 'machine' | 'listings' | 'failures'> = {};
  if (ONLY_BATCH) {
    await warmUp();
    steps = { batch: await batchBesideExports(1) };
  } else if (!ONLY_LISTINGS) steps = await stepsOneToFour();
  const listings = ONLY_BATCH ? undefined : await heavyListingsBothWays();
  if (!ONLY_LISTINGS) {
    // 3, again: a second worker process beside the first, the default deployment on two cores.
    processes.push(await startService('worker', env));
    steps = { ...steps, batchTwoWorkers: await batchBesideExports(2) };
  }
  result = { machine: machine(), ...steps, ...(listings ? { listings } : {}), failures };
} finally {
  for (const service of processes.reverse()) await service.stop();
  await client.close();
  await pool.end();
  await rm(config.STORAGE_DIR, { recursive: true, force: true });
  await services.stop();
}
writeResult(result);
if (failures.length) {
  console.error(`tenants bench: ${failures.length} failures:\n${failures.join('\n')}`);
  process.exitCode = 1;
}

/** 5. Heavy listings, on this API (the share as configured) and on a second one without the share. */
async function heavyListingsBothWays(): Promise<NonNullable<TTenantsResult['listings']>> {
  const unsharedPort = await freePort();
  processes.push(await startService('api', { ...env, PORT: String(unsharedPort), DB_SHARE_PER_PROPERTY: '1' }));
  const withoutShare = await heavyListings(`http://127.0.0.1:${unsharedPort}`, '1');
  const withShare = await heavyListings(base, String(config.DB_SHARE_PER_PROPERTY));
  if (withShare.reads.failed > 0) failures.push(`property 2's one-row reads beside the heavy listings, with the share: ${JSON.stringify(withShare.reads.statuses)}`);
  return { rows: LISTING_ROWS, inFlight: HEAVY_LISTINGS, seconds: HEAVY_SECONDS, withShare, withoutShare };
}

/** The first requests of each kind load code and prepare statements. */
async function warmUp(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await readOnce();
  for (let i = 0; i < 2; i += 1) await exportOnce();
}

/**
 * Step 3 on the service as it runs now (`workers` worker processes): property 2's exports idle,
 * then one after another from the moment property 1's night audit of BATCH_FOLIOS folios has ten
 * done until it ends (a second call runs the batch anew: same keys rewritten).
 */
async function batchBesideExports(workers: number): Promise<TBatchBeside> {
  const exportFailures: string[] = [];
  const idleExports: number[] = [];
  for (let i = 0; i < IDLE_EXPORTS; i += 1) {
    const one = await exportOnce();
    if ('error' in one) exportFailures.push(one.error);
    else idleExports.push(one.ms);
  }
  const batchBegun = performance.now();
  const startBatch = await call('/fiscal-document/v1/night-audit/exports', { method: 'POST', headers: headersOf(1), body: JSON.stringify({ businessDate: TYPICAL_BUSINESS_DATE, format: 'PDF' }) });
  if (startBatch.status !== 202) throw new Error(`night audit of property 1 answered ${startBatch.status}: ${startBatch.text}`);
  const { batchId } = JSON.parse(startBatch.text) as { batchId: string };
  // The exports start once the batch's pieces are rendering.
  for (;;) {
    const { status, completed } = await batchStatus(1, batchId);
    if (completed >= 10 || (status !== 'queued' && status !== 'running')) break;
    await sleep(100);
  }
  const duringExports: number[] = [];
  let leftQueued = 0;
  for (;;) {
    const { status } = await batchStatus(1, batchId);
    if (status !== 'queued' && status !== 'running') break;
    const one = await exportOnce();
    if ('error' in one) {
      exportFailures.push(one.error);
      if (one.error.includes('still')) leftQueued += 1;
    } else duringExports.push(one.ms);
  }
  await waitForBatches(1, [batchId], 600_000);
  const batchSeconds = (performance.now() - batchBegun) / 1000;
  const finalBatch = await batchStatus(1, batchId);
  if (finalBatch.status !== 'completed' || finalBatch.completed !== BATCH_FOLIOS) failures.push(`property 1's batch (${workers} worker processes): ${JSON.stringify(finalBatch)}`);
  failures.push(...exportFailures);
  const idle = summary(idleExports);
  const during = duringExports.length ? summary(duringExports) : summary([Number.NaN]);
  console.log(`exports, ${workers} worker process(es): ${stats('idle', idle)}; during the ${BATCH_FOLIOS}-folio batch (${batchSeconds.toFixed(0)} s): ${duringExports.length} exports, ${stats('', during)}, left queued ${leftQueued}`);
  return { workers, folios: BATCH_FOLIOS, status: finalBatch.status, seconds: batchSeconds, idle, during, exportsDuring: duringExports.length, leftQueued, exportFailures };
}

/** Steps 1–4 on the API and worker started above. */
async function stepsOneToFour(): Promise<Omit<TTenantsResult, 'machine' | 'listings' | 'failures'>> {
  await warmUp();

  const idle = await readsDuring(() => sleep(IDLE_READ_MS));
  console.log(`idle: ${idle.reads.count} reads, ${stats('', idle.reads.ms)}`);

  // 1. Forty night-audit starts at once by property 3.
  const startHeaders = headersOf(3);
  const startBodies = Array.from({ length: STARTS }, (_, i) => JSON.stringify({ businessDate: new Date(Date.UTC(2026, 9, 1 + i)).toISOString().slice(0, 10), format: 'PDF' }));
  const startsBegun = performance.now();
  const starts = await readsDuring(async () => {
    const answers = await Promise.all(startBodies.map((body) => call('/fiscal-document/v1/night-audit/exports', { method: 'POST', headers: startHeaders, body })));
    return { answers, spanMs: performance.now() - startsBegun };
  }, 0, 3_000);
  const startStatuses = count(starts.result.answers.map((answer) => answer.status));
  console.log(`40 night-audit starts: ${JSON.stringify(startStatuses)} in ${starts.result.spanMs.toFixed(0)} ms; property 2's reads: ${starts.reads.count}, ${stats('', starts.reads.ms)}, statuses ${JSON.stringify(starts.reads.statuses)}`);
  const startedBatches = starts.result.answers.filter((answer) => answer.status === 202).map((answer) => (JSON.parse(answer.text) as { batchId: string }).batchId);
  await waitForBatches(3, startedBatches, 180_000);

  // 2. One import of IMPORT_FOLIOS typical folios by property 4.
  const importDocument = typicalLedger(4, IMPORT_FOLIOS + 1);
  // Encoded beforehand: turning 24 MB of text into bytes would hold this process's own loop, and
  // the reads timed in it, at the start of the import.
  const importBody = Buffer.from(JSON.stringify(importDocument));
  const importHeaders = headersOf(4);
  const imported = await readsDuring(async () => {
    const t = performance.now();
    const res = await call('/accounting/v1.0/import', { method: 'POST', headers: importHeaders, body: importBody });
    return { status: res.status, ms: performance.now() - t, text: res.text };
  });
  if (imported.result.status !== 200) failures.push(`import answered ${imported.result.status}: ${imported.result.text.slice(0, 300)}`);
  console.log(`import of ${importDocument.transactions.length} rows (${(importBody.length / 2 ** 20).toFixed(1)} MB): ${imported.result.status} in ${imported.result.ms.toFixed(0)} ms; property 2's reads: ${imported.reads.count}, ${stats('', imported.reads.ms)}`);

  // 3. On-demand exports, idle, then beside property 1's night audit.
  const batch = await batchBesideExports(1);

  // 4. A lock on the exports table held by another session.
  const exportId = (await exportOnce()) as { exportId: string };
  const statusPath = `/fiscal-document/v1/folios/exports/${exportId.exportId}`;
  const idleStatus = [];
  const idleReady = [];
  for (let i = 0; i < LOCK_TRIES; i += 1) {
    idleStatus.push(await timedGet(statusPath, reader));
    idleReady.push(await timedGet('/readyz'));
  }
  const lockedStatus = [];
  const lockedReady = [];
  for (let i = 0; i < LOCK_TRIES; i += 1) {
    const holder = new pg.Client({ connectionString: ownerUrl });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE exports IN ACCESS EXCLUSIVE MODE');
    const answered = Promise.all([timedGet(statusPath, reader), sleep(200).then(() => timedGet('/readyz'))]);
    await Promise.race([answered, sleep(LOCK_HOLD_MS)]);
    await holder.query('ROLLBACK');
    await holder.end();
    const [status, ready] = await answered;
    lockedStatus.push(status);
    lockedReady.push(ready);
  }
  const lock = { idleStatus: timed(idleStatus), idleReady: timed(idleReady), lockedStatus: timed(lockedStatus), lockedReady: timed(lockedReady) };
  console.log(`lock: export status ${stats('idle', lock.idleStatus.ms)}; locked ${stats('', lock.lockedStatus.ms)} ${JSON.stringify(lock.lockedStatus.statuses)} Retry-After ${lock.lockedStatus.retryAfter?.join(',')}; /readyz locked ${stats('', lock.lockedReady.ms)} ${JSON.stringify(lock.lockedReady.statuses)}`);

  return {
    idleReads: idle.reads,
    starts: { statuses: startStatuses, reads: starts.reads, spanMs: starts.result.spanMs },
    import: { rows: importDocument.transactions.length, megabytes: importBody.length / 2 ** 20, status: imported.result.status, ms: imported.result.ms, reads: imported.reads },
    batch,
    lock,
  };
}
