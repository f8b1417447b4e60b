import { randomUUID } from 'node:crypto';
import type { PoolClient } from 'pg';
import type request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardBody } from '@folio-vault/test-kit/cards';
import { deleteToken, destinationsSetting, forward, tokenize } from './support/forward.js';
import { until } from './support/faults.js';
import { createTestPki, startGateway, type TTestGateway } from '@folio-vault/test-kit/gateway';
import { createWorld, type TWorld } from './support/world.js';
import { ForwardAttempts } from '../apps/worker/src/vault/forward/forward-attempts.js';

/**
 * A forward's attempt is recorded in one transaction before the call (docs/vault.md#exactly-once):
 * what it does when another transaction holds what it needs — another forward's attempt with its
 * key not yet committed, the held CVV being taken out — and the order of its answers (a replay
 * before a token that is gone, before a CVV that is spent). The other transaction is the test's
 * own, held open until the forward's transaction is seen waiting for its lock; then it commits or
 * rolls back.
 */
const PAN = '4111111111111111';
const CVV = '739';
const CVV_TEMPLATE = '{"number":"{{card.number}}","cvc":"{{card.cvv}}"}';
const NUMBER_ONLY = '{"number":"{{card.number}}"}';
const json = (body: string) => ({ destination: 'acme', path: '/v1/charges', headers: { 'Content-Type': 'application/json' }, body });

let world: TWorld;
let acme: TTestGateway;

beforeAll(async () => {
  const pki = await createTestPki();
  acme = await startGateway({ pki });
  world = await createWorld({ env: { VAULT_FORWARD_DESTINATIONS: destinationsSetting([{ name: 'acme', url: acme.origin, ca: pki.ca }]) } });
});

afterAll(async () => {
  await world?.close();
  await acme?.close();
});

/** A transaction of the test's own that ran `work` and stays open until end(). */
async function heldTransaction(work: (client: PoolClient) => Promise<unknown>): Promise<{ end: (how: 'COMMIT' | 'ROLLBACK') => Promise<void> }> {
  const client = await world.pool.connect();
  await client.query('BEGIN');
  await work(client);
  return {
    end: async (how) => {
      try {
        await client.query(how);
      } finally {
        client.release();
      }
    },
  };
}

/** Another forward's 'started' attempt with `key` on token `id`, recorded as a worker records one, in a transaction left open. */
function heldAttempt(key: string, id: string): ReturnType<typeof heldTransaction> {
  const attempts = new ForwardAttempts(world.pool);
  return heldTransaction(async (client) => {
    await attempts.start(client, 'test', {
      propertyId: '1', idempotencyKey: key, requestDigest: 'another request', forwardId: randomUUID(), tokenId: id, destination: 'acme', method: 'POST',
    });
  });
}

/** Until a statement in the world's database waits for a lock: the forward's, behind the held transaction. */
async function forwardWaitsForLock(): Promise<void> {
  await until(
    async () => (await world.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
    )).rows[0]!.n > 0,
    20_000,
    "the forward's statement waiting for a lock",
  );
}

async function attemptsWithKey(key: string): Promise<number> {
  return (await world.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM vault_test.forward_attempts WHERE idempotency_key = $1', [key])).rows[0]!.n;
}

const sent = (test: request.Test): Promise<request.Response> => Promise.resolve(test);

describe('forwards with the same key at once', () => {
  it('four at once: exactly one gateway call; the others answer its recorded answer or 409 naming its forward id', async () => {
    const id = await tokenize(world, cardBody({ card_number: PAN, cvv: CVV }));
    const key = randomUUID();
    const before = acme.calls();
    const answers = await Promise.all(Array.from({ length: 4 }, () => sent(forward(world, id, json(NUMBER_ONLY), { key }))));

    expect(acme.calls()).toBe(before + 1);
    const forwarded = answers.filter((res) => res.status === 200);
    expect(forwarded.length).toBeGreaterThanOrEqual(1);
    const forwardId = forwarded[0]!.body.forward_id as string;
    for (const res of answers) {
      if (res.status === 200) {
        expect(res.body).toEqual(forwarded[0]!.body);
      } else {
        expect([res.status, res.body.errorCode]).toEqual([409, 'FORWARD_OUTCOME_UNKNOWN']);
        expect(res.body.errorDetails).toContain(forwardId);
      }
    }
    expect(await attemptsWithKey(key)).toBe(1);
  });

  it('waits for an attempt with its key that is not committed yet: after the commit it sends nothing (409 for another request)', async () => {
    const id = await tokenize(world, cardBody({ card_number: PAN, cvv: CVV }));
    const key = randomUUID();
    const before = acme.calls();
    const other = await heldAttempt(key, id);
    const pending = sent(forward(world, id, json(NUMBER_ONLY), { key }));
    await forwardWaitsForLock();
    await other.end('COMMIT');

    const res = await pending;
    expect([res.status, res.body.errorCode]).toEqual([409, 'IDEMPOTENCY_KEY_REUSED']);
    expect(acme.calls()).toBe(before);
  });

  it('after a rollback of that attempt, it goes on: one call, and the key is bound to it', async () => {
    const id = await tokenize(world, cardBody({ card_number: PAN, cvv: CVV }));
    const key = randomUUID();
    const before = acme.calls();
    const other = await heldAttempt(key, id);
    const pending = sent(forward(world, id, json(NUMBER_ONLY), { key }));
    await forwardWaitsForLock();
    await other.end('ROLLBACK');

    const res = await pending;
    expect(res.status, res.text).toBe(200);
    expect(acme.calls()).toBe(before + 1);
    expect(acme.requests.at(-1)!.body).toBe(`{"number":"${PAN}"}`);
    const state = await world.pool.query('SELECT state, forward_id FROM vault_test.forward_attempts WHERE idempotency_key = $1', [key]);
    expect(state.rows).toEqual([{ state: 'done', forward_id: res.body.forward_id }]);
  });
});

describe('the held CVV', () => {
  const takeCvv = (id: string) => (client: PoolClient) => client.query('DELETE FROM vault_test.held_cvvs WHERE token_id = $1', [id]);

  it('taken out by another transaction while the forward records its attempt: 400 CVV_NOT_AVAILABLE, no call, the key free', async () => {
    const id = await tokenize(world, cardBody({ card_number: PAN, cvv: CVV }));
    const key = randomUUID();
    const before = acme.calls();
    const other = await heldTransaction(takeCvv(id));
    const pending = sent(forward(world, id, json(CVV_TEMPLATE), { key }));
    await forwardWaitsForLock();
    await other.end('COMMIT');

    const res = await pending;
    expect([res.status, res.body.errorCode]).toEqual([400, 'CVV_NOT_AVAILABLE']);
    expect(acme.calls()).toBe(before);
    expect(await attemptsWithKey(key)).toBe(0);
    const without = await forward(world, id, json(NUMBER_ONLY), { key });
    expect(without.status, without.text).toBe(200);
    expect(acme.calls()).toBe(before + 1);
  });

  it('kept when that transaction rolls back: the forward sends it, and it is spent', async () => {
    const id = await tokenize(world, cardBody({ card_number: PAN, cvv: CVV }));
    const other = await heldTransaction(takeCvv(id));
    const pending = sent(forward(world, id, json(CVV_TEMPLATE)));
    await forwardWaitsForLock();
    await other.end('ROLLBACK');

    const res = await pending;
    expect(res.status, res.text).toBe(200);
    expect(acme.requests.at(-1)!.body).toBe(`{"number":"${PAN}","cvc":"${CVV}"}`);
    expect((await world.pool.query('SELECT 1 FROM vault_test.held_cvvs WHERE token_id = $1', [id])).rowCount).toBe(0);
  });

  it('past its time: 400 CVV_NOT_AVAILABLE, no call, the key not bound, and the held CVV deleted', async () => {
    const id = await tokenize(world, cardBody({ card_number: PAN, cvv: CVV }));
    await world.pool.query("UPDATE vault_test.held_cvvs SET held_until = now() - interval '1 second' WHERE token_id = $1", [id]);
    const key = randomUUID();
    const before = acme.calls();

    const res = await forward(world, id, json(CVV_TEMPLATE), { key });
    expect([res.status, res.body.errorCode]).toEqual([400, 'CVV_NOT_AVAILABLE']);
    expect(acme.calls()).toBe(before);
    expect(await attemptsWithKey(key)).toBe(0);
    expect((await world.pool.query('SELECT 1 FROM vault_test.held_cvvs WHERE token_id = $1', [id])).rowCount).toBe(0);
    const without = await forward(world, id, json(NUMBER_ONLY), { key });
    expect(without.status, without.text).toBe(200);
  });
});

describe('the order of the answers', () => {
  it('a replay of a done forward answers its recorded answer after the token is deleted; a new key is 404', async () => {
    const id = await tokenize(world, cardBody({ card_number: PAN, cvv: CVV }));
    const key = randomUUID();
    const first = await forward(world, id, json(NUMBER_ONLY), { key });
    expect(first.status, first.text).toBe(200);
    expect((await deleteToken(world, id)).status).toBe(204);
    const before = acme.calls();

    const replay = await forward(world, id, json(NUMBER_ONLY), { key });
    expect(replay.status, replay.text).toBe(200);
    expect(replay.body).toEqual(first.body);
    const other = await forward(world, id, json('{"card":"{{card.number}}"}'), { key });
    expect([other.status, other.body.errorCode]).toEqual([409, 'IDEMPOTENCY_KEY_REUSED']);
    const fresh = await forward(world, id, json(NUMBER_ONLY));
    expect([fresh.status, fresh.body.errorCode]).toEqual([404, 'ENTITY_NOT_FOUND']);
    expect(acme.calls()).toBe(before);
  });

  it('a replay of a forward that spent the CVV answers its recorded answer, not CVV_NOT_AVAILABLE', async () => {
    const id = await tokenize(world, cardBody({ card_number: PAN, cvv: CVV }));
    const key = randomUUID();
    const first = await forward(world, id, json(CVV_TEMPLATE), { key });
    expect(first.status, first.text).toBe(200);
    const before = acme.calls();

    const replay = await forward(world, id, json(CVV_TEMPLATE), { key });
    expect(replay.status, replay.text).toBe(200);
    expect(replay.body).toEqual(first.body);
    const fresh = await forward(world, id, json(CVV_TEMPLATE));
    expect([fresh.status, fresh.body.errorCode]).toEqual([400, 'CVV_NOT_AVAILABLE']);
    expect(acme.calls()).toBe(before);
  });
});
