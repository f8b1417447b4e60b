import { afterEach, describe, expect, inject, it } from 'vitest';
import { faultEnv, killGroup, logLines, privatePostgres, privateRedis, removeQueueKeys, startApiProcess, startWorkerProcess, until, type TRestartable } from './support/faults.js';
import type { TSpawned } from '@folio-vault/test-kit/processes';
import { createDatabase } from './support/world.js';

/**
 * SIGTERM ends the API and the worker within SHUTDOWN_GRACE_MS plus a few seconds also when a store
 * is gone at that moment (docs/operations.md#stopping): real processes on a private redis-server or PostgreSQL
 * that the test stops first. With Redis gone BullMQ's QueueEvents and Worker close wait for it to
 * come back; the processes give up on them (each close step is bounded) and say which did not close.
 * A liveness check: the bound is generous, the measured times are printed. The processes run
 * without the tsx CLI in front (startApiProcess): the test measures the service's shutdown, not tsx's.
 */
const GRACE_MS = 3_000;
/** The steps after the grace add at most 8 s (packages/shared/src/shutdown.ts, docs/settings.md: SHUTDOWN_GRACE_MS); a loaded machine adds to it. */
const MARGIN_MS = 10_000;
// The measured times go to the CI log (the one place this file prints).
// eslint-disable-next-line no-console
const report = (line: string) => console.log(line);

let api: { url: string; process: TSpawned } | undefined;
let worker: TSpawned | undefined;
let store: TRestartable | undefined;

afterEach(async () => {
  await Promise.all([killGroup(api?.process), killGroup(worker)]);
  await store?.remove();
  api = worker = store = undefined;
});

async function startBoth(env: Record<string, string>): Promise<void> {
  await Promise.all([startApiProcess(env).then((started) => (api = started)), startWorkerProcess(env).then((started) => (worker = started))]);
}

/** /readyz answers 503 naming `check`: the API has noticed the store is gone. */
async function noticed(check: 'redis' | 'postgres'): Promise<void> {
  await until(async () => {
    const res = await fetch(`${api!.url}/readyz`);
    const body = (await res.json()) as { checks?: Record<string, string> };
    return res.status === 503 && body.checks?.[check] === 'unavailable';
  }, 15_000, `/readyz naming ${check}`);
}

/** SIGTERM to each process; ms until each has exited, and its exit code. */
async function terminate(processes: Record<string, TSpawned>): Promise<Record<string, { ms: number; code: number | string }>> {
  const started = performance.now();
  const ended = await Promise.all(
    Object.entries(processes).map(async ([name, spawned]) => {
      spawned.child.kill('SIGTERM');
      const code = await spawned.exited;
      return [name, { ms: Math.round(performance.now() - started), code }] as const;
    }),
  );
  return Object.fromEntries(ended);
}

/** The close steps each process has (apps/api/src/api-resources.ts, server.ts; apps/worker/src/worker-shutdown.ts). */
const API_STEPS = /^(http connections|vault queue events|forward queue events|export queue events|queue [a-z-]+|flow producer|postgresql probe|postgresql pool)$/;
const WORKER_STEPS = /^(health server|bullmq workers|render pool|flow producer|gateway clients|key provider|postgresql pool)$/;

/** The names the process's "did not close in time" line gives; [] when it has none. */
function notClosed(spawned: TSpawned): string[] {
  const lines = logLines(spawned, 'shutdown: did not close in time, exiting anyway');
  return lines.flatMap((line) => line.notClosed as string[]);
}

/** Both processes ended cleanly within the grace plus the margin, each saying "stopped" once. */
function expectBoundedExit(ended: Awaited<ReturnType<typeof terminate>>, store: string): void {
  report(`shutdown with ${store} gone (grace ${GRACE_MS} ms): api exited after ${ended.api!.ms} ms, worker after ${ended.worker!.ms} ms`);
  for (const which of ['api', 'worker'] as const) {
    const output = (which === 'api' ? api!.process : worker!).output();
    expect(ended[which]!.code, `${which} exit code; its output:\n${output.slice(-4000)}`).toBe(0);
    expect(ended[which]!.ms).toBeLessThan(GRACE_MS + MARGIN_MS);
  }
  for (const spawned of [api!.process, worker!]) expect(logLines(spawned, 'stopped')).toHaveLength(1);
}

describe('SIGTERM with a store gone', () => {
  it('ends the API and the worker within the grace period plus a margin when Redis is gone', { timeout: 120_000 }, async () => {
    store = await privateRedis();
    const database = await createDatabase();
    const env = faultEnv({ REDIS_URL: store.url, DATABASE_URL: database.url, SHUTDOWN_GRACE_MS: String(GRACE_MS) });
    await startBoth(env);
    await store.stop();
    await noticed('redis');

    const ended = await terminate({ api: api!.process, worker: worker! });
    expectBoundedExit(ended, 'redis');
    // Whether a BullMQ close hangs on the lost connection or fails at once depends on where its
    // reconnect loop stands, so the steps left behind vary from run to run; each one named must be
    // a step the process has.
    for (const name of notClosed(api!.process)) expect(name).toMatch(API_STEPS);
    for (const name of notClosed(worker!)) expect(name).toMatch(WORKER_STEPS);
  });

  it('ends the API and the worker within the grace period plus a margin when PostgreSQL is gone', { timeout: 120_000 }, async () => {
    store = await privatePostgres();
    const env = faultEnv({ REDIS_URL: inject('redisUrl'), DATABASE_URL: store.url, SHUTDOWN_GRACE_MS: String(GRACE_MS) });
    try {
      await startBoth(env);
      await store.stop();
      await noticed('postgres');

      const ended = await terminate({ api: api!.process, worker: worker! });
      expectBoundedExit(ended, 'postgres');
    } finally {
      await removeQueueKeys(inject('redisUrl'), env.QUEUE_PREFIX!);
    }
  });
});
