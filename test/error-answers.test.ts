import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerLog, tokenizeAs, EXPORT, STATUS, TOKENIZE, expectError, expectNoInternals } from './support/abuse.js';
import { createWorld, type TWorld } from './support/world.js';

/**
 * What every answer carries and what no error answer carries, through the real app
 * (docs/api.md#conventions, docs/api.md#errors): Helmet's security headers on successes and on
 * every kind of error, and error bodies in the contract's shape only, also for forced failures (bad
 * JSON, bad types, a broken table, an unknown route). One tokenization per subject in a 600 s
 * window, so a second one is a 429 to look at.
 */
const PER_SUBJECT = 1;
const WINDOW_SECONDS = 600;

let world: TWorld;
const log = new AnswerLog();

beforeAll(async () => {
  world = await createWorld({
    env: { TOKENIZE_RATE_LIMIT_PER_SUBJECT: String(PER_SUBJECT), RATE_LIMIT_WINDOW_MS: String(WINDOW_SECONDS * 1000) },
  });
});
afterAll(async () => world?.close());

const tokenize = (sub: string, property: number, options: { url?: string; properties?: number[] } = {}) => tokenizeAs(world, log, sub, property, options);

describe('security headers (helmet)', () => {
  it('sends them on successes and on every kind of error answer', async () => {
    const token = world.token({ properties: [1] });
    // alice spends her one tokenization, so her next one is refused.
    expect((await tokenize('alice', 1, { properties: [1, 2] })).status).toBe(200);
    const answers = [
      await request(world.url).get('/healthz'),
      log.seen('unknown route', await request(world.url).get('/no/such/route')),
      log.seen('no token', await request(world.url).post(TOKENIZE).send({})),
      log.seen('rate limited', await tokenize('alice', 1, { properties: [1, 2] })),
      log.seen('oversize', await request(world.url).post('/fiscal-document/v1/night-audit/exports').set('Authorization', `Bearer ${token}`).set('X-Property-Id', '1').set('Content-Type', 'application/json').send(' '.repeat(9000))),
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

describe('no internals in error answers', () => {
  it('answers forced failures (bad JSON, bad types, a broken table, an unknown route) in the contract shape only', async () => {
    const token = world.token({ properties: [1] });
    const auth = (req: request.Test) => req.set('Authorization', `Bearer ${token}`).set('X-Property-Id', '1');
    expectError(log.seen('malformed JSON', await auth(request(world.url).post('/accounting/v1.0/folios/transactions')).set('Content-Type', 'application/json').send('{"sourceId": 1,,}')), 400, 'INVALID_REQUEST');
    expectError(log.seen('text body', await auth(request(world.url).post('/accounting/v1.0/folios/transactions')).set('Content-Type', 'text/plain').send('hello')), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(log.seen('bad charset', await auth(request(world.url).post(EXPORT)).set('Content-Type', 'application/json; charset=latin-9').send('{}')), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(log.seen('forged token', await request(world.url).get(`${STATUS}/00000000-0000-7000-8000-000000000000`).set('Authorization', `Bearer ${token}x`).set('X-Property-Id', '1')), 401, 'UNAUTHENTICATED');
    expectError(log.seen('bad id', await auth(request(world.url).get(`${STATUS}/1%3BDROP%20TABLE%20exports`))), 400, 'INVALID_REQUEST');
    expectError(log.seen('huge property id', await request(world.url).get(`${STATUS}/00000000-0000-7000-8000-000000000000`).set('Authorization', `Bearer ${token}`).set('X-Property-Id', '99999999999999999999')), 400, 'INVALID_REQUEST');

    // A store error that is no outage (a missing table) is a bug: a generic 500, the SQL error in the log only.
    await world.pool.query('ALTER TABLE exports RENAME TO exports_hidden');
    try {
      const broken = log.seen('missing table', await auth(request(world.url).get(`${STATUS}/00000000-0000-7000-8000-000000000000`)));
      expectError(broken, 500, 'UNEXPECTED_ERROR');
      expect(world.logs.join('')).toMatch(/relation \\?"exports\\?" does not exist/);
    } finally {
      await world.pool.query('ALTER TABLE exports_hidden RENAME TO exports');
    }

    expectNoInternals(log, 'error-answers');
  });
});
