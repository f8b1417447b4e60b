// One place that finds Redis, PostgreSQL and an S3 server (docs/operations.md#tests), used by the
// tests and by `npm start`:
//   1. URLs in the environment;
//   2. a reachable Docker engine → testcontainers (tests only);
//   3. local binaries (redis-server, initdb/pg_ctl, s3rver) started on this machine;
//   4. otherwise one clear message naming what to install.
// `npm start` (persistent mode) uses what answers at the configured or default URLs. A PostgreSQL
// that answers there but refuses the login (Debian's `postgresql` package asks for a password) is
// left alone: with DATABASE_URL unset, one of our own runs in the data folder on a free port (one
// line says so); with DATABASE_URL set, the start stops with one line saying what to set.

import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL } from '@folio-vault/shared/config';
import { isRedisClusterUrl, parseRedisClusterUrl } from '@folio-vault/shared/redis-url';
import { commandLine, execFileAsync, freePort, isAlive, stopPid } from './process-utils.js';
import { adoptPostgresServer, lastPostgresPort, postgresAnswer, runningPostgres, startPostgresServer } from './postgres-server.js';
import { adoptRedisServer, redisAnswers, runningRedis, startRedisServer, type TRunningService } from './redis-server.js';
import { S3RVER_CREDENTIALS, startS3Server } from './s3-server.js';
import { devSoftHsmToken } from './softhsm.js';

/** What provisioning found: the settings to use, where each service came from, and how to stop what it started. */
export interface TProvisioned {
  /** Settings to merge into the environment (REDIS_URL, DATABASE_URL, MINIO_*). */
  env: Record<string, string>;
  /** How each service was found, for one log line. */
  sources: Record<string, string>;
  stop(): Promise<void>;
}

export interface TProvisionOptions {
  env: NodeJS.ProcessEnv;
  need: { redis?: boolean; postgres?: boolean; s3?: boolean };
  /**
   * `ephemeral` (tests): servers on free ports in a temp folder, removed at stop.
   * `persistent` (npm start): the configured URL is used when it answers, otherwise a server is
   * started on that URL's port with its data in `dataDir`, kept across restarts.
   */
  mode: 'ephemeral' | 'persistent';
  dataDir?: string;
  log?: (line: string) => void;
  /** The URL tried when the environment has no DATABASE_URL: the settings' default (a test points it at a server of its own). */
  defaultDatabaseUrl?: string;
}

export async function dockerReachable(): Promise<boolean> {
  // `docker --version` answers with no engine behind it: ask the engine itself, briefly.
  try {
    await execFileAsync('docker', ['info', '--format', '{{.ServerVersion}}'], { timeout: 3_000 });
    return true;
  } catch {
    return false;
  }
}

function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || host === '[::1]';
}

function withDatabase(serverUrl: string, databaseUrl: string): string {
  const url = new URL(serverUrl);
  url.pathname = new URL(databaseUrl).pathname;
  return url.toString();
}

/**
 * `npm start`'s local mode (scripts/start.ts, scripts/demo.ts; passed to bootstrap): Redis and
 * PostgreSQL at the configured or default URLs, started on those ports with their data in
 * `dataDir` (./.data) when nothing answers there; and a SoftHSM2 token in `dataDir`/softhsm when
 * pkcs11 keys are asked for without a token.
 */
export function startLocalServices(dataDir = '.data') {
  return async (env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<TProvisioned> => {
    const services = await provisionServices({ env, mode: 'persistent', dataDir, need: { redis: true, postgres: true }, log });
    // With VAULT_KEY_PROVIDER=pkcs11 and no token configured: a development one (softhsm.ts).
    return { ...services, env: { ...services.env, ...devSoftHsmToken(env, dataDir, log) } };
  };
}

/**
 * In persistent mode, the pid of the process whose local servers run from the data folder, kept in
 * this file while it runs them. A live one other than this process (an `npm start` beside
 * `npm run demo`) keeps them: they are used, neither taken over nor stopped. With none, a server
 * still running from the folder was left by a start that was killed before it could stop it.
 */
const OWNER_FILE = 'services.pid';

function liveOwner(dataDir: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(join(dataDir, OWNER_FILE), 'utf8').trim());
  } catch {
    return undefined;
  }
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid) && /node/.test(commandLine(pid)) ? pid : undefined;
}

/** A server this run started or took over: how it is named in the log, and how it stops. */
interface TStarted {
  label: string;
  service: TRunningService;
}

/** What one provisioning run has found and started so far, shared by the three services' steps. */
interface TRun {
  options: TProvisionOptions;
  useDocker: boolean;
  scratch(name: string): string;
  /** Whether servers left in the data folder by an earlier start are looked for (persistent mode, no live owner). */
  leftovers: boolean;
  started: TStarted[];
  env: Record<string, string>;
  sources: Record<string, string>;
  problems: string[];
  /** Settings that cannot work (a login the server refuses): the start stops with these lines, as for a bad setting. */
  settingProblems: string[];
}

export async function provisionServices(options: TProvisionOptions): Promise<TProvisioned> {
  let tempDir: string | undefined;
  const dataDir = options.dataDir ?? '.data';
  const run: TRun = {
    options,
    useDocker: options.mode === 'ephemeral' && (await dockerReachable()),
    scratch: (name) => {
      if (options.mode === 'persistent') return join(dataDir, name);
      if (!tempDir) {
        tempDir = mkdtempSync(join(tmpdir(), 'folio-vault-'));
        // mkdtemp makes it 0700; PostgreSQL runs as its own user when we are root and must get in.
        chmodSync(tempDir, 0o755);
      }
      return join(tempDir, name);
    },
    leftovers: options.mode === 'persistent' && liveOwner(dataDir) === undefined,
    started: [],
    env: {},
    sources: {},
    problems: [],
    settingProblems: [],
  };
  const ownerFile = join(dataDir, OWNER_FILE);
  const stop = async () => {
    for (const { label, service } of [...run.started].reverse()) {
      await service.stop().catch(() => undefined);
      options.log?.(`stopped ${label}`);
    }
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    if (options.mode === 'persistent' && run.started.length > 0) rmSync(ownerFile, { force: true });
  };

  try {
    if (options.need.redis) await provideRedis(run);
    if (options.need.postgres) await providePostgres(run);
    if (options.need.s3) await provideS3(run);
  } catch (error) {
    run.problems.push((error as Error).message);
  }

  if (run.settingProblems.length > 0) {
    await stop();
    throw new ConfigError(run.settingProblems);
  }
  if (run.problems.length > 0) {
    await stop();
    throw new Error(
      `Cannot provide the services Folio Vault needs: ${run.problems.join('; ')}. ` +
        'Set REDIS_URL / DATABASE_URL / MINIO_ENDPOINT to running servers, start Docker, ' +
        'or install the local servers (Debian: apt-get install redis-server postgresql).',
    );
  }
  if (options.mode === 'persistent' && run.started.length > 0) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(ownerFile, `${process.pid}\n`);
  }
  options.log?.(`services: ${Object.entries(run.sources).map(([name, source]) => `${name} from ${source}`).join(', ')}`);
  return { env: run.env, sources: run.sources, stop };
}

async function provideRedis(run: TRun): Promise<void> {
  const { options, env, sources, problems } = run;
  const configured = options.env.REDIS_URL;
  if (configured && options.mode === 'ephemeral') {
    sources.redis = 'REDIS_URL';
  } else if (run.useDocker) {
    const container = await startContainer('redis:7-alpine', 6379, {}, ['redis-server', '--appendonly', 'yes']);
    run.started.push({ label: 'Redis container', service: container.service });
    env.REDIS_URL = `redis://${container.host}:${container.port}`;
    sources.redis = 'testcontainers';
  } else {
    const url = configured ?? DEFAULT_REDIS_URL;
    const port = Number(new URL(url).port || 6379);
    const left = run.leftovers ? runningRedis(run.scratch('redis')) : undefined;
    if (left && left.port === port && isLoopback(url)) {
      run.started.push({ label: `local redis-server on port ${port}`, service: adoptRedisServer(left.pid, port) });
      env.REDIS_URL = url;
      sources.redis = `local redis-server on port ${port} (taken over)`;
      options.log?.(`redis-server left running in ${run.scratch('redis')} by an earlier start (pid ${left.pid}): taken over, it stops with this service`);
      return;
    }
    if (left) {
      await stopPid(left.pid);
      options.log?.(`redis-server left running in ${run.scratch('redis')} by an earlier start (pid ${left.pid}, port ${left.port}, not ${port}): stopped`);
    }
    if (options.mode === 'persistent' && (await redisAnswers(url))) {
      sources.redis = url === configured ? 'REDIS_URL' : 'default URL';
    } else if (isRedisClusterUrl(url)) {
      // A cluster is run by its operators; `npm start` does not start one of its own.
      problems.push(`Redis Cluster does not answer at ${parseRedisClusterUrl(url).nodes.map((n) => `${n.host}:${n.port}`).join(',')}`);
    } else if (options.mode === 'persistent' && !isLoopback(url)) {
      problems.push(`Redis does not answer at ${url}`);
    } else {
      const serverPort = options.mode === 'persistent' ? port : await freePort();
      const service = await startRedisServer({ dir: run.scratch('redis'), port: serverPort, appendOnly: options.mode === 'persistent' });
      run.started.push({ label: `local redis-server on port ${serverPort}`, service });
      env.REDIS_URL = service.url;
      sources.redis = `local redis-server on port ${serverPort}`;
    }
  }
}

async function providePostgres(run: TRun): Promise<void> {
  const { options, env, sources, problems } = run;
  const configured = options.env.DATABASE_URL;
  if (configured && options.mode === 'ephemeral') {
    sources.postgres = 'DATABASE_URL';
  } else if (run.useDocker) {
    const container = await startContainer('postgres:16-alpine', 5432, { POSTGRES_HOST_AUTH_METHOD: 'trust' });
    run.started.push({ label: 'PostgreSQL container', service: container.service });
    env.DATABASE_URL = `postgres://postgres@${container.host}:${container.port}/postgres`;
    sources.postgres = 'testcontainers';
  } else {
    const url = configured ?? options.defaultDatabaseUrl ?? DEFAULT_DATABASE_URL;
    const port = Number(new URL(url).port || 5432);
    const left = run.leftovers ? runningPostgres(run.scratch('postgres')) : undefined;
    if (left && left.port === port && isLoopback(url)) {
      await takeOverPostgres(run, left, url);
      return;
    }
    const answer = options.mode === 'persistent' ? await postgresAnswer(url) : { kind: 'none' as const };
    if (answer.kind === 'refuses') {
      const { host, username, password } = new URL(url);
      const login = `user ${decodeURIComponent(username) || 'postgres'} ${password ? 'with its password' : 'without a password'}`;
      if (configured || !isLoopback(url)) {
        run.settingProblems.push(
          `DATABASE_URL: PostgreSQL at ${host} refuses its login, ${login} (${answer.reason}): set a user and password it accepts ` +
            `(postgres://USER:PASSWORD@${host}/folio_vault), or leave DATABASE_URL unset for a PostgreSQL of our own in ${run.scratch('postgres')}`,
        );
        return;
      }
      await ownPostgresBeside(run, url, left);
      options.log?.(
        `PostgreSQL at ${host} refuses the default login, ${login} (${answer.reason}): running our own in ${run.scratch('postgres')} ` +
          `on port ${new URL(env.DATABASE_URL!).port} instead (DATABASE_URL=${env.DATABASE_URL} for the other commands); ` +
          `to use the one at ${host}, set DATABASE_URL to a login it accepts`,
      );
      return;
    }
    if (left) {
      await (await adoptPostgresServer({ dir: run.scratch('postgres'), port: left.port })).stop();
      options.log?.(`PostgreSQL left running in ${run.scratch('postgres')} by an earlier start (pid ${left.pid}, port ${left.port}, not ${port}): stopped`);
    }
    if (answer.kind === 'accepts') {
      sources.postgres = url === configured ? 'DATABASE_URL' : 'default URL';
    } else if (options.mode === 'persistent' && !isLoopback(url)) {
      problems.push(`PostgreSQL does not answer at ${new URL(url).host}`);
    } else {
      const serverPort = options.mode === 'persistent' ? port : await freePort();
      const service = await startPostgresServer({ dir: run.scratch('postgres'), port: serverPort, durable: options.mode === 'persistent' });
      run.started.push({ label: `local PostgreSQL on port ${serverPort}`, service });
      env.DATABASE_URL = options.mode === 'persistent' ? withDatabase(service.url, url) : service.url;
      sources.postgres = `local PostgreSQL on port ${serverPort}`;
    }
  }
}

/** A PostgreSQL an earlier start left running in the data folder (it was killed): this run stops it at the end. */
async function takeOverPostgres(run: TRun, left: { pid: number; port: number }, url: string): Promise<void> {
  const service = await adoptPostgresServer({ dir: run.scratch('postgres'), port: left.port });
  run.started.push({ label: `local PostgreSQL on port ${left.port}`, service });
  run.env.DATABASE_URL = withDatabase(service.url, url);
  run.sources.postgres = `local PostgreSQL on port ${left.port} (taken over)`;
  run.options.log?.(`PostgreSQL left running in ${run.scratch('postgres')} by an earlier start (pid ${left.pid}): taken over, it stops with this service`);
}

/**
 * Our own PostgreSQL in the data folder beside one that refuses the default login, on a port of its
 * own: the one an earlier start left there (taken over), the one a live `npm start` runs there
 * (used, it stays that start's), or a new one, on the port it had last time when that is free (so
 * a DATABASE_URL set for the other commands keeps working), else on a free one.
 */
async function ownPostgresBeside(run: TRun, url: string, left: { pid: number; port: number } | undefined): Promise<void> {
  if (left) {
    await takeOverPostgres(run, left, url);
    return;
  }
  const owned = runningPostgres(run.scratch('postgres'));
  if (owned) {
    run.env.DATABASE_URL = withDatabase(`postgres://postgres@127.0.0.1:${owned.port}/postgres`, url);
    run.sources.postgres = `local PostgreSQL on port ${owned.port}`;
    return;
  }
  const serverPort = await freePort(lastPostgresPort(run.scratch('postgres')));
  const service = await startPostgresServer({ dir: run.scratch('postgres'), port: serverPort, durable: true });
  run.started.push({ label: `local PostgreSQL on port ${serverPort}`, service });
  run.env.DATABASE_URL = withDatabase(service.url, url);
  run.sources.postgres = `local PostgreSQL on port ${serverPort}`;
}

async function provideS3(run: TRun): Promise<void> {
  const { options, env, sources } = run;
  if (options.env.MINIO_ENDPOINT) {
    sources.s3 = 'MINIO_ENDPOINT';
  } else if (run.useDocker) {
    const container = await startContainer('minio/minio:latest', 9000, { MINIO_ROOT_USER: 'minioadmin', MINIO_ROOT_PASSWORD: 'minioadmin' }, ['server', '/data']);
    run.started.push({ label: 'MinIO container', service: container.service });
    Object.assign(env, { MINIO_ENDPOINT: `http://${container.host}:${container.port}`, MINIO_ACCESS_KEY: 'minioadmin', MINIO_SECRET_KEY: 'minioadmin' });
    sources.s3 = 'testcontainers (MinIO)';
  } else {
    const port = await freePort();
    const service = await startS3Server({ dir: run.scratch('s3'), port });
    run.started.push({ label: `local s3rver on port ${port}`, service });
    Object.assign(env, { MINIO_ENDPOINT: service.url, MINIO_ACCESS_KEY: S3RVER_CREDENTIALS.accessKey, MINIO_SECRET_KEY: S3RVER_CREDENTIALS.secretKey });
    sources.s3 = `local s3rver on port ${port}`;
  }
}

async function startContainer(
  image: string,
  port: number,
  environment: Record<string, string>,
  command?: string[],
): Promise<{ host: string; port: number; service: TRunningService }> {
  const { GenericContainer, Wait } = await import('testcontainers');
  let definition = new GenericContainer(image).withExposedPorts(port).withEnvironment(environment);
  if (command) definition = definition.withCommand(command);
  if (image.startsWith('postgres')) definition = definition.withWaitStrategy(Wait.forLogMessage(/ready to accept connections/, 2));
  const container = await definition.start();
  return {
    host: container.getHost(),
    port: container.getMappedPort(port),
    service: { url: '', stop: async () => void (await container.stop()) },
  };
}
