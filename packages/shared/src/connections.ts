// Store clients: Redis connections by role, and the PostgreSQL pool. A
// `redis+cluster://host:port,host:port,…` URL (redis-url.ts) gives an ioredis Cluster with the
// same per-node options; REDIS_SENTINELS gives a client that finds the master through the
// Sentinels and follows a failover; BullMQ takes any of them. Every queue key carries the
// QUEUE_PREFIX hash tag ("{folio}"), so BullMQ's multi-key scripts stay in one slot of one master.

import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import pg from 'pg';
import { isRedisClusterUrl, parseRedisClusterUrl } from './redis-url.js';

/**
 * What a Redis connection is for; the roles' options differ on purpose:
 * - `worker` and `events` connections block (BRPOPLPUSH / XREAD), so BullMQ needs
 *   maxRetriesPerRequest: null on them;
 * - `producer` connections serve HTTP requests: they fail fast instead of queueing commands while
 *   Redis is away, so a request gets a 503 within its bound rather than hanging.
 */
export type TRedisRole = 'producer' | 'worker' | 'events';
export type TRedisClient = Redis | Cluster;

function roleOptions(role: TRedisRole): RedisOptions {
  return role === 'producer'
    ? { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000 }
    : { maxRetriesPerRequest: null, connectTimeout: 5_000 };
}

/**
 * Where the service's Redis is (the settings of that name): REDIS_URL, or with REDIS_SENTINELS the
 * master REDIS_SENTINEL_NAME that the Sentinels name, REDIS_URL then giving only the credentials,
 * the database and TLS.
 */
export interface TRedisTarget {
  REDIS_URL: string;
  REDIS_SENTINELS?: ReadonlyArray<{ host: string; port: number }> | undefined;
  REDIS_SENTINEL_NAME?: string | undefined;
}

/**
 * A write refused by a master that has just become a replica (a failover): the connection is
 * dropped and the command sent again, to the master the client finds anew.
 */
const reconnectOnReadOnly = (error: Error): 2 | false => (error.message.startsWith('READONLY') ? 2 : false);

/** ioredis options for a master found through Sentinels, with REDIS_URL's credentials, database and TLS. */
function sentinelOptions(target: TRedisTarget): RedisOptions {
  const url = new URL(target.REDIS_URL);
  const db = Number(url.pathname.slice(1) || 0);
  return {
    sentinels: target.REDIS_SENTINELS!.map(({ host, port }) => ({ host, port })),
    name: target.REDIS_SENTINEL_NAME!,
    // The Sentinels announce a failover (+switch-master) and the connection leaves the old master
    // at once: the old master stays writable until the Sentinels turn it into a replica (seconds
    // later), and what is written to it meanwhile is gone when it resyncs.
    failoverDetector: true,
    // The detector's own connections to the Sentinels have no error listener: a Sentinel that is
    // down would print ioredis's "Unhandled error event" at every retry. It is tried once per
    // (re)connection; the others' announcements still arrive.
    sentinelReconnectStrategy: () => null,
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(Number.isInteger(db) && db > 0 ? { db } : {}),
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * A Redis client for `role`. `extra` are per-connection options: on a cluster they go to every
 * node (`redisOptions`), and `clusterExtra` to the Cluster itself.
 */
export function createRedis(target: string | TRedisTarget, role: TRedisRole, extra: RedisOptions = {}, clusterExtra: ClusterOptions = {}): TRedisClient {
  const { REDIS_URL: url, REDIS_SENTINELS: sentinels } = typeof target === 'string' ? { REDIS_URL: target, REDIS_SENTINELS: undefined } : target;
  const base = { ...roleOptions(role), reconnectOnError: reconnectOnReadOnly };
  if (sentinels && sentinels.length > 0) return new Redis({ ...base, ...sentinelOptions(target as TRedisTarget), lazyConnect: false, ...extra });
  if (!isRedisClusterUrl(url)) return new Redis(url, { ...base, lazyConnect: false, ...extra });
  return new Cluster(...clusterArguments(url, { ...roleOptions(role), ...extra }, { lazyConnect: false, ...clusterExtra }));
}

/** Cluster seed nodes and options from a cluster URL; node options under `redisOptions`. */
export function clusterArguments(url: string, nodeOptions: RedisOptions, clusterOptions: ClusterOptions = {}): [Array<{ host: string; port: number }>, ClusterOptions] {
  const { nodes, username, password, tls } = parseRedisClusterUrl(url);
  // Per node: the cluster routes commands itself, the node connections always queue (ioredis
  // forces that); whether the *cluster* queues while it is not ready is its enableOfflineQueue.
  const { enableOfflineQueue, ...redisOptions } = nodeOptions;
  return [
    nodes,
    {
      ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
      ...clusterOptions,
      redisOptions: {
        ...redisOptions,
        ...(username ? { username } : {}),
        ...(password ? { password } : {}),
        ...(tls ? { tls: {} } : {}),
        ...clusterOptions.redisOptions,
      },
    },
  ];
}

/**
 * Readiness of a Redis client: a PONG from the server, or on a cluster a PONG from every master
 * (the cluster has to be connected; an empty node list is not "ready").
 */
export async function pingRedis(client: TRedisClient): Promise<void> {
  if (client instanceof Cluster) {
    if (client.status !== 'ready') throw new Error(`Redis Cluster is ${client.status}`);
    const masters = client.nodes('master');
    if (masters.length === 0) throw new Error('Redis Cluster has no master connected');
    await Promise.all(masters.map((node) => node.ping()));
    return;
  }
  await client.ping();
}

// BIGINT (int8) comes back as a string: int64 ids must not pass through a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => value);

/**
 * A PostgreSQL pool's time budgets (docs/operations.md#time-budgets). They travel as startup
 * parameters of every connection, so they hold for every query of the pool, in a transaction or
 * not, whoever runs it.
 */
export interface TPgBudget {
  /** statement_timeout: a statement running longer is cancelled (SQLSTATE 57014). */
  statementMs: number;
  /** lock_timeout: a wait for a lock longer than this fails (SQLSTATE 55P03). */
  lockMs: number;
  /** How long a query waits for a free pooled connection, or for a new one to connect. */
  poolWaitMs: number;
  /** idle_in_transaction_session_timeout: a transaction left open and idle this long is ended with its connection. */
  idleInTransactionMs: number;
  /**
   * max_parallel_workers_per_gather, when set: 0 keeps each statement on one server process. The
   * API's pool serves many properties' requests at once; a statement that fans out over parallel
   * workers takes the cores every other property's short statements wait for (docs/operations.md#a-database-share-per-property).
   */
  parallelWorkers?: number;
}

/** What pgBudgetOf reads: the settings of the API's pool and of a worker's. */
export interface TPgBudgetSettings {
  PG_STATEMENT_TIMEOUT_MS: number;
  PG_LOCK_TIMEOUT_MS: number;
  PG_POOL_WAIT_MS: number;
  WORKER_PG_STATEMENT_TIMEOUT_MS: number;
  WORKER_PG_LOCK_TIMEOUT_MS: number;
  WORKER_PG_POOL_WAIT_MS: number;
}

/**
 * The budgets of a role's pool. A transaction may sit idle between its statements while the code
 * does other work (a seal, a render step): twice the statement budget, so only one left open by
 * mistake is ended.
 */
export function pgBudgetOf(settings: TPgBudgetSettings, role: 'api' | 'worker'): TPgBudget {
  const [statementMs, lockMs, poolWaitMs] =
    role === 'api'
      ? [settings.PG_STATEMENT_TIMEOUT_MS, settings.PG_LOCK_TIMEOUT_MS, settings.PG_POOL_WAIT_MS]
      : [settings.WORKER_PG_STATEMENT_TIMEOUT_MS, settings.WORKER_PG_LOCK_TIMEOUT_MS, settings.WORKER_PG_POOL_WAIT_MS];
  const budget = { statementMs, lockMs, poolWaitMs, idleInTransactionMs: 2 * statementMs };
  return role === 'api' ? { ...budget, parallelWorkers: 0 } : budget;
}

/** node-postgres options for a budget: its timeouts are sent as startup parameters of each connection. */
function budgetOptions(budget: TPgBudget): pg.PoolConfig {
  return {
    statement_timeout: budget.statementMs,
    lock_timeout: budget.lockMs,
    idle_in_transaction_session_timeout: budget.idleInTransactionMs,
    connectionTimeoutMillis: budget.poolWaitMs,
    ...(budget.parallelWorkers === undefined ? {} : { options: `-c max_parallel_workers_per_gather=${budget.parallelWorkers}` }),
  };
}

/** Without a `budget` (the command-line scripts), no statement or lock bound. */
export function createPgPool(url: string, options: pg.PoolConfig & { budget?: TPgBudget } = {}): pg.Pool {
  const { budget, ...rest } = options;
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 3_000,
    idleTimeoutMillis: 30_000,
    ...(budget ? budgetOptions(budget) : {}),
    ...rest,
  });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  // Nor one checked out and between statements: node-postgres listens only on idle clients, and a
  // server's "terminating connection" (a restart, a failover, a stop) with no statement running is
  // an 'error' event. Every client of the pool keeps a listener; its next statement fails, and the
  // pool discards it on release as a client that cannot query.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** The bound of a readiness probe's own PostgreSQL connection: connect, statement and lock. */
export const PG_PROBE_MS = 800;

/**
 * Readiness of PostgreSQL on a connection of its own (a pool of one): a probe never waits behind
 * the service's pool, however many of its connections wait on a lock, and gives up within
 * PG_PROBE_MS. `SELECT 1` takes no lock a table's holder could keep from it. The connection is
 * opened at once and kept (no idle time-out), so a probe does not pay for a connect on a busy
 * server; one the server ends is replaced by the next probe.
 */
export function createPgProbe(url: string): { check(): Promise<void>; end(): Promise<void> } {
  const pool = createPgPool(url, {
    max: 1,
    idleTimeoutMillis: 0,
    budget: { statementMs: PG_PROBE_MS, lockMs: PG_PROBE_MS, poolWaitMs: PG_PROBE_MS, idleInTransactionMs: PG_PROBE_MS },
  });
  // A server that is away now is /readyz's to report, not the start's.
  pool.query('SELECT 1').catch(() => undefined);
  return {
    check: async () => void (await pool.query('SELECT 1')),
    end: () => pool.end(),
  };
}

/**
 * A pool as the code that queries uses it: statements, and a connection for a transaction. A
 * property's share of the API's pool is one too (db/property-share.ts); what opens and closes a
 * pool holds the pg.Pool itself.
 */
export interface TPgPool {
  query: pg.Pool['query'];
  connect(): Promise<pg.PoolClient>;
}

/** The pool itself (createPgPool): what watches, measures and ends it. */
export type TPgPoolHandle = pg.Pool;

/**
 * For BullMQ objects whose failures reach the process another way (a request's 503, /readyz, the
 * connection log): an `error` event without a listener would throw.
 */
export function quiet<T extends { on(event: 'error', listener: () => void): unknown }>(emitter: T): T {
  emitter.on('error', () => undefined);
  return emitter;
}
