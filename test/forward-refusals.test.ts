import { randomUUID } from 'node:crypto';
import type request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardBody } from '@folio-vault/test-kit/cards';
import { auditRowOf, closedPort, deleteToken, destinationsSetting, forward, tokenize } from './support/forward.js';
import { answerBytes, createTestPki, neverAnswer, redirectTo, startGateway, type TTestGateway } from '@folio-vault/test-kit/gateway';
import { createWorld, type TWorld } from './support/world.js';

/**
 * Forwards the service refuses, through the real API, queue, worker and PostgreSQL: a request
 * that breaks a rule (400 at its field, 403, 404) never reaches the gateway; a gateway that
 * redirects, answers too much, never answers, shows a certificate of another CA or is not there
 * answers 502/504, and no error answer holds the card.
 */
const PAN = '4111111111111111';
const CVV = '739';

let world: TWorld;
let acme: TTestGateway;
const failing: Record<'redirecting' | 'elsewhere' | 'huge' | 'silent' | 'impostor', TTestGateway> = {} as never;

beforeAll(async () => {
  const pki = await createTestPki();
  const [gateway, elsewhere, huge, silent, impostor, port] = await Promise.all([
    startGateway({ pki }),
    startGateway({ pki }),
    startGateway({ pki, handler: answerBytes(1024 * 1024) }),
    startGateway({ pki, handler: neverAnswer() }),
    startGateway({ pki, useOtherCa: true }),
    closedPort(),
  ]);
  const redirecting = await startGateway({ pki, handler: redirectTo(`${elsewhere.origin}/v1/charges`) });
  acme = gateway;
  Object.assign(failing, { redirecting, elsewhere, huge, silent, impostor });
  const setting = destinationsSetting([
    { name: 'acme', url: acme.origin, paths: ['/v1/charges', '/v1/tokens/*'], headers: { Authorization: 'env:ACME_KEY' }, ca: pki.ca },
    { name: 'acme-live', url: acme.origin, modes: ['live'], ca: pki.ca },
    // Its own Content-Type wins on the wire over the template's.
    { name: 'acme-form', url: acme.origin, headers: { 'content-type': 'application/x-www-form-urlencoded' }, ca: pki.ca },
    { name: 'redirecting', url: redirecting.origin, ca: pki.ca },
    { name: 'huge', url: huge.origin, ca: pki.ca },
    { name: 'silent', url: silent.origin, timeoutMs: 1000, ca: pki.ca },
    { name: 'impostor', url: impostor.origin, ca: pki.ca },
    { name: 'closed', url: `https://127.0.0.1:${port}`, ca: pki.ca },
  ]);
  world = await createWorld({ env: { VAULT_FORWARD_DESTINATIONS: setting, ACME_KEY: `Bearer sk_test_${randomUUID()}` } });
});

afterAll(async () => {
  await world?.close();
  await Promise.all([acme, ...Object.values(failing)].map((gateway) => gateway?.close()));
});

const JSON_HEADERS = { 'Content-Type': 'application/json' };
const TEMPLATE = '{"number":"{{card.number}}","cvc":"{{card.cvv}}"}';
const valid = (extra: Record<string, unknown> = {}) => ({ destination: 'acme', path: '/v1/charges', headers: JSON_HEADERS, body: TEMPLATE, ...extra });
const card = () => cardBody({ card_number: PAN, cvv: CVV });

/** 400 INVALID_REQUEST whose every field error is at `path`, with no card digits in it. */
function expectInvalidAt(res: request.Response, path: string): void {
  expect(res.status, res.text).toBe(400);
  expect(res.body.errorCode).toBe('INVALID_REQUEST');
  const paths = (res.body.fieldErrors as Array<{ path: string }>).map((error) => error.path);
  expect([...new Set(paths)]).toEqual([path]);
  expect(res.text).not.toContain(PAN);
}

describe('requests refused at a field, before any call', () => {
  let tokenId: string;
  let callsBefore: number;

  beforeAll(async () => {
    tokenId = await tokenize(world, card());
    callsBefore = acme.calls();
  });

  it.each([
    ['an unknown destination', { destination: 'nowhere' }, 'destination'],
    ['a live-only destination for a test token', { destination: 'acme-live' }, 'destination'],
    ['a method the destination does not allow', { method: 'PUT' }, 'method'],
    ['a path outside the allow-list', { path: '/v1/refunds' }, 'path'],
    ['a .. segment', { path: '/v1/tokens/../charges' }, 'path'],
    ['//', { path: '/v1/tokens//charges' }, 'path'],
    ['@', { path: '/v1/tokens/x@evil.example' }, 'path'],
    ['an absolute URL', { path: 'https://evil.example/x' }, 'path'],
    ['a percent-encoded ..', { path: '/v1/tokens/%2e%2e/charges' }, 'path'],
    ["a '..;' segment", { path: '/v1/tokens/..;/admin' }, 'path'],
    ['a double-encoded ..', { path: '/v1/tokens/%252e%252e/admin' }, 'path'],
    ...['Host', 'Authorization', 'Cookie', 'Proxy-Authorization', 'Connection', 'Transfer-Encoding', 'Content-Length', 'Idempotency-Key'].map(
      (name) => [`the ${name} header`, { headers: { ...JSON_HEADERS, [name]: 'x' } }, `headers.${name}`] as const,
    ),
    ['an unknown placeholder', { body: '{"pin":"{{card.pin}}"}' }, 'body'],
    ['a placeholder with a text/plain body', { headers: { 'Content-Type': 'text/plain' }, body: 'number={{card.number}}' }, 'body'],
    ['a placeholder in a header', { headers: { ...JSON_HEADERS, 'X-Card': '{{card.number}}' } }, 'headers.X-Card'],
    ['a placeholder in the path before ?', { path: '/v1/tokens/{{card.number}}' }, 'path'],
    ['a JSON placeholder outside a string', { body: '{"number":{{card.number}}}' }, 'body'],
    ['a placeholder in JSON inside a JSON string', { body: '{"payload":"{\\"number\\":\\"{{card.number}}\\"}"}' }, 'body'],
    ['a body over 64 kB', { body: `{"number":"{{card.number}}","pad":"${'x'.repeat(65_536)}"}` }, 'body'],
  ] as const)('%s: 400 at the right field', async (_what, extra, path) => {
    expectInvalidAt(await forward(world, tokenId, valid(extra)), path);
  });

  it('a request without Idempotency-Key: 400 at Idempotency-Key', async () => {
    expectInvalidAt(await forward(world, tokenId, valid(), { key: null }), 'Idempotency-Key');
  });

  it('read:payment and write:payment without use:payment: 403', async () => {
    const bearer = world.token({ properties: [1, 2], scope: 'read:payment write:payment' });
    const res = await forward(world, tokenId, valid(), { bearer });
    expect(res.status, res.text).toBe(403);
    expect(res.body.errorCode).toBe('ACCESS_DENIED');
  });

  it("another property's token and a deleted token: 404", async () => {
    const elsewhere = await tokenize(world, card(), { property: '2' });
    const gone = await tokenize(world, card());
    const deleted = await deleteToken(world, gone);
    expect(deleted.status).toBe(204);
    for (const id of [elsewhere, gone]) {
      const res = await forward(world, id, valid());
      expect(res.status, res.text).toBe(404);
      expect(res.body.errorCode).toBe('ENTITY_NOT_FOUND');
    }
  });

  it('none of them reached the gateway, and the token still forwards', async () => {
    expect(acme.calls()).toBe(callsBefore);
    const res = await forward(world, tokenId, valid());
    expect(res.status, res.text).toBe(200);
    expect(acme.calls()).toBe(callsBefore + 1);
    expect(acme.requests.at(-1)!.body).toBe(`{"number":"${PAN}","cvc":"${CVV}"}`);
  });
});

describe("a destination's own Content-Type", () => {
  const HOLDER = 'x&amount=1';

  it("refuses a template whose Content-Type differs (400 at headers.Content-Type), so a name cannot inject a form field", async () => {
    const id = await tokenize(world, cardBody({ card_number: PAN, cvv: CVV, cardholder_name: HOLDER }));
    const before = acme.calls();
    // JSON-escaped, the name keeps its '&': read as a form, it would add the field amount.
    const res = await forward(world, id, { destination: 'acme-form', path: '/v1/charges', headers: JSON_HEADERS, body: '{"name":"{{card.holder_name}}"}' });
    expectInvalidAt(res, 'headers.Content-Type');
    expect(res.body.fieldErrors).toEqual([
      { path: 'headers.Content-Type', message: "must be the destination's own Content-Type (application/x-www-form-urlencoded), which the gateway receives" },
    ]);
    expect(acme.calls()).toBe(before);
  });

  it('escapes for it when the template says the same (parameters and case aside)', async () => {
    const id = await tokenize(world, cardBody({ card_number: PAN, cvv: CVV, cardholder_name: HOLDER }));
    const headers = { 'Content-Type': 'Application/X-WWW-Form-Urlencoded; charset=utf-8' };
    const res = await forward(world, id, { destination: 'acme-form', path: '/v1/charges', headers, body: 'name={{card.holder_name}}&amount=5' });
    expect(res.status, res.text).toBe(200);
    const received = acme.requests.at(-1)!;
    expect(received.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(received.body).toBe('name=x%26amount%3D1&amount=5');
  });
});

describe('destinations that fail', () => {
  /** The error answer of a forward to `destination`, checked for card digits. */
  async function failedForward(destination: string, status: number, code: string, requestId = randomUUID()): Promise<request.Response> {
    const id = await tokenize(world, card());
    const res = await forward(world, id, valid({ destination }), { requestId });
    expect(res.status, res.text).toBe(status);
    expect(res.body.errorCode).toBe(code);
    expect(res.body.errorDetails).toEqual(expect.any(String));
    expect(res.body.errorDetails).not.toMatch(/\d{12,}/);
    expect(res.body.errorDetails).not.toMatch(new RegExp(`(?<!\\d)${CVV}(?!\\d)`));
    expect(res.text).not.toContain(PAN);
    return res;
  }

  it('a redirect is not followed: 502, and its Location got no call', async () => {
    await failedForward('redirecting', 502, 'GATEWAY_UNREACHABLE');
    expect(failing.redirecting.calls()).toBe(1);
    expect(failing.elsewhere.calls()).toBe(0);
  });

  it('an answer of 1 MiB: 502 FORWARD_ANSWER_TOO_LARGE, recorded done without a body; its replay answers the same, never a second call', async () => {
    const id = await tokenize(world, card());
    const key = randomUUID();
    const res = await forward(world, id, valid({ destination: 'huge' }), { key });
    expect([res.status, res.body.errorCode]).toEqual([502, 'FORWARD_ANSWER_TOO_LARGE']);
    expect(res.body.errorDetails).toBe(
      'the payment gateway "huge" answered with a body over 262144 bytes (FORWARD_MAX_ANSWER_BYTES), which was not read: it received the request and may have acted on it',
    );
    expect(failing.huge.calls()).toBe(1);
    const { rows } = await world.pool.query<{ state: string; answer: Record<string, unknown> }>(
      'SELECT state, answer FROM vault_test.forward_attempts WHERE idempotency_key = $1', [key],
    );
    expect(rows).toEqual([{
      state: 'done',
      answer: { outcome: 'gateway_error', forwardId: expect.any(String), code: 'FORWARD_ANSWER_TOO_LARGE', details: res.body.errorDetails, durationMs: expect.any(Number) },
    }]);
    const replay = await forward(world, id, valid({ destination: 'huge' }), { key });
    expect([replay.status, replay.body.errorCode, replay.body.errorDetails]).toEqual([502, 'FORWARD_ANSWER_TOO_LARGE', res.body.errorDetails]);
    expect(failing.huge.calls()).toBe(1);
  });

  it('no answer within timeoutMs (1000): 504, answered', async () => {
    const started = Date.now();
    await failedForward('silent', 504, 'GATEWAY_TIMEOUT');
    // Only a guard against hanging: the forward must end, the time is not what is tested.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(failing.silent.calls()).toBe(1);
  });

  it('a certificate signed by another CA: 502, and nothing was sent', async () => {
    await failedForward('impostor', 502, 'GATEWAY_UNREACHABLE');
    expect(failing.impostor.calls()).toBe(0);
  });

  it('a closed port: 502, audited as failed with no gateway status', async () => {
    const requestId = randomUUID();
    await failedForward('closed', 502, 'GATEWAY_UNREACHABLE', requestId);
    const row = await auditRowOf(world, requestId);
    expect(row).toMatchObject({
      action: 'token.forward', outcome: 'failed', http_status: 502, error_code: 'GATEWAY_UNREACHABLE',
      destination: 'closed', forward_method: 'POST', forward_path: '/v1/charges', gateway_status: null,
    });
    expect(Number.isInteger(row.duration_ms)).toBe(true);
  });
});
