// Store clients: Redis connections by role, and the PostgreSQL pool. A
// `redis+cluster://host:port,host:port,…` URL (redis-url.ts) gives an ioredis Cluster with the
// same per-node options; BullMQ takes either. Every queue key carries the QUEUE_PREFIX hash tag
// ("{folio}"), so BullMQ's multi-key scripts stay in one slot of one master.

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
 * `extra` are per-connection options: on a cluster they go to every node (`redisOptions`), and
 * `clusterExtra` to the Cluster itself.
 */
export function createRedis(url: string, role: TRedisRole, extra: RedisOptions = {}, clusterExtra: ClusterOptions = {}): TRedisClient {
  const base = roleOptions(role);
  if (!isRedisClusterUrl(url)) return new Redis(url, { ...base, lazyConnect: false, ...extra });
  return new Cluster(...clusterArguments(url, { ...base, ...extra }, { lazyConnect: false, ...clusterExtra }));
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

export function createPgPool(url: string, options: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 3_000,
    idleTimeoutMillis: 30_000,
    ...options,
  });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  return pool;
}

export type TPgPool = pg.Pool;

/**
 * For BullMQ objects whose failures reach the process another way (a request's 503, /readyz, the
 * connection log): an `error` event without a listener would throw.
 */
export function quiet<T extends { on(event: 'error', listener: () => void): unknown }>(emitter: T): T {
  emitter.on('error', () => undefined);
  return emitter;
}
