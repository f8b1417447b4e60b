import { createHmac, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardBody } from '@folio-vault/test-kit/cards';
import { createWorld, type TWorld } from './support/world.js';

// docs/api.md#authentication-and-scopes end to end: every token goes through the real app on a real port. The HS256 world
// is the default one; the RS256, ES256 and JWKS worlds get their key from the settings.

type TClaims = Record<string, unknown>;

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const attackerRsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const attackerEc = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pemOf = (key: KeyObject) => key.export({ type: 'spki', format: 'pem' }).toString();
const JWKS_KID = 'folio-test-key-1';

let hs: TWorld;
let rs: TWorld;
let es: TWorld;
let jwks: TWorld;
let jwksServer: Server;
let attackerServer: Server;
let attackerHits = 0;
let jwksUrl: string;
let attackerJwksUrl: string;
/** A test-mode card of property 1 in the HS256 world: the positive cases read it back. */
let cardId: string;

async function serveJson(body: unknown, onRequest: () => void = () => {}): Promise<{ server: Server; url: string }> {
  const server = createServer((_req, res) => {
    onRequest();
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}/.well-known/jwks.json` };
}

const jwkOf = (key: KeyObject, kid: string) => ({ ...key.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' });

beforeAll(async () => {
  const [legit, attacker] = await Promise.all([
    serveJson({ keys: [jwkOf(rsa.publicKey, JWKS_KID)] }),
    serveJson({ keys: [jwkOf(attackerRsa.publicKey, JWKS_KID), jwkOf(attackerRsa.publicKey, 'attacker-kid')] }, () => {
      attackerHits += 1;
    }),
  ]);
  jwksServer = legit.server;
  jwksUrl = legit.url;
  attackerServer = attacker.server;
  attackerJwksUrl = attacker.url;

  [hs, rs, es, jwks] = await Promise.all([
    createWorld(),
    createWorld({ env: { JWT_SECRET: '', JWT_PUBLIC_KEY: pemOf(rsa.publicKey) } }),
    createWorld({ env: { JWT_SECRET: '', JWT_PUBLIC_KEY: pemOf(ec.publicKey) } }),
    createWorld({ env: { JWT_SECRET: '', JWT_JWKS_URL: jwksUrl } }),
  ]);

  const created = await request(hs.url)
    .post('/vault/v1/tokens/card')
    .set('Authorization', `Bearer ${hs.token({ properties: [1] })}`)
    .set('X-Property-Id', '1')
    .set('SVC-Tokenization-Mode', 'test')
    .send(cardBody());
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  cardId = created.body.id;
});

afterAll(async () => {
  await Promise.all([hs, rs, es, jwks].filter(Boolean).map((w) => w.close()));
  await Promise.all(
    [jwksServer, attackerServer].filter(Boolean).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
  );
});

// ---------------------------------------------------------------------------------------------
// Token building

const nowS = () => Math.floor(Date.now() / 1000);
const b64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** Standard valid claims for a world; `undefined` in overrides removes a claim. */
function claims(world: TWorld, overrides: TClaims = {}): TClaims {
  const merged: TClaims = {
    sub: 'tester',
    iss: world.config.JWT_ISSUER,
    aud: world.config.JWT_AUDIENCE,
    iat: nowS(),
    exp: nowS() + 300,
    scope: 'read:payment write:payment',
    property_ids: [1],
    ...overrides,
  };
  return Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined));
}

/** HS256 by hand (header and payload exactly as given), independent of any JWT library. */
function hmacToken(header: TClaims, payload: TClaims | string, secret: string | Buffer, hash = 'sha256'): string {
  const input = `${b64url(header)}.${b64url(payload)}`;
  return `${input}.${createHmac(hash, secret).update(input).digest('base64url')}`;
}

const hsToken = (overrides: TClaims = {}) => hmacToken({ alg: 'HS256', typ: 'JWT' }, claims(hs, overrides), hs.config.JWT_SECRET!);

function signWith(key: KeyObject, algorithm: jwt.Algorithm, payload: TClaims, header: Record<string, unknown> = {}): string {
  return jwt.sign(payload, key, { algorithm, header: { alg: algorithm, typ: 'JWT', ...header } });
}

// ---------------------------------------------------------------------------------------------
// Requests and expectations

/** GET of the known card in the HS world (or any token id elsewhere): 401/403 come before everything else. */
function readCard(world: TWorld, authorization?: string, propertyId = '1', id = cardId) {
  const req = request(world.url).get(`/vault/v1/tokens/${id}`).set('X-Property-Id', propertyId).set('SVC-Tokenization-Mode', 'test');
  return authorization === undefined ? req : req.set('Authorization', authorization);
}

function tokenize(world: TWorld, authorization: string, propertyId = '1') {
  return request(world.url)
    .post('/vault/v1/tokens/card')
    .set('Authorization', authorization)
    .set('X-Property-Id', propertyId)
    .set('SVC-Tokenization-Mode', 'test')
    .send(cardBody());
}

const bearer = (token: string) => `Bearer ${token}`;

function expectErrorBody(res: request.Response, status: number, errorCode: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toEqual({
    id: res.headers['x-request-id'],
    timestamp: expect.any(String),
    errorCode,
    errorDetails: expect.any(String),
  });
  expect(res.body.id).toEqual(expect.any(String));
  expect(res.body.id.length).toBeGreaterThan(0);
  expect(new Date(res.body.timestamp).toISOString()).toBe(res.body.timestamp);
  expect(res.body.errorDetails.length).toBeGreaterThan(0);
}

function expectUnauthenticated(res: request.Response, token?: string) {
  expectErrorBody(res, 401, 'UNAUTHENTICATED');
  expect(res.headers['www-authenticate']).toMatch(/^Bearer\b.*\berror="invalid_token"/);
  // A token (or a piece of it) never comes back in the answer.
  if (token) for (const part of token.split('.').filter((p) => p.length >= 8)) expect(res.text).not.toContain(part);
}

function expectAccessDenied(res: request.Response) {
  expectErrorBody(res, 403, 'ACCESS_DENIED');
}

function expectCardRead(res: request.Response) {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.id).toBe(cardId);
  expect(res.body.last4).toBe('1111');
}

function expectTokenized(res: request.Response) {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body).toMatchObject({ card_brand: 'VISA', last4: '1111', test_mode: true });
}

// ---------------------------------------------------------------------------------------------

describe('HS256 — the baseline', () => {
  it('accepts a valid token and echoes X-Request-Id', async () => {
    const res = await readCard(hs, bearer(hsToken())).set('X-Request-Id', 'auth-test-ok-1');
    expectCardRead(res);
    expect(res.headers['x-request-id']).toBe('auth-test-ok-1');
  });

  it('accepts a token from world.token() on both vault routes', async () => {
    expectCardRead(await readCard(hs, bearer(hs.token())));
    expectTokenized(await tokenize(hs, bearer(hs.token())));
  });

  it('echoes the caller X-Request-Id as the error id', async () => {
    const res = await readCard(hs).set('X-Request-Id', 'auth-test-no-token-1');
    expectUnauthenticated(res);
    expect(res.body.id).toBe('auth-test-no-token-1');
  });
});

describe('401 — no or malformed credentials', () => {
  it('no Authorization header', async () => {
    expectUnauthenticated(await readCard(hs));
  });

  it('no Authorization header on POST tokenize', async () => {
    const res = await request(hs.url).post('/vault/v1/tokens/card').set('X-Property-Id', '1').set('SVC-Tokenization-Mode', 'test').send(cardBody());
    expectUnauthenticated(res);
    expect(res.text).not.toContain('4111111111111111');
  });

  it('Basic scheme', async () => {
    const basic = `Basic ${Buffer.from('user:password').toString('base64')}`;
    expectUnauthenticated(await readCard(hs, basic));
  });

  it('Basic scheme carrying a valid JWT', async () => {
    expectUnauthenticated(await readCard(hs, `Basic ${hsToken()}`));
  });

  it.each([
    ['Bearer with nothing after it', 'Bearer'],
    ['Bearer and a space', 'Bearer '],
    ['Bearer and spaces only', 'Bearer    '],
  ])('%s', async (_name, header) => {
    expectUnauthenticated(await readCard(hs, header));
  });

  it('a valid JWT without the Bearer scheme', async () => {
    const token = hsToken();
    expectUnauthenticated(await readCard(hs, token), token);
  });

  it.each([
    ['one part', 'abcdef'],
    ['two parts', 'abc.def'],
    ['four parts', 'abc.def.ghi.jkl'],
    ['three empty parts', '..'],
    ['garbage of three parts', 'not.a.jwt'],
    ['garbage characters', 'Zm9v!@#$%^&*()'],
    ['a header that is not JSON', `${b64url('not json')}.${b64url({ sub: 'x' })}.c2ln`],
    ['a header that is JSON null', `${b64url('null')}.${b64url({ sub: 'x' })}.c2ln`],
    ['a payload that is not JSON', `${b64url({ alg: 'HS256' })}.${b64url('not json')}.c2ln`],
    ['a typ JWT header with a payload that is not JSON', `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url('not json')}.c2ln`],
    ['a signature that is not base64url', `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub: 'x' })}.***`],
  ])('malformed token: %s', async (_name, token) => {
    expectUnauthenticated(await readCard(hs, bearer(token)));
  });

  it('a signed token whose payload is not JSON (typ JWT)', async () => {
    const token = hmacToken({ alg: 'HS256', typ: 'JWT' }, 'not json', hs.config.JWT_SECRET!);
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });

  it('a signed token whose payload is JSON but not an object', async () => {
    for (const payload of ['null', '42', '"tester"', '[1]']) {
      const token = hmacToken({ alg: 'HS256', typ: 'JWT' }, payload, hs.config.JWT_SECRET!);
      expectUnauthenticated(await readCard(hs, bearer(token)), token);
    }
  });

  it('a token in the query string only (?access_token=)', async () => {
    const token = hsToken();
    const res = await request(hs.url)
      .get(`/vault/v1/tokens/${cardId}`)
      .query({ access_token: token })
      .set('X-Property-Id', '1')
      .set('SVC-Tokenization-Mode', 'test');
    expectUnauthenticated(res, token);
  });

  it('a token in the body only', async () => {
    const token = hsToken();
    const res = await request(hs.url)
      .post('/vault/v1/tokens/card')
      .set('X-Property-Id', '1')
      .set('SVC-Tokenization-Mode', 'test')
      .send({ ...cardBody(), access_token: token });
    expectUnauthenticated(res, token);
  });

  it('an over-long (> 8 kB), otherwise valid token', async () => {
    const token = hsToken({ padding: 'x'.repeat(7_000) });
    expect(token.length).toBeGreaterThan(8_192);
    expectUnauthenticated(await readCard(hs, bearer(token)));
  });

  it('a large but not over-long token is accepted (the limit is what refuses the one above)', async () => {
    const token = hsToken({ padding: 'x'.repeat(5_000) });
    expect(token.length).toBeLessThan(8_192);
    expectCardRead(await readCard(hs, bearer(token)));
  });
});

describe('401 — algorithm and signature', () => {
  const unsigned = (payload: TClaims, signature = '') => `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(payload)}.${signature}`;

  it('alg "none" with an empty signature', async () => {
    const token = unsigned(claims(hs));
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });

  it('alg "none" with a signature part', async () => {
    const valid = hsToken();
    const token = unsigned(claims(hs), valid.split('.')[2]);
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });

  it.each(['None', 'NONE', 'nOnE'])('alg "%s" (case variants)', async (alg) => {
    const token = `${b64url({ alg, typ: 'JWT' })}.${b64url(claims(hs))}.`;
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });

  it('a header without alg', async () => {
    const token = hmacToken({ typ: 'JWT' }, claims(hs), hs.config.JWT_SECRET!);
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });

  it('HS384 signed with the right secret (only HS256 is accepted)', async () => {
    const token = hmacToken({ alg: 'HS384', typ: 'JWT' }, claims(hs), hs.config.JWT_SECRET!, 'sha384');
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });

  it('HS256 signed with a wrong secret', async () => {
    const token = hmacToken({ alg: 'HS256', typ: 'JWT' }, claims(hs), 'a-wrong-secret-that-is-long-enough-0123456789');
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });

  it('HS256 signed by jsonwebtoken with a wrong secret', async () => {
    const token = jwt.sign(claims(hs), 'another-wrong-secret-that-is-long-enough-42', { algorithm: 'HS256' });
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });

  it('a tampered payload (property_ids widened, signature kept)', async () => {
    const original = hsToken({ property_ids: [1] });
    const [header, , signature] = original.split('.');
    const tampered = `${header}.${b64url(claims(hs, { property_ids: [1, 2] }))}.${signature}`;
    // Control: the untampered token is fine for property 1, and not allowed for property 2.
    expectCardRead(await readCard(hs, bearer(original)));
    expectAccessDenied(await readCard(hs, bearer(original), '2'));
    expectUnauthenticated(await readCard(hs, bearer(tampered), '2'), tampered);
    expectUnauthenticated(await readCard(hs, bearer(tampered), '1'), tampered);
  });

  it('a tampered header (typ changed, signature kept)', async () => {
    const original = hsToken();
    const [, payload, signature] = original.split('.');
    const tampered = `${b64url({ alg: 'HS256', typ: 'JWT', kid: 'x' })}.${payload}.${signature}`;
    expectUnauthenticated(await readCard(hs, bearer(tampered)), tampered);
  });

  it('a truncated signature', async () => {
    const token = hsToken().slice(0, -4);
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });

  it('an RS256 token in the HS256 world', async () => {
    const token = signWith(rsa.privateKey, 'RS256', claims(hs));
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });
});

describe('401 / 200 — time claims and the 30 s tolerance', () => {
  it('expired 2 minutes ago', async () => {
    const token = hsToken({ iat: nowS() - 600, exp: nowS() - 120 });
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });

  it('expired 10 s ago is still accepted (within tolerance)', async () => {
    expectCardRead(await readCard(hs, bearer(hsToken({ iat: nowS() - 600, exp: nowS() - 10 }))));
  });

  it('no exp claim', async () => {
    const token = hsToken({ exp: undefined });
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });

  it.each([
    ['a string', String(nowS() + 300)],
    ['null', null],
  ])('exp that is %s', async (_name, exp) => {
    const token = hsToken({ exp });
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });

  it('nbf 5 minutes in the future', async () => {
    const token = hsToken({ nbf: nowS() + 300, exp: nowS() + 900 });
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });

  it('nbf 10 s in the future is accepted (within tolerance)', async () => {
    expectCardRead(await readCard(hs, bearer(hsToken({ nbf: nowS() + 10 }))));
  });

  it('nbf in the past is accepted', async () => {
    expectCardRead(await readCard(hs, bearer(hsToken({ nbf: nowS() - 60 }))));
  });
});

describe('401 / 200 — identity, issuer and audience', () => {
  it('no sub claim', async () => {
    const token = hsToken({ sub: undefined });
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });

  it.each([
    ['empty', ''],
    ['a number', 42],
  ])('sub that is %s', async (_name, sub) => {
    const token = hsToken({ sub });
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });

  it('wrong iss', async () => {
    const token = hsToken({ iss: 'someone-else' });
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });

  it('no iss', async () => {
    const token = hsToken({ iss: undefined });
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });

  it('wrong aud', async () => {
    const token = hsToken({ aud: 'another-service' });
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });

  it('no aud', async () => {
    const token = hsToken({ aud: undefined });
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });

  it('aud as an array without the audience', async () => {
    const token = hsToken({ aud: ['another-service', 'folio-vault-admin'] });
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });

  it('aud as an array containing the audience is accepted', async () => {
    expectCardRead(await readCard(hs, bearer(hsToken({ aud: ['another-service', hs.config.JWT_AUDIENCE] }))));
  });
});

describe('401 / 200 — property_ids claim', () => {
  it.each([
    ['a number', 1],
    ['a digit string', '1'],
    ['an object', { 0: 1 }],
    ['an array with a fraction', [1, 1.5]],
    ['an array with a non-digit string', [1, 'abc']],
    ['an array with null', [1, null]],
    ['an array with a nested array', [[1]]],
    ['an array with a boolean', [true]],
    ['an array with zero', [0]],
    ['an array with a negative number', [-1]],
    ['an array with an unsafe integer', [2 ** 53]],
  ])('property_ids as %s → 401', async (_name, propertyIds) => {
    const token = hsToken({ property_ids: propertyIds });
    expectUnauthenticated(await readCard(hs, bearer(token)), token);
  });

  it('property_ids as digit strings are accepted', async () => {
    expectCardRead(await readCard(hs, bearer(hsToken({ property_ids: ['1'] }))));
    expectCardRead(await readCard(hs, bearer(hsToken({ property_ids: ['7', '1'] }))));
  });

  it('property_ids as a digit string with leading zeros matches the canonical id', async () => {
    expectCardRead(await readCard(hs, bearer(hsToken({ property_ids: ['0001'] }))));
  });
});

describe('403 — scopes', () => {
  const scoped = (scope: unknown) => bearer(hsToken({ scope, property_ids: [1] }));

  it('read:payment only: GET works, POST tokenize is denied', async () => {
    expectCardRead(await readCard(hs, scoped('read:payment')));
    const res = await tokenize(hs, scoped('read:payment'));
    expectAccessDenied(res);
    expect(res.text).not.toContain('4111111111111111');
  });

  it('read:payment only: DELETE is denied and the card stays', async () => {
    const res = await request(hs.url)
      .delete(`/vault/v1/tokens/${cardId}`)
      .set('Authorization', scoped('read:payment'))
      .set('X-Property-Id', '1')
      .set('SVC-Tokenization-Mode', 'test');
    expectAccessDenied(res);
    expectCardRead(await readCard(hs, scoped('read:payment')));
  });

  it('write:payment only: POST tokenize works, GET is denied', async () => {
    expectTokenized(await tokenize(hs, scoped('write:payment')));
    expectAccessDenied(await readCard(hs, scoped('write:payment')));
  });

  it.each([
    ['no scope claim', undefined],
    ['an empty scope', ''],
    ['admin only', 'admin'],
    ['a look-alike scope', 'read:payments write:payments'],
    ['a comma-separated list', 'read:payment,write:payment'],
    ['a prefix of the scope', 'read:pay'],
    ['the scope in upper case', 'READ:PAYMENT'],
  ])('%s → 403 on GET', async (_name, scope) => {
    expectAccessDenied(await readCard(hs, scoped(scope)));
  });

  it('several spaces between scopes still work', async () => {
    expectCardRead(await readCard(hs, scoped('  write:payment   read:payment ')));
  });
});

describe('403 — properties', () => {
  it('X-Property-Id not in property_ids → 403 on GET and POST', async () => {
    const token = bearer(hsToken({ property_ids: [1, 3] }));
    expectAccessDenied(await readCard(hs, token, '2'));
    expectAccessDenied(await tokenize(hs, token, '2'));
  });

  it('no property_ids claim → 403', async () => {
    expectAccessDenied(await readCard(hs, bearer(hsToken({ property_ids: undefined }))));
  });

  it('property_ids null grants no property (treated as absent) → 403', async () => {
    expectAccessDenied(await readCard(hs, bearer(hsToken({ property_ids: null }))));
  });

  it('an empty property_ids array → 403', async () => {
    expectAccessDenied(await readCard(hs, bearer(hsToken({ property_ids: [] }))));
  });

  it('the operator\'s property_ids ["*"] acts for no property → 403; "*" beside ids, or alone as a string, is not a valid claim → 401', async () => {
    expectAccessDenied(await readCard(hs, bearer(hsToken({ property_ids: ['*'], scope: 'read:payment write:payment admin' }))));
    for (const propertyIds of [['*', 1], [1, '*'], ['*', '*'], '*', ['all']]) {
      const token = hsToken({ property_ids: propertyIds });
      expectUnauthenticated(await readCard(hs, bearer(token)), token);
    }
  });

  it('X-Property-Id with leading zeros is compared as the canonical id', async () => {
    expectCardRead(await readCard(hs, bearer(hsToken({ property_ids: [1] })), '01'));
    expectAccessDenied(await readCard(hs, bearer(hsToken({ property_ids: [1] })), '010'));
  });

  it('a card of another property the token may act for is 404, not 200', async () => {
    const res = await readCard(hs, bearer(hsToken({ property_ids: [1, 2] })), '2');
    expectErrorBody(res, 404, 'ENTITY_NOT_FOUND');
  });
});

describe('RS256 world (JWT_PUBLIC_KEY)', () => {
  it('accepts a proper RS256 token', async () => {
    expectTokenized(await tokenize(rs, bearer(signWith(rsa.privateKey, 'RS256', claims(rs)))));
  });

  it('rejects HS256 signed with the PEM text as the HMAC secret (key confusion)', async () => {
    const pem = rs.config.JWT_PUBLIC_KEY!;
    const token = hmacToken({ alg: 'HS256', typ: 'JWT' }, claims(rs), pem);
    expectUnauthenticated(await readCard(rs, bearer(token), '1', randomUUID()), token);
    // The same with the PEM exactly as exported (with and without its trailing newline).
    for (const secret of [pemOf(rsa.publicKey), pemOf(rsa.publicKey).trim()]) {
      const variant = hmacToken({ alg: 'HS256', typ: 'JWT' }, claims(rs), secret);
      expectUnauthenticated(await readCard(rs, bearer(variant), '1', randomUUID()), variant);
    }
  });

  it('rejects RS256 signed by another RSA key', async () => {
    const token = signWith(attackerRsa.privateKey, 'RS256', claims(rs));
    expectUnauthenticated(await readCard(rs, bearer(token), '1', randomUUID()), token);
  });

  it('rejects a token with a different RSA algorithm (PS256, RS512)', async () => {
    for (const alg of ['PS256', 'RS512'] as const) {
      const token = signWith(rsa.privateKey, alg, claims(rs));
      expectUnauthenticated(await readCard(rs, bearer(token), '1', randomUUID()), token);
    }
  });

  it('rejects alg none', async () => {
    const token = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims(rs))}.`;
    expectUnauthenticated(await readCard(rs, bearer(token), '1', randomUUID()), token);
  });

  it('applies the same claim rules (expired RS256 token)', async () => {
    const token = signWith(rsa.privateKey, 'RS256', claims(rs, { exp: nowS() - 120 }));
    expectUnauthenticated(await readCard(rs, bearer(token), '1', randomUUID()), token);
  });
});

describe('ES256 world (EC P-256 JWT_PUBLIC_KEY)', () => {
  it('accepts ES256', async () => {
    expectTokenized(await tokenize(es, bearer(signWith(ec.privateKey, 'ES256', claims(es)))));
  });

  it('rejects RS256', async () => {
    const token = signWith(rsa.privateKey, 'RS256', claims(es));
    expectUnauthenticated(await readCard(es, bearer(token), '1', randomUUID()), token);
  });

  it('rejects ES256 signed by another EC key', async () => {
    const token = signWith(attackerEc.privateKey, 'ES256', claims(es));
    expectUnauthenticated(await readCard(es, bearer(token), '1', randomUUID()), token);
  });

  it('rejects HS256 signed with the PEM text as the HMAC secret', async () => {
    const token = hmacToken({ alg: 'HS256', typ: 'JWT' }, claims(es), es.config.JWT_PUBLIC_KEY!);
    expectUnauthenticated(await readCard(es, bearer(token), '1', randomUUID()), token);
  });
});

describe('JWKS world (JWT_JWKS_URL)', () => {
  it('accepts RS256 with the right kid', async () => {
    expectTokenized(await tokenize(jwks, bearer(signWith(rsa.privateKey, 'RS256', claims(jwks), { kid: JWKS_KID }))));
  });

  it('rejects an unknown kid (signed by the right key)', async () => {
    const token = signWith(rsa.privateKey, 'RS256', claims(jwks), { kid: 'no-such-key' });
    expectUnauthenticated(await readCard(jwks, bearer(token), '1', randomUUID()), token);
  });

  it('rejects a token without kid', async () => {
    const token = signWith(rsa.privateKey, 'RS256', claims(jwks));
    expectUnauthenticated(await readCard(jwks, bearer(token), '1', randomUUID()), token);
  });

  it('rejects the right kid signed by another key', async () => {
    const token = signWith(attackerRsa.privateKey, 'RS256', claims(jwks), { kid: JWKS_KID });
    expectUnauthenticated(await readCard(jwks, bearer(token), '1', randomUUID()), token);
  });

  it('ignores a jku header pointing at an attacker JWKS', async () => {
    const hitsBefore = attackerHits;
    for (const kid of ['attacker-kid', JWKS_KID]) {
      const token = signWith(attackerRsa.privateKey, 'RS256', claims(jwks), { kid, jku: attackerJwksUrl });
      expectUnauthenticated(await readCard(jwks, bearer(token), '1', randomUUID()), token);
    }
    expect(attackerHits).toBe(hitsBefore);
  });

  it('ignores an embedded jwk header carrying an attacker key', async () => {
    for (const kid of ['attacker-kid', JWKS_KID]) {
      const token = signWith(attackerRsa.privateKey, 'RS256', claims(jwks), { kid, jwk: jwkOf(attackerRsa.publicKey, kid) });
      expectUnauthenticated(await readCard(jwks, bearer(token), '1', randomUUID()), token);
    }
  });

  it('ignores an x5u header pointing at an attacker', async () => {
    const hitsBefore = attackerHits;
    const token = signWith(attackerRsa.privateKey, 'RS256', claims(jwks), { kid: 'attacker-kid', x5u: attackerJwksUrl });
    expectUnauthenticated(await readCard(jwks, bearer(token), '1', randomUUID()), token);
    expect(attackerHits).toBe(hitsBefore);
  });

  it('rejects HS256 signed with the JWK modulus as the secret', async () => {
    const n = String(jwkOf(rsa.publicKey, JWKS_KID).n);
    const token = hmacToken({ alg: 'HS256', typ: 'JWT', kid: JWKS_KID }, claims(jwks), n);
    expectUnauthenticated(await readCard(jwks, bearer(token), '1', randomUUID()), token);
  });

  it('rejects alg none with the right kid', async () => {
    const token = `${b64url({ alg: 'none', typ: 'JWT', kid: JWKS_KID })}.${b64url(claims(jwks))}.`;
    expectUnauthenticated(await readCard(jwks, bearer(token), '1', randomUUID()), token);
  });

  it('applies the property rule (403) after a JWKS-verified token', async () => {
    const token = signWith(rsa.privateKey, 'RS256', claims(jwks, { property_ids: [5] }), { kid: JWKS_KID });
    expectAccessDenied(await readCard(jwks, bearer(token), '1', randomUUID()));
  });
});
