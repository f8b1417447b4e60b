import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, type TRedisClient } from '@folio-vault/shared/connections';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import {
  FAULT_SOURCE,
  faultEnv,
  importFaultLedger,
  killGroup,
  logLines,
  privateRedis,
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
 * A worker killed with SIGKILL mid-job (issue 7; docs/night-audit.md#scale-and-worker-loss). Three folio
 * exports are queued on one worker process that renders one at a time; once one of them is
 * running, the worker's whole process group (tsx, the worker, its render processes) gets a
 * SIGKILL. A restarted worker takes the killed job over once its lock lapses (WORKER_LOCK_MS) and
 * runs the rest. Delivery is at least once, the effect once: every export completed, one object
 * per export (same key on the re-run), one "job done" per export, the file's sha256 as its status says.
 */
const ROWS = 1_500;
const LANGUAGES = ['en', 'es', 'pt'] as const;
const LOCK_MS = '2000';

let redis: TRestartable;
let env: Record<string, string>;
let api: TApiProcess;
const workers: TSpawned[] = [];
let pool: pg.Pool;
let inspector: TRedisClient;

beforeAll(async () => {
  redis = await privateRedis();
  const database = await createDatabase();
  env = faultEnv({ REDIS_URL: redis.url, DATABASE_URL: database.url, WORKER_LOCK_MS: LOCK_MS, WORKER_CONCURRENCY: '2' });
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  await importFaultLedger(pool, ROWS);
  api = await startApiProcess(env);
  inspector = createRedis(redis.url, 'worker');
  inspector.on('error', () => undefined);
});

afterAll(async () => {
  await Promise.all([killGroup(api?.process), ...workers.map((worker) => killGroup(worker))]);
  inspector?.disconnect();
  await pool?.end();
  await redis?.remove();
});

type TStatus = TFaultExportStatus;

const headers = (extra: Record<string, string> = {}) => propertyHeaders(env, extra);

async function exportStatus(exportId: string): Promise<TStatus> {
  const res = await fetch(`${api.url}/fiscal-document/v1/folios/exports/${exportId}`, { headers: headers() });
  expect(res.status).toBe(200);
  return (await res.json()) as TStatus;
}

async function rowStates(): Promise<Map<string, { status: string; progress: number }>> {
  const rows = await pool.query<{ id: string; status: string; progress: number }>('SELECT id, status, progress FROM exports');
  return new Map(rows.rows.map((row) => [row.id, row]));
}

describe('a worker killed with SIGKILL mid-job', () => {
  it('re-runs the job on the restarted worker; every export completes once, one object each', { timeout: 120_000 }, async () => {
    workers.push(await startWorkerProcess(env));
    const exportIds: string[] = [];
    for (const language of LANGUAGES) {
      const res = await fetch(`${api.url}/fiscal-document/v1/folios/export`, {
        method: 'POST',
        headers: headers({ 'Content-Type': 'application/json', Prefer: 'respond-async', 'Accept-Language': language }),
        body: JSON.stringify({ ...FAULT_SOURCE }),
      });
      expect(res.status).toBe(202);
      exportIds.push(((await res.json()) as { exportId: string }).exportId);
    }

    // Mid-job: the export's document is built and its render is under way (progress 20).
    const victimExport = await until(async () => {
      const states = await rowStates();
      return exportIds.find((id) => states.get(id)?.status === 'running' && states.get(id)!.progress >= 20);
    }, 60_000, 'an export being rendered');
    const victim = workers[0]!;
    victim.kill('SIGKILL');
    expect(await victim.exited).toBe('SIGKILL');
    const atKill = await rowStates();
    expect(atKill.get(victimExport)?.status, 'the export must still be running when its worker dies').toBe('running');
    const completedAtKill = exportIds.filter((id) => atKill.get(id)?.status === 'completed').length;

    const restarted = await startWorkerProcess(env);
    workers.push(restarted);
    const finals = await until(async () => {
      const statuses = await Promise.all(exportIds.map(exportStatus));
      return statuses.every((s) => s.status === 'completed' || s.status === 'failed') ? statuses : undefined;
    }, 90_000, 'every export to end');

    // Effects: objects in storage, completions logged, rows.
    const folder = join(env.STORAGE_DIR!, 'exports', '1');
    const stored = existsSync(folder) ? readdirSync(folder) : [];
    const objects = stored.filter((name) => !name.endsWith('.tmp'));
    const temps = stored.filter((name) => name.endsWith('.tmp'));
    const done = workers.flatMap((worker) => logLines(worker, 'job done')).filter((line) => line.job === 'export-folio');
    const lost = finals.filter((s) => s.status !== 'completed').length;
    let duplicates = 0;
    for (const id of exportIds) {
      duplicates += Math.max(0, objects.filter((name) => name.startsWith(id)).length - 1);
      duplicates += Math.max(0, done.filter((line) => line.jobId === id).length - 1);
    }
    const rows = await pool.query<{ id: string; status: string }>('SELECT id, status FROM exports');

    const queue = new Queue(QUEUE_NAMES.export, { connection: inspector, prefix: env.QUEUE_PREFIX });
    const job = await queue.getJob(victimExport);
    await queue.close();
    const rendersOfVictim = workers.map((worker) => logLines(worker, 'document rendered').filter((line) => String(line.key).includes(victimExport)).length);

    console.warn(
      `faults-worker-kill: ${exportIds.length} exports of ${ROWS} rows, worker SIGKILLed while rendering one (${completedAtKill} completed before); ` +
        `killed job: stalled ${job?.stalledCounter ?? '?'}x, attempts started ${job?.attemptsStarted ?? '?'}, rendered ${rendersOfVictim.join(' + ')} (killed + restarted worker); ` +
        `jobs lost ${lost}, duplicate effects ${duplicates}; objects ${objects.length}, export rows ${rows.rowCount}, ${temps.length} .tmp left by the kill`,
    );

    expect(lost).toBe(0);
    expect(duplicates).toBe(0);
    expect(objects.sort()).toEqual(exportIds.map((id) => `${id}.pdf`).sort());
    expect(temps.length).toBeLessThanOrEqual(1);
    expect(rows.rows.map((row) => row.status)).toEqual(exportIds.map(() => 'completed'));
    expect(done.map((line) => line.jobId).sort()).toEqual([...exportIds].sort());
    // The killed job ran again: on the restarted worker, after being found stalled.
    expect(done.find((line) => line.jobId === victimExport)).toBeDefined();
    expect(logLines(victim, 'job done').some((line) => line.jobId === victimExport)).toBe(false);
    expect(logLines(restarted, 'job done').some((line) => line.jobId === victimExport)).toBe(true);
    expect(job?.returnvalue).toMatchObject({ key: `exports/1/${victimExport}.pdf` });
    expect((job?.stalledCounter ?? 0) + (job?.attemptsStarted ?? 0)).toBeGreaterThanOrEqual(2);

    for (const status of finals) {
      const body = readFileSync(join(folder, `${status.exportId}.pdf`));
      expect(body.length).toBe(status.size);
      expect(createHash('sha256').update(body).digest('hex')).toBe(status.sha256);
    }
    const file = await fetch(`${api.url}/fiscal-document/v1/folios/exports/${victimExport}/file`, { headers: headers() });
    expect(file.status).toBe(200);
    expect(createHash('sha256').update(Buffer.from(await file.arrayBuffer())).digest('hex')).toBe(finals.find((s) => s.exportId === victimExport)!.sha256);
  });
});
