import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardBody, futureYear } from '@folio-vault/test-kit/cards';
import { auditRowOf, destinationsSetting, forward, getToken, tokenize } from './support/forward.js';
import { createTestPki, failWith, startGateway, type TTestGateway } from '@folio-vault/test-kit/gateway';
import { createWorld, type TWorld } from './support/world.js';
import { maskName } from '@folio-vault/shared/vault/card/mask';
import { Queue, QueueEvents } from 'bullmq';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { createRedis } from '@folio-vault/shared/connections';
import { vaultSweepJob } from '@folio-vault/shared/vault/vault-sweep-job';
import { FORWARD_ANSWER_RETENTION_DAYS } from '@folio-vault/worker/vault/vault-sweep';

/**
 * A forward through the real API, queue, worker and PostgreSQL to real local HTTPS gateways (their
 * certificates signed by a CA made for this file and given as each destination's `ca`): what the
 * gateway receives, what the caller gets back (never the card), idempotency, the CVV hold, audit.
 */
const ACME_KEY = `Bearer sk_test_${randomUUID()}`;
const YEAR = futureYear();
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let world: TWorld;
let acme: TTestGateway;
let declines: TTestGateway;
let broken: TTestGateway;

beforeAll(async () => {
  const pki = await createTestPki();
  [acme, declines, broken] = await Promise.all([
    startGateway({ pki }),
    startGateway({ pki, handler: failWith(402) }),
    startGateway({ pki, handler: failWith(500) }),
  ]);
  const setting = destinationsSetting([
    { name: 'acme', url: acme.origin, paths: ['/v1/charges', '/v1/tokens/*'], methods: ['POST', 'PUT'], headers: { Authorization: 'env:ACME_KEY' }, ca: pki.ca },
    { name: 'declines', url: declines.origin, ca: pki.ca },
    { name: 'broken', url: broken.origin, ca: pki.ca },
  ]);
  // The vault's keys in a SoftHSM2 token (support/softhsm.ts): every forward opens its card there.
  world = await createWorld({ keys: 'pkcs11', env: { VAULT_FORWARD_DESTINATIONS: setting, ACME_KEY, WORKER_HEALTH_PORT: 'ephemeral' } });
});

afterAll(async () => {
  await world?.close();
  await Promise.all([acme, declines, broken].map((gateway) => gateway?.close()));
});

const JSON_TEMPLATE = '{"number":"{{card.number}}","cvc":"{{card.cvv}}","exp":"{{card.exp_month}}/{{card.exp_year2}}"}';
const NUMBER_ONLY = '{"number":"{{card.number}}"}';
const json = (body: string, extra: Record<string, unknown> = {}) => ({
  destination: 'acme', path: '/v1/charges', headers: { 'Content-Type': 'application/json' }, body, ...extra,
});

describe('what the gateway receives', () => {
  it('a JSON body, query placeholders, the configured and the caller headers; the caller gets the answer masked', async () => {
    const id = await tokenize(world, cardBody({ card_number: '4111111111111111', cvv: '123', cardholder_name: 'Sara Ryder' }));
    const key = randomUUID();
    const requestId = randomUUID();
    const path = '/v1/charges?first6={{card.first6}}&name={{card.holder_name}}&brand={{card.brand}}';
    const before = acme.calls();
    const res = await forward(world, id, json(JSON_TEMPLATE, { path, headers: { 'Content-Type': 'application/json', 'X-Caller-Ref': 'folio-42' } }), { key, requestId });

    expect(res.status, res.text).toBe(200);
    expect(acme.calls()).toBe(before + 1);
    const received = acme.requests.at(-1)!;
    expect(received.method).toBe('POST');
    expect(received.path).toBe('/v1/charges?first6=411111&name=Sara%20Ryder&brand=VISA');
    expect(received.body).toBe(`{"number":"4111111111111111","cvc":"123","exp":"08/${YEAR.slice(-2)}"}`);
    expect(received.headers).toMatchObject({
      authorization: ACME_KEY, 'x-caller-ref': 'folio-42', 'idempotency-key': `1:${key}`, 'content-type': 'application/json',
    });

    expect(res.body).toEqual({
      forward_id: expect.stringMatching(UUID_V7),
      destination: 'acme',
      status: 200,
      headers: { 'content-type': 'application/json', 'x-request-id': `gw-${acme.calls()}`, date: expect.any(String) },
      body: JSON.stringify({ id: 'ch_1', status: 'succeeded', echo: `{"number":"411111******1111","cvc":"***","exp":"08/${YEAR.slice(-2)}"}` }),
      duration_ms: expect.any(Number),
    });
    expect(Number.isInteger(res.body.duration_ms)).toBe(true);
    expect(res.text).not.toContain('4111111111111111');
    expect(res.text).not.toMatch(/cvc\\":\\"123/);

    const row = await auditRowOf(world, requestId);
    expect(row).toMatchObject({
      action: 'token.forward', outcome: 'success', http_status: 200, error_code: null, token_id: id, property_id: '1', mode: 'test',
      destination: 'acme', forward_method: 'POST', forward_path: path, gateway_status: 200,
    });
    expect(Number.isInteger(row.duration_ms)).toBe(true);
    expect(JSON.stringify(row)).not.toContain('4111111111111111');
  });

  it('a form body, each value form-encoded', async () => {
    const id = await tokenize(world, cardBody({ card_number: '4242424242424242', cvv: '456', cardholder_name: 'Zoë Ryder' }));
    const body = 'number={{card.number}}&cvc={{card.cvv}}&exp_month={{card.exp_month}}&exp_year={{card.exp_year}}&name={{card.holder_name}}';
    const res = await forward(world, id, { destination: 'acme', path: '/v1/charges', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body });

    expect(res.status, res.text).toBe(200);
    const received = acme.requests.at(-1)!;
    expect(received.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(received.body).toBe(`number=4242424242424242&cvc=456&exp_month=08&exp_year=${YEAR}&name=Zo%C3%AB%20Ryder`);
    // The holder's name comes back masked too, whatever its encoding.
    expect(JSON.parse(res.body.body).echo).toBe(`number=424242******4242&cvc=***&exp_month=08&exp_year=${YEAR}&name=${maskName('Zoë Ryder')}`);
    expect(res.text).not.toContain('4242424242424242');
  });

  it('an XML body, each value XML-escaped, with PUT to a wildcard path', async () => {
    const id = await tokenize(world, cardBody({ card_number: '5555555555554444', cvv: '789', cardholder_name: "Sara O'Neil & Co" }));
    const body = '<charge><number>{{card.number}}</number><cvv>{{card.cvv}}</cvv><exp>{{card.exp_month}}/{{card.exp_year}}</exp><name>{{card.holder_name}}</name></charge>';
    const res = await forward(world, id, { destination: 'acme', method: 'put', path: '/v1/tokens/tok_9', headers: { 'Content-Type': 'application/xml' }, body });

    expect(res.status, res.text).toBe(200);
    const received = acme.requests.at(-1)!;
    expect(received.method).toBe('PUT');
    expect(received.path).toBe('/v1/tokens/tok_9');
    expect(received.body).toBe(`<charge><number>5555555555554444</number><cvv>789</cvv><exp>08/${YEAR}</exp><name>Sara O&apos;Neil &amp; Co</name></charge>`);
    expect(JSON.parse(res.body.body).echo).toBe(
      `<charge><number>555555******4444</number><cvv>***</cvv><exp>08/${YEAR}</exp><name>${maskName("Sara O'Neil & Co")}</name></charge>`,
    );
    expect(res.text).not.toContain('5555555555554444');
  });

  it.each([
    ['declines', 402, () => declines],
    ['broken', 500, () => broken],
  ] as const)("a gateway's %s answer (%i) is still 200 to the caller, with the gateway's status", async (destination, status, gateway) => {
    const id = await tokenize(world, cardBody({ card_number: '378282246310005', cvv: '1234' }));
    const requestId = randomUUID();
    const res = await forward(world, id, json(NUMBER_ONLY, { destination }), { requestId });

    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      destination, status, headers: { 'content-type': 'application/json', 'x-request-id': `gw-${gateway().calls()}` },
      body: JSON.stringify({ error: { code: 'gateway_error', status } }),
    });
    expect(gateway().requests.at(-1)!.body).toBe('{"number":"378282246310005"}');
    expect(await auditRowOf(world, requestId)).toMatchObject({ action: 'token.forward', http_status: 200, destination, gateway_status: status });
  });
});

describe('idempotency', () => {
  it('the same key and body answer the recorded answer without a second call; another body with the key is 409', async () => {
    const id = await tokenize(world, cardBody());
    const key = randomUUID();
    const before = acme.calls();
    const [firstId, secondId] = [randomUUID(), randomUUID()];
    const first = await forward(world, id, json(NUMBER_ONLY), { key, requestId: firstId });
    const second = await forward(world, id, json(NUMBER_ONLY), { key, requestId: secondId });

    expect(first.status, first.text).toBe(200);
    expect(second.status, second.text).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(acme.calls()).toBe(before + 1);
    expect(acme.requests.at(-1)!.headers['idempotency-key']).toBe(`1:${key}`);
    // One event per request: the first written by the worker with the answer, the replay's by the
    // API (the worker wrote none for it); both say the same of who asked and what was sent.
    const [firstRow, secondRow] = [await auditRowOf(world, firstId), await auditRowOf(world, secondId)];
    const { id: _a, occurred_at: _b, request_id: firstRequest, ...firstEvent } = firstRow;
    const { id: _c, occurred_at: _d, request_id: secondRequest, ...secondEvent } = secondRow;
    expect([firstRequest, secondRequest]).toEqual([firstId, secondId]);
    expect(secondEvent).toEqual(firstEvent);
    expect(firstEvent).toMatchObject({
      subject: 'tester', client_address: '::ffff:127.0.0.1', action: 'token.forward', outcome: 'success', http_status: 200,
      token_id: id, property_id: '1', mode: 'test', destination: 'acme', forward_method: 'POST', gateway_status: 200,
      duration_ms: first.body.duration_ms,
    });

    const other = await forward(world, id, json('{"card":"{{card.number}}"}'), { key });
    expect(other.status, other.text).toBe(409);
    expect(other.body.errorCode).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(acme.calls()).toBe(before + 1);
  });

  it("sends the key to the gateway as <propertyId>:<key>: two properties' same key are two keys at a shared gateway account", async () => {
    const key = `charge-${randomUUID()}`;
    const [one, two] = [await tokenize(world, cardBody()), await tokenize(world, cardBody(), { property: '2' })];
    const before = acme.calls();
    const first = await forward(world, one, json(NUMBER_ONLY), { key });
    const second = await forward(world, two, json(NUMBER_ONLY), { key, property: '2' });

    expect([first.status, second.status]).toEqual([200, 200]);
    expect(acme.calls()).toBe(before + 2);
    expect(acme.requests.slice(-2).map((received) => received.headers['idempotency-key'])).toEqual([`1:${key}`, `2:${key}`]);
  });

  it('keeps the answer FORWARD_ANSWER_RETENTION_DAYS; then the sweep drops it and the key stays bound (409, never a second call)', async () => {
    const id = await tokenize(world, cardBody());
    const key = randomUUID();
    const before = acme.calls();
    const first = await forward(world, id, json(NUMBER_ONLY), { key });
    expect(first.status).toBe(200);
    const age = (days: number) =>
      world.pool.query('UPDATE vault_test.forward_attempts SET finished_at = now() - make_interval(days => $2) WHERE idempotency_key = $1', [key, days]);
    await age(FORWARD_ANSWER_RETENTION_DAYS - 1);
    expect((await runSweep()).forwardAnswersDropped).toBe(0);
    expect((await forward(world, id, json(NUMBER_ONLY), { key })).body).toEqual(first.body);
    await age(FORWARD_ANSWER_RETENTION_DAYS + 1);
    expect((await runSweep()).forwardAnswersDropped).toBe(1);
    const late = await forward(world, id, json(NUMBER_ONLY), { key });
    expect(late.status).toBe(409);
    expect(late.body.errorCode).toBe('FORWARD_OUTCOME_UNKNOWN');
    expect(late.body.errorDetails).toContain(first.body.forward_id);
    expect(acme.calls()).toBe(before + 1);
  });
});

/** One vault sweep, run now on the world's queue, and its result. */
async function runSweep(): Promise<{ forwardAnswersDropped: number }> {
  const connection = createRedis(world.config.REDIS_URL, 'producer');
  const eventsConnection = createRedis(world.config.REDIS_URL, 'events');
  const queue = new Queue(QUEUE_NAMES.vault, { connection, prefix: world.config.QUEUE_PREFIX });
  const events = new QueueEvents(QUEUE_NAMES.vault, { connection: eventsConnection, prefix: world.config.QUEUE_PREFIX });
  try {
    await events.waitUntilReady();
    const job = await queue.add(vaultSweepJob.name, { version: 1 });
    return (await job.waitUntilFinished(events, 20_000)) as { forwardAnswersDropped: number };
  } finally {
    await events.close();
    await queue.close();
    connection.disconnect();
    eventsConnection.disconnect();
  }
}

describe('the CVV hold', () => {
  it('serves one forward; then {{card.cvv}} is refused before any call and forwards without it still work', async () => {
    const id = await tokenize(world, cardBody({ card_number: '6011111111111117', cvv: '321' }));
    const held = await getToken(world, id);
    expect(held.body.cvv_held_until).toEqual(expect.any(String));
    expect(held.body.last_used_at).toBeUndefined();
    const before = acme.calls();

    const first = await forward(world, id, json(JSON_TEMPLATE));
    expect(first.status, first.text).toBe(200);
    expect(acme.requests.at(-1)!.body).toBe(`{"number":"6011111111111117","cvc":"321","exp":"08/${YEAR.slice(-2)}"}`);
    const used = await getToken(world, id);
    expect(used.status).toBe(200);
    expect(used.body.cvv_held_until).toBeUndefined();
    expect(Date.parse(used.body.last_used_at)).toBeGreaterThanOrEqual(Date.parse(used.body.created_at));

    const again = await forward(world, id, json(JSON_TEMPLATE));
    expect(again.status, again.text).toBe(400);
    expect(again.body.errorCode).toBe('CVV_NOT_AVAILABLE');
    expect(again.text).not.toContain('6011111111111117');
    expect(acme.calls()).toBe(before + 1);

    const without = await forward(world, id, json(NUMBER_ONLY));
    expect(without.status, without.text).toBe(200);
    expect(acme.calls()).toBe(before + 2);
    expect(acme.requests.at(-1)!.body).toBe('{"number":"6011111111111117"}');
  });
});

describe('metrics', () => {
  it("counts every forward in the worker's vault_forward_duration_seconds by destination and status class, without card data", async () => {
    const res = await fetch(`http://127.0.0.1:${world.worker!.healthPort}/metrics`);
    const text = await res.text();
    expect(res.status).toBe(200);
    const count = (destination: string, result: string) =>
      Number(new RegExp(`^vault_forward_duration_seconds_count\\{destination="${destination}",result="${result}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    // One sample per call that reached a gateway (replays and refusals reach none): as many as each gateway counted.
    expect(acme.calls()).toBeGreaterThan(0);
    expect(count('acme', '2xx')).toBe(acme.calls());
    expect(count('declines', '4xx')).toBe(declines.calls());
    expect(count('broken', '5xx')).toBe(broken.calls());
    expect(text).not.toMatch(/4111111111111111|4242424242424242/);
  });

  it('counts the HSM calls in vault_key_operations_total: a tokenize without a key 1 HMAC and 1 wrap, a forward 1 HMAC and 1 unwrap', async () => {
    const operations = async () => {
      const text = await (await fetch(`http://127.0.0.1:${world.worker!.healthPort}/metrics`)).text();
      const of = (operation: string) => Number(new RegExp(`^vault_key_operations_total\\{provider="pkcs11",operation="${operation}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
      return { hmac: of('hmac'), wrap: of('wrap'), unwrap: of('unwrap') };
    };
    const delta = (after: Record<string, number>, before: Record<string, number>) =>
      Object.fromEntries(Object.entries(after).map(([operation, n]) => [operation, n - before[operation]!]));
    const start = await operations();
    const id = await tokenize(world, cardBody({ card_number: '4242424242424242' }), {});
    const tokenized = await operations();
    // Without an Idempotency-Key header (support/forward.ts sends none on tokenize): the fingerprint only.
    expect(delta(tokenized, start)).toEqual({ hmac: 1, wrap: 1, unwrap: 0 });
    expect((await forward(world, id, json(NUMBER_ONLY))).status).toBe(200);
    // The request digest of the forward's Idempotency-Key, and the record's data key.
    expect(delta(await operations(), tokenized)).toEqual({ hmac: 1, wrap: 0, unwrap: 1 });
  });
});
