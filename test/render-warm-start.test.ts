import { rm } from 'node:fs/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RenderPool } from '@folio-vault/worker/exports/render-pool';
import {
  FAULT_SOURCE,
  faultEnv,
  importFaultLedger,
  killGroup,
  logLines,
  propertyHeaders,
  removeQueueKeys,
  startApiProcess,
  until,
  type TApiProcess,
} from './support/faults.js';
import { spawnTs, waitForOutput, type TSpawned } from '@folio-vault/test-kit/processes';
import { createDatabase } from './support/world.js';

/**
 * A worker warms its render processes up (code loaded, fonts registered, a small document drawn and
 * joined) before it takes jobs: an export queued before the worker starts is taken only after the
 * warm-up, and the worker says it is ready only after it too (docs/export.md#flow).
 */
let env: Record<string, string>;
let api: TApiProcess;
let worker: TSpawned | undefined;
let pool: pg.Pool;

beforeAll(async () => {
  const database = await createDatabase();
  // A default worker's two render processes: the warm-up under test is every one of them.
  env = faultEnv({ REDIS_URL: inject('redisUrl'), DATABASE_URL: database.url, EXPORT_CONCURRENCY: '2' });
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  await importFaultLedger(pool, 60);
  api = await startApiProcess(env);
});

afterAll(async () => {
  await Promise.all([killGroup(api?.process), killGroup(worker)]);
  if (env) await removeQueueKeys(env.REDIS_URL!, env.QUEUE_PREFIX!);
  await pool?.end();
  if (env) await rm(env.STORAGE_DIR!, { recursive: true, force: true });
});

describe('render pool warm-up', () => {
  it('reports warm only once every render process has drawn its warm-up document', async () => {
    const renderer = new RenderPool(2);
    try {
      expect(renderer.isWarm()).toBe(false);
      await renderer.warm();
      expect(renderer.isWarm()).toBe(true);
    } finally {
      await renderer.close();
    }
  });

  it('a worker takes its first export only after its render processes are warm, and says ready after', async () => {
    const res = await fetch(`${api.url}/fiscal-document/v1/folios/export`, {
      method: 'POST',
      headers: propertyHeaders(env, { 'Content-Type': 'application/json', Prefer: 'respond-async' }),
      body: JSON.stringify(FAULT_SOURCE),
    });
    expect(res.status).toBe(202);
    const { exportId } = (await res.json()) as { exportId: string };

    // No worker yet: the export waits in the queue while the worker starts and warms up.
    worker = spawnTs('apps/worker/src/main.ts', [], env, { group: true });
    await waitForOutput(worker, /"msg":"worker ready"/, 60_000);
    const row = await until(async () => {
      const found = await pool.query<{ status: string; started_at: Date }>('SELECT status, started_at FROM exports WHERE id = $1', [exportId]);
      return found.rows[0]?.status === 'completed' ? found.rows[0] : undefined;
    }, 60_000, 'the export to complete');

    const messages = worker
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; exportId?: string });
    const warmAt = messages.findIndex((entry) => entry.msg === 'render processes warm');
    const readyAt = messages.findIndex((entry) => entry.msg === 'worker ready');
    const firstOfExport = messages.findIndex((entry) => entry.exportId === exportId);
    expect(warmAt).toBeGreaterThanOrEqual(0);
    expect(readyAt).toBeGreaterThan(warmAt);
    expect(firstOfExport).toBeGreaterThan(warmAt);
    const [warm] = logLines(worker, 'render processes warm') as Array<{ time: number; processes: number }>;
    expect(warm!.processes).toBe(2);
    // The job began (its row marked running) after the warm-up had ended.
    expect(row.started_at.getTime()).toBeGreaterThanOrEqual(warm!.time);
  });
});
