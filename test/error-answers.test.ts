import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardBody, generatedPan, luhnCheckDigit } from '@folio-vault/test-kit/cards';
import { AnswerLog, tokenizeAs, EXPORT, STATUS, TOKENIZE, expectError, expectNoInternals } from './support/abuse.js';
import { transaction as ledgerTransaction } from './support/ledger-fixture.js';
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

describe('bad bodies (docs/api.md#errors)', () => {
  // A Luhn-valid number that is no public test card, as a field name.
  const PAN = generatedPan('45', 16);
  const IMPORT = '/accounting/v1.0/import';
  const property = (id: number) => ({ id, name: `Hotel ${id}`, currency: 'EUR', timezone: 'Europe/Madrid', gatewayMode: 'test' });
  const folio = { id: '101', sourceKind: 'RESERVATION', sourceId: '5001', name: 'Guest folio' };
  let subjects = 0;
  /** A request to `path` for property `propertyId` by a subject of its own (tokenize allows one per subject). */
  const post = (path: string, propertyId = 1) =>
    request(world.url)
      .post(path)
      .set('Authorization', `Bearer ${world.token({ sub: `bad-bodies-${(subjects += 1)}`, properties: [propertyId], scope: 'read:payment write:payment' })}`)
      .set('X-Property-Id', String(propertyId))
      .set('SVC-Tokenization-Mode', 'test')
      .set('Content-Type', 'application/json');
  /** The same, with bytes as they are (superagent would encode a string as UTF-8). */
  const postBytes = async (path: string, body: Buffer, propertyId = 1) => {
    const res = await fetch(`${world.url}${path}`, {
      method: 'POST',
      body,
      headers: {
        authorization: `Bearer ${world.token({ sub: `bad-bodies-${(subjects += 1)}`, properties: [propertyId], scope: 'read:payment write:payment' })}`,
        'x-property-id': String(propertyId),
        'svc-tokenization-mode': 'test',
        'content-type': 'application/json',
      },
    });
    return { status: res.status, body: (await res.json()) as { errorCode: string; errorDetails: string; fieldErrors?: Array<{ path: string; message: string }> } };
  };
  /** Every maximal run of 13 to 19 digits in `text` that passes Luhn. */
  const luhnRuns = (text: string) =>
    [...text.matchAll(/\d+/g)].map(([run]) => run).filter((run) => run.length >= 13 && run.length <= 19 && luhnCheckDigit(run.slice(0, -1)) === run.at(-1));
  /** A JSON text with `marker` replaced by a byte that is never UTF-8 (0xFF). */
  const withBadByte = (value: unknown, marker: string) => {
    const [before, after] = JSON.stringify(value).split(marker) as [string, string];
    return Buffer.concat([Buffer.from(before), Buffer.from([0xff]), Buffer.from(after)]);
  };

  it('an import of 99,999 empty transactions: 100 field errors listed, the rest counted', async () => {
    const one = log.seen('one empty transaction', await post(IMPORT).send('{"transactions":[{}]}'));
    expectError(one, 400, 'INVALID_REQUEST');
    const perRecord = one.body.fieldErrors as Array<{ path: string; message: string }>;
    expect(perRecord.length).toBeGreaterThan(1);
    const records = 99_999;
    const res = log.seen('99,999 empty transactions', await post(IMPORT).send(`{"transactions":[${Array(records).fill('{}').join(',')}]}`));
    expectError(res, 400, 'INVALID_REQUEST');
    // The first 100, record after record, in the order one record gives them.
    const expected = Array.from({ length: Math.ceil(100 / perRecord.length) }, (_, index) =>
      perRecord.map((error) => ({ path: error.path.replace(/^transactions\.0\./, `transactions.${index}.`), message: error.message })),
    ).flat().slice(0, 100);
    expect(res.body.fieldErrors).toEqual(expected);
    const more = (perRecord.length * records - 1).toLocaleString('en-US');
    expect(res.body.errorDetails).toBe(`${perRecord[0]!.path}: ${perRecord[0]!.message} (and ${more} more field errors; the first 100 are listed).`);
  }, 60_000);

  it('never shows a card number used as a field name (tokenize, import, export), and no 13-19-digit Luhn run anywhere', async () => {
    const tokenize = log.seen('card number as a field name: tokenize', await post(TOKENIZE).send({ ...cardBody(), [PAN]: 'x' }));
    expectError(tokenize, 400, 'INVALID_REQUEST');
    expect(tokenize.body.fieldErrors).toEqual([{ path: '[field 5]', message: 'is not a known field' }]);
    expect(tokenize.body.errorDetails).toBe('[field 5]: is not a known field.');

    const imported = log.seen('card number as a field name: import', await post(IMPORT).send({ property: { ...property(1), [PAN]: 1 }, [`x${PAN}`]: 1 }));
    expectError(imported, 400, 'INVALID_REQUEST');
    expect(imported.body.fieldErrors).toEqual([
      { path: 'property.[field 6]', message: 'is not a known field' },
      { path: '[field 2]', message: 'is not a known field' },
    ]);

    const exported = log.seen('card number as a field name: export', await post(EXPORT).send({ sourceKind: 'RESERVATION', sourceId: '5001', [PAN]: { [PAN]: 1 } }));
    expectError(exported, 400, 'INVALID_REQUEST');
    expect(exported.body.fieldErrors).toEqual([{ path: '[field 3]', message: 'is not a known field' }]);

    for (const res of [tokenize, imported, exported]) {
      expect(res.text).not.toContain(PAN.slice(0, 12));
      expect(luhnRuns(res.text)).toEqual([]);
    }
  });

  it('reports each of several unknown fields at its own path', async () => {
    const res = log.seen('several unknown fields', await post(IMPORT).send({ property: { ...property(1), stars: 'x', rating: 'y' }, extra: 1 }));
    expectError(res, 400, 'INVALID_REQUEST');
    expect(res.body.fieldErrors).toEqual([
      { path: 'property.stars', message: 'is not a known field' },
      { path: 'property.rating', message: 'is not a known field' },
      { path: 'extra', message: 'is not a known field' },
    ]);
    expect(res.body.errorDetails).toBe('property.stars: is not a known field (and 2 more field errors).');
  });

  it('reads a body that starts with a UTF-8 byte order mark, on a JSON route and on the import', async () => {
    const tokenized = await post(TOKENIZE).send(`\uFEFF${JSON.stringify(cardBody())}`);
    expect(tokenized.status, tokenized.text).toBe(200);
    expect(tokenized.body.last4).toBe('1111');
    const imported = await post(IMPORT, 3).send(`\uFEFF${JSON.stringify({ property: property(3) })}`);
    expect(imported.status, imported.text).toBe(200);
    expect(imported.body).toMatchObject({ property: 1 });
  });

  it('refuses bytes that are not UTF-8 at the field holding them, and stores nothing', async () => {
    const cards = async () => Number((await world.pool.query('SELECT count(*) FROM vault_test.cards')).rows[0].count);
    const before = await cards();
    const tokenize = await postBytes(TOKENIZE, withBadByte(cardBody({ cardholder_name: 'Sara MARK Ryder' }), 'MARK'));
    expect(tokenize.status).toBe(400);
    expect(tokenize.body).toMatchObject({
      errorCode: 'INVALID_REQUEST',
      errorDetails: 'cardholder_name: is not valid UTF-8.',
      fieldErrors: [{ path: 'cardholder_name', message: 'is not valid UTF-8' }],
    });
    expect(await cards()).toBe(before);

    const transactions = [0, 1, 2, 3].map((n) => ({ ...ledgerTransaction({ id: String(n + 1) }), description: n === 3 ? 'Mini MARK bar' : 'Room rate' }));
    const imported = await postBytes(IMPORT, withBadByte({ property: property(4), folios: [folio], transactions }, 'MARK'), 4);
    expect(imported.status).toBe(400);
    expect(imported.body).toMatchObject({
      errorCode: 'INVALID_REQUEST',
      errorDetails: 'transactions.3.description: is not valid UTF-8.',
      fieldErrors: [{ path: 'transactions.3.description', message: 'is not valid UTF-8' }],
    });
    const stored = await world.pool.query('SELECT (SELECT count(*)::int FROM properties WHERE id = 4) + (SELECT count(*)::int FROM transactions WHERE property_id = 4) AS rows');
    expect(stored.rows[0].rows).toBe(0);
    // A field name that is not UTF-8 is named by the object holding it.
    const named = await postBytes(EXPORT, withBadByte({ sourceKind: 'RESERVATION', sourceId: '5001', recipient: { MARK: 1 } }, 'MARK'));
    expect(named.body.fieldErrors).toEqual([{ path: 'recipient', message: 'holds a field name that is not valid UTF-8' }]);
  });
});
