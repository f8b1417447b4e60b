// What a process checks at start about the machines around it (docs/production.md), rather than
// fail later: Redis must never evict (BullMQ's jobs are keys like any other: an evicted job is a
// lost one), a folder for exports is shared only by processes that see the same folder, and the
// fleet's PostgreSQL connections must fit the server's max_connections. bootstrap.ts runs them
// after the settings and the migrations; a refusal is one line and exit code 2, as a bad setting.

import { isIP } from 'node:net';
import pg from 'pg';
import { Cluster, type Redis } from 'ioredis';
import type { TConnectionBudget } from './connection-budget.js';
import { createRedis, type TRedisClient, type TRedisTarget } from './connections.js';
import { isRedisClusterUrl, parseRedisClusterUrl } from './redis-url.js';
import { within } from './within.js';

/** What a check found: lines to log (info or warning) and, when the start must stop, the one line that says why. */
export interface TCheckOutcome {
  info: string[];
  warnings: string[];
  refusal?: string;
}

const REDIS_CHECK_MS = 5_000;

/** A node's maxmemory-policy: from CONFIG GET, or INFO memory when CONFIG is renamed or denied; or why neither answered. */
export async function evictionPolicyOf(node: Redis): Promise<{ policy: string; via: 'CONFIG GET' | 'INFO memory' } | { policy: undefined; reason: string }> {
  let configError: string;
  try {
    const answer = (await node.call('CONFIG', 'GET', 'maxmemory-policy')) as string[];
    const at = answer.indexOf('maxmemory-policy');
    if (at >= 0 && answer[at + 1]) return { policy: answer[at + 1]!, via: 'CONFIG GET' };
    configError = 'no maxmemory-policy in its answer';
  } catch (error) {
    configError = (error as Error).message;
  }
  try {
    const info = await node.info('memory');
    const policy = /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
    if (policy) return { policy, via: 'INFO memory' };
    return { policy: undefined, reason: `CONFIG GET: ${configError}; INFO memory: no maxmemory_policy` };
  } catch (error) {
    return { policy: undefined, reason: `CONFIG GET: ${configError}; INFO memory: ${(error as Error).message}` };
  }
}

function nodeName(node: Redis): string {
  return `${node.options.host ?? '127.0.0.1'}:${node.options.port ?? 6379}`;
}

/**
 * maxmemory-policy on the master (every master of a Cluster, the one the Sentinels name): anything
 * but `noeviction` refuses the start; a policy that cannot be read (CONFIG and INFO both refused)
 * is a warning saying so.
 */
export async function checkRedisEviction(client: TRedisClient): Promise<TCheckOutcome> {
  const nodes = client instanceof Cluster ? (client.nodes('master') as Redis[]) : [client];
  const outcome: TCheckOutcome = { info: [], warnings: [] };
  for (const node of nodes) {
    const found = await evictionPolicyOf(node);
    const where = client instanceof Cluster ? ` on ${nodeName(node)}` : '';
    if (found.policy === undefined) {
      outcome.warnings.push(`redis: maxmemory-policy could not be checked${where} (${found.reason}); it must be noeviction, or Redis may evict queued jobs`);
    } else if (found.policy !== 'noeviction') {
      outcome.refusal ??=
        `redis: maxmemory-policy is ${found.policy}${where}; BullMQ needs noeviction, or Redis evicts queued jobs when memory runs short ` +
        '(CONFIG SET maxmemory-policy noeviction, and the same in redis.conf)';
    } else {
      outcome.info.push(`redis: maxmemory-policy noeviction${where} (${found.via})`);
    }
  }
  return outcome;
}

/** Connects to the process's Redis (URL, Cluster or Sentinels) for the eviction check, bounded; no answer is a warning, not a refusal. */
export async function checkRedisAtStart(target: TRedisTarget): Promise<TCheckOutcome> {
  const client = createRedis(target, 'producer', { lazyConnect: true, enableOfflineQueue: true, connectTimeout: 2_000, maxRetriesPerRequest: 1 }, { lazyConnect: true });
  client.on('error', () => undefined);
  try {
    return await within(
      client.connect().then(() => checkRedisEviction(client)),
      REDIS_CHECK_MS,
    );
  } catch (error) {
    return { info: [], warnings: [`redis: maxmemory-policy not checked (${(error as Error).message}); it must be noeviction`] };
  } finally {
    client.disconnect();
  }
}

const isLoopback = (host: string) => host === 'localhost' || (isIP(host) === 4 && host.startsWith('127.')) || host === '::1';

/** The hosts of the process's Redis: the URL's, a Cluster's seed nodes, or the Sentinels'. */
export function redisHosts(target: TRedisTarget): string[] {
  if (target.REDIS_SENTINELS && target.REDIS_SENTINELS.length > 0) return target.REDIS_SENTINELS.map((node) => node.host);
  if (isRedisClusterUrl(target.REDIS_URL)) return parseRedisClusterUrl(target.REDIS_URL).nodes.map((node) => node.host);
  return [new URL(target.REDIS_URL).hostname.replace(/^\[|\]$/g, '')];
}

/**
 * The folder driver with a Redis that other machines reach: a job queued by one machine may run on
 * another, which does not see the folder the file was written to (or is to be read from). One
 * warning; a single machine whose processes share the folder is right to use it.
 */
export function sharedFolderWarning(settings: TRedisTarget & { STORAGE_DRIVER: string; STORAGE_DIR: string }): string | undefined {
  if (settings.STORAGE_DRIVER !== 'fs') return undefined;
  const remote = redisHosts(settings).filter((host) => !isLoopback(host));
  if (remote.length === 0) return undefined;
  return (
    `storage: STORAGE_DRIVER=fs (${settings.STORAGE_DIR}) with a Redis other machines can reach (${remote[0]}): a worker on another machine ` +
    'writes exports where this one does not read them; on several machines use STORAGE_DRIVER=minio, or one folder every process mounts'
  );
}

/** Connections PostgreSQL leaves to ordinary roles: max_connections less the reserved ones. */
export async function usableConnections(url: string): Promise<{ max: number; reserved: number; usable: number }> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ max: number; superuser: number; reserved: string | null }>(
      `SELECT current_setting('max_connections')::int AS max,
              current_setting('superuser_reserved_connections')::int AS superuser,
              current_setting('reserved_connections', true) AS reserved`,
    );
    const row = rows[0]!;
    const reserved = row.superuser + Number(row.reserved ?? 0);
    return { max: row.max, reserved, usable: row.max - reserved };
  } finally {
    await client.end();
  }
}

/** The line for a budget against the server's connections: info when it fits, a warning when it does not. */
export function budgetLine(budget: TConnectionBudget, server: { max: number; reserved: number; usable: number }): { level: 'info' | 'warn'; line: string } {
  const sum =
    `${budget.apis} API process${budget.apis === 1 ? '' : 'es'} × ${budget.perApi} + ${budget.workers} worker${budget.workers === 1 ? '' : 's'} × ${budget.perWorker}` +
    ' (FLEET_API_PROCESSES, FLEET_WORKER_PROCESSES)';
  const limit = `max_connections ${server.max} less ${server.reserved} reserved = ${server.usable}`;
  if (budget.total <= server.usable) return { level: 'info', line: `postgres connections: the fleet holds up to ${budget.total} (${sum}) of ${limit}` };
  return {
    level: 'warn',
    line:
      `postgres connections: the fleet holds up to ${budget.total} (${sum}), more than ${limit}; raise max_connections, ` +
      'lower PG_POOL_SIZE or WORKER_CONCURRENCY, or put a pooler in front (docs/production.md#postgresql)',
  };
}

/** The budget against the server the process connects to; a server that does not answer is a warning. */
export async function checkConnectionBudget(url: string, budget: TConnectionBudget): Promise<TCheckOutcome> {
  try {
    const line = budgetLine(budget, await usableConnections(url));
    return line.level === 'info' ? { info: [line.line], warnings: [] } : { info: [], warnings: [line.line] };
  } catch (error) {
    return { info: [], warnings: [`postgres connections: not checked (${(error as Error).message})`] };
  }
}
