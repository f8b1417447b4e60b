import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type TRunningApi } from '@folio-vault/api/server';
import { findBinary, freePort, spawnQuiet, stopChild, waitFor } from '@folio-vault/dev-services/process-utils';
import { redisAnswers } from '@folio-vault/dev-services/redis-server';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { cardBody } from './support/cards.js';
import { PROPERTY_1, PROPERTY_2, importOk } from './support/ledger-fixture.js';
import { findPans } from './support/secret-scan.js';
import { createWorld, type TWorld } from './support/world.js';

/**
 * Abuse limits through the real app (CONTRACT §1): per-route body limits (413), per-subject and
 * per-property tokenize limits counted in Redis and shared by API processes (429 + Retry-After),
 * the cap on exports in flight per property (429), security headers, and error bodies that never
 * carry internals. Limits are set low for this file: 3 tokenizations per subject and 5 per
 * property in a 600 s window, 2 exports in flight per property.
 */
const PER_SUBJECT = 3;
const PER_PROPERTY = 5;
const EXPORT_CAP = 2;
/** Long enough that no window ends while this file runs. */
const WINDOW_SECONDS = 600;

const TOKENIZE = '/vault/v1/tokens/card';
const EXPORT = '/fiscal-document/v1/folios/export';
const STATUS = '/fiscal-document/v1/folios/exports';
const ERROR_KEYS = ['id', 'timestamp', 'errorCode', 'errorDetails', 'fieldErrors'];

let world: TWorld;
/** A second API process on the same Redis, prefix and database. */
let second: TRunningApi;
let secondUrl: string;
/** Every error answer seen in this file, checked for internals at the end. */
const errorAnswers: Array<{ what: string; res: request.Response }> = [];
const figures = { requests: 0, limited: 0 };
// The figures of this file go to stdout like the other tests' (the lint rule is for service code).
// eslint-disable-next-line no-console
const report = (line: string) => console.log(line);

beforeAll(async () => {
  world = await createWorld({
    env: {
      TOKENIZE_RATE_LIMIT_PER_SUBJECT: String(PER_SUBJECT),
      TOKENIZE_RATE_LIMIT_PER_PROPERTY: String(PER_PROPERTY),
      RATE_LIMIT_WINDOW_MS: String(WINDOW_SECONDS * 1000),
      EXPORT_QUEUE_CAP_PER_PROPERTY: String(EXPORT_CAP),
    },
  });
  second = await startApi(world.config, world.logger, { port: 0 });
  secondUrl = `http://127.0.0.1:${second.port}`;
});
afterAll(async () => {
  await second?.close();
  await world?.close();
});

function seen(what: string, res: request.Response): request.Response {
  figures.requests += 1;
  if (res.status === 429) figures.limited += 1;
  if (res.status >= 400) errorAnswers.push({ what, res });
  return res;
}

function expectError(res: request.Response, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body.errorCode).toBe(code);
  expect(res.body.id).toBe(res.headers['x-request-id']);
  expect(Number.isNaN(Date.parse(res.body.timestamp))).toBe(false);
  expect(typeof res.body.errorDetails).toBe('string');
  for (const key of Object.keys(res.body)) expect(ERROR_KEYS).toContain(key);
}

function expectRetryAfter(res: request.Response, max: number): number {
  const seconds = Number(res.headers['retry-after']);
  expect(Number.isInteger(seconds), `Retry-After: ${res.headers['retry-after']}`).toBe(true);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(max);
  return seconds;
}

async function tokenize(sub: string, property: number, options: { url?: string; properties?: number[] } = {}): Promise<request.Response> {
  const token = world.token({ sub, properties: options.properties ?? [property], scope: 'write:payment' });
  const res = await request(options.url ?? world.url)
    .post(TOKENIZE)
    .set('Authorization', `Bearer ${token}`)
    .set('X-Property-Id', String(property))
    .set('SVC-Tokenization-Mode', 'test')
    .send(cardBody());
  return seen(`tokenize ${sub}@${property}`, res);
}

describe('body limits per route (413 PAYLOAD_TOO_LARGE)', () => {
  /** Every JSON route and its limit; the test fails when the OpenAPI document has a JSON route not listed here. */
  const LIMITS: Record<string, number> = {
    [`POST ${TOKENIZE}`]: 16 * 1024,
    'POST /accounting/v1.0/import': 64 * 1024 * 1024,
    'POST /accounting/v1.0/folios/transactions': 64 * 1024,
    [`POST ${EXPORT}`]: 64 * 1024,
    'POST /fiscal-document/v1/folio-export/pdf': 64 * 1024,
    'POST /fiscal-document/v1/night-audit/exports': 8 * 1024,
  };

  /** A JSON object of exactly `size` bytes, as text (superagent would serialize a Buffer as JSON). */
  const padded = (size: number) => `{"pad":"${'x'.repeat(size - '{"pad":""}'.length)}"}`;

  it('lists every JSON route of the OpenAPI document', async () => {
    const doc = (await request(world.url).get('/openapi.json')).body as { paths: Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>> };
    const jsonRoutes = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => operation.requestBody?.content?.['application/json'])
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(jsonRoutes.sort()).toEqual(Object.keys(LIMITS).sort());
  });

  it('answers 413 one byte over each route\'s limit, and reads a body of exactly the limit', async () => {
    const token = world.token({ sub: 'body-limits', properties: [9], scope: 'read:payment write:payment' });
    const send = (route: string, body: string) => {
      const [method, path] = route.split(' ') as [string, string];
      expect(method).toBe('POST');
      return request(world.url)
        .post(path)
        .set('Authorization', `Bearer ${token}`)
        .set('X-Property-Id', '9')
        .set('SVC-Tokenization-Mode', 'test')
        .set('Content-Type', 'application/json')
        .send(body);
    };
    for (const [route, limit] of Object.entries(LIMITS)) {
      const over = seen(`${route} oversize`, await send(route, padded(limit + 1)));
      expectError(over, 413, 'PAYLOAD_TOO_LARGE');
      expect(JSON.stringify(over.body)).not.toContain('xxxx');
      // The limit is the route's own: a body of exactly that size is read (and refused for its content).
      if (limit <= 64 * 1024) {
        const at = seen(`${route} at limit`, await send(route, padded(limit)));
        expectError(at, 400, 'INVALID_REQUEST');
        expect(at.body.fieldErrors).toContainEqual({ path: 'pad', message: 'is not a known field' });
      }
    }
    report(`body limits: ${Object.keys(LIMITS).length} JSON routes, 413 one byte over each`);
  });
});

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
    expect(bob.headers.ratelimit).toMatch(/"tokenize-property"; r=1; t=\d+/);
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
    const pattern = new RegExp(`^${world.config.QUEUE_PREFIX.replace(/[{}.]/g, '\\$&')}:rate-limit:tokenize-(subject|property):[A-Za-z0-9_-]{1,22}$`);
    for (const key of keys) {
      expect(key).toMatch(pattern);
      expect(key).not.toMatch(/alice|bob|carol/);
      const ttl = await world.redis.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(WINDOW_SECONDS * 1000);
      expect(findPans(`${key} ${await world.redis.get(key)}`, ['4111111111111111'])).toEqual([]);
    }
    // express-rate-limit reports misconfigurations (double counting, keys, headers) as ERR_ERL_* warnings.
    expect(world.logs.join('')).not.toMatch(/ERR_ERL_|express-rate-limit/);
    report(`rate limits: ${figures.requests} requests so far, ${figures.limited} answered 429, ${keys.length} counter keys`);
  });
});

describe('cap on exports in flight per property', () => {
  const SOURCE = { sourceKind: 'RESERVATION', sourceId: '8001' };
  let exportQueue: Queue;

  const postExport = (body: object, property = 1, url = world.url) =>
    request(url)
      .post(EXPORT)
      .set('Authorization', `Bearer ${world.token({ properties: [1, 2] })}`)
      .set('X-Property-Id', String(property))
      .set('Prefer', 'respond-async')
      .send(body)
      .then((res) => seen(`export ${JSON.stringify(body)}@${property}`, res));

  async function untilEnded(exportId: string, property: number): Promise<string> {
    for (let attempt = 0; attempt < 300; attempt += 1) {
      const res = await request(world.url)
        .get(`${STATUS}/${exportId}`)
        .set('Authorization', `Bearer ${world.token({ properties: [1, 2] })}`)
        .set('X-Property-Id', String(property));
      if (res.body.status === 'completed' || res.body.status === 'failed') return res.body.status as string;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return 'still in flight';
  }

  beforeAll(async () => {
    const token = world.token({ properties: [1, 2] });
    const folio = (property: number) => ({
      property: property === 1 ? PROPERTY_1 : PROPERTY_2,
      folios: [{ id: '801', sourceKind: 'RESERVATION', sourceId: '8001', sourceIdentifier: 'RES-8001', name: 'Guest folio' }],
      transactions: [
        {
          id: '8101', folioId: '801', sourceKind: 'RESERVATION', sourceId: '8001', transactionDatetime: '2026-11-20T14:00:00Z', serviceDate: '2026-11-20',
          internalTransactionCode: 'RR', internalCodeGroup: 'ROOM_REVENUE_RATE', description: 'Night one rate', quantity: '1', amount: '100.00',
          currency: property === 1 ? 'EUR' : 'USD', posted: true,
        },
      ],
    });
    await importOk(world, token, 1, folio(1));
    await importOk(world, token, 2, folio(2));
    // Paused, the workers take no export: what is queued stays queued until the test resumes it.
    exportQueue = new Queue(QUEUE_NAMES.export, { connection: world.redis, prefix: world.config.QUEUE_PREFIX });
    await exportQueue.pause();
  });
  afterAll(async () => {
    await exportQueue?.resume();
    await exportQueue?.close();
  });

  it(`refuses a new export past ${EXPORT_CAP} in flight, still joins an identical one, and accepts again once they finish`, async () => {
    const first = await postExport({ ...SOURCE, searchQuery: 'a' });
    const second = await postExport({ ...SOURCE, searchQuery: 'b' });
    expect([first.status, second.status]).toEqual([202, 202]);

    const third = await postExport({ ...SOURCE, searchQuery: 'c' });
    expectError(third, 429, 'RATE_LIMITED');
    expectRetryAfter(third, 60);
    expect(third.body.errorDetails).toMatch(/exports queued or running/);

    // An identical request shares the export in flight: no new work, so no refusal.
    const again = await postExport({ ...SOURCE, searchQuery: 'a' });
    expect(again.status).toBe(202);
    expect(again.body.exportId).toBe(first.body.exportId);
    // Another property has its own cap.
    const other = await postExport({ ...SOURCE, searchQuery: 'a' }, 2);
    expect(other.status, JSON.stringify(other.body)).toBe(202);

    await exportQueue.resume();
    for (const res of [first, second, other]) expect(await untilEnded(res.body.exportId as string, res === other ? 2 : 1)).toBe('completed');
    const accepted = await postExport({ ...SOURCE, searchQuery: 'c' });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    expect(await untilEnded(accepted.body.exportId as string, 1)).toBe('completed');
  });

  it('holds the cap exactly when many different exports arrive at once on two API processes', async () => {
    await exportQueue.pause();
    const bodies = Array.from({ length: 8 }, (_, i) => ({ ...SOURCE, searchQuery: `burst-${i}` }));
    const answers = await Promise.all(bodies.map((body, i) => postExport(body, 2, i % 2 === 0 ? world.url : secondUrl)));
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([...Array(EXPORT_CAP).fill(202), ...Array(bodies.length - EXPORT_CAP).fill(429)]);
    const inFlight = await world.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM exports WHERE property_id = 2 AND status IN ('queued', 'running')`);
    expect(inFlight.rows[0]!.n).toBe(EXPORT_CAP);
    report(`export cap: ${bodies.length} concurrent exports on 2 API processes, ${statuses.filter((s) => s === 202).length} accepted, ${statuses.filter((s) => s === 429).length} answered 429`);
    await exportQueue.resume();
    for (const res of answers.filter((r) => r.status === 202)) expect(await untilEnded(res.body.exportId as string, 2)).toBe('completed');
  });
});

describe('security headers (helmet)', () => {
  it('sends them on successes and on every kind of error answer', async () => {
    const token = world.token({ properties: [1] });
    const answers = [
      await request(world.url).get('/healthz'),
      seen('unknown route', await request(world.url).get('/no/such/route')),
      seen('no token', await request(world.url).post(TOKENIZE).send({})),
      seen('rate limited', await tokenize('alice', 1, { properties: [1, 2] })),
      seen('oversize', await request(world.url).post('/fiscal-document/v1/night-audit/exports').set('Authorization', `Bearer ${token}`).set('X-Property-Id', '1').set('Content-Type', 'application/json').send(' '.repeat(9000))),
    ];
    expect(answers.map((res) => res.status)).toEqual([200, 404, 401, 429, 413]);
    for (const res of answers) {
      expect(res.headers['content-security-policy']).toMatch(/default-src 'self'/);
      expect(res.headers['content-security-policy']).toMatch(/frame-ancestors 'self'/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
      expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
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
    expectError(seen('limiter up', await post()), 400, 'INVALID_REQUEST');

    redis.kill('SIGSTOP');
    const started = Date.now();
    const hung = seen('redis hung', await post().timeout(10_000));
    const waited = Date.now() - started;
    redis.kill('SIGCONT');
    expectError(hung, 503, 'SERVICE_UNAVAILABLE');
    expectRetryAfter(hung, 60);
    expect(waited).toBeLessThan(2_000 + 2_000);
    expectError(seen('limiter back', await post()), 400, 'INVALID_REQUEST');

    await stopChild(redis);
    const gone = seen('redis gone', await post().timeout(10_000));
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

describe('no internals in error answers', () => {
  it('answers forced failures (bad JSON, bad types, a broken table, an unknown route) in the contract shape only', async () => {
    const token = world.token({ properties: [1] });
    const auth = (req: request.Test) => req.set('Authorization', `Bearer ${token}`).set('X-Property-Id', '1');
    expectError(seen('malformed JSON', await auth(request(world.url).post('/accounting/v1.0/folios/transactions')).set('Content-Type', 'application/json').send('{"sourceId": 1,,}')), 400, 'INVALID_REQUEST');
    expectError(seen('text body', await auth(request(world.url).post('/accounting/v1.0/folios/transactions')).set('Content-Type', 'text/plain').send('hello')), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(seen('bad charset', await auth(request(world.url).post(EXPORT)).set('Content-Type', 'application/json; charset=latin-9').send('{}')), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(seen('forged token', await request(world.url).get(`${STATUS}/00000000-0000-7000-8000-000000000000`).set('Authorization', `Bearer ${token}x`).set('X-Property-Id', '1')), 401, 'UNAUTHENTICATED');
    expectError(seen('bad id', await auth(request(world.url).get(`${STATUS}/1%3BDROP%20TABLE%20exports`))), 400, 'INVALID_REQUEST');
    expectError(seen('huge property id', await request(world.url).get(`${STATUS}/00000000-0000-7000-8000-000000000000`).set('Authorization', `Bearer ${token}`).set('X-Property-Id', '99999999999999999999')), 400, 'INVALID_REQUEST');

    // A store error that is no outage (a missing table) is a bug: a generic 500, the SQL error in the log only.
    await world.pool.query('ALTER TABLE exports RENAME TO exports_hidden');
    try {
      const broken = seen('missing table', await auth(request(world.url).get(`${STATUS}/00000000-0000-7000-8000-000000000000`)));
      expectError(broken, 500, 'UNEXPECTED_ERROR');
      expect(world.logs.join('')).toMatch(/relation \\?"exports\\?" does not exist/);
    } finally {
      await world.pool.query('ALTER TABLE exports_hidden RENAME TO exports');
    }

    const internals = [
      /\bat [\w.<>]+ \(/, // stack frame
      /\.(ts|js|mjs|cjs):\d+/,
      /node_modules|\/work\/|\/tmp\//,
      /\b(SELECT|INSERT|UPDATE|DELETE)\b.*\b(FROM|INTO|SET)\b/i,
      /relation|syntax error|duplicate key|violates/i,
      /\b\w*Error:/,
      /ECONN|ETIMEDOUT|NOSCRIPT|ioredis|bullmq|Unexpected token|position \d+/i,
      /stack/i,
    ];
    for (const { what, res } of errorAnswers) {
      const text = JSON.stringify(res.body);
      for (const key of Object.keys(res.body)) expect(ERROR_KEYS, what).toContain(key);
      for (const pattern of internals) expect(text, `${what}: ${text}`).not.toMatch(pattern);
    }
    report(`error answers: ${errorAnswers.length} checked for internals, statuses ${[...new Set(errorAnswers.map((a) => a.res.status))].sort().join(' ')}`);
  });
});
