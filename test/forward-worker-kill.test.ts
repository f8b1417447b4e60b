import { Queue } from 'bullmq';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { cardBody } from '@folio-vault/test-kit/cards';
import { killGroup, logLines, startWorkerProcess, until } from './support/faults.js';
import { createTestPki, holdUntilReleased, startGateway, type TTestGateway } from '@folio-vault/test-kit/gateway';
import type { TSpawned } from '@folio-vault/test-kit/processes';
import { createWorld, type TWorld } from './support/world.js';

/**
 * "A forward is money" (docs/vault.md#forward-to-a-payment-gateway): the worker that holds a
 * forward's gateway request open is SIGKILLed (its whole process group). The attempt was recorded
 * `started` and committed before the call, so the job's re-run on a second worker process (after
 * WORKER_LOCK_MS, the job found stalled) answers outcome_unknown instead of calling again; so does
 * the client's retry with the same Idempotency-Key. The gateway saw exactly one request.
 */
const KEY = 'pay-folio-7001-attempt-1';
const TEMPLATE = {
  destination: 'acme',
  path: '/v1/charges',
  headers: { 'Content-Type': 'application/json' },
  body: '{"number":"{{card.number}}","cvc":"{{card.cvv}}","amount":1250}',
};

let world: TWorld;
let gateway: TTestGateway;
const hold = holdUntilReleased();
const workers: TSpawned[] = [];

beforeAll(async () => {
  const pki = await createTestPki();
  gateway = await startGateway({ pki, handler: hold.handler });
  const destinations = [{ name: 'acme', url: gateway.origin, modes: ['test'], paths: ['/v1/charges'], methods: ['POST'], timeoutMs: 10_000, ca: pki.ca }];
  // The API waits timeoutMs + TOKENIZE_WAIT_MS (18 s) for a forward: room for the kill, a new worker and a stalled-job check.
  world = await createWorld({
    worker: false,
    // Vault workers, as a deployment that runs them apart has them (WORKER_QUEUES): they take the
    // tokenize and forward jobs and start no render process.
    env: { VAULT_FORWARD_DESTINATIONS: JSON.stringify(destinations), WORKER_LOCK_MS: '2000', TOKENIZE_WAIT_MS: '8000', LOG_LEVEL: 'info', WORKER_QUEUES: 'vault,vault-forward' },
  });
  workers.push(await startWorkerProcess(world.env));
}, 90_000);

afterAll(async () => {
  hold.release();
  await Promise.all(workers.map((worker) => killGroup(worker)));
  await gateway?.close();
  await world?.close();
});

const bearer = () => world.token({ properties: [1], scope: 'use:payment read:payment write:payment' });

function forward(tokenId: string) {
  return request(world.url)
    .post(`/vault/v1/tokens/${tokenId}/forward`)
    .set('Authorization', `Bearer ${bearer()}`)
    .set('X-Property-Id', '1')
    .set('SVC-Tokenization-Mode', 'test')
    .set('Idempotency-Key', KEY)
    .send(TEMPLATE);
}

async function attemptRows(tokenId: string) {
  const result = await world.pool.query<{ forward_id: string; state: string; answer: unknown }>(
    'SELECT forward_id, state, answer FROM vault_test.forward_attempts WHERE token_id = $1',
    [tokenId],
  );
  return result.rows;
}

const heldCvvs = async (tokenId: string) =>
  (await world.pool.query('SELECT 1 FROM vault_test.held_cvvs WHERE token_id = $1', [tokenId])).rowCount;

describe('a worker SIGKILLed while the gateway holds its forward', () => {
  it('never calls the gateway again: the re-run and the retry answer 409 FORWARD_OUTCOME_UNKNOWN', { timeout: 60_000 }, async () => {
    const tokenized = await request(world.url)
      .post('/vault/v1/tokens/card')
      .set('Authorization', `Bearer ${bearer()}`)
      .set('X-Property-Id', '1')
      .set('SVC-Tokenization-Mode', 'test')
      .send(cardBody({ cvv: '737' }));
    expect(tokenized.status, JSON.stringify(tokenized.body)).toBe(200);
    const tokenId = tokenized.body.id as string;
    expect(await heldCvvs(tokenId)).toBe(1);

    // The first request: its job reaches the gateway, which holds it.
    const first = forward(tokenId).then((res) => res);
    await hold.received;
    expect(gateway.calls()).toBe(1);
    const [started] = await attemptRows(tokenId);
    expect(started).toEqual({ forward_id: expect.any(String), state: 'started', answer: null });
    expect(gateway.requests[0]!.headers['idempotency-key']).toBe(`1:${KEY}`);

    const victim = workers[0]!;
    victim.kill('SIGKILL');
    expect(await victim.exited).toBe('SIGKILL');
    const second = await startWorkerProcess(world.env);
    workers.push(second);

    // Either the re-run answered the waiting request (409), or its wait ended first (503).
    const firstAnswer = await first;
    expect([409, 503], JSON.stringify(firstAnswer.body)).toContain(firstAnswer.status);
    expect(firstAnswer.body.errorCode).toBe(firstAnswer.status === 409 ? 'FORWARD_OUTCOME_UNKNOWN' : 'SERVICE_UNAVAILABLE');
    expect(gateway.calls()).toBe(1);

    // The killed job itself: re-run on the second worker, which answered outcome_unknown naming the started attempt.
    const queue = new Queue(QUEUE_NAMES.forward, { connection: world.redis, prefix: world.config.QUEUE_PREFIX });
    try {
      const job = await until(async () => {
        const found = await queue.getJob(started!.forward_id);
        return found?.finishedOn ? found : undefined;
      }, 20_000, 'the killed forward job to finish on the second worker');
      expect(job.returnvalue).toEqual({ outcome: 'outcome_unknown', forwardId: started!.forward_id });
      if (firstAnswer.status === 409) expect(firstAnswer.body.errorDetails).toContain(`forward ${started!.forward_id}`);
    } finally {
      await queue.close();
    }
    const doneBy = (worker: TSpawned) => logLines(worker, 'job done').filter((line) => line.jobId === started!.forward_id).length;
    // The job is finished in Redis once its handler has returned and logged; the line may still be
    // on its way through the worker's log buffer and pipe.
    await until(async () => doneBy(second) > 0, 5_000, "the second worker's job done line");
    expect([doneBy(victim), doneBy(second)]).toEqual([0, 1]);

    // The client's retry: same key, same body.
    const retry = await forward(tokenId);
    expect(retry.status, JSON.stringify(retry.body)).toBe(409);
    expect(retry.body.errorCode).toBe('FORWARD_OUTCOME_UNKNOWN');
    expect(retry.body.errorDetails).toContain(`forward ${started!.forward_id}`);
    expect(gateway.calls()).toBe(1);

    hold.release();
    expect(gateway.calls()).toBe(1);
    expect(await attemptRows(tokenId)).toEqual([{ forward_id: started!.forward_id, state: 'started', answer: null }]);
    // The CVV was taken out in the transaction that recorded the attempt: it served this one forward.
    expect(await heldCvvs(tokenId)).toBe(0);
    expect(gateway.requests[0]!.body).toBe(`{"number":"4111111111111111","cvc":"737","amount":1250}`);
  });
});
