import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type TRunningApi } from '@folio-vault/api/server';
import { findBinary, freePort, spawnQuiet, stopChild, waitFor } from '@folio-vault/dev-services/process-utils';
import { redisAnswers } from '@folio-vault/dev-services/redis-server';
import { AnswerLog, tokenizeAs, TOKENIZE, expectError, expectNoInternals, expectRetryAfter, report } from './support/abuse.js';
import { findPans } from './support/secret-scan.js';
import { createWorld, type TWorld } from './support/world.js';

/**
 * Tokenize rate limits through the real app (docs/api.md#abuse-limits): per subject and per
 * property, counted in Redis and shared by API processes (429 + Retry-After), and the limiter's
 * answer when its Redis hangs or goes away (503, never a 500 or a hang). Limits are set low for
 * this file: 3 tokenizations per subject and 5 per property in a 600 s window.
 */
const PER_SUBJECT = 3;
const PER_PROPERTY = 5;
const IMPORTS_PER_PROPERTY = 2;
/** Long enough that no window ends while this file runs. */
const WINDOW_SECONDS = 600;

let world: TWorld;
/** A second API process on the same Redis, prefix and database. */
let second: TRunningApi;
let secondUrl: string;
const log = new AnswerLog();

beforeAll(async () => {
  world = await createWorld({
    env: {
      TOKENIZE_RATE_LIMIT_PER_SUBJECT: String(PER_SUBJECT),
      TOKENIZE_RATE_LIMIT_PER_PROPERTY: String(PER_PROPERTY),
      RATE_LIMIT_WINDOW_MS: String(WINDOW_SECONDS * 1000),
      IMPORT_RATE_LIMIT_PER_PROPERTY: String(IMPORTS_PER_PROPERTY),
    },
  });
  second = await startApi(world.config, world.logger, { port: 0 });
  secondUrl = `http://127.0.0.1:${second.port}`;
});
afterAll(async () => {
  await second?.close();
  await world?.close();
});

const tokenize = (sub: string, property: number, options: { url?: string; properties?: number[] } = {}) => tokenizeAs(world, log, sub, property, options);

describe('tokenize rate limits (429 RATE_LIMITED)', () => {
  it(`refuses a subject's request ${PER_SUBJECT + 1} on any property; other subjects go on`, async () => {
    for (let i = 0; i < PER_SUBJECT; i += 1) expect((await tokenize('alice', 1, { properties: [1, 2] })).status).toBe(200);
    const limited = await tokenize('alice', 1, { properties: [1, 2] });
    expectError(limited, 429, 'RATE_LIMITED');
    expectRetryAfter(limited, WINDOW_SECONDS);
    expect(limited.body.errorDetails).toMatch(/caller/);
    expect(limited.headers.ratelimit).toMatch(/"tokenize-subject"; r=0; t=\d+/);
    // The subject's limit holds on its other property too.
    expectError(await tokenize('alice', 2, { properties: [1, 2] }), 429, 'RATE_LIMITED');
    // Another subject on the same property is not affected (alice's refused requests spent nothing of property 1).
    const bob = await tokenize('bob', 1);
    expect(bob.status, JSON.stringify(bob.body)).toBe(200);
    // One item per counter counted, the subject's first (IETF draft 8); the partition key is a digest, never the id.
    expect(bob.headers.ratelimit).toMatch(/^"tokenize-subject"; r=2; t=(\d+), "tokenize-property"; r=1; t=\d+$/);
    expect(Number(/t=(\d+)/.exec(String(bob.headers.ratelimit))?.[1])).toBeLessThanOrEqual(WINDOW_SECONDS);
    expect(bob.headers['ratelimit-policy']).toMatch(
      new RegExp(`^"tokenize-subject"; q=${PER_SUBJECT}; w=${WINDOW_SECONDS}; pk=:[A-Za-z0-9+/=]+:, "tokenize-property"; q=${PER_PROPERTY}; w=${WINDOW_SECONDS}; pk=:[A-Za-z0-9+/=]+:$`),
    );
    expect(bob.headers['ratelimit-policy']).not.toMatch(/bob|:1:/);
  });

  it(`refuses a property's request ${PER_PROPERTY + 1} whoever sends it; other properties go on`, async () => {
    for (let i = 1; i <= PER_PROPERTY; i += 1) expect((await tokenize(`clerk-${i}`, 3)).status).toBe(200);
    const limited = await tokenize('clerk-6', 3, { properties: [3, 4] });
    expectError(limited, 429, 'RATE_LIMITED');
    expectRetryAfter(limited, WINDOW_SECONDS);
    expect(limited.body.errorDetails).toMatch(/property/);
    expect(limited.headers.ratelimit).toMatch(/"tokenize-property"; r=0; t=\d+/);
    expect((await tokenize('clerk-6', 4, { properties: [3, 4] })).status).toBe(200);
  });

  it('counts in Redis: two API processes share the counters', async () => {
    const urls = [world.url, secondUrl, world.url];
    for (const url of urls) expect((await tokenize('carol', 5, { url })).status).toBe(200);
    // Neither process alone has seen more than two of carol's requests.
    expectError(await tokenize('carol', 5, { url: secondUrl }), 429, 'RATE_LIMITED');
    for (const [i, url] of [world.url, secondUrl].entries()) expect((await tokenize(`dave-${i}`, 5, { url })).status).toBe(200);
    // Property 5 has now had 5 requests let through (3 + 2) and 1 refused by the subject limit.
    const full = await tokenize('erin', 5, { url: secondUrl });
    expectError(full, 429, 'RATE_LIMITED');
    expect(full.body.errorDetails).toMatch(/property/);
  });

  it('does not count requests for a property the caller may not act for against that property', async () => {
    // mallory may act for property 7 only; what she sends to property 8 is refused (403, then 429
    // once her own limit is spent) and never touches property 8's counter.
    for (let i = 0; i < PER_PROPERTY + 1; i += 1) {
      const res = await tokenize('mallory', 8, { properties: [7] });
      if (i < PER_SUBJECT) expectError(res, 403, 'ACCESS_DENIED');
      else expectError(res, 429, 'RATE_LIMITED');
    }
    for (let i = 0; i < PER_PROPERTY; i += 1) expect((await tokenize(`night-clerk-${i}`, 8)).status).toBe(200);
  });

  it('keeps counters under the queue prefix, with a TTL, and no card data in keys or values', async () => {
    const keys = await world.redis.keys(`${world.config.QUEUE_PREFIX}:rate-limit:*`);
    expect(keys.length).toBeGreaterThan(0);
    const pattern = new RegExp(`^${world.config.QUEUE_PREFIX.replace(/[{}.]/g, '\\$&')}:rate-limit:(tokenize|forward|import)-(subject|property):[A-Za-z0-9_-]{1,22}$`);
    for (const key of keys) {
      expect(key).toMatch(pattern);
      expect(key).not.toMatch(/alice|bob|carol/);
      const ttl = await world.redis.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(WINDOW_SECONDS * 1000);
      expect(findPans(`${key} ${await world.redis.get(key)}`, ['4111111111111111'])).toEqual([]);
    }
    report(`rate limits: ${log.requests} requests so far, ${log.limited} answered 429, ${keys.length} counter keys`);
  });
});

describe('forward rate limits (429 RATE_LIMITED)', () => {
  const TOKEN_ID = '01a20b4e-3168-7708-a1a3-db6235496beb';
  /** A forward to no configured destination: counted by the limiter first, then refused at `destination`. */
  const forward = (sub: string, property: number) =>
    request(world.url)
      .post(`/vault/v1/tokens/${TOKEN_ID}/forward`)
      .set('Authorization', `Bearer ${world.token({ sub, properties: [property], scope: 'use:payment' })}`)
      .set('X-Property-Id', String(property))
      .set('SVC-Tokenization-Mode', 'test')
      .set('Idempotency-Key', `rl-${sub}`)
      .send({ destination: 'none', path: '/v1/charges' });

  it('counts forwards apart from tokenizations, with the same limits, per subject', async () => {
    // frank's tokenize budget is spent; his forwards have their own.
    for (let i = 0; i < PER_SUBJECT; i += 1) expect((await tokenize('frank', 11)).status).toBe(200);
    expectError(await tokenize('frank', 11), 429, 'RATE_LIMITED');
    for (let i = 0; i < PER_SUBJECT; i += 1) {
      const refused = log.seen('forward under the limit', await forward('frank', 11));
      expectError(refused, 400, 'INVALID_REQUEST');
      expect(refused.headers.ratelimit).toMatch(new RegExp(`"forward-subject"; r=${PER_SUBJECT - 1 - i}; t=\\d+`));
    }
    const limited = log.seen('forward over the limit', await forward('frank', 11));
    expectError(limited, 429, 'RATE_LIMITED');
    expectRetryAfter(limited, WINDOW_SECONDS);
    expect(limited.body.errorDetails).toBe('Too many forward requests for this caller; retry after the time in Retry-After.');
  });
});

describe('import rate limit (429 RATE_LIMITED)', () => {
  const importAs = (sub: string, property: number) =>
    request(world.url)
      .post('/accounting/v1.0/import')
      .set('Authorization', `Bearer ${world.token({ sub, properties: [30, 31], scope: 'write:payment' })}`)
      .set('X-Property-Id', String(property))
      .send({ folios: [{ id: '1', sourceKind: 'HOUSE_ACCOUNT', sourceId: '1', name: 'House' }] });

  it(`refuses a property's import ${IMPORTS_PER_PROPERTY + 1} whoever sends it, writes nothing of it; other properties go on`, async () => {
    for (let i = 0; i < IMPORTS_PER_PROPERTY; i += 1) {
      const res = log.seen('import under the limit', await importAs(`pms-${i}`, 30));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.headers.ratelimit).toBe(`"import-property"; r=${IMPORTS_PER_PROPERTY - 1 - i}; t=${/t=(\d+)/.exec(String(res.headers.ratelimit))?.[1]}`);
    }
    await world.pool.query('DELETE FROM folios WHERE property_id = 30');
    const limited = log.seen('import over the limit', await importAs('pms-other', 30));
    expectError(limited, 429, 'RATE_LIMITED');
    expectRetryAfter(limited, WINDOW_SECONDS);
    expect(limited.body.errorDetails).toBe('Too many ledger imports for this property; retry after the time in Retry-After.');
    expect(limited.headers.ratelimit).toMatch(/^"import-property"; r=0; t=\d+$/);
    expect((await world.pool.query('SELECT count(*)::int AS n FROM folios WHERE property_id = 30')).rows[0]).toEqual({ n: 0 });
    const other = log.seen('import of another property', await importAs('pms-other', 31));
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    expect(other.body).toEqual({ property: 0, recipients: 0, reservations: 0, users: 0, folios: 1, transactions: 0 });
  });
});

describe('with a Redis of its own that hangs, then goes away', () => {
  let dir: string;
  let port: number;
  let redis: ReturnType<typeof spawnQuiet>;
  let api: TRunningApi;
  let url: string;

  const startRedis = async () => {
    redis = spawnQuiet(findBinary('redis-server')!, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no']);
    await waitFor(() => redisAnswers(`redis://127.0.0.1:${port}`, 500), 10_000, 'private redis-server');
  };
  const post = () =>
    request(url)
      .post(TOKENIZE)
      .set('Authorization', `Bearer ${world.token({ sub: 'frank', properties: [1], scope: 'write:payment' })}`)
      .set('X-Property-Id', '1')
      .send({});

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fv-abuse-redis-'));
    port = await freePort();
    await startRedis();
    // No worker: the limiter is what this looks at; an empty body is refused (400) once it has counted.
    api = await startApi({ ...world.config, REDIS_URL: `redis://127.0.0.1:${port}` }, world.logger, { port: 0 });
    url = `http://127.0.0.1:${api.port}`;
  });
  afterAll(async () => {
    if (redis.exitCode === null && redis.signalCode === null) redis.kill('SIGCONT');
    await api?.close();
    await stopChild(redis);
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 + Retry-After within the limiter bound, never 500 or a hang, and counts again when Redis is back', async () => {
    expectError(log.seen('limiter up', await post()), 400, 'INVALID_REQUEST');

    redis.kill('SIGSTOP');
    const started = Date.now();
    const hung = log.seen('redis hung', await post().timeout(10_000));
    const waited = Date.now() - started;
    redis.kill('SIGCONT');
    expectError(hung, 503, 'SERVICE_UNAVAILABLE');
    expectRetryAfter(hung, 60);
    expect(waited).toBeLessThan(2_000 + 2_000);
    expectError(log.seen('limiter back', await post()), 400, 'INVALID_REQUEST');

    await stopChild(redis);
    const gone = log.seen('redis gone', await post().timeout(10_000));
    expectError(gone, 503, 'SERVICE_UNAVAILABLE');
    expectRetryAfter(gone, 60);
    expect(JSON.stringify(gone.body)).not.toMatch(/ECONN|Stream|ioredis|redis/i);
    await startRedis();
    let back = gone;
    for (let attempt = 0; attempt < 50 && back.status !== 400; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      back = await post();
    }
    expectError(back, 400, 'INVALID_REQUEST');
    report(`redis outage: hung Redis answered 503 after ${waited} ms, stopped Redis answered 503`);
  });
});

describe('error answers of this file', () => {
  it('carry no internals', () => {
    expectNoInternals(log, 'rate-limits');
  });
});
