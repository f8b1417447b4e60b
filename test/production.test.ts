import { randomUUID } from 'node:crypto';
import { FlowProducer, Queue, QueueEvents, type FlowJob } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@folio-vault/shared/config';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { createRedis } from '@folio-vault/shared/connections';
import { ExportStore } from '@folio-vault/shared/exports/export-store';
import { startNightAudit } from '@folio-vault/shared/night-audit/batches';
import { budgetLine, checkConnectionBudget, checkRedisAtStart, usableConnections } from '@folio-vault/shared/deployment-checks';
import { freePort } from '@folio-vault/dev-services/process-utils';
import { startRedisSentinel, type TRunningRedisSentinel } from '@folio-vault/dev-services/redis-sentinel';
import { cardBody } from '@folio-vault/test-kit/cards';
import { spawnTs } from '@folio-vault/test-kit/processes';
import { createWorld, type TWorld } from './support/world.js';

/**
 * What docs/production.md promises of Redis and PostgreSQL on several machines, against real
 * servers: a master, a replica and a Sentinel (`redis-server --sentinel`) started here on free
 * ports, one set for the file, and the service in-process on them through REDIS_SENTINELS.
 * - at start, Redis's maxmemory-policy is read (CONFIG GET, else INFO memory, else a warning that it
 *   could not be), and a worker on a Redis that may evict stops with one line and exit code 2;
 * - the PostgreSQL connection budget is logged against the server's max_connections, a warning
 *   when the fleet needs more;
 * - a Sentinel failover in the middle of tokenize and export traffic loses no job: every request is
 *   answered, a 503 is retried with the same Idempotency-Key or the same export request, and in the
 *   end each key has one token and every export is completed.
 */
let sentinel: TRunningRedisSentinel;
let world: TWorld;
let sentinels: Record<string, string>;

beforeAll(async () => {
  sentinel = await startRedisSentinel();
  sentinels = { REDIS_SENTINELS: `127.0.0.1:${sentinel.sentinelPort}`, REDIS_SENTINEL_NAME: sentinel.masterName };
  world = await createWorld({
    env: {
      ...sentinels,
      // Every 503 of the switch is retried at once: the limits are not what is tested here.
      TOKENIZE_RATE_LIMIT_PER_SUBJECT: '1000000',
      TOKENIZE_RATE_LIMIT_PER_PROPERTY: '1000000',
      // A job whose lock lived on the old master is handed out again soon after the switch.
      WORKER_LOCK_MS: '3000',
      LOG_LEVEL: 'info',
    },
  });
}, 120_000);

afterAll(async () => {
  await world?.close();
  await sentinel?.stop();
});

/** A client of the current master, straight to its port (not through the service's settings). */
async function masterClient(options: { username?: string; password?: string } = {}): Promise<Redis> {
  const redis = new Redis({ host: '127.0.0.1', port: await sentinel.masterPort(), maxRetriesPerRequest: 1, ...options });
  redis.on('error', () => undefined);
  return redis;
}

/** The REDIS_* settings of the world, with REDIS_URL's credentials replaced. */
const redisTarget = (redisUrl = 'redis://127.0.0.1:6379') => ({ ...world.config, REDIS_URL: redisUrl });

describe('Redis at start', () => {
  it('finds the master through the Sentinels, past one that does not answer, and reads its policy with CONFIG GET', async () => {
    const listed = loadConfig({ ...world.env, REDIS_SENTINELS: `127.0.0.1:${await freePort()},127.0.0.1:${sentinel.sentinelPort}` });
    expect(listed.REDIS_SENTINELS).toHaveLength(2);
    expect(await checkRedisAtStart(listed)).toEqual({ info: ['redis: maxmemory-policy noeviction (CONFIG GET)'], warnings: [] });
  });

  it('reads it from INFO memory when CONFIG is denied, and says it could not be checked when INFO is denied too', async () => {
    const admin = await masterClient();
    try {
      await admin.call('ACL', 'SETUSER', 'fv-no-config', 'on', '>fv-secret', '~*', '&*', '+@all', '-config');
      await admin.call('ACL', 'SETUSER', 'fv-blind', 'on', '>fv-secret', '~*', '&*', '+@all', '-config', '-info');
      // REDIS_URL's user and password reach the master the Sentinels name.
      expect(await checkRedisAtStart(redisTarget('redis://fv-no-config:fv-secret@ignored.invalid:6379'))).toEqual({
        info: ['redis: maxmemory-policy noeviction (INFO memory)'],
        warnings: [],
      });
      const blind = await checkRedisAtStart(redisTarget('redis://fv-blind:fv-secret@ignored.invalid:6379'));
      expect(blind.info).toEqual([]);
      expect(blind.refusal).toBeUndefined();
      expect(blind.warnings).toHaveLength(1);
      expect(blind.warnings[0]).toMatch(
        /^redis: maxmemory-policy could not be checked \(CONFIG GET: NOPERM .+; INFO memory: NOPERM .+\); it must be noeviction, or Redis may evict queued jobs$/,
      );
    } finally {
      await admin.call('ACL', 'DELUSER', 'fv-no-config', 'fv-blind');
      admin.disconnect();
    }
  });

  it('stops a worker on a Redis that may evict with one line naming the policy, exit code 2, after logging the connection budget', { timeout: 60_000 }, async () => {
    const admin = await masterClient();
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
    try {
      const worker = spawnTs('apps/worker/src/main.ts', [], world.env, { direct: true });
      expect(await worker.exited).toBe(2);
      const lines = worker.output().split('\n').filter(Boolean);
      expect(lines.filter((line) => line.startsWith('folio-vault worker:'))).toEqual([
        'folio-vault worker: redis: maxmemory-policy is allkeys-lru; BullMQ needs noeviction, or Redis evicts queued jobs when memory runs short ' +
          '(CONFIG SET maxmemory-policy noeviction, and the same in redis.conf)',
      ]);
      const server = await usableConnections(world.ownerUrl);
      const logged = lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: number; msg: string });
      expect(logged.filter((line) => line.msg.startsWith('postgres connections'))).toEqual([
        expect.objectContaining({ level: 30, msg: budgetLine({ perApi: 11, perWorker: 16, apis: 1, workers: 1, total: 27 }, server).line }),
      ]);
      expect(logged.filter((line) => line.msg === 'worker ready')).toEqual([]);
    } finally {
      await admin.config('SET', 'maxmemory-policy', 'noeviction');
      admin.disconnect();
    }
  });
});

describe('the PostgreSQL connection budget', () => {
  it('is one info line when the fleet fits max_connections, a warning naming the sum when it does not', async () => {
    const server = await usableConnections(world.ownerUrl);
    const shown = await world.pool.query<{ max: string; reserved: string }>(
      "SELECT current_setting('max_connections') AS max, current_setting('superuser_reserved_connections') AS reserved",
    );
    expect(server).toEqual({ max: Number(shown.rows[0]!.max), reserved: Number(shown.rows[0]!.reserved), usable: Number(shown.rows[0]!.max) - Number(shown.rows[0]!.reserved) });
    const limit = `max_connections ${server.max} less ${server.reserved} reserved = ${server.usable}`;

    expect(await checkConnectionBudget(world.ownerUrl, world.config.connectionBudget)).toEqual({
      info: [`postgres connections: the fleet holds up to 27 (1 API process × 11 + 1 worker × 16 (FLEET_API_PROCESSES, FLEET_WORKER_PROCESSES)) of ${limit}`],
      warnings: [],
    });
    const fleet = loadConfig({ ...world.env, FLEET_API_PROCESSES: '2', FLEET_WORKER_PROCESSES: String(server.usable), WORKER_HEALTH_PORT: '9464' }).connectionBudget;
    const total = 2 * 11 + server.usable * 17;
    expect(await checkConnectionBudget(world.ownerUrl, fleet)).toEqual({
      info: [],
      warnings: [
        `postgres connections: the fleet holds up to ${total} (2 API processes × 11 + ${server.usable} workers × 17 (FLEET_API_PROCESSES, FLEET_WORKER_PROCESSES)), ` +
          `more than ${limit}; raise max_connections, lower PG_POOL_SIZE or WORKER_CONCURRENCY, or put a pooler in front (docs/production.md#postgresql)`,
      ],
    });
  });
});

/** Property 1 with four reservations of a few nights each: four exports to render. */
const SOURCES = [8101, 8102, 8103, 8104];
const LEDGER = {
  property: { id: 1, name: 'Hotel Sentinel', currency: 'EUR', timezone: 'Europe/Lisbon', gatewayMode: 'test', language: 'en' },
  folios: SOURCES.map((sourceId, i) => ({ id: 810 + i, sourceKind: 'RESERVATION', sourceId, name: `Guest ${i + 1}` })),
  transactions: SOURCES.flatMap((sourceId, i) =>
    Array.from({ length: 3 }, (_, night) => ({
      id: 81_000 + i * 10 + night, folioId: 810 + i, sourceKind: 'RESERVATION', sourceId, transactionDatetime: `2026-11-2${night}T22:00:00Z`,
      serviceDate: `2026-11-2${night}`, internalTransactionCode: '1000', internalCodeGroup: 'ROOM_REVENUE_RATE', description: `Night ${night + 1}`,
      quantity: 1, amount: '99.00', currency: 'EUR', posted: true,
    })),
  ),
};

interface TAnswer {
  status: number;
  id?: string;
  errorCode?: string;
}

describe('a Sentinel failover during tokenize and exports', () => {
  it('loses no job: every request answered, one token per Idempotency-Key, every export completed, on the new master', { timeout: 180_000 }, async () => {
    const headers = { Authorization: `Bearer ${world.token({ properties: [1] })}`, 'X-Property-Id': '1', 'Content-Type': 'application/json' };
    const imported = await fetch(`${world.url}/accounting/v1.0/import`, { method: 'POST', headers, body: JSON.stringify(LEDGER) });
    expect(imported.status, await imported.clone().text()).toBe(200);
    const firstMaster = await sentinel.masterPort();

    const tokenize = async (key: string): Promise<TAnswer> => {
      try {
        const res = await fetch(`${world.url}/vault/v1/tokens/card`, {
          method: 'POST',
          headers: { ...headers, 'SVC-Tokenization-Mode': 'test', 'Idempotency-Key': key },
          body: JSON.stringify(cardBody({ cardholder_name: `Failover ${key}` })),
          signal: AbortSignal.timeout(20_000),
        });
        const body = (await res.json()) as { id?: string; errorCode?: string };
        return { status: res.status, id: body.id, errorCode: body.errorCode };
      } catch {
        return { status: 0 };
      }
    };
    // Each key is sent until it is answered 200: a client's retry with the same Idempotency-Key.
    const answers: Array<TAnswer & { key: string }> = [];
    const tokenOfKey = new Map<string, string>();
    let phase: 'before' | 'after' = 'before';
    const okIn = { before: 0, after: 0 };
    const waiters: Array<{ phase: 'before' | 'after'; count: number; resolve: () => void }> = [];
    const reached = (which: 'before' | 'after', count: number) => new Promise<void>((resolve) => waiters.push({ phase: which, count, resolve }));
    let stop = false;
    let next = 0;
    const client = async () => {
      while (!stop) {
        const key = `failover-${String(next++).padStart(4, '0')}`;
        for (let attempt = 0; attempt < 2_000; attempt += 1) {
          const answer = await tokenize(key);
          answers.push({ key, ...answer });
          if (answer.status !== 200) continue;
          tokenOfKey.set(key, answer.id!);
          okIn[phase] += 1;
          for (const waiter of waiters.filter((w) => w.phase === phase && okIn[phase] >= w.count)) waiter.resolve();
          break;
        }
      }
    };
    const load = Promise.all(Array.from({ length: 4 }, client));
    await reached('before', 20);

    // An export request answered 503 or 202 is sent again: the same request joins the export in flight.
    const exportAnswers: Array<{ source: number; status: number }> = [];
    const exportSource = async (source: number): Promise<string> => {
      for (let attempt = 0; attempt < 200; attempt += 1) {
        const res = await fetch(`${world.url}/fiscal-document/v1/folios/export`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ sourceKind: 'RESERVATION', sourceId: source }),
          signal: AbortSignal.timeout(60_000),
        }).catch(() => undefined);
        exportAnswers.push({ source, status: res?.status ?? 0 });
        const body = Buffer.from((await res?.arrayBuffer()) ?? new ArrayBuffer(0));
        if (res?.status === 200) {
          expect(body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
          return res.headers.get('x-export-id')!;
        }
      }
      throw new Error(`the export of ${source} was never answered 200`);
    };
    const exports = Promise.all(SOURCES.map(exportSource));

    const newMaster = await sentinel.failover();
    phase = 'after';
    await reached('after', 20);
    stop = true;
    await load;
    const exportIds = await exports;

    const statuses = answers.reduce<Record<string, number>>((counts, a) => ({ ...counts, [a.status]: (counts[a.status] ?? 0) + 1 }), {});
    const rows = await world.pool.query<{ id: string; key: string | null }>(
      `SELECT c.id, k.idempotency_key AS key FROM vault_test.cards c LEFT JOIN vault_test.idempotency_keys k ON k.token_id = c.id AND k.property_id = c.property_id`,
    );
    const exportRows = await world.pool.query<{ id: string; status: string; source: string }>(
      `SELECT id, status, request->>'sourceId' AS source FROM exports ORDER BY created_at`,
    );
    console.warn(
      `production failover: master ${firstMaster} → ${newMaster}; ${answers.length} tokenize answers (${JSON.stringify(statuses)}) for ${tokenOfKey.size} keys; ` +
        `${rows.rowCount} tokens; export answers ${JSON.stringify(exportAnswers.reduce<Record<string, number>>((c, a) => ({ ...c, [a.status]: (c[a.status] ?? 0) + 1 }), {}))}, ` +
        `export rows ${JSON.stringify(exportRows.rows.map((row) => row.status))}`,
    );

    expect(newMaster).toBe(sentinel.ports[1]);
    expect(newMaster).not.toBe(firstMaster);
    // Answered, every one: 200, or 503 with the contract's code (retried).
    expect(answers.filter((a) => a.status !== 200 && !(a.status === 503 && a.errorCode === 'SERVICE_UNAVAILABLE'))).toEqual([]);
    // One token per key, and it is the one the key's 200 answered.
    expect(rows.rows.filter((row) => row.key === null)).toEqual([]);
    expect(new Map(rows.rows.map((row) => [row.key!, row.id]))).toEqual(tokenOfKey);
    // Every export completed, one per source (a repeated request joined it), none left queued or running.
    expect(exportRows.rows.map((row) => row.status)).toEqual(SOURCES.map(() => 'completed'));
    expect(new Set(exportRows.rows.map((row) => row.id))).toEqual(new Set(exportIds));
    // The service's queues are on the new master now.
    const promoted = new Redis({ host: '127.0.0.1', port: newMaster, maxRetriesPerRequest: 1 });
    try {
      expect((await promoted.info('replication')).match(/^role:(\w+)/m)?.[1]).toBe('master');
      expect((await promoted.keys(`${world.config.QUEUE_PREFIX}:folio-export:*`)).length).toBeGreaterThan(0);
    } finally {
      promoted.disconnect();
    }
  });
});

describe('an export whose job Redis lost', () => {
  it('is queued again, under its id, by the next identical request', { timeout: 60_000 }, async () => {
    // A world without a worker: the job stays queued, and is then "lost" by removing it.
    const idle = await createWorld({ worker: false, env: { ...sentinels, EXPORT_WAIT_MS: '300' } });
    const queue = new Queue(QUEUE_NAMES.export, { connection: idle.redis, prefix: idle.config.QUEUE_PREFIX });
    try {
      const headers = { Authorization: `Bearer ${idle.token({ properties: [1] })}`, 'X-Property-Id': '1', 'Content-Type': 'application/json' };
      expect((await fetch(`${idle.url}/accounting/v1.0/import`, { method: 'POST', headers, body: JSON.stringify(LEDGER) })).status).toBe(200);
      const ask = async () => {
        const res = await fetch(`${idle.url}/fiscal-document/v1/folios/export`, { method: 'POST', headers, body: JSON.stringify({ sourceKind: 'RESERVATION', sourceId: SOURCES[0] }) });
        return { status: res.status, exportId: ((await res.json()) as { exportId: string }).exportId };
      };
      const first = await ask();
      expect(first.status).toBe(202);
      const job = await queue.getJob(first.exportId);
      expect(job?.data).toMatchObject({ version: 1, exportId: first.exportId, propertyId: '1' });
      await job!.remove();
      expect(await queue.getJob(first.exportId)).toBeUndefined();

      const again = await ask();
      expect(again).toEqual({ status: 202, exportId: first.exportId });
      expect((await queue.getJob(first.exportId))?.data).toMatchObject({ version: 1, exportId: first.exportId, propertyId: '1', request: job!.data.request });
      // While it is there, another identical request adds nothing: the same job, in the same state.
      const before = await queue.getJobCounts('wait');
      expect(await ask()).toEqual({ status: 202, exportId: first.exportId });
      expect(await queue.getJobCounts('wait')).toEqual(before);
    } finally {
      await queue.close();
      await idle.close();
    }
  });
});

/**
 * A rolling upgrade (docs/production.md#a-rolling-upgrade): jobs an older release queued are taken
 * by this release's worker. The payloads are written out as the release before the vault jobs were
 * signed (commit 44b6969's parent) enqueued them; export, night-audit and webhook payloads have not
 * changed since. A night-audit batch is also queued as the release before 55207f5 did, its pieces
 * on the export queue. A vault job of that release (version 1, unsigned) is refused by design.
 */
describe('jobs a previous release queued', () => {
  const queues: Array<Queue | QueueEvents | FlowProducer> = [];
  const open = <T extends Queue | QueueEvents | FlowProducer>(made: T): T => {
    queues.push(made);
    return made;
  };
  beforeAll(async () => {
    const headers = { Authorization: `Bearer ${world.token({ properties: [1] })}`, 'X-Property-Id': '1', 'Content-Type': 'application/json' };
    expect((await fetch(`${world.url}/accounting/v1.0/import`, { method: 'POST', headers, body: JSON.stringify(LEDGER) })).status).toBe(200);
  });
  afterAll(async () => {
    for (const made of queues) await made.close();
  });
  const queue = (name: string) => open(new Queue(name, { connection: world.redis, prefix: world.config.QUEUE_PREFIX }));
  const events = (name: string) => open(new QueueEvents(name, { connection: createRedis(world.config, 'events'), prefix: world.config.QUEUE_PREFIX }));

  it('export-folio: the file is rendered and the export completed', async () => {
    const exportEvents = events(QUEUE_NAMES.export);
    await exportEvents.waitUntilReady();
    const exportId = randomUUID();
    // What the older API wrote before it queued the job (the exports table is the same).
    const request = { sourceKind: 'RESERVATION', sourceId: String(SOURCES[1]), creditDebitView: false, revenueCompact: false, descriptionFilters: [], includeVoided: true, subSourceIds: [], sort: [], format: 'XLSX' };
    expect(await new ExportStore(world.pool).queue({ exportId, propertyId: '1', digest: `previous-${exportId}`, language: 'en', request: request as never }, 100)).toEqual({ kind: 'queued', exportId, status: 'queued' });
    const job = await queue(QUEUE_NAMES.export).add('export-folio', { version: 1, exportId, propertyId: '1', language: 'en', request, requestId: 'previous-release' }, { jobId: exportId, attempts: 3 });
    expect(await job.waitUntilFinished(exportEvents, 60_000)).toMatchObject({ key: expect.stringMatching(/\.xlsx$/), rows: 3 });
    expect((await world.pool.query('SELECT status FROM exports WHERE id = $1', [exportId])).rows).toEqual([{ status: 'completed' }]);
  });

  it('a night-audit batch, its pieces on the night-audit-export queue or, older, on the export queue: every source exported', { timeout: 60_000 }, async () => {
    const manifestEvents = events(QUEUE_NAMES.nightAudit);
    await manifestEvents.waitUntilReady();
    const flows = open(new FlowProducer({ connection: world.redis, prefix: world.config.QUEUE_PREFIX }));
    for (const [date, piecesQueue] of [['2026-11-20', QUEUE_NAMES.nightAuditExport], ['2026-11-21', QUEUE_NAMES.export]] as const) {
      // The batch as the older API started it; its flow kept to be queued as that release did.
      const kept: FlowJob[] = [];
      const keeping = { add: async (flow: FlowJob) => void kept.push(flow) } as unknown as FlowProducer;
      const started = await startNightAudit(world.pool, keeping, '1', date, 'PDF');
      const flow = kept[0]!;
      // One piece per source (the four reservations have a night on each date).
      expect(flow.children?.map((child) => child.data)).toEqual(
        SOURCES.map((sourceId) => ({ version: 1, batchId: started.batchId, run: 1, propertyId: '1', businessDate: date, format: 'PDF', sources: [{ sourceKind: 'RESERVATION', sourceId: String(sourceId) }] })),
      );
      const added = await flows.add({ ...flow, children: flow.children!.map((child) => ({ ...child, queueName: piecesQueue })) });
      expect(await added.job.waitUntilFinished(manifestEvents, 60_000)).toMatchObject({ total: 4, completed: 4, failed: 0 });
    }
    const batches = await world.pool.query(`SELECT to_char(business_date, 'YYYY-MM-DD') AS date, status FROM night_audit_batches ORDER BY business_date`);
    expect(batches.rows).toEqual([{ date: '2026-11-20', status: 'completed' }, { date: '2026-11-21', status: 'completed' }]);
  });

  it('webhook-delivery: the payload is taken (a delivery PostgreSQL does not hold is skipped)', async () => {
    const webhookEvents = events(QUEUE_NAMES.webhooks);
    await webhookEvents.waitUntilReady();
    const deliveryId = randomUUID();
    const job = await queue(QUEUE_NAMES.webhooks).add('webhook-delivery', { deliveryId }, { jobId: deliveryId, attempts: 1 });
    expect(await job.waitUntilFinished(webhookEvents, 30_000)).toEqual({ outcome: 'skipped', statusCode: null });
  });

  it('a vault job of the unsigned version 1 is refused for good, never run', async () => {
    const vaultEvents = events(QUEUE_NAMES.vault);
    await vaultEvents.waitUntilReady();
    const tokenId = randomUUID();
    const job = await queue(QUEUE_NAMES.vault).add(
      'tokenize-card',
      { version: 1, propertyId: '1', mode: 'test', requestId: 'previous-release', tokenId, sealedCard: 'v2.transit-1.AAAA', expiresAt: '2040-10-01T00:00:00.000Z' },
      { attempts: 3 },
    );
    await expect(job.waitUntilFinished(vaultEvents, 30_000)).rejects.toThrow('vault job refused: unsigned');
    expect((await queue(QUEUE_NAMES.vault).getJob(job.id!))?.attemptsMade).toBe(1);
    expect((await world.pool.query('SELECT count(*)::int AS n FROM vault_test.cards WHERE id = $1', [tokenId])).rows).toEqual([{ n: 0 }]);
  });
});
