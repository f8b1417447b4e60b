// Fault tests: private servers that a test may stop and start again on the same port
// and data folder without disturbing any other test file, and the API and worker as real
// processes (each in its own process group, so a SIGKILL reaches everything it started).

import { randomBytes } from 'node:crypto';
import { mkdtempSync, chmodSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster } from 'ioredis';
import jwt from 'jsonwebtoken';
import pg from 'pg';
import { createRedis } from '@folio-vault/shared/connections';
import { migrate } from '@folio-vault/shared/db/migrate';
import { importRecords, recordsOfDocument } from '@folio-vault/shared/ledger/batch-import';
import { S3RVER_CREDENTIALS } from '@folio-vault/dev-services/s3-server';
import { freePort } from '@folio-vault/dev-services/process-utils';
import { startPostgresServer } from '@folio-vault/dev-services/postgres-server';
import { startRedisServer, type TRunningService } from '@folio-vault/dev-services/redis-server';
import { spawnTs, waitForOutput, type TSpawned } from '@folio-vault/test-kit/processes';
import { testKeys } from './world.js';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it answers a value, or fails naming `what` once `timeoutMs` have passed. */
export async function until<T>(check: () => Promise<T | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await sleep(100);
  }
}

function scratchDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `fv-faults-${name}-`));
  // PostgreSQL runs as its own user when we are root and must get in.
  chmodSync(dir, 0o755);
  return dir;
}

/** A server the test stops and starts again: same port, same data folder. */
export interface TRestartable {
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it (when running) and removes its folder. */
  remove(): Promise<void>;
}

function restartable(url: string, port: number, dir: string, launch: () => Promise<TRunningService | { stop(): Promise<void> }>): TRestartable {
  let running: { stop(): Promise<void> } | undefined;
  return {
    url,
    port,
    async start() {
      running = await launch();
    },
    async stop() {
      await running?.stop();
      running = undefined;
    },
    async remove() {
      await running?.stop().catch(() => undefined);
      running = undefined;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** redis-server with AOF on, so jobs queued before a shutdown are still there after the restart. */
export async function privateRedis(): Promise<TRestartable> {
  const port = await freePort();
  const dir = scratchDir('redis');
  const server = restartable(`redis://127.0.0.1:${port}`, port, dir, () => startRedisServer({ dir, port, appendOnly: true }));
  await server.start();
  return server;
}

/** A PostgreSQL cluster of its own (initdb once), with a migrated `folio_vault` database; `url` names it. */
export async function privatePostgres(): Promise<TRestartable> {
  const port = await freePort();
  const dir = scratchDir('pg');
  const server = restartable(`postgres://postgres@127.0.0.1:${port}/folio_vault`, port, dir, () =>
    startPostgresServer({ dir: join(dir, 'data'), port, durable: false }),
  );
  await server.start();
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query('CREATE DATABASE folio_vault');
  await admin.end();
  await migrate(server.url);
  return server;
}

/** s3rver in a process of its own (faults-s3-server.ts): stopping it is a real SIGKILL. */
export async function privateS3(): Promise<TRestartable & { env: Record<string, string> }> {
  const port = await freePort();
  const dir = scratchDir('s3');
  const server = restartable(`http://127.0.0.1:${port}`, port, dir, async () => {
    const spawned = spawnTs('test/support/faults-s3-server.ts', [dir, String(port)], {}, { group: true });
    await waitForOutput(spawned, /s3 ready/, 30_000);
    return {
      stop: async () => {
        spawned.kill('SIGKILL');
        await spawned.exited;
      },
    };
  });
  await server.start();
  return {
    ...server,
    env: {
      STORAGE_DRIVER: 'minio',
      MINIO_ENDPOINT: server.url,
      MINIO_ACCESS_KEY: S3RVER_CREDENTIALS.accessKey,
      MINIO_SECRET_KEY: S3RVER_CREDENTIALS.secretKey,
      MINIO_BUCKET: `fv-faults-${randomBytes(4).toString('hex')}`,
    },
  };
}

/** The settings of a fault test's service: its own keys, queue prefix and storage folder. */
export function faultEnv(settings: { REDIS_URL: string; DATABASE_URL: string } & Record<string, string>): Record<string, string> {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    QUEUE_PREFIX: `{fvt-${randomBytes(4).toString('hex')}}`,
    STORAGE_DIR: join(tmpdir(), `folio-vault-faults-${randomBytes(4).toString('hex')}`),
    SHUTDOWN_GRACE_MS: '3000',
    // One render process: each one a worker starts draws its warm-up document first, seconds of CPU
    // the rest of the suite waits for, and the faults here need no more than one.
    EXPORT_CONCURRENCY: '1',
    ...testKeys(),
    ...settings,
  };
}

export function signToken(env: Record<string, string>, properties: number[] = [1], scope = 'read:payment write:payment'): string {
  return jwt.sign({ scope, property_ids: properties }, env.JWT_SECRET!, {
    algorithm: 'HS256',
    expiresIn: 600,
    subject: 'fault-tester',
    issuer: 'folio-vault',
    audience: 'folio-vault',
  });
}

export interface TApiProcess {
  url: string;
  process: TSpawned;
}

/** `npm run start:api` as a real process on a free port. */
/** An export's status as the fault tests read it. */
export interface TFaultExportStatus {
  exportId: string;
  status: string;
  error?: string;
  size?: number;
  sha256?: string;
}

/** Headers of a request for property 1 with a fresh token for `env`. */
export function propertyHeaders(env: Record<string, string>, extra: Record<string, string> = {}): Record<string, string> {
  return { Authorization: `Bearer ${signToken(env)}`, 'X-Property-Id': '1', ...extra };
}

/**
 * The API as a real process, its npm script's entry point run without the tsx CLI in front (spawnTs
 * `direct`): a SIGTERM reaches the script itself, which tsx would SIGKILL when slow to acknowledge
 * the relayed signal on a loaded machine — a test would then see tsx's doing, not the service's.
 */
export async function startApiProcess(env: Record<string, string>): Promise<TApiProcess> {
  const port = await freePort();
  const spawned = spawnTs('apps/api/src/main.ts', [], { ...env, PORT: String(port) }, { group: true, direct: true });
  await waitForOutput(spawned, /api listening/, 60_000);
  return { url: `http://127.0.0.1:${port}`, process: spawned };
}

/** The worker as a real process, as startApiProcess runs the API. */
export async function startWorkerProcess(env: Record<string, string>): Promise<TSpawned> {
  const spawned = spawnTs('apps/worker/src/main.ts', [], env, { group: true, direct: true });
  await waitForOutput(spawned, /worker ready/, 60_000);
  return spawned;
}

/** Ends a process group for good (tests' afterAll): SIGKILL, then wait for it. */
export async function killGroup(spawned: TSpawned | undefined): Promise<void> {
  if (!spawned || spawned.child.exitCode !== null || spawned.child.signalCode !== null) return;
  spawned.kill('SIGKILL');
  await spawned.exited;
}

/** The JSON log lines of a process with this message. */
export function logLines(spawned: TSpawned, msg: string): Array<Record<string, unknown>> {
  return spawned
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes(`"msg":"${msg}"`))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export const FAULT_SOURCE = { sourceKind: 'RESERVATION', sourceId: '7001' } as const;

/** Property 1 with one reservation (FAULT_SOURCE) whose one folio holds `rows` charges: an export to render. */
export async function importFaultLedger(pool: pg.Pool, rows: number): Promise<void> {
  const folio = { id: 701, sourceKind: FAULT_SOURCE.sourceKind, sourceId: Number(FAULT_SOURCE.sourceId) };
  const transactions = Array.from({ length: rows }, (_, i) => {
    const at = new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString();
    return {
      id: 70_000 + i, folioId: folio.id, sourceKind: folio.sourceKind, sourceId: folio.sourceId, transactionDatetime: at, serviceDate: at.slice(0, 10),
      internalTransactionCode: 'MINI', internalCodeGroup: 'ITEM_SERVICE', originId: '301', description: `Minibar item ${i + 1}`, quantity: 1, amount: '3.50',
      currency: 'EUR', posted: true,
    };
  });
  await importRecords(pool, '1', recordsOfDocument({
    property: { id: 1, name: 'Fault Hotel', currency: 'EUR', timezone: 'Europe/Madrid', gatewayMode: 'test', language: 'en' },
    folios: [{ ...folio, name: 'Guest' }],
    transactions,
  }));
}

/** Leaves a shared Redis as the test found it: its queue keys go (on a cluster, SCAN per master). */
export async function removeQueueKeys(redisUrl: string, prefix: string): Promise<void> {
  const redis = createRedis(redisUrl, 'worker', { maxRetriesPerRequest: 3 });
  try {
    for (const node of redis instanceof Cluster ? redis.nodes('master') : [redis]) {
      const stream = node.scanStream({ match: `${prefix}*`, count: 500 });
      for await (const keys of stream as AsyncIterable<string[]>) if (keys.length) await node.del(...keys);
    }
  } finally {
    redis.disconnect();
  }
}
