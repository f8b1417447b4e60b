import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@folio-vault/shared/config';
import { clusterArguments, createRedis } from '@folio-vault/shared/connections';
import { isRedisClusterUrl, parseRedisClusterUrl } from '@folio-vault/shared/redis-url';

/**
 * Settings for a Redis Cluster (docs/settings.md): QUEUE_PREFIX must be a hash tag, REDIS_URL may name
 * the cluster's seed nodes as redis+cluster://…, and createRedis turns that into an ioredis Cluster
 * with the role's options on every node. No server needed (test/redis-cluster.test.ts runs one).
 */
function requiredKeys(): Record<string, string> {
  return {
    JWT_SECRET: randomBytes(48).toString('base64url'),
    VAULT_KEK_TEST: `test-kek-1:${randomBytes(32).toString('base64')}`,
    VAULT_KEK_LIVE: `live-kek-1:${randomBytes(32).toString('base64')}`,
    VAULT_FINGERPRINT_KEY: randomBytes(32).toString('base64'),
    EXPORT_LINK_KEY: randomBytes(32).toString('base64'),
    VAULT_TRANSIT_KEY: `transit-1:${randomBytes(32).toString('base64')}`,
    VAULT_JOB_SIGNING_KEY: `job-signing-1:${randomBytes(32).toString('base64')}`,
  };
}

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig({ ...requiredKeys(), ...env });
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
}

const NODES = '127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002';

describe('QUEUE_PREFIX', () => {
  it.each(['folio', 'folio:{eu}', '{}folio', '{}', ' {folio}'])('refuses %j (not starting with a hash tag) with one line', (prefix) => {
    const problems = problemsOf({ QUEUE_PREFIX: prefix });
    expect(problems).toEqual(['QUEUE_PREFIX: must start with a Redis Cluster hash tag such as "{folio}"']);
    expect(problems[0]).not.toContain('\n');
  });

  it.each(['{folio}', '{folio-eu}', '{fvt-1a2b}:staging'])('accepts %j', (prefix) => {
    expect(loadConfig({ ...requiredKeys(), QUEUE_PREFIX: prefix }).QUEUE_PREFIX).toBe(prefix);
  });
});

describe('REDIS_URL for a cluster', () => {
  it.each([`redis+cluster://${NODES}`, `redis+cluster://:s3cret@${NODES}`, `rediss+cluster://user:pw@cache.internal:6380,cache-2.internal:6380/`, 'redis+cluster://[::1]:7000'])(
    'accepts %s',
    (url) => {
      expect(loadConfig({ ...requiredKeys(), REDIS_URL: url }).REDIS_URL).toBe(url);
    },
  );

  it.each([
    ['no nodes', 'redis+cluster://', /no nodes given/],
    ['an empty node', 'redis+cluster://127.0.0.1:7000,,127.0.0.1:7002', /node 2 is empty/],
    ['a port out of range', 'redis+cluster://127.0.0.1:7000,127.0.0.1:70000', /node 2 "127\.0\.0\.1:70000" has a port outside 1-65535/],
    ['not host:port', 'redis+cluster://127.0.0.1:7000,127.0.0.1:x', /node 2 "127\.0\.0\.1:x" is not host:port/],
    ['a database number', `redis+cluster://${NODES}/3`, /database 0 only/],
    ['a password on a later node', 'redis+cluster://:pw@127.0.0.1:7000,:pw2@127.0.0.1:7001', /only the first node/],
  ])('refuses %s with one line that does not echo the password', (_name, url, message) => {
    const problems = problemsOf({ REDIS_URL: url });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^REDIS_URL: must be redis\+cluster:\/\/host:port,host:port,…/);
    expect(problems[0]).toMatch(message);
    expect(problems[0]).not.toContain('\n');
    expect(problems[0]).not.toContain('pw');
  });

  it('still refuses other schemes, naming the cluster form too', () => {
    expect(problemsOf({ REDIS_URL: 'http://x' })).toEqual([
      'REDIS_URL: must be a URL starting with redis:// or rediss:// (or redis+cluster://host:port,host:port,… for a Redis Cluster)',
    ]);
  });
});

describe('parseRedisClusterUrl', () => {
  it('reads seed nodes, credentials (percent-decoded) and TLS', () => {
    expect(isRedisClusterUrl(`redis+cluster://${NODES}`)).toBe(true);
    expect(isRedisClusterUrl('redis://127.0.0.1:6379')).toBe(false);
    expect(parseRedisClusterUrl(`redis+cluster://${NODES}`)).toEqual({
      nodes: [{ host: '127.0.0.1', port: 7000 }, { host: '127.0.0.1', port: 7001 }, { host: '127.0.0.1', port: 7002 }],
      username: undefined,
      password: undefined,
      tls: false,
    });
    expect(parseRedisClusterUrl('rediss+cluster://ops:p%40ss@redis-a,[::1]:7001')).toEqual({
      nodes: [{ host: 'redis-a', port: 6379 }, { host: '::1', port: 7001 }],
      username: 'ops',
      password: 'p@ss',
      tls: true,
    });
    expect(parseRedisClusterUrl('redis+cluster://s3cret@h:1').password).toBe('s3cret');
  });
});

describe('createRedis on a cluster URL', () => {
  it('gives a Cluster with the role options on every node and the password there too', () => {
    const [nodes, producer] = clusterArguments(`redis+cluster://:s3cret@${NODES}`, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000 });
    expect(nodes).toHaveLength(3);
    // Fail fast: the cluster itself does not queue commands while it is not ready.
    expect(producer.enableOfflineQueue).toBe(false);
    expect(producer.redisOptions).toEqual({ maxRetriesPerRequest: 1, connectTimeout: 2_000, password: 's3cret' });

    const client = createRedis(`redis+cluster://${NODES}`, 'worker', {}, { lazyConnect: true });
    try {
      expect(client).toBeInstanceOf(Cluster);
      const options = (client as Cluster).options;
      // BullMQ reads maxRetriesPerRequest of a Cluster from redisOptions: null for blocking roles.
      expect(options.redisOptions).toMatchObject({ maxRetriesPerRequest: null, connectTimeout: 5_000 });
      expect(options.enableOfflineQueue).toBe(true);
    } finally {
      client.disconnect();
    }
  });

  it('gives a plain Redis client for redis:// as before', () => {
    const client = createRedis('redis://127.0.0.1:6379', 'producer', { lazyConnect: true });
    try {
      expect(client).toBeInstanceOf(Redis);
      expect((client as Redis).options).toMatchObject({ maxRetriesPerRequest: 1, enableOfflineQueue: false });
    } finally {
      client.disconnect();
    }
  });
});
