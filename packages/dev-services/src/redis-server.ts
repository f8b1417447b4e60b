import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { clusterArguments, pingRedis } from '@folio-vault/shared/connections';
import { isRedisClusterUrl } from '@folio-vault/shared/redis-url';
import { commandLine, findBinary, isAlive, spawnQuiet, stopChild, stopPid, waitFor } from './process-utils.js';

export interface TRunningService {
  url: string;
  stop(): Promise<void>;
}

/** Whether Redis answers at `url`; for a `redis+cluster://` URL, whether every master of a ready cluster does. */
export async function redisAnswers(url: string, timeoutMs = 1_000): Promise<boolean> {
  const client = isRedisClusterUrl(url)
    ? new Cluster(...clusterArguments(url, { connectTimeout: timeoutMs, maxRetriesPerRequest: 0 }, { lazyConnect: true, clusterRetryStrategy: () => null }))
    : new Redis(url, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  let timer: NodeJS.Timeout | undefined;
  try {
    // A cluster whose state never turns ok keeps connect() pending; the bound keeps this a yes/no.
    const bound = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no answer')), timeoutMs * 3);
    });
    await Promise.race([client.connect().then(() => pingRedis(client)), bound]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}

const PIDFILE = 'redis.pid';

/**
 * A redis-server still running from `dir` (its pidfile names a live redis-server): its pid and port
 * (redis-server titles its process `redis-server 127.0.0.1:<port>`), or undefined.
 */
export function runningRedis(dir: string): { pid: number; port: number } | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(join(dir, PIDFILE), 'utf8').trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid < 1 || !isAlive(pid)) return undefined;
  const title = /redis-server\s+\S*:(\d+)/.exec(commandLine(pid));
  return title ? { pid, port: Number(title[1]) } : undefined;
}

/** The redis-server `pid` (runningRedis) at `port`, to be stopped like one this process started. */
export function adoptRedisServer(pid: number, port: number): TRunningService {
  return { url: `redis://127.0.0.1:${port}`, stop: () => stopPid(pid) };
}

/** A redis-server child process in `dir`; AOF on when the data should survive a restart. */
export async function startRedisServer(options: { dir: string; port: number; appendOnly: boolean }): Promise<TRunningService> {
  const binary = findBinary('redis-server');
  if (!binary) throw new Error('redis-server is not installed (Debian: apt-get install redis-server)');
  mkdirSync(options.dir, { recursive: true });
  const child = spawnQuiet(binary, [
    '--port', String(options.port),
    '--bind', '127.0.0.1',
    '--dir', options.dir,
    '--save', '',
    '--appendonly', options.appendOnly ? 'yes' : 'no',
    '--daemonize', 'no',
    // Read by runningRedis: a server an earlier start left is found by it.
    '--pidfile', resolve(options.dir, PIDFILE),
  ]);
  const url = `redis://127.0.0.1:${options.port}`;
  try {
    await waitFor(() => redisAnswers(url, 500), 10_000, `redis-server on port ${options.port}`);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { url, stop: () => stopChild(child) };
}
