import { randomUUID } from 'node:crypto';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@folio-vault/shared/config';
import { createPgPool, pgBudgetOf, type TPgPoolHandle } from '@folio-vault/shared/connections';
import { toAppError } from '@folio-vault/shared/errors';
import { SHARE_BUSY_DETAILS } from '@folio-vault/shared/db/property-share';
import { createDatabase, createWorld, testKeys, type TWorld } from './support/world.js';
import { until } from './support/faults.js';
import { postImport, transaction } from './support/ledger-fixture.js';

/**
 * Time budgets of the PostgreSQL pools (docs/operations.md#time-budgets): a statement over its
 * statement_timeout, a lock wait over lock_timeout and a wait for a free pooled connection over the
 * pool-wait budget each answer one 503 naming PostgreSQL with Retry-After; /readyz's PostgreSQL
 * check has a connection of its own, so it answers while every pooled connection waits on a lock.
 */
const BUDGETED = 'The PostgreSQL database did not answer within this request\'s time budget; retry shortly.';

describe('budgets of each role', () => {
  it('gives the API short budgets and the worker longer ones, each set on the connection', async () => {
    const env = { ...testKeys(), NODE_ENV: 'test' };
    expect(pgBudgetOf(loadConfig(env, 'api'), 'api')).toEqual({ statementMs: 5_000, lockMs: 2_000, poolWaitMs: 2_000, idleInTransactionMs: 10_000, parallelWorkers: 0 });
    expect(pgBudgetOf(loadConfig(env, 'worker'), 'worker')).toEqual({ statementMs: 120_000, lockMs: 10_000, poolWaitMs: 30_000, idleInTransactionMs: 240_000 });
    const database = await createDatabase();
    const pool = createPgPool(database.url, { max: 1, budget: pgBudgetOf(loadConfig({ ...env, WORKER_PG_STATEMENT_TIMEOUT_MS: '90000' }, 'worker'), 'worker') });
    try {
      const shown = await pool.query<{ statement: string; lock: string; idle: string }>(
        "SELECT current_setting('statement_timeout') AS statement, current_setting('lock_timeout') AS lock, current_setting('idle_in_transaction_session_timeout') AS idle",
      );
      expect(shown.rows[0]).toEqual({ statement: '90s', lock: '10s', idle: '3min' });
    } finally {
      await pool.end();
    }
    // The API's statements run on one server process each: one property's heavy listing does not fan
    // out over the cores the other properties' requests wait for.
    const apiPool = createPgPool(database.url, { max: 1, budget: pgBudgetOf(loadConfig(env, 'api'), 'api') });
    try {
      const shown = await apiPool.query<{ parallel: string; statement: string }>(
        "SELECT current_setting('max_parallel_workers_per_gather') AS parallel, current_setting('statement_timeout') AS statement",
      );
      expect(shown.rows[0]).toEqual({ parallel: '0', statement: '5s' });
    } finally {
      await apiPool.end();
    }
  });
});

describe('a query over its budget', () => {
  let url: string;
  let pool: TPgPoolHandle;
  const budget = { statementMs: 300, lockMs: 200, poolWaitMs: 200, idleInTransactionMs: 5_000 };

  beforeAll(async () => {
    url = (await createDatabase()).url;
    pool = createPgPool(url, { max: 1, budget });
    await pool.query('CREATE TABLE held (id int)');
  });
  afterAll(async () => pool?.end());

  const answerTo = async (work: Promise<unknown>) => {
    const error = await work.then(
      () => undefined,
      (rejection: unknown) => rejection,
    );
    expect(error, 'the query should have failed').toBeDefined();
    const answer = toAppError(error);
    return { status: answer.status, code: answer.code, details: answer.message, retryAfter: answer.retryAfterSeconds, cause: (error as { code?: string }).code ?? (error as Error).message };
  };

  it('a statement over statement_timeout (57014) answers 503 naming PostgreSQL', async () => {
    expect(await answerTo(pool.query('SELECT pg_sleep(5)'))).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE', details: BUDGETED, retryAfter: 2, cause: '57014' });
  });

  it('a lock wait over lock_timeout (55P03) answers 503 naming PostgreSQL', async () => {
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE held IN ACCESS EXCLUSIVE MODE');
      expect(await answerTo(pool.query('SELECT count(*) FROM held'))).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE', details: BUDGETED, retryAfter: 2, cause: '55P03' });
    } finally {
      await holder.end();
    }
  });

  it('a wait for a pooled connection over the pool-wait budget answers 503 naming PostgreSQL', async () => {
    const taken = await pool.connect();
    try {
      expect(await answerTo(pool.query('SELECT 1'))).toEqual({
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
        details: BUDGETED,
        retryAfter: 2,
        cause: 'timeout exceeded when trying to connect',
      });
    } finally {
      taken.release();
    }
  });
});

describe('a table locked by another session', () => {
  let world: TWorld;
  // The lock wait outlasts the time it takes to see every pooled connection waiting and ask /readyz.
  const LOCK_MS = 3_000;
  const REQUESTS = 12; // two more than the API pool's ten connections: two wait for the pool

  beforeAll(async () => {
    world = await createWorld({
      worker: false,
      // One property fills the whole pool here (no share): the share has its test below.
      env: { PG_STATEMENT_TIMEOUT_MS: '4000', PG_LOCK_TIMEOUT_MS: String(LOCK_MS), PG_POOL_WAIT_MS: String(LOCK_MS), DB_SHARE_PER_PROPERTY: '1' },
    });
  });
  afterAll(async () => world?.close());

  it('answers the waiting requests 503 naming PostgreSQL with Retry-After, and /readyz 200 meanwhile', { timeout: 40_000 }, async () => {
    const holder = new pg.Client({ connectionString: world.ownerUrl });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE exports IN ACCESS EXCLUSIVE MODE');
    const auth = { Authorization: `Bearer ${world.token()}`, 'X-Property-Id': '1' };
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      await holder.query('ROLLBACK');
      await holder.end();
    };
    try {
      const sent = performance.now();
      const statuses = Array.from({ length: REQUESTS }, () => request(world.url).get(`/fiscal-document/v1/folios/exports/${randomUUID()}`).set(auth));
      let slowestMs = 0;
      const answers = Promise.all(
        statuses.map((call) =>
          call.then((res) => {
            slowestMs = Math.max(slowestMs, performance.now() - sent);
            return res;
          }),
        ),
      );
      // Every pooled connection of the API waiting on the lock; readiness asked then.
      await until(
        async () => {
          const waiting = await world.pool.query<{ n: string }>(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
          );
          return Number(waiting.rows[0]!.n) >= 10 ? true : undefined;
        },
        5_000,
        'ten sessions waiting on the lock',
      );
      // Timed on a plain fetch: supertest's first answer also pays for this process's OpenAPI checks.
      const asked = performance.now();
      const readyStatus = (await fetch(`${world.url}/readyz`)).status;
      const readyMs = performance.now() - asked;
      const ready = await request(world.url).get('/readyz');
      // Without a lock bound the requests would wait as long as the lock is held: it is let go
      // after 10 s at the latest, and they would then answer 404 (no such export).
      const answered = await Promise.race([answers, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 10_000))]);
      await release();
      const all = answered ?? (await answers);
      console.warn(`db-bounds: /readyz answered ${readyStatus} in ${Math.round(readyMs)} ms with ${REQUESTS} requests waiting; the slowest request answered in ${Math.round(slowestMs)} ms (lock and pool-wait budgets ${LOCK_MS} ms)`);
      expect({
        readyz: [readyStatus, ready.status, ready.body.checks],
        requests: all.map((res) => [res.status, res.body.errorCode, res.body.errorDetails, res.headers['retry-after']]),
      }).toEqual({
        readyz: [200, 200, { redis: 'ok', postgres: 'ok', storage: 'ok', keys: 'ok' }],
        requests: Array.from({ length: REQUESTS }, () => [503, 'SERVICE_UNAVAILABLE', BUDGETED, '2']),
      });
    } finally {
      await release();
    }
    // Each at warn with PostgreSQL's reason (the lock or the pool), not as an outage or a fault.
    const logged = await until(
      async () => {
        const lines = world.logs
          .flatMap((chunk) => chunk.split('\n'))
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { level: number; errorCode?: string; cause?: string; store?: string; req?: { path?: string } })
          .filter((line) => line.errorCode === 'SERVICE_UNAVAILABLE' && line.req?.path?.startsWith('/fiscal-document/v1/folios/exports/'));
        return lines.length >= REQUESTS ? lines : undefined;
      },
      5_000,
      'the requests\' log lines',
    );
    const reasons = ['canceling statement due to lock timeout', 'timeout exceeded when trying to connect'];
    expect(logged.map((line) => [line.level, reasons.includes(line.cause ?? ''), line.store])).toEqual(Array.from({ length: REQUESTS }, () => [40, true, undefined]));
    // The lock gone, the same reads answer again.
    const after = await request(world.url).get(`/fiscal-document/v1/folios/exports/${randomUUID()}`).set(auth);
    expect(after.status).toBe(404);
  });
});

describe("a property's share of the API's pool", () => {
  let world: TWorld;

  // Two connections, half of them a property's: one property holds one connection at most. The
  // lock and statement budgets outlast the test's hold; the pool-wait budget is what a request
  // past its property's share waits for its turn.
  beforeAll(async () => {
    world = await createWorld({
      worker: false,
      env: { PG_POOL_SIZE: '2', DB_SHARE_PER_PROPERTY: '0.5', PG_POOL_WAIT_MS: '2000', PG_LOCK_TIMEOUT_MS: '30000', PG_STATEMENT_TIMEOUT_MS: '30000' },
    });
  });
  afterAll(async () => world?.close());

  it("answers property 2 at once while property 1 holds its share; property 1's next request waits its turn, or answers 503 past the budget", { timeout: 30_000 }, async () => {
    const token = world.token({ properties: [1, 2] });
    const property = (id: number) => ({ id, name: `Hotel ${id}`, currency: 'EUR', timezone: 'UTC', gatewayMode: 'test' });
    const ledger = { folios: [{ id: '101', sourceKind: 'RESERVATION', sourceId: '5001', name: 'Guest folio' }], transactions: [transaction()] };
    for (const id of [1, 2]) expect((await postImport(world, token, id, { property: property(id), ...ledger })).status).toBe(200);
    const listing = (id: number) =>
      request(world.url).post('/accounting/v1.0/folios/transactions').set({ Authorization: `Bearer ${token}`, 'X-Property-Id': String(id) }).send({ sourceKind: 'RESERVATION', sourceId: '5001' });
    const lockWaiters = async () =>
      Number((await world.pool.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rows[0]!.n);
    const answered: string[] = [];
    const sent = (name: string, call: request.Test) => call.then((res) => (answered.push(name), res));

    // The test holds property 1's row: an import of property 1 (its upsert of that row) waits on
    // the lock in its transaction, holding a pooled connection and property 1's one permit.
    const holder = new pg.Client({ connectionString: world.ownerUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM properties WHERE id = 1 FOR UPDATE');
      const first = sent('import 1, first', postImport(world, token, 1, { property: property(1) }));
      await until(async () => (await lockWaiters()) === 1, 10_000, 'the first import waiting on the lock');
      // Property 1's second request: past its share it waits for the permit (with the whole pool
      // to one property it would take the second connection and wait on the lock too).
      const second = sent('import 1, second', postImport(world, token, 1, { property: property(1) }));
      await until(async () => (await lockWaiters()) + world.api.shares.usage('1').waiting === 2, 10_000, 'the second import waiting');

      const other = await sent('listing 2', listing(2));
      expect([other.status, other.body.groups?.default?.transactions?.length]).toEqual([200, 1]);
      expect(answered).toEqual(['listing 2']);

      const refused = await second;
      expect([refused.status, refused.body.errorCode, refused.body.errorDetails, refused.headers['retry-after']]).toEqual([503, 'SERVICE_UNAVAILABLE', SHARE_BUSY_DETAILS, '2']);
      expect(answered).toEqual(['listing 2', 'import 1, second']);

      // Another of property 1's requests waits its turn; the lock let go, it runs once the first
      // import has given the permit back.
      const third = sent('listing 1, third', listing(1));
      await until(async () => world.api.shares.usage('1').waiting > 0, 10_000, 'the third request waiting for its turn');
      await holder.query('ROLLBACK');
      const [firstAnswer, thirdAnswer] = await Promise.all([first, third]);
      expect([firstAnswer.status, thirdAnswer.status, thirdAnswer.body.groups?.default?.transactions?.length]).toEqual([200, 200, 1]);
      expect(answered).toEqual(['listing 2', 'import 1, second', 'import 1, first', 'listing 1, third']);
      expect(world.api.shares.usage('1')).toEqual({ held: 0, waiting: 0 });
    } finally {
      await holder.end();
    }
  });
});
