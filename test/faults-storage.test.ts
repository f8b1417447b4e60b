import { createHash } from 'node:crypto';
import { Queue } from 'bullmq';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createRedis, type TRedisClient } from '@folio-vault/shared/connections';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import {
  FAULT_SOURCE,
  faultEnv,
  importFaultLedger,
  killGroup,
  logLines,
  privateS3,
  removeQueueKeys,
  startApiProcess,
  startWorkerProcess,
  until,
  type TApiProcess,
  type TRestartable,
  propertyHeaders,
  type TFaultExportStatus,
} from './support/faults.js';
import type { TSpawned } from '@folio-vault/test-kit/processes';
import { createDatabase } from './support/world.js';

/**
 * Object storage down during an export (issue 7). STORAGE_DRIVER=minio against an s3rver process
 * of this file's own, stopped just before an export is asked for: the worker touches storage only to
 * upload the rendered file, so the upload is what meets the outage. The upload fails, the job is
 * retried with exponential backoff (export-folio's attempts/backoff), and:
 * - when the store is back before the attempts run out, the export completes (one object, its
 *   sha256 as the status says);
 * - when it stays down, the export ends `failed` with one clear sentence in its status (no
 *   driver message, address or stack), and /readyz names storage meanwhile.
 */
const ROWS = 500;

let s3: TRestartable & { env: Record<string, string> };
let env: Record<string, string>;
let api: TApiProcess;
let worker: TSpawned;
let pool: pg.Pool;
let inspector: TRedisClient;
let queue: Queue;

beforeAll(async () => {
  s3 = await privateS3();
  const database = await createDatabase();
  env = faultEnv({ REDIS_URL: inject('redisUrl'), DATABASE_URL: database.url, ...s3.env });
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  await importFaultLedger(pool, ROWS);
  [api, worker] = await Promise.all([startApiProcess(env), startWorkerProcess(env)]);
  inspector = createRedis(env.REDIS_URL!, 'worker');
  queue = new Queue(QUEUE_NAMES.export, { connection: inspector, prefix: env.QUEUE_PREFIX });
});

afterAll(async () => {
  await Promise.all([killGroup(api?.process), killGroup(worker)]);
  await queue?.close();
  inspector?.disconnect();
  if (env) await removeQueueKeys(env.REDIS_URL!, env.QUEUE_PREFIX!);
  await pool?.end();
  await s3?.remove();
});

type TStatus = TFaultExportStatus;

const headers = (extra: Record<string, string> = {}) => propertyHeaders(env, extra);

async function startExport(language: string): Promise<string> {
  const res = await fetch(`${api.url}/fiscal-document/v1/folios/export`, {
    method: 'POST',
    headers: headers({ 'Content-Type': 'application/json', Prefer: 'respond-async', 'Accept-Language': language }),
    body: JSON.stringify({ ...FAULT_SOURCE }),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { exportId: string }).exportId;
}

async function exportStatus(exportId: string): Promise<TStatus> {
  const res = await fetch(`${api.url}/fiscal-document/v1/folios/exports/${exportId}`, { headers: headers() });
  expect(res.status).toBe(200);
  return (await res.json()) as TStatus;
}

async function readyz(): Promise<{ status: number; checks?: Record<string, string> }> {
  const res = await fetch(`${api.url}/readyz`, { signal: AbortSignal.timeout(10_000) });
  return { status: res.status, checks: ((await res.json()) as { checks?: Record<string, string> }).checks };
}

/**
 * Stops the store, then asks for an export: its upload meets the outage. (Waiting for the export
 * to be rendering before stopping the store raced it: a 500-row export could finish between two
 * polls, and then no upload met the outage.)
 */
async function exportWithStorageDown(language: string): Promise<string> {
  await s3.stop();
  return startExport(language);
}

/** Seconds from each failed attempt to the next attempt's render done (backoff + render), from the worker's log. */
function attemptGaps(exportId: string): number[] {
  const lines = worker
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes(exportId))
    .map((line) => JSON.parse(line) as { msg: string; time: number; attempt?: number });
  const failed = lines.filter((line) => line.msg === 'job failed');
  const starts = lines.filter((line) => line.msg === 'document rendered' || line.msg === 'job done' || line.msg === 'job failed');
  return failed
    .map((failure) => starts.find((line) => line.time > failure.time && line.attempt !== failure.attempt))
    .filter((line): line is NonNullable<typeof line> => line !== undefined)
    .map((line, i) => Math.round((line.time - failed[i]!.time) / 100) / 10);
}

/**
 * The export's job once BullMQ has finished it. The worker records the export's end first and the
 * job finishes after (attemptsMade counts the last attempt only then), so a status read as ended
 * may come a moment before the job is.
 */
function finishedJob(exportId: string) {
  return until(async () => {
    const found = await queue.getJob(exportId);
    return found?.finishedOn ? found : undefined;
  }, 10_000, 'the job to finish');
}

const CLEAR_ERROR_FORBIDDEN = /ECONN|127\.0\.0\.1|localhost|:\d{2,5}\b|\bat \S+[:(]|Error:|S3Error|socket|stack/i;

describe('object storage down during an export', () => {
  it('retries the upload with backoff and completes once the store is back', { timeout: 90_000 }, async () => {
    expect((await readyz()).status).toBe(200);
    const exportId = await exportWithStorageDown('en');
    const ready = await readyz();
    // The first attempt fails on the upload; the export waits for its retry, with a reason.
    const retrying = await until(async () => {
      const status = await exportStatus(exportId);
      return status.status === 'queued' && status.error ? status : undefined;
    }, 30_000, 'the first attempt to fail');
    await s3.start();

    const final = await until(async () => {
      const status = await exportStatus(exportId);
      return status.status === 'completed' || status.status === 'failed' ? status : undefined;
    }, 60_000, 'the export to end');
    const job = await finishedJob(exportId);
    const failures = logLines(worker, 'job failed').filter((line) => line.jobId === exportId).length;
    console.warn(
      `faults-storage (back in time): export ${final.status} after ${job?.attemptsMade ?? '?'} attempt(s) (${failures} failed), ` +
        `failure → next render ${attemptGaps(exportId).join(', ')} s (backoff ${JSON.stringify(job?.opts.backoff)} + render); error while retrying: "${retrying.error}"; readyz while down ${ready.status} ${JSON.stringify(ready.checks)}`,
    );

    expect(ready.status).toBe(503);
    expect(ready.checks).toMatchObject({ storage: 'unavailable', redis: 'ok', postgres: 'ok' });
    expect(retrying.error).not.toMatch(CLEAR_ERROR_FORBIDDEN);
    expect(final.status).toBe('completed');
    expect(final.error).toBeUndefined();
    expect(failures).toBeGreaterThanOrEqual(1);
    expect(job?.attemptsMade).toBe(failures + 1);
    const file = await fetch(`${api.url}/fiscal-document/v1/folios/exports/${exportId}/file`, { headers: headers() });
    expect(file.status).toBe(200);
    expect(createHash('sha256').update(Buffer.from(await file.arrayBuffer())).digest('hex')).toBe(final.sha256);
    expect((await readyz()).status).toBe(200);
  });

  it('fails the export with a clear status when the store stays down', { timeout: 90_000 }, async () => {
    const exportId = await exportWithStorageDown('de');
    try {
      const final = await until(async () => {
        const status = await exportStatus(exportId);
        return status.status === 'completed' || status.status === 'failed' ? status : undefined;
      }, 60_000, 'the export to end');
      const job = await finishedJob(exportId);
      console.warn(
        `faults-storage (stays down): export ${final.status} after ${job?.attemptsMade ?? '?'} attempt(s) of ${job?.opts.attempts ?? '?'}, ` +
          `failure → next render ${attemptGaps(exportId).join(', ')} s (backoff ${JSON.stringify(job?.opts.backoff)} + render); error: "${final.error}"`,
      );
      expect(final.status).toBe('failed');
      expect(job?.attemptsMade).toBe(job?.opts.attempts);
      expect(job?.opts.attempts).toBe(3);
      expect(job?.opts.backoff).toMatchObject({ type: 'exponential' });
      expect(final.error).toBe('The file could not be written to object storage. Gave up after 3 of 3 attempt(s).');
      expect(final.error).not.toMatch(CLEAR_ERROR_FORBIDDEN);
      expect(final.error).toMatch(/storage/i);
      // Its file is not there: 409 EXPORT_NOT_READY, not a 500.
      const file = await fetch(`${api.url}/fiscal-document/v1/folios/exports/${exportId}/file`, { headers: headers() });
      expect(file.status).toBe(409);
    } finally {
      await s3.start();
    }
    expect(worker.child.exitCode).toBeNull();
  });
});
