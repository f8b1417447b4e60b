// A throw-away Redis with Sentinel from the local `redis-server` binary, for the production test:
// a master, one replica and one Sentinel (`redis-server <conf> --sentinel`) watching them under a
// master name, each on a free port in `dir`. `failover()` asks the Sentinel to promote the replica
// (SENTINEL FAILOVER) and resolves on the Sentinel's own `+switch-master` announcement.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { findBinary, freePort, spawnQuiet, stopChild, waitFor } from './process-utils.js';
import { redisAnswers } from './redis-server.js';

export interface TRunningRedisSentinel {
  masterName: string;
  /** The Sentinel's port (REDIS_SENTINELS=127.0.0.1:<port>). */
  sentinelPort: number;
  /** The ports of the two data nodes, the first the master at start. */
  ports: [number, number];
  /** The port of the node the Sentinel names master now. */
  masterPort(): Promise<number>;
  /** Promotes the replica; resolves with the new master's port once the Sentinel announces the switch. */
  failover(): Promise<number>;
  stop(): Promise<void>;
}

const client = (port: number) => new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });

async function replicationInfo(port: number): Promise<string> {
  const redis = client(port);
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await redis.info('replication');
  } finally {
    redis.disconnect();
  }
}

export async function startRedisSentinel(options: { dir?: string; masterName?: string; timeoutMs?: number } = {}): Promise<TRunningRedisSentinel> {
  const binary = findBinary('redis-server');
  if (!binary) throw new Error('redis-server is not installed (Debian: apt-get install redis-server)');
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'fv-sentinel-'));
  const masterName = options.masterName ?? 'folio';
  const timeoutMs = options.timeoutMs ?? 15_000;
  const [masterPort, replicaPort, sentinelPort] = [await freePort(), await freePort(), await freePort()];
  const children: ChildProcess[] = [];
  const node = (port: number, extra: string[]) => {
    const nodeDir = join(dir, String(port));
    mkdirSync(nodeDir, { recursive: true });
    children.push(spawnQuiet(binary, ['--port', String(port), '--bind', '127.0.0.1', '--dir', nodeDir, '--save', '', '--appendonly', 'no', ...extra]));
  };
  const stop = async () => {
    await Promise.all(children.map((child) => stopChild(child)));
    if (!options.dir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    node(masterPort, []);
    node(replicaPort, ['--replicaof', '127.0.0.1', String(masterPort)]);
    await waitFor(async () => (await replicationInfo(replicaPort)).includes('master_link_status:up'), timeoutMs, `the replica on port ${replicaPort}`);
    // The Sentinel rewrites its configuration file as it learns the replica and the failovers.
    const conf = join(dir, 'sentinel.conf');
    writeFileSync(
      conf,
      [
        `port ${sentinelPort}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${masterName} 127.0.0.1 ${masterPort} 1`,
        `sentinel down-after-milliseconds ${masterName} 2000`,
        `sentinel failover-timeout ${masterName} 10000`,
        '',
      ].join('\n'),
    );
    children.push(spawnQuiet(binary, [conf, '--sentinel']));
    await waitFor(() => redisAnswers(`redis://127.0.0.1:${sentinelPort}`, 500), timeoutMs, `the Sentinel on port ${sentinelPort}`);
    // SENTINEL FAILOVER needs a replica the Sentinel knows (it learns it from the master's INFO).
    await waitFor(
      async () => {
        const sentinel = client(sentinelPort);
        sentinel.on('error', () => undefined);
        try {
          await sentinel.connect();
          const replicas = (await sentinel.call('SENTINEL', 'REPLICAS', masterName)) as string[][];
          return replicas.some((fields) => fields.includes(String(replicaPort)) && fields[fields.indexOf('flags') + 1] === 'slave');
        } finally {
          sentinel.disconnect();
        }
      },
      timeoutMs,
      'the Sentinel to know the replica',
    );
  } catch (error) {
    await stop();
    throw error;
  }

  const masterPortNow = async () => {
    const sentinel = client(sentinelPort);
    try {
      await sentinel.connect();
      const [, port] = (await sentinel.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName)) as [string, string];
      return Number(port);
    } finally {
      sentinel.disconnect();
    }
  };

  return {
    masterName,
    sentinelPort,
    ports: [masterPort, replicaPort],
    masterPort: masterPortNow,
    async failover() {
      const subscriber = client(sentinelPort);
      await subscriber.connect();
      try {
        const switched = new Promise<number>((resolve) => {
          // "+switch-master <name> <old ip> <old port> <new ip> <new port>"
          subscriber.on('message', (_channel: string, message: string) => {
            const parts = message.split(' ');
            if (parts[0] === masterName) resolve(Number(parts[4]));
          });
        });
        await subscriber.subscribe('+switch-master');
        const asker = client(sentinelPort);
        await asker.connect();
        await asker.call('SENTINEL', 'FAILOVER', masterName).finally(() => asker.disconnect());
        let timer: NodeJS.Timeout | undefined;
        const bound = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no +switch-master within ${timeoutMs} ms`)), timeoutMs);
        });
        return await Promise.race([switched, bound]).finally(() => clearTimeout(timer));
      } finally {
        subscriber.disconnect();
      }
    },
    stop,
  };
}
