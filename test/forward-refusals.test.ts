import { randomBytes, randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import type request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { AuditLog } from '@folio-vault/shared/vault/audit-log';
import { parseKeyring } from '@folio-vault/shared/vault/crypto/keyring';
import { sealTransit, transitAad } from '@folio-vault/shared/vault/crypto/transit';
import { forwardCardJob } from '@folio-vault/shared/vault/forward/forward-job';
import { signJob, softwareJobSigner, type TJobRefusal, type TJobSigner } from '@folio-vault/shared/vault/job-signature';
import { tokenizeCardJob } from '@folio-vault/shared/vault/tokenize-card-job';
import { cardBody, futureYear } from '@folio-vault/test-kit/cards';
import { until } from './support/faults.js';
import { auditRowOf, closedPort, deleteToken, destinationsSetting, forward, tokenize } from './support/forward.js';
import { answerBytes, createTestPki, neverAnswer, redirectTo, startGateway, type TTestGateway } from '@folio-vault/test-kit/gateway';
import { createWorld, type TWorld } from './support/world.js';

/**
 * Forwards the service refuses, through the real API, queue, worker and PostgreSQL: a request
 * that breaks a rule (400 at its field, 403, 404) never reaches the gateway; a gateway that
 * redirects, answers too much, never answers, shows a certificate of another CA or is not there
 * answers 502/504, and no error answer holds the card. A job written straight to the queue without
 * the API's signature is refused before it opens anything; a record moved to another property's
 * row does not open there.
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
  world = await createWorld({ env: { VAULT_FORWARD_DESTINATIONS: setting, ACME_KEY: `Bearer sk_test_${randomUUID()}`, WORKER_HEALTH_PORT: 'ephemeral' } });
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

describe('jobs only the API can ask for: a job written straight to the queue', () => {
  let tokenId: string;
  let forwardQueue: Queue;
  let vaultQueue: Queue;
  /** The world's API signing key, as a copy of a job it signed would carry. */
  let apiSigner: TJobSigner;

  beforeAll(async () => {
    tokenId = await tokenize(world, card());
    forwardQueue = new Queue(QUEUE_NAMES.forward, { connection: world.redis, prefix: world.config.QUEUE_PREFIX });
    vaultQueue = new Queue(QUEUE_NAMES.vault, { connection: world.redis, prefix: world.config.QUEUE_PREFIX });
    const signing = parseKeyring(world.env.VAULT_JOB_SIGNING_KEY!);
    apiSigner = softwareJobSigner(signing.activeId, signing.keys.get(signing.activeId)!);
  });
  afterAll(async () => {
    await forwardQueue?.close();
    await vaultQueue?.close();
  });

  /** A forward job's payload as the API writes it before signing: this card, to acme, with the card's number and CVV. */
  const forwardPayload = (overrides: Record<string, unknown> = {}) => ({
    version: 2 as const, tokenId, forwardId: randomUUID(), propertyId: '1', mode: 'test' as const, requestId: `forged-${randomUUID()}`,
    idempotencyKey: randomUUID(), destination: 'acme', method: 'POST' as const, path: '/v1/charges', headers: JSON_HEADERS, body: TEMPLATE, ...overrides,
  });

  /** Adds `data` under `name` to `queue` as the API would (same options, 3 attempts) and waits for it to end. */
  async function ended(queue: Queue, name: string, data: Record<string, unknown>) {
    const id = randomUUID();
    await queue.add(name, data, { ...forwardCardJob.options, jobId: id });
    return until(async () => {
      const job = await queue.getJob(id);
      return job?.finishedOn ? job : undefined;
    }, 10_000, `job ${name} to end`);
  }

  async function refusedRows(requestId: string) {
    return (await new AuditLog(world.pool).recent({ requestId, action: 'job.refused' })).map((row) => ({
      action: row.action, outcome: row.outcome, http_status: row.http_status, job_name: row.job_name, refusal: row.refusal,
      token_id: row.token_id, property_id: row.property_id, mode: row.mode,
    }));
  }

  async function refusedCount(queue: string, name: string, reason: TJobRefusal): Promise<number> {
    const text = await (await fetch(`http://127.0.0.1:${world.worker!.healthPort}/metrics`)).text();
    const line = text.split('\n').find((entry) => entry.startsWith(`vault_jobs_refused_total{queue="${queue}",name="${name}",reason="${reason}"}`));
    return line ? Number(line.split(' ').at(-1)) : 0;
  }

  const otherSigner = softwareJobSigner('job-signing-1', randomBytes(32));
  const cases: Array<[string, TJobRefusal, () => Promise<Record<string, unknown>>]> = [
    ['unsigned, as a job of the previous (version 1) shape', 'unsigned', async () => ({ ...forwardPayload(), version: 1 })],
    ['unsigned, of the current shape', 'unsigned', async () => forwardPayload()],
    ['with a signature that is not one', 'bad_signature', async () => ({
      ...forwardPayload(), signedUntil: new Date(Date.now() + 60_000).toISOString(), signature: { keyId: apiSigner.keyId, value: randomBytes(64).toString('base64url') },
    })],
    ["with the API's signature over another destination", 'bad_signature', async () => ({
      ...(await signJob(apiSigner, forwardCardJob.name, forwardPayload({ destination: 'acme-form' }), 60_000)), destination: 'acme',
    })],
    ['signed by a key of the same id the workers do not hold', 'bad_signature', async () => signJob(otherSigner, forwardCardJob.name, forwardPayload(), 60_000)],
    ['signed by a key the workers do not know', 'unknown_key', async () => signJob(softwareJobSigner('job-signing-9', randomBytes(32)), forwardCardJob.name, forwardPayload(), 60_000)],
    ["with the API's signature, expired (a copy replayed later)", 'expired', async () => signJob(apiSigner, forwardCardJob.name, forwardPayload(), -1_000)],
  ];

  it.each(cases)('forward %s: refused before the card is opened, never retried, audited and counted; the gateway gets nothing', async (_what, reason, data) => {
    const calls = acme.calls();
    const counted = await refusedCount('vault-forward', 'forward-card-token', reason);
    const payload = await data();
    const job = await ended(forwardQueue, forwardCardJob.name, payload);
    expect(job.failedReason).toBe(`vault job refused: ${reason}`);
    expect(job.attemptsMade).toBe(1);
    expect(acme.calls()).toBe(calls);
    expect(await refusedRows(payload.requestId as string)).toEqual([{
      action: 'job.refused', outcome: 'denied', http_status: null, job_name: 'forward-card-token', refusal: reason, token_id: tokenId, property_id: '1', mode: 'test',
    }]);
    expect(await refusedCount('vault-forward', 'forward-card-token', reason)).toBe(counted + 1);
    // No attempt was recorded for its key: nothing of the job was read past its signature.
    expect((await world.pool.query('SELECT 1 FROM vault_test.forward_attempts WHERE idempotency_key = $1', [payload.idempotencyKey])).rowCount).toBe(0);
  });

  it('a tokenize job with a card sealed to the workers\' public key, unsigned: refused, no record written', async () => {
    const id = randomUUID();
    const requestId = `forged-${randomUUID()}`;
    const transit = world.config.VAULT_TRANSIT_PUBLIC_KEYS!;
    const sealedCard = await sealTransit(transit, { card_number: PAN, card_brand: 'VISA', cardholder_name: 'Mallory', expiration: { month: '08', year: futureYear() } }, transitAad({ tokenId: id, propertyId: '1', mode: 'test' }));
    const job = await ended(vaultQueue, tokenizeCardJob.name, {
      version: 2, tokenId: id, propertyId: '1', mode: 'test', requestId, sealedCard, expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(job.failedReason).toBe('vault job refused: unsigned');
    expect(job.attemptsMade).toBe(1);
    expect((await world.pool.query('SELECT 1 FROM vault_test.cards WHERE id = $1', [id])).rowCount).toBe(0);
    expect(await refusedRows(requestId)).toEqual([{
      action: 'job.refused', outcome: 'denied', http_status: null, job_name: 'tokenize-card', refusal: 'unsigned', token_id: id, property_id: '1', mode: 'test',
    }]);
    expect(await refusedCount('vault', 'tokenize-card', 'unsigned')).toBe(1);
  });

  it("the same forward job with the API's own signature is run: the signature, not the way in, is what counts", async () => {
    const calls = acme.calls();
    const job = await ended(forwardQueue, forwardCardJob.name, await signJob(apiSigner, forwardCardJob.name, forwardPayload(), 60_000));
    expect(job.returnvalue).toMatchObject({ outcome: 'forwarded', answer: { status: 200 } });
    expect(acme.calls()).toBe(calls + 1);
  });
});

describe('a record moved to another property\'s row', () => {
  it('does not open there: the forward sends nothing and answers 500, the worker logs the token', async () => {
    const tokenId = await tokenize(world, card());
    // Database write access moves the card to property 2.
    expect((await world.pool.query('UPDATE vault_test.cards SET property_id = 2 WHERE id = $1', [tokenId])).rowCount).toBe(1);
    const calls = acme.calls();
    const key = randomUUID();
    const res = await forward(world, tokenId, valid(), { property: '2', key });
    expect(res.status, res.text).toBe(500);
    expect(res.body.errorCode).toBe('UNEXPECTED_ERROR');
    expect(res.text).not.toContain(PAN);
    expect(acme.calls()).toBe(calls);
    const logged = world.logs.filter((line) => line.includes('"msg":"record does not open under its property"')).map((line) => JSON.parse(line));
    expect(logged.filter((line) => line.tokenId === tokenId)).toEqual([expect.objectContaining({ tokenId, propertyId: '2', mode: 'test' })]);
    // Nothing was sent: the attempt was released, its key free again.
    expect((await world.pool.query('SELECT 1 FROM vault_test.forward_attempts WHERE idempotency_key = $1', [key])).rowCount).toBe(0);
    // Its own property no longer has it.
    expect((await forward(world, tokenId, valid())).status).toBe(404);
  });
});
