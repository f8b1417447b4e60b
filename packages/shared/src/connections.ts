import { Redis, type RedisOptions } from 'ioredis';
import pg from 'pg';

/**
 * Store clients. Roles differ on purpose:
 * - `worker` and `events` connections block (BRPOPLPUSH / XREAD), so BullMQ needs
 *   maxRetriesPerRequest: null on them;
 * - `producer` connections serve HTTP requests: they fail fast instead of queueing commands while
 *   Redis is away, so a request gets a 503 within its bound rather than hanging.
 */
export type TRedisRole = 'producer' | 'worker' | 'events';

export function createRedis(url: string, role: TRedisRole, extra: RedisOptions = {}): Redis {
  const base: RedisOptions =
    role === 'producer'
      ? { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000 }
      : { maxRetriesPerRequest: null, connectTimeout: 5_000 };
  return new Redis(url, { ...base, lazyConnect: false, ...extra });
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
