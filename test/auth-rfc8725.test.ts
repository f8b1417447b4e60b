import { createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type TWorld } from './support/world.js';

// RFC 8725 (JWT Best Current Practices) against one route of each scope, in the three key set-ups
// of docs/api.md#authentication-and-scopes (HS256 secret, RS256 public key, JWKS URL). test/auth.test.ts covers the claim
// rules on the vault read route; this file adds what it leaves out, route by route:
//
// - alg "none" and HS/RS key confusion (§2.1, §3.1): the algorithm follows from the configured key.
// - kid (§3.10): looked up only in the configured JWKS; never a path, URL or query. With one
//   configured key (HS256 or RS256) the kid names nothing and is ignored: the signature must still
//   verify with that key, so an injected kid gains nothing.
// - jku / x5u / jwk / x5c (§3.10, RFC 7515 §4.1): ignored, not rejected. A token the configured key
//   signed still passes with them; one the attacker signed fails; the attacker URL is never fetched.
// - typ (§3.11): absent, "JWT" or "at+jwt" (RFC 9068), with or without the "application/" prefix
//   (RFC 7515 §4.1.9), case-insensitive; any other type (a security event, a logout token, DPoP
//   proof…) is another kind of JWT and is refused, so it cannot be replayed as an access token.
// - crit (RFC 7515 §4.1.11): the service understands no extension, so any crit header is refused.
// - size: a token over 8,192 characters is 401 invalid_token; one whose headers pass Node's 16 kB
//   header limit never reaches the app and gets Node's own 431 (no body).
// - the token only ever comes from the Authorization header (RFC 6750 §2.2/2.3 are not supported):
//   ?access_token=, a form body or a cookie do not authenticate. The one exception is the queue
//   dashboard's own ?token= exchange (a redirect that sets its cookie), not tested here.

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const attacker = generateKeyPairSync('rsa', { modulusLength: 2048 });
const KID = 'folio-rfc8725-key';
const ATTACKER_SECRET = 'attacker-chosen-secret-0123456789abcdef';

type TJson = Record<string, unknown>;
// eslint-disable-next-line no-console
const report = (line: string) => console.log(line);
const tally = { refused: 0, accepted: 0 };
const b64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const nowS = () => Math.floor(Date.now() / 1000);
const pemOf = (key: KeyObject) => key.export({ type: 'spki', format: 'pem' }).toString();
const jwkOf = (key: KeyObject, kid: string) => ({ ...key.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' });

/** A JWS built by hand, so the header goes out exactly as written (no library adds or drops a member). */
function jws(header: TJson, payload: TJson, signer: (input: string) => string): string {
  const input = `${b64url(header)}.${b64url(payload)}`;
  return `${input}.${signer(input)}`;
}
const hmac = (secret: string | Buffer) => (input: string) => createHmac('sha256', secret).update(input).digest('base64url');
const rs256 = (key: KeyObject) => (input: string) => sign('sha256', Buffer.from(input), key).toString('base64url');

let hs: TWorld;
let rs: TWorld;
let jwks: TWorld;
let jwksServer: Server;
let attackerServer: Server;
/** Paths the legitimate JWKS server was asked for: a kid must never become part of one. */
const jwksPaths: string[] = [];
let attackerHits = 0;
let jwksUrl: string;
let attackerUrl: string;

async function serveJson(body: unknown, onRequest: (path: string) => void): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    onRequest(req.url ?? '');
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json` };
}

beforeAll(async () => {
  const [legit, evil] = await Promise.all([
    serveJson({ keys: [jwkOf(rsa.publicKey, KID)] }, (path) => jwksPaths.push(path)),
    serveJson({ keys: [jwkOf(attacker.publicKey, KID), jwkOf(attacker.publicKey, 'attacker-kid')] }, () => {
      attackerHits += 1;
    }),
  ]);
  [jwksServer, jwksUrl, attackerServer, attackerUrl] = [legit.server, legit.url, evil.server, evil.url];
  [hs, rs, jwks] = await Promise.all([
    createWorld({ worker: false }),
    createWorld({ worker: false, env: { JWT_SECRET: '', JWT_PUBLIC_KEY: pemOf(rsa.publicKey) } }),
    createWorld({ worker: false, env: { JWT_SECRET: '', JWT_JWKS_URL: jwksUrl } }),
  ]);
  // The source the read route lists, so a good token gets 200 there (404 for an unknown source).
  for (const world of [hs, rs, jwks]) {
    const res = await call(world, ROUTES[0]!, { authorization: bearer(goodToken(world, ROUTES[0]!)), body: { folios: [{ id: '1', sourceKind: 'RESERVATION', sourceId: '1', name: 'Folio' }] } });
    expect(res.status, res.text).toBe(200);
  }
});

afterAll(async () => {
  report(`rfc8725: ${tally.refused} hostile requests answered 401 invalid_token, ${tally.accepted} controls answered 200, attacker key URL fetched ${attackerHits} times`);
  await Promise.all([hs, rs, jwks].filter(Boolean).map((w) => w.close()));
  await Promise.all([jwksServer, attackerServer].filter(Boolean).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

// ---------------------------------------------------------------------------------------------
// One route per scope; each answers 200 to a good token, so a refusal is the token's doing.

interface TRoute {
  scope: string;
  method: string;
  path: string;
  body?: TJson;
}

const ROUTES: TRoute[] = [
  { scope: 'write:payment', method: 'POST', path: '/accounting/v1.0/import', body: {} },
  { scope: 'read:payment', method: 'POST', path: '/accounting/v1.0/folios/transactions', body: { sourceId: '1', sourceKind: 'RESERVATION' } },
  { scope: 'admin', method: 'GET', path: '/metrics' },
];

function claims(world: TWorld, route: TRoute, overrides: TJson = {}): TJson {
  return {
    sub: 'rfc8725',
    iss: world.config.JWT_ISSUER,
    aud: world.config.JWT_AUDIENCE,
    iat: nowS(),
    exp: nowS() + 300,
    scope: route.scope,
    // The admin scope counts only on the operator's token.
    property_ids: route.scope === 'admin' ? ['*'] : [1],
    ...overrides,
  };
}

/** The token each world's configured key signs, with extra header members. */
function goodToken(world: TWorld, route: TRoute, header: TJson = {}, overrides: TJson = {}): string {
  if (world === hs) return jws({ alg: 'HS256', typ: 'JWT', ...header }, claims(world, route, overrides), hmac(world.config.JWT_SECRET!));
  const kid = world === jwks ? { kid: KID } : {};
  return jws({ alg: 'RS256', typ: 'JWT', ...kid, ...header }, claims(world, route, overrides), rs256(rsa.privateKey));
}

interface TCall {
  authorization?: string;
  query?: string;
  headers?: Record<string, string>;
  /** Replaces the route's JSON body. */
  body?: TJson;
  /** Replaces the route's JSON body (raw text with its own Content-Type). */
  rawBody?: { type: string; text: string };
}

async function call(world: TWorld, route: TRoute, options: TCall = {}) {
  const headers: Record<string, string> = { 'x-property-id': '1', ...options.headers };
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  let body: string | undefined;
  if (options.rawBody) {
    headers['content-type'] = options.rawBody.type;
    body = options.rawBody.text;
  } else if (options.body ?? route.body) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body ?? route.body);
  }
  const res = await fetch(`${world.url}${route.path}${options.query ?? ''}`, { method: route.method, headers, body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

type TAnswer = Awaited<ReturnType<typeof call>>;

function expectAccepted(res: TAnswer) {
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  tally.accepted += 1;
}

function expectUnauthenticated(res: TAnswer, token?: string) {
  expect(res.status, res.text.slice(0, 300)).toBe(401);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer\b.*\berror="invalid_token"/);
  const body = JSON.parse(res.text) as TJson;
  expect(body).toEqual({ id: res.headers.get('x-request-id'), timestamp: expect.any(String), errorCode: 'UNAUTHENTICATED', errorDetails: expect.any(String) });
  expect(new Date(body.timestamp as string).toISOString()).toBe(body.timestamp);
  // The token, or any piece of it, never comes back.
  if (token) for (const part of token.split('.').filter((p) => p.length >= 8)) expect(res.text).not.toContain(part);
  tally.refused += 1;
}

const bearer = (token: string) => `Bearer ${token}`;
const WORLDS = () => [['HS256', hs], ['RS256', rs], ['JWKS', jwks]] as const;

// ---------------------------------------------------------------------------------------------

describe.each(ROUTES.map((route) => [route.scope, route] as const))('scope %s', (_scope, route) => {
  it('control: the configured key signs → 200 in every world (so each 401 below is the attack)', async () => {
    for (const [, world] of WORLDS()) expectAccepted(await call(world, route, { authorization: bearer(goodToken(world, route)) }));
  });

  it('control: the token of another scope → 403, not 401 (the route does check scope)', async () => {
    const other = ROUTES.find((r) => r.scope !== route.scope)!;
    const res = await call(hs, route, { authorization: bearer(goodToken(hs, other)) });
    expect(res.status).toBe(403);
  });

  describe('§3.1 algorithm verification', () => {
    it.each(['none', 'None', 'NONE'])('alg "%s" is refused in every world', async (alg) => {
      for (const [, world] of WORLDS()) {
        const kid = world === jwks ? { kid: KID } : {};
        for (const signature of ['', goodToken(world, route).split('.')[2]!]) {
          const token = `${b64url({ alg, typ: 'JWT', ...kid })}.${b64url(claims(world, route))}.${signature}`;
          expectUnauthenticated(await call(world, route, { authorization: bearer(token) }), token);
        }
      }
    });

    it('HS256 signed with the RS256 public key as the HMAC secret (PEM, trimmed PEM, DER, JWK) is refused', async () => {
      const pem = pemOf(rsa.publicKey);
      const secrets: Array<string | Buffer> = [pem, pem.trim(), rsa.publicKey.export({ type: 'spki', format: 'der' }), JSON.stringify(jwkOf(rsa.publicKey, KID))];
      for (const world of [rs, jwks]) {
        for (const secret of secrets) {
          const token = jws({ alg: 'HS256', typ: 'JWT', kid: KID }, claims(world, route), hmac(secret));
          expectUnauthenticated(await call(world, route, { authorization: bearer(token) }), token);
        }
      }
    });

    it('RS256 in the HS256 world (even signed by a real key) is refused', async () => {
      const token = jws({ alg: 'RS256', typ: 'JWT' }, claims(hs, route), rs256(rsa.privateKey));
      expectUnauthenticated(await call(hs, route, { authorization: bearer(token) }), token);
    });
  });

  describe('§3.10 kid', () => {
    it('an unknown kid in the JWKS world is refused, even signed by the real key', async () => {
      const token = jws({ alg: 'RS256', typ: 'JWT', kid: 'no-such-key' }, claims(jwks, route), rs256(rsa.privateKey));
      expectUnauthenticated(await call(jwks, route, { authorization: bearer(token) }), token);
    });

    it.each([
      ['path traversal', '../../../../../../dev/null'],
      ['an absolute path', '/etc/passwd'],
      ['SQL', "' UNION SELECT 'attacker-chosen-secret-0123456789abcdef' --"],
      ['a URL', 'http://127.0.0.1:1/jwks.json'],
      ['a NUL byte', `${KID}\u0000`],
    ])('a kid holding %s never picks a key: 401 in every world, and never a JWKS path', async (_name, kid) => {
      // What each injection would try to make the key: empty (/dev/null), or a value the attacker chose.
      const signers = [hmac(''), hmac(ATTACKER_SECRET), rs256(attacker.privateKey)];
      for (const [, world] of WORLDS()) {
        for (const signer of signers) {
          const alg = signer === signers[2] ? 'RS256' : 'HS256';
          const token = jws({ alg, typ: 'JWT', kid }, claims(world, route), signer);
          expectUnauthenticated(await call(world, route, { authorization: bearer(token) }), token);
        }
      }
      expect(jwksPaths.every((path) => path === '/.well-known/jwks.json')).toBe(true);
    });

    it('with one configured key the kid is ignored: the configured key still signs → 200', async () => {
      for (const world of [hs, rs]) expectAccepted(await call(world, route, { authorization: bearer(goodToken(world, route, { kid: '../../dev/null' })) }));
    });
  });

  describe('§3.10 jku / x5u / jwk / x5c are ignored', () => {
    const attackerDer = attacker.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    const pointers = (): Array<[string, TJson]> => [
      ['jku', { jku: attackerUrl }],
      ['x5u', { x5u: attackerUrl }],
      ['jwk', { jwk: jwkOf(attacker.publicKey, 'attacker-kid') }],
      ['x5c', { x5c: [attackerDer] }],
      ['all of them', { jku: attackerUrl, x5u: attackerUrl, jwk: jwkOf(attacker.publicKey, 'attacker-kid'), x5c: [attackerDer] }],
    ];

    it('pointing at the attacker key that signed the token → 401, and the attacker URL is never fetched', async () => {
      const hitsBefore = attackerHits;
      for (const world of [rs, jwks]) {
        for (const [, header] of pointers()) {
          for (const kid of [KID, 'attacker-kid']) {
            const token = jws({ alg: 'RS256', typ: 'JWT', kid, ...header }, claims(world, route), rs256(attacker.privateKey));
            expectUnauthenticated(await call(world, route, { authorization: bearer(token) }), token);
          }
        }
      }
      expect(attackerHits).toBe(hitsBefore);
    });

    it('an embedded symmetric jwk (kty oct) with the secret that signed the token → 401 in the HS256 world', async () => {
      const jwk = { kty: 'oct', k: Buffer.from(ATTACKER_SECRET).toString('base64url'), alg: 'HS256' };
      const token = jws({ alg: 'HS256', typ: 'JWT', jwk }, claims(hs, route), hmac(ATTACKER_SECRET));
      expectUnauthenticated(await call(hs, route, { authorization: bearer(token) }), token);
    });

    it('the same headers on a token the configured key signed change nothing → 200', async () => {
      const hitsBefore = attackerHits;
      for (const world of [rs, jwks]) {
        for (const [, header] of pointers()) expectAccepted(await call(world, route, { authorization: bearer(goodToken(world, route, header)) }));
      }
      expect(attackerHits).toBe(hitsBefore);
    });
  });

  describe('§3.11 explicit typing', () => {
    it.each([undefined, 'JWT', 'jwt', 'at+jwt', 'AT+JWT', 'application/jwt', 'application/at+jwt'])('typ %s is accepted', async (typ) => {
      for (const [, world] of WORLDS()) expectAccepted(await call(world, route, { authorization: bearer(goodToken(world, route, { typ })) }));
    });

    it.each([
      ['a security event token', 'secevent+jwt'],
      ['a security event token, full media type', 'application/secevent+jwt'],
      ['a logout token', 'logout+jwt'],
      ['a DPoP proof', 'dpop+jwt'],
      ['JOSE', 'JOSE'],
      ['JOSE+JSON', 'JOSE+JSON'],
      ['JWS', 'JWS'],
      ['an empty string', ''],
      ['another media type', 'text/plain'],
      ['a look-alike', 'JWT '],
      ['a number', 1],
      ['null', null],
      ['an array', ['JWT']],
    ])('typ as %s is refused, though the configured key signed it', async (_name, typ) => {
      for (const [, world] of WORLDS()) {
        const token = goodToken(world, route, { typ });
        expectUnauthenticated(await call(world, route, { authorization: bearer(token) }), token);
      }
    });
  });

  describe('RFC 7515 §4.1.11 crit', () => {
    it.each([
      ['an unknown extension', { crit: ['exp2'], exp2: 1 }],
      ['the unencoded-payload extension (RFC 7797)', { crit: ['b64'], b64: true }],
      ['an extension that is not in the header', { crit: ['http://example.com/ext'] }],
      ['an empty list', { crit: [] }],
      ['a string instead of a list', { crit: 'exp2', exp2: 1 }],
    ])('crit with %s is refused, though the configured key signed it', async (_name, header) => {
      for (const [, world] of WORLDS()) {
        const token = goodToken(world, route, header);
        expectUnauthenticated(await call(world, route, { authorization: bearer(token) }), token);
      }
    });
  });

  describe('oversize tokens', () => {
    /** A good token padded to a length in (min, max]. */
    function paddedToken(world: TWorld, min: number, max: number): string {
      // Each padding character adds 4/3 of a character: step up from well below until it fits.
      for (let pad = Math.max(0, Math.floor(((min - 1_000) * 3) / 4)); ; pad += 1) {
        const token = goodToken(world, route, {}, { padding: 'x'.repeat(pad) });
        if (token.length > min && token.length <= max) return token;
        if (token.length > max) throw new Error('no padding fits');
      }
    }

    it('just under 8,192 characters → 200; just over → 401 invalid_token', async () => {
      for (const [, world] of WORLDS()) {
        expectAccepted(await call(world, route, { authorization: bearer(paddedToken(world, 8_100, 8_192)) }));
        const over = paddedToken(world, 8_192, 8_200);
        expectUnauthenticated(await call(world, route, { authorization: bearer(over) }), over);
      }
    });

    it('over Node’s 16 kB header limit → 431 from Node, before any app code', async () => {
      const token = paddedToken(hs, 20_000, 20_010);
      const res = await call(hs, route, { authorization: bearer(token) });
      expect(res.status).toBe(431);
      expect(res.text).not.toContain(token.split('.')[1]!.slice(0, 20));
    });
  });

  describe('the token comes from the Authorization header only', () => {
    it.each(['access_token', 'token', 'jwt', 'id_token', 'bearer'])('?%s=<valid token> does not authenticate', async (name) => {
      for (const [, world] of WORLDS()) {
        const token = goodToken(world, route);
        expectUnauthenticated(await call(world, route, { query: `?${name}=${token}` }), token);
      }
    });

    it('?access_token=<valid token> next to a bad Authorization header does not rescue it', async () => {
      const token = goodToken(hs, route);
      expectUnauthenticated(await call(hs, route, { authorization: 'Bearer not.a.jwt', query: `?access_token=${token}` }), token);
    });

    it('a cookie holding a valid token does not authenticate', async () => {
      const token = goodToken(hs, route);
      const cookie = `access_token=${token}; folio_admin_token=${token}; jwt=${token}`;
      expectUnauthenticated(await call(hs, route, { headers: { cookie } }), token);
    });

    // Only routes that take a body: there a form body would be read if anything read it.
    if (route.body) {
      it('a form-encoded body with access_token (RFC 6750 §2.2) does not authenticate', async () => {
        const token = goodToken(hs, route);
        const res = await call(hs, route, { rawBody: { type: 'application/x-www-form-urlencoded', text: `access_token=${token}` } });
        expectUnauthenticated(res, token);
      });
    }
  });
});

describe('the queue dashboard (admin, cookie-capable)', () => {
  const dashboard: TRoute = { scope: 'admin', method: 'GET', path: '/admin/queues' };

  it('control: an admin bearer token opens it', async () => {
    expectAccepted(await call(hs, dashboard, { authorization: bearer(goodToken(hs, dashboard)) }));
  });

  it('?access_token=<valid admin token> does not authenticate', async () => {
    const token = goodToken(hs, dashboard);
    expectUnauthenticated(await call(hs, dashboard, { query: `?access_token=${token}` }), token);
  });

  it.each([
    ['alg none', () => `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims(hs, dashboard))}.`],
    ['a wrong typ', () => goodToken(hs, dashboard, { typ: 'secevent+jwt' })],
    ['crit', () => goodToken(hs, dashboard, { crit: ['exp2'], exp2: 1 })],
  ])('its cookie holding a token with %s does not authenticate', async (_name, make) => {
    const token = make();
    expectUnauthenticated(await call(hs, dashboard, { headers: { cookie: `folio_admin_token=${token}` } }), token);
  });
});
