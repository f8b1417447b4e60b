// A throw-away Redis Cluster of three masters (no replicas) from the local `redis-server` binary,
// for the cluster test: each node on a free port in `dir`, no persistence. The slots are assigned
// by `redis-cli --cluster create` (shipped with Debian's redis-server package) or, without
// redis-cli, by CLUSTER ADDSLOTS / CLUSTER MEET sent by hand. Ready when every node says
// `cluster_state:ok` and knows all three masters.

import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { execFileAsync, findBinary, freePort, spawnQuiet, stopChild, waitFor } from './process-utils.js';
import { redisAnswers } from './redis-server.js';

/** A cluster startRedisCluster started, and how to stop it. */
export interface TRunningRedisCluster {
  /** redis+cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3 */
  url: string;
  ports: number[];
  stop(): Promise<void>;
}

export interface TRedisClusterOptions {
  /** Where the nodes keep their nodes-<port>.conf; a temp folder (removed at stop) when omitted. */
  dir?: string;
  /** Three client ports; each port + 10000 is its cluster bus port. Free ports when omitted. */
  ports?: number[];
  /** How the slots are assigned; `redis-cli` when it is installed, else `commands`. */
  create?: 'redis-cli' | 'commands';
  timeoutMs?: number;
}

const MASTERS = 3;
const SLOTS = 16_384;

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Free client ports whose cluster bus port (port + 10000, as every Redis version uses) is free too. */
async function clusterPorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let attempt = 0; ports.length < count; attempt += 1) {
    if (attempt > 200) throw new Error('no free ports for a Redis Cluster (port and port + 10000)');
    const port = await freePort();
    if (port + 10_000 > 65_535 || ports.includes(port) || ports.includes(port + 10_000) || ports.some((p) => p + 10_000 === port)) continue;
    if (await portIsFree(port + 10_000)) ports.push(port);
  }
  return ports;
}

async function clusterInfo(port: number): Promise<Record<string, string>> {
  const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, connectTimeout: 1_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const text = (await client.cluster('INFO')) as string;
    return Object.fromEntries(
      text
        .split(/\r?\n/)
        .filter((line) => line.includes(':'))
        .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
    );
  } finally {
    client.disconnect();
  }
}

/** Assigns a third of the slots to each node and introduces them, as redis-cli would. */
async function createWithCommands(ports: number[]): Promise<void> {
  const clients = ports.map((port) => new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 }));
  for (const client of clients) client.on('error', () => undefined);
  try {
    await Promise.all(
      clients.map((client, index) => {
        const first = Math.floor((SLOTS * index) / clients.length);
        const last = Math.floor((SLOTS * (index + 1)) / clients.length) - 1;
        const slots = Array.from({ length: last - first + 1 }, (_, i) => first + i);
        return client.cluster('ADDSLOTS', ...slots);
      }),
    );
    // Distinct config epochs, so no node has to win a collision round before the state is ok.
    await Promise.all(clients.map((client, index) => client.cluster('SET-CONFIG-EPOCH', index + 1)));
    for (const port of ports.slice(1)) await clients[0]!.cluster('MEET', '127.0.0.1', port);
  } finally {
    for (const client of clients) client.disconnect();
  }
}

export async function startRedisCluster(options: TRedisClusterOptions = {}): Promise<TRunningRedisCluster> {
  const binary = findBinary('redis-server');
  if (!binary) throw new Error('redis-server is not installed (Debian: apt-get install redis-server)');
  const cli = findBinary('redis-cli');
  const create = options.create ?? (cli ? 'redis-cli' : 'commands');
  if (create === 'redis-cli' && !cli) throw new Error('redis-cli is not installed (Debian: apt-get install redis-tools)');
  const timeoutMs = options.timeoutMs ?? 20_000;
  if (options.ports && options.ports.length !== MASTERS) throw new Error(`a Redis Cluster here has ${MASTERS} masters: give ${MASTERS} ports`);
  const ports = options.ports ?? (await clusterPorts(MASTERS));
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'folio-vault-cluster-'));
  mkdirSync(dir, { recursive: true });

  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(children.map((child) => stopChild(child)));
    if (ownDir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) {
      children.push(
        spawnQuiet(binary, [
          '--port', String(port),
          '--bind', '127.0.0.1',
          '--dir', dir,
          '--cluster-enabled', 'yes',
          '--cluster-config-file', `nodes-${port}.conf`,
          '--cluster-node-timeout', '5000',
          '--appendonly', 'no',
          '--save', '',
          '--daemonize', 'no',
        ]),
      );
    }
    await Promise.all(ports.map((port) => waitFor(() => redisAnswers(`redis://127.0.0.1:${port}`, 500), timeoutMs, `redis-server (cluster node) on port ${port}`)));

    const nodes = ports.map((port) => `127.0.0.1:${port}`);
    if (create === 'redis-cli') {
      await execFileAsync(cli!, ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes'], { timeout: timeoutMs });
    } else {
      await createWithCommands(ports);
    }

    const settled = async () => {
      const infos = await Promise.all(ports.map(clusterInfo));
      return infos.every(
        (info) => info.cluster_state === 'ok' && info.cluster_slots_assigned === String(SLOTS) && info.cluster_known_nodes === String(MASTERS) && info.cluster_size === String(MASTERS),
      );
    };
    await waitFor(settled, timeoutMs, 'the Redis Cluster (cluster_state:ok on every node)');
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `redis+cluster://${ports.map((port) => `127.0.0.1:${port}`).join(',')}`, ports, stop };
}
