import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import jwt from 'jsonwebtoken';
import pg from 'pg';
import { Cluster } from 'ioredis';
import { inject } from 'vitest';
import { startApi, type TRunningApi, type TStartApiOptions } from '@folio-vault/api/server';
import { loadConfig, type TAllConfig, type TWorkerConfig } from '@folio-vault/shared/config';
import { createRedis, type TRedisClient } from '@folio-vault/shared/connections';
import { createLogger, type Logger } from '@folio-vault/shared/logger';
import { startWorker, type TRunningWorker, type TStartWorkerOptions } from '@folio-vault/worker/worker';
import { RenderPool } from '@folio-vault/worker/exports/render-pool';
import { registerApiOrigin } from './openapi-answers.js';
import { worldPkcs11Env } from './softhsm.js';
import { parseKeyring } from '@folio-vault/shared/vault/crypto/keyring';
import { formatKeyring, publicKeysSetting } from '@folio-vault/shared/vault/crypto/transit';
import { jobVerifyKeysSetting, softwareJobSigner } from '@folio-vault/shared/vault/job-signature';

/**
 * One test file's own world: a database cloned from the migrated template, its own queue prefix in
 * the shared Redis, its own keys, and the real API (listening on a free port) and worker in this
 * process. Everything the service logs is kept in `logs` so tests can read (and scan) it.
 */
export interface TWorld {
  config: TAllConfig;
  env: Record<string, string>;
  api: TRunningApi;
  /** Base URL of the running API, for supertest: request(world.url). */
  url: string;
  worker?: TRunningWorker;
  logs: string[];
  logger: Logger;
  /** The database as its owner (what the migrations ran as): tests read and change anything with it. */
  ownerUrl: string;
  /** A pool of `ownerUrl`. */
  pool: pg.Pool;
  /** A Cluster when REDIS_URL is a redis+cluster:// URL. */
  redis: TRedisClient;
  databaseName: string;
  token(claims?: TTokenClaims, options?: jwt.SignOptions): string;
  close(): Promise<void>;
}

export interface TTokenClaims {
  properties?: Array<number | string>;
  scope?: string;
  sub?: string;
  [claim: string]: unknown;
}

const randomKey = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;

/**
 * A world's keys with the `local` provider; the API's public transit keys are the worker's, the
 * worker's public job keys the API's.
 */
export function testKeys(): Record<string, string> {
  const transit = randomKey('transit-1');
  const signingSeed = randomBytes(32);
  return {
    JWT_SECRET: randomBytes(48).toString('base64url'),
    VAULT_KEK_TEST: randomKey('test-kek-1'),
    VAULT_KEK_LIVE: randomKey('live-kek-1'),
    VAULT_FINGERPRINT_KEY: randomBytes(32).toString('base64'),
    EXPORT_LINK_KEY: randomBytes(32).toString('base64'),
    VAULT_TRANSIT_KEY: transit,
    VAULT_TRANSIT_PUBLIC_KEYS: publicKeysSetting(parseKeyring(transit)),
    VAULT_JOB_SIGNING_KEY: `job-signing-1:${signingSeed.toString('base64')}`,
    VAULT_JOB_VERIFY_KEYS: jobVerifyKeysSetting(softwareJobSigner('job-signing-1', signingSeed)),
  };
}

/** A new database name of this test run (global teardown drops every one). */
export function testDatabaseName(): string {
  return `${inject('databasePrefix')}${randomBytes(6).toString('hex')}`;
}

export async function createDatabase(): Promise<{ name: string; url: string }> {
  const postgresUrl = inject('postgresUrl');
  const name = testDatabaseName();
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  try {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('templateDb')}`);
        break;
      } catch (error) {
        // Two files cloning the template at the same instant: PostgreSQL refuses one; try again.
        if (attempt >= 20 || !/being accessed by other users/.test((error as Error).message)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
      }
    }
  } finally {
    await admin.end();
  }
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

/**
 * The render processes of this fork's workers (startTestWorker). The files of a fork run one after
 * another in one process (vitest.config.ts, isolate: false), so this module, and the pool, lives as
 * long as the fork: each new render process loads React-PDF and the fonts and compiles its drawing
 * code, seconds of CPU that a pool per worker paid again in every file that exports
 * (docs/operations.md#tests). A render process keeps nothing of a document once it has drawn it.
 * The pool starts its processes on the first export of any worker; they end with the fork
 * (render-child.ts exits when its channel closes). Built as a default worker's (EXPORT_CONCURRENCY
 * 2, a process kept for on-demand exports), without metrics.
 */
let forkRenderPool: RenderPool | undefined;
const FORK_RENDER_PROCESSES = 2;

/**
 * A worker in this process as the test worlds run theirs: its render processes are the fork's
 * (forkRenderPool), started on the first export rather than warmed first (worker.ts,
 * warmRenderProcesses), so a worker that never exports costs none. A worker configured with another
 * EXPORT_CONCURRENCY, or `renderProcesses: 'own'` (one whose render metrics a test reads), has a
 * pool of its own.
 */
export function startTestWorker(
  config: TWorkerConfig,
  logger: Logger,
  options: Omit<TStartWorkerOptions, 'renderer' | 'warmRenderProcesses'> & { renderProcesses?: 'fork' | 'own' } = {},
): Promise<TRunningWorker> {
  const { renderProcesses = 'fork', ...rest } = options;
  const shared = renderProcesses === 'fork' && config.EXPORT_CONCURRENCY === FORK_RENDER_PROCESSES;
  const renderer = shared ? (forkRenderPool ??= new RenderPool(FORK_RENDER_PROCESSES, { frontDesk: true })) : undefined;
  return startWorker(config, logger, { ...rest, warmRenderProcesses: false, ...(renderer ? { renderer } : {}) });
}

/** A world's worker is a startTestWorker: the fork's render processes, started on its first export. */
export async function createWorld(
  options: {
    env?: Record<string, string>;
    worker?: boolean;
    keys?: 'local' | 'pkcs11';
    api?: Pick<TStartApiOptions, 'webhookResolver' | 'jobSigner'>;
    /** `own`: the worker's render pool is its own (its render metrics), not the fork's (startTestWorker). */
    renderProcesses?: 'fork' | 'own';
  } = {},
): Promise<TWorld> {
  const database = await createDatabase();
  // With `pkcs11` the worker's keys are in a SoftHSM2 token (support/softhsm.ts) and the world has
  // no local vault key; the API seals to the worker's public transit keys and, unless given a
  // signer of its own, signs its jobs with the token's job signing key.
  const keys = testKeys();
  const keyEnv = options.keys === 'pkcs11' ? { ...worldPkcs11Env(), JWT_SECRET: keys.JWT_SECRET!, EXPORT_LINK_KEY: keys.EXPORT_LINK_KEY! } : keys;
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'debug',
    REDIS_URL: inject('redisUrl'),
    DATABASE_URL: database.url,
    QUEUE_PREFIX: `{fvt-${randomBytes(4).toString('hex')}}`,
    STORAGE_DIR: `/tmp/folio-vault-test-${randomBytes(4).toString('hex')}`,
    TOKENIZE_WAIT_MS: '10000',
    SHUTDOWN_GRACE_MS: '5000',
    ...keyEnv,
    ...options.env,
  };
  let config = loadConfig(env);
  const logs: string[] = [];
  const logger = createLogger({
    level: config.LOG_LEVEL,
    destination: new Writable({
      write(chunk: Buffer, _encoding, callback) {
        logs.push(chunk.toString('utf8'));
        callback();
      },
    }),
  });
  const worker = options.worker === false ? undefined : await startTestWorker(config, logger, { renderProcesses: options.renderProcesses ?? 'fork' });
  if (!config.VAULT_TRANSIT_PUBLIC_KEYS && worker) {
    env.VAULT_TRANSIT_PUBLIC_KEYS = formatKeyring(worker.transitPublicKeys);
    config = loadConfig(env);
  }
  // With keys in a token or components, the job keys are the provider's own signing key's.
  if (!config.VAULT_JOB_VERIFY_KEYS && worker?.jobSigner) {
    env.VAULT_JOB_VERIFY_KEYS = jobVerifyKeysSetting(worker.jobSigner);
    config = loadConfig(env);
  }
  const api = await startApi(config, logger, { ...options.api, port: 0 });
  // Its answers are checked against /openapi.json (support/validate-answers.ts).
  await registerApiOrigin(`http://127.0.0.1:${api.port}`);
  const pool = new pg.Pool({ connectionString: database.url, max: 3 });
  const redis = createRedis(config, 'worker', { maxRetriesPerRequest: 3 });

  return {
    config,
    env,
    api,
    url: `http://127.0.0.1:${api.port}`,
    worker,
    logs,
    logger,
    ownerUrl: database.url,
    pool,
    redis,
    databaseName: database.name,
    token(claims = {}, signOptions = {}) {
      const { properties = [1], scope = 'read:payment write:payment', sub = 'tester', ...rest } = claims;
      return jwt.sign({ scope, property_ids: properties, ...rest }, config.JWT_SECRET!, {
        algorithm: 'HS256',
        expiresIn: 300,
        subject: sub,
        issuer: config.JWT_ISSUER,
        audience: config.JWT_AUDIENCE,
        ...signOptions,
      });
    },
    async close() {
      await api.close();
      await worker?.close();
      await pool.end();
      // Leave the shared Redis as we found it: remove this file's queue keys (on a cluster, SCAN
      // runs per master).
      for (const node of redis instanceof Cluster ? redis.nodes('master') : [redis]) {
        const stream = node.scanStream({ match: `${config.QUEUE_PREFIX}*`, count: 500 });
        for await (const keys of stream as AsyncIterable<string[]>) if (keys.length) await node.del(...keys);
      }
      redis.disconnect();
    },
  };
}
