import { describe, expect, it } from 'vitest';
import { budgetLine, redisHosts, sharedFolderWarning } from '@folio-vault/shared/deployment-checks';

/**
 * The start-up lines of docs/production.md that need no server: the folder driver beside a Redis
 * other machines reach, and the connection budget's wording (test/production.test.ts checks both
 * budget lines against a real PostgreSQL).
 */
describe('sharedFolderWarning', () => {
  const settings = (redis: { REDIS_URL: string; REDIS_SENTINELS?: Array<{ host: string; port: number }> }, driver = 'fs') => ({
    STORAGE_DRIVER: driver,
    STORAGE_DIR: './.data/objects',
    ...redis,
  });

  it('says nothing for a Redis on this machine, or for S3/MinIO', () => {
    for (const url of ['redis://127.0.0.1:6379', 'redis://localhost:6379/2', 'redis://[::1]:6379', 'redis+cluster://127.0.0.1:7000,127.0.0.2:7001']) {
      expect(sharedFolderWarning(settings({ REDIS_URL: url })), url).toBeUndefined();
    }
    expect(sharedFolderWarning(settings({ REDIS_URL: 'redis://10.0.0.21:6379' }, 'minio'))).toBeUndefined();
    expect(sharedFolderWarning(settings({ REDIS_URL: 'redis://10.0.0.21:6379', REDIS_SENTINELS: [{ host: '127.0.0.1', port: 26379 }] }))).toBeUndefined();
  });

  it('warns in one line for the folder driver with a Redis host, Cluster node or Sentinel other machines reach', () => {
    const line = (host: string) =>
      `storage: STORAGE_DRIVER=fs (./.data/objects) with a Redis other machines can reach (${host}): a worker on another machine ` +
      'writes exports where this one does not read them; on several machines use STORAGE_DRIVER=minio, or one folder every process mounts';
    expect(sharedFolderWarning(settings({ REDIS_URL: 'redis://:secret@redis.internal:6379' }))).toBe(line('redis.internal'));
    expect(sharedFolderWarning(settings({ REDIS_URL: 'redis+cluster://127.0.0.1:7000,10.0.0.22:7001' }))).toBe(line('10.0.0.22'));
    expect(sharedFolderWarning(settings({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_SENTINELS: [{ host: 'fd00::7', port: 26379 }] }))).toBe(line('fd00::7'));
  });

  it('reads the hosts of a URL, a Cluster or the Sentinels, and never the URL\'s host beside Sentinels', () => {
    expect(redisHosts({ REDIS_URL: 'rediss://user:pw@[fd00::1]:6380/1' })).toEqual(['fd00::1']);
    expect(redisHosts({ REDIS_URL: 'redis://10.0.0.9:6379', REDIS_SENTINELS: [{ host: 's1', port: 26379 }, { host: 's2', port: 26379 }] })).toEqual(['s1', 's2']);
  });
});

describe('budgetLine', () => {
  const server = { max: 100, reserved: 3, usable: 97 };

  it('is an info line up to what the server leaves, a warning past it', () => {
    expect(budgetLine({ perApi: 11, perWorker: 17, apis: 2, workers: 3, total: 73 }, server)).toEqual({
      level: 'info',
      line: 'postgres connections: the fleet holds up to 73 (2 API processes × 11 + 3 workers × 17 (FLEET_API_PROCESSES, FLEET_WORKER_PROCESSES)) of max_connections 100 less 3 reserved = 97',
    });
    expect(budgetLine({ perApi: 11, perWorker: 16, apis: 1, workers: 6, total: 97 }, server).level).toBe('info');
    expect(budgetLine({ perApi: 11, perWorker: 17, apis: 1, workers: 6, total: 113 }, server)).toEqual({
      level: 'warn',
      line:
        'postgres connections: the fleet holds up to 113 (1 API process × 11 + 6 workers × 17 (FLEET_API_PROCESSES, FLEET_WORKER_PROCESSES)), more than ' +
        'max_connections 100 less 3 reserved = 97; raise max_connections, lower PG_POOL_SIZE or WORKER_CONCURRENCY, or put a pooler in front (docs/production.md#postgresql)',
    });
  });
});
