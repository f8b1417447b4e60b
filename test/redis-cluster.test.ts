import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Queue } from 'bullmq';
import { Cluster, type Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { checkRedisAtStart } from '@folio-vault/shared/deployment-checks';
import { startRedisCluster, type TRunningRedisCluster } from '@folio-vault/dev-services/redis-cluster';
import { cardBody } from '@folio-vault/test-kit/cards';
import { createWorld, type TWorld } from './support/world.js';

/**
 * The API and workers on a Redis Cluster (docs/settings.md): three masters started from the
 * local redis-server binary, REDIS_URL=redis+cluster://…, and a night-audit batch (a BullMQ flow
 * across two queues), a tokenize and a folio export through it. Then the proof that the
 * QUEUE_PREFIX hash tag is what makes it work: every queue key sits in the one slot of the tag,
 * while other keys spread over the three masters, and an un-tagged prefix is refused (CROSSSLOT).
 */
let cluster: TRunningRedisCluster;
let world: TWorld;
let redis: Cluster;

const tx = (id: number, sourceKind: string, sourceId: number, folioId: number, when: string, description: string) => ({
  id, folioId, sourceKind, sourceId, transactionDatetime: when, serviceDate: when.slice(0, 10), internalTransactionCode: '1000',
  internalCodeGroup: sourceKind === 'HOUSE_ACCOUNT' ? 'ITEM_SERVICE' : 'ROOM_REVENUE_RATE', description, quantity: 1, amount: '25.00', currency: 'EUR', posted: true,
});

/** Business date 2026-11-21 in Lisbon (UTC+0 in November): three sources have a row on it. */
const LEDGER = {
  property: { id: 1, name: 'Hotel Cluster', currency: 'EUR', timezone: 'Europe/Lisbon', gatewayMode: 'test', language: 'en' },
  folios: [
    { id: 31, sourceKind: 'RESERVATION', sourceId: 3100, name: 'First guest' },
    { id: 32, sourceKind: 'RESERVATION', sourceId: 3200, name: 'Second guest' },
    { id: 33, sourceKind: 'RESERVATION', sourceId: 3300, name: 'Third guest' },
    { id: 39, sourceKind: 'HOUSE_ACCOUNT', sourceId: 3900, name: 'Pool bar' },
  ],
  transactions: [
    tx(1, 'RESERVATION', 3100, 31, '2026-11-20T15:00:00Z', 'Night one'),
    tx(2, 'RESERVATION', 3100, 31, '2026-11-21T15:00:00Z', 'Night two'),
    tx(3, 'RESERVATION', 3200, 32, '2026-11-21T09:00:00Z', 'Early arrival'),
    tx(4, 'RESERVATION', 3300, 33, '2026-11-21T23:30:00Z', 'Late arrival'),
    tx(5, 'HOUSE_ACCOUNT', 3900, 39, '2026-11-21T12:00:00Z', 'Cocktails'),
    tx(6, 'HOUSE_ACCOUNT', 3900, 39, '2026-11-22T12:00:00Z', 'Next day drinks'),
  ],
};
const SOURCES = ['HOUSE_ACCOUNT-3900', 'RESERVATION-3100', 'RESERVATION-3200', 'RESERVATION-3300'];

const auth = () => ({ Authorization: `Bearer ${world.token({ properties: [1] })}`, 'X-Property-Id': '1' });
const objectPath = (key: string) => join(resolve(world.config.STORAGE_DIR), key);
const keyslot = async (key: string) => Number(await redis.cluster('KEYSLOT', key));

/** CLUSTER SLOTS as ranges with the port of the master serving each. */
async function slotRanges(): Promise<Array<{ from: number; to: number; port: number }>> {
  const slots = await redis.cluster('SLOTS');
  return slots.map(([from, to, master]) => ({ from, to, port: Number(master?.[1]) })).sort((a, b) => a.from - b.from);
}

/** An answer's body and the service's warnings (with their causes), for a failing assertion. */
const explain = (res: request.Response) =>
  `${res.status} ${Buffer.isBuffer(res.body) ? res.body.toString('utf8').slice(0, 500) : JSON.stringify(res.body)}\n${world.logs.filter((line) => /"level":[45]0/.test(line)).slice(-5).join('')}`;

/** Every key matching `pattern` with the port of the master that holds it. */
async function keysByMaster(pattern: string): Promise<Array<{ key: string; port: number }>> {
  const found: Array<{ key: string; port: number }> = [];
  for (const node of redis.nodes('master') as Redis[]) {
    for await (const keys of node.scanStream({ match: pattern, count: 500 }) as AsyncIterable<string[]>) {
      for (const key of keys) found.push({ key, port: node.options.port! });
    }
  }
  return found;
}

beforeAll(async () => {
  cluster = await startRedisCluster();
  world = await createWorld({ env: { REDIS_URL: cluster.url } });
  expect(world.redis).toBeInstanceOf(Cluster);
  redis = world.redis as Cluster;
  const res = await request(world.url).post('/accounting/v1.0/import').set(auth()).send(LEDGER);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
});

afterAll(async () => {
  await world?.close();
  await cluster?.stop();
});

describe('the cluster', () => {
  it('has three masters owning different slot ranges that cover all 16384 slots', async () => {
    const ranges = await slotRanges();
    expect(ranges).toHaveLength(3);
    expect(new Set(ranges.map(({ port }) => port))).toEqual(new Set(cluster.ports));
    expect(ranges[0]!.from).toBe(0);
    expect(ranges[1]!.from).toBe(ranges[0]!.to + 1);
    expect(ranges[2]!.from).toBe(ranges[1]!.to + 1);
    expect(ranges[2]!.to).toBe(16383);
    expect(cluster.url).toBe(`redis+cluster://${cluster.ports.map((port) => `127.0.0.1:${port}`).join(',')}`);
  });

  it('has maxmemory-policy noeviction read on every master at start (docs/production.md#redis)', async () => {
    const checked = await checkRedisAtStart(world.config);
    expect(checked.refusal).toBeUndefined();
    expect(checked.info.sort()).toEqual(cluster.ports.map((port) => `redis: maxmemory-policy noeviction on 127.0.0.1:${port} (CONFIG GET)`).sort());
  });

  it('answers /readyz with every master pinged', async () => {
    const res = await request(world.url).get('/readyz');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.checks.redis).toBe('ok');
  });
});

describe('the service on the cluster', () => {
  it('runs a night-audit batch (a flow over two queues) and writes the manifest of every source', { timeout: 120_000 }, async () => {
    const started = await request(world.url).post('/fiscal-document/v1/night-audit/exports').set(auth()).send({ businessDate: '2026-11-21' });
    expect(started.status, explain(started)).toBe(202);
    let status: Record<string, unknown> = {};
    for (let attempt = 0; attempt < 300; attempt += 1) {
      const res = await request(world.url).get(started.body.statusUrl).set(auth());
      expect(res.status, explain(res)).toBe(200);
      status = res.body;
      if (status.status !== 'queued' && status.status !== 'running') break;
      await new Promise((r) => setTimeout(r, Math.min(50 * (attempt + 1), 250)));
    }
    expect(status).toEqual({
      batchId: started.body.batchId, businessDate: '2026-11-21', format: 'PDF', status: 'completed', total: 4, completed: 4, failed: 0,
      manifestKey: 'night-audit/1/2026-11-21/manifest.json',
      // Kept NIGHT_AUDIT_RETENTION_DAYS (test/export-delivery.test.ts checks the span).
      expiresAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    const manifest = JSON.parse(readFileSync(objectPath(status.manifestKey as string), 'utf8')) as { files: Array<{ key: string; sha256: string; size: number }> };
    expect(manifest.files.map((file) => file.key)).toEqual(SOURCES.map((source) => `night-audit/1/2026-11-21/${source}.pdf`));
    for (const file of manifest.files) {
      const body = readFileSync(objectPath(file.key));
      expect(body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(file.sha256).toBe(createHash('sha256').update(body).digest('hex'));
    }
  });

  it('tokenizes a public test card in test mode', async () => {
    const res = await request(world.url).post('/vault/v1/tokens/card').set(auth()).set('SVC-Tokenization-Mode', 'test').send(cardBody({ card_number: '4242424242424242' }));
    expect(res.status, explain(res)).toBe(200);
    expect(res.body).toMatchObject({ card_brand: 'VISA', last4: '4242', test_mode: true });
  });

  it('exports a folio (answered inline, its status completed)', async () => {
    const res = await request(world.url)
      .post('/fiscal-document/v1/folios/export')
      .set(auth())
      .send({ sourceKind: 'RESERVATION', sourceId: '3100' })
      .buffer(true)
      .responseType('blob');
    expect(res.status, explain(res)).toBe(200);
    expect((res.body as Buffer).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const exportId = res.headers['x-export-id'];
    const status = await request(world.url).get(`/fiscal-document/v1/folios/exports/${exportId}`).set(auth());
    expect(status.status, explain(status)).toBe(200);
    expect(status.body).toMatchObject({ exportId, status: 'completed', sha256: createHash('sha256').update(res.body as Buffer).digest('hex') });
  });
});

describe('the hash tag', () => {
  it('keeps every queue key in the one slot of the QUEUE_PREFIX tag, on one master', async () => {
    const prefix = world.config.QUEUE_PREFIX;
    expect(prefix).toMatch(/^\{fvt-[0-9a-f]+\}$/);
    const tagSlot = await keyslot(prefix);
    const keys = await keysByMaster(`${prefix}*`);
    // The three queues all have keys here, after a flow, a tokenize and an export.
    for (const name of Object.values(QUEUE_NAMES)) expect(keys.some(({ key }) => key.startsWith(`${prefix}:${name}:`)), name).toBe(true);
    expect(new Set(keys.map(({ port }) => port)).size).toBe(1);
    for (const { key } of keys) expect(await keyslot(key), key).toBe(tagSlot);
    // That master is the one owning the tag's slot.
    const owner = (await slotRanges()).find(({ from, to }) => tagSlot >= from && tagSlot <= to);
    expect(keys[0]!.port).toBe(owner?.port);
  });

  it('is what keeps them together: keys without it spread over the three masters', async () => {
    const probes = Array.from({ length: 30 }, (_, i) => `fvt-probe:${world.databaseName}:${i}`);
    try {
      for (const key of probes) await redis.set(key, '1', 'EX', 60);
      const placed = await keysByMaster(`fvt-probe:${world.databaseName}:*`);
      expect(placed).toHaveLength(probes.length);
      expect(new Set(placed.map(({ port }) => port))).toEqual(new Set(cluster.ports));
    } finally {
      for (const key of probes) await redis.del(key);
    }
  });

  it('an un-tagged prefix spreads one queue over several slots and BullMQ is refused (CROSSSLOT)', async () => {
    const prefix = `fvt-untagged-${world.databaseName}`;
    const slotsOfQueue = new Set(await Promise.all(['wait', 'meta', 'id', 'events', 'marker'].map((suffix) => keyslot(`${prefix}:probe:${suffix}`))));
    expect(slotsOfQueue.size).toBeGreaterThan(1);
    const queue = new Queue('probe', { connection: redis, prefix });
    try {
      await expect(queue.add('probe', { n: 1 })).rejects.toThrow(/CROSSSLOT/);
    } finally {
      await queue.close();
    }
    // No job was stored: at most the queue's meta hash (one key, written on its own at start).
    const leftovers = await keysByMaster(`${prefix}*`);
    expect(leftovers.map(({ key }) => key).filter((key) => key !== `${prefix}:probe:meta`)).toEqual([]);
    for (const { key } of leftovers) await redis.del(key);
  });
});
