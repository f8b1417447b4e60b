import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cardBody } from '@folio-vault/test-kit/cards';
import {
  FAULT_SOURCE,
  faultEnv,
  importFaultLedger,
  killGroup,
  privatePostgres,
  removeQueueKeys,
  signToken,
  startApiProcess,
  startWorkerProcess,
  until,
  type TApiProcess,
  type TRestartable,
} from './support/faults.js';
import type { TSpawned } from '@folio-vault/test-kit/processes';

/**
 * PostgreSQL down (issue 7; docs/api.md#errors, docs/api.md#operations). The API and the worker are real processes on a
 * PostgreSQL server of this file's own (initdb in a temp folder, stopped with `pg_ctl stop -m fast`
 * and started again on the same port and folder). While it is down, tokenize, the ledger listing
 * and an export's status answer 503 + Retry-After within the bound (no 500, no hang) and /readyz
 * answers 503 naming postgres; once it is back, the same processes answer 200 again.
 */
const WAIT_MS = 2_000;
const SLACK_MS = 2_000;
const DOWN_ROUNDS = 5;

let server: TRestartable;
let env: Record<string, string>;
let api: TApiProcess;
let worker: TSpawned;
let pool: pg.Pool;

beforeAll(async () => {
  server = await privatePostgres();
  env = faultEnv({ REDIS_URL: inject('redisUrl'), DATABASE_URL: server.url, TOKENIZE_WAIT_MS: String(WAIT_MS) });
  pool = new pg.Pool({ connectionString: server.url, max: 2 });
  pool.on('error', () => undefined);
  await importFaultLedger(pool, 10);
  [api, worker] = await Promise.all([startApiProcess(env), startWorkerProcess(env)]);
});

afterAll(async () => {
  await Promise.all([killGroup(api?.process), killGroup(worker)]);
  await pool?.end().catch(() => undefined);
  await server?.remove();
  if (env) await removeQueueKeys(env.REDIS_URL!, env.QUEUE_PREFIX!);
});

interface TAnswer {
  what: string;
  status: number;
  ms: number;
  retryAfter: string | null;
  body: Record<string, unknown>;
}

const auth = () => ({ Authorization: `Bearer ${signToken(env)}`, 'X-Property-Id': '1' });

async function call(what: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<TAnswer> {
  const started = performance.now();
  try {
    const res = await fetch(`${api.url}${path}`, {
      method: init.method ?? 'GET',
      headers: { ...init.headers, ...(init.body ? { 'Content-Type': 'application/json' } : {}) },
      body: init.body ? JSON.stringify(init.body) : undefined,
      signal: AbortSignal.timeout(WAIT_MS + SLACK_MS + 5_000),
    });
    return { what, status: res.status, ms: performance.now() - started, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> };
  } catch {
    return { what, status: 0, ms: performance.now() - started, retryAfter: null, body: {} };
  }
}

function round(exportId: string, n: number): Promise<TAnswer[]> {
  return Promise.all([
    call('tokenize', '/vault/v1/tokens/card', {
      method: 'POST',
      headers: { ...auth(), 'SVC-Tokenization-Mode': 'test', 'Idempotency-Key': `pg-fault-${n}` },
      body: cardBody(),
    }),
    call('listing', '/accounting/v1.0/folios/transactions', { method: 'POST', headers: auth(), body: { ...FAULT_SOURCE } }),
    call('export status', `/fiscal-document/v1/folios/exports/${exportId}`, { headers: auth() }),
    call('readyz', '/readyz'),
  ]);
}

describe('PostgreSQL down', () => {
  it('answers 503 + Retry-After (readyz naming postgres) while it is down, and 200 again after its restart', { timeout: 90_000 }, async () => {
    const started = await call('export', '/fiscal-document/v1/folios/export', { method: 'POST', headers: { ...auth(), Prefer: 'respond-async' }, body: { ...FAULT_SOURCE } });
    expect(started.status).toBe(202);
    const exportId = started.body.exportId as string;
    const before = await round(exportId, 0);
    expect(before.map((a) => [a.what, a.status])).toEqual([['tokenize', 200], ['listing', 200], ['export status', 200], ['readyz', 200]]);

    await server.stop();
    const down: TAnswer[] = [];
    for (let n = 1; n <= DOWN_ROUNDS; n += 1) down.push(...(await round(exportId, n)));

    const restartedAt = performance.now();
    await server.start();
    let attempts = 0;
    const after = await until(async () => {
      attempts += 1;
      const answers = await round(exportId, 100 + attempts);
      return answers.every((a) => a.status === 200) ? answers : undefined;
    }, 30_000, 'every endpoint answering 200 after the restart');
    const recoveryMs = performance.now() - restartedAt;

    const unavailable = down.filter((a) => a.status === 503);
    const otherErrors = down.filter((a) => a.status >= 500 && a.status !== 503);
    const hung = down.filter((a) => a.status === 0);
    const maxMs = Math.max(...down.map((a) => a.ms));
    // No request made two tokens, and none answered 503 left one behind (each key: one token).
    const tokens = await pool.query<{ n: string; keys: string }>(
      'SELECT (SELECT count(*) FROM vault_test.cards) AS n, (SELECT count(*) FROM vault_test.idempotency_keys) AS keys',
    );
    console.warn(
      `faults-postgres: ${down.length} requests while down (tokenize, listing, export status, readyz × ${DOWN_ROUNDS}): ` +
        `${unavailable.length} answered 503, ${otherErrors.length} other 5xx, ${hung.length} hung, max latency ${Math.round(maxMs)} ms; ` +
        `all 200 again ${Math.round(recoveryMs)} ms after the restart (${attempts} round(s)), same processes; ` +
        `tokens in PG ${tokens.rows[0]!.n} for ${tokens.rows[0]!.keys} idempotency keys`,
    );

    expect(otherErrors, JSON.stringify(otherErrors.slice(0, 2))).toEqual([]);
    expect(hung).toEqual([]);
    expect(unavailable).toHaveLength(down.length);
    expect(maxMs).toBeLessThan(WAIT_MS + SLACK_MS);
    for (const answer of down) {
      expect(answer.body.errorCode, answer.what).toBe('SERVICE_UNAVAILABLE');
      expect(Number(answer.retryAfter), answer.what).toBeGreaterThan(0);
      // One sentence for the client; no driver message, address or stack.
      expect(String(answer.body.errorDetails), answer.what).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|\bat \S+:\d+|postgres:\/\//);
    }
    for (const ready of down.filter((a) => a.what === 'readyz')) {
      expect(ready.body.checks).toMatchObject({ postgres: 'unavailable', redis: 'ok' });
      expect(String(ready.body.errorDetails)).toContain('postgres');
    }
    expect(after.find((a) => a.what === 'readyz')!.body.checks).toMatchObject({ postgres: 'ok', redis: 'ok' });
    expect(Number(tokens.rows[0]!.n)).toBe(Number(tokens.rows[0]!.keys));
    expect(api.process.child.exitCode).toBeNull();
    expect(worker.child.exitCode).toBeNull();
  });
});
