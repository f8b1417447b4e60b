import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, QueueEvents, Worker, type JobState } from 'bullmq';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { JobWaiter } from '@folio-vault/api/jobs/job-waiter';
import { createRedis, type TRedisClient } from '@folio-vault/shared/connections';
import { AppError } from '@folio-vault/shared/errors';

/**
 * The job waiter against the shared Redis, one queue prefix per test (obliterated after). The
 * queue is BullMQ's own, counting the state reads it sends to Redis (each poll is one) and able to
 * hold one read in flight, so the races the waiter must survive happen on demand.
 */
const POLL_MS = 10;
/** Long enough for ten polls: any poll left scheduled after a wait would show in the count. */
const SETTLE_MS = 10 * POLL_MS;

function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

class ObservedQueue extends Queue {
  reads = 0;
  private held?: { entered(): void; released: Promise<void>; answered(): void };

  /** The next state read waits for `release()`; `entered` once it is in flight, `answered` once Redis answered it. */
  holdNextRead() {
    const [hold, entered, answered] = [deferred(), deferred(), deferred()];
    this.held = { entered: () => entered.resolve(), released: hold.promise, answered: () => answered.resolve() };
    return { entered: entered.promise, release: () => hold.resolve(), answered: answered.promise };
  }

  override async getJobState(jobId: string): Promise<JobState | 'unknown'> {
    this.reads += 1;
    const held = this.held;
    this.held = undefined;
    if (held) {
      held.entered();
      await held.released;
    }
    try {
      return await super.getJobState(jobId);
    } finally {
      held?.answered();
    }
  }
}

const opened: Array<{ close(): Promise<void> }> = [];
const clients: TRedisClient[] = [];
const queues: Queue[] = [];

function connection(role: 'worker' | 'events'): TRedisClient {
  const client = createRedis(inject('redisUrl'), role);
  clients.push(client);
  return client;
}

async function setup(options: { pollFirstMs?: number } = {}) {
  const prefix = `{fvt-waiter-${randomBytes(4).toString('hex')}}`;
  const queue = new ObservedQueue('waited', { connection: connection('worker'), prefix });
  queues.push(queue);
  // From the stream's start, not from "now": a fresh prefix's stream is empty, and an event added
  // before QueueEvents' first read is in flight would otherwise be missed (the test would hang).
  const events = new QueueEvents('waited', { connection: connection('events'), prefix, lastEventId: '0-0' });
  opened.push(events);
  await events.waitUntilReady();
  const waiter = new JobWaiter(queue, events, { pollFirstMs: options.pollFirstMs ?? POLL_MS, pollEveryMs: POLL_MS });
  const startWorker = (process: (data: { n: number }) => unknown) => {
    const worker = new Worker('waited', async (job) => process(job.data as { n: number }), { connection: connection('worker'), prefix });
    opened.unshift(worker);
    return worker;
  };
  return { queue, events, waiter, startWorker };
}

afterEach(async () => {
  for (const item of opened.splice(0)) await item.close();
  for (const queue of queues.splice(0)) {
    await queue.obliterate({ force: true });
    await queue.close();
  }
  for (const client of clients.splice(0)) client.disconnect();
});

describe('JobWaiter.wait', () => {
  it('answers an event that lands during a poll, and polls no more once it has answered', async () => {
    const { queue, waiter, startWorker } = await setup();
    await queue.add('double', { n: 7 }, { jobId: 'job-1', removeOnComplete: true });
    const read = queue.holdNextRead();
    const waiting = waiter.wait('job-1', 30_000);
    await read.entered;
    // The poll is in flight; the job completes now (and is removed), so its event lands mid-poll.
    startWorker(({ n }) => ({ doubled: n * 2 }));
    expect(await waiting).toEqual({ state: 'completed', value: { doubled: 14 } });
    expect(queue.reads).toBe(1);

    read.release();
    await read.answered;
    await sleep(SETTLE_MS);
    expect(queue.reads).toBe(1);
  });

  it('ends at its first poll for a job that was removed before the wait started', async () => {
    const { queue, events, waiter, startWorker } = await setup();
    const completed = new Promise((resolve) => events.on('completed', resolve));
    startWorker(({ n }) => n);
    await queue.add('double', { n: 1 }, { jobId: 'job-2', removeOnComplete: true });
    await completed;
    expect(await queue.getJobState('job-2')).toBe('unknown');
    const readsBefore = queue.reads;

    expect(await waiter.wait('job-2', 60_000)).toEqual({ state: 'missing' });
    expect(queue.reads - readsBefore).toBe(1);
    await sleep(SETTLE_MS);
    expect(queue.reads - readsBefore).toBe(1);
  });

  it('ends when the job it waits for is removed, on the removed event', async () => {
    const { queue, waiter } = await setup({ pollFirstMs: 60_000 });
    await queue.add('double', { n: 3 }, { jobId: 'job-3' });
    const waiting = waiter.wait('job-3', 30_000);
    await queue.remove('job-3');
    expect(await waiting).toEqual({ state: 'missing' });
    expect(queue.reads).toBe(0);
  });

  it('answers timeout at its bound after one last look, and polls no more', async () => {
    const { queue, waiter } = await setup();
    await queue.add('double', { n: 4 }, { jobId: 'job-4' });
    expect(await waiter.wait('job-4', 5 * POLL_MS)).toEqual({ state: 'timeout' });
    const readsAtReturn = queue.reads;
    expect(readsAtReturn).toBeGreaterThanOrEqual(1);
    await sleep(SETTLE_MS);
    expect(queue.reads).toBe(readsAtReturn);
    expect(await queue.getJobState('job-4')).toBe('waiting');
  });

  it('finds by polling a job that completed before the wait started (no event left to hear)', async () => {
    const { queue, events, waiter, startWorker } = await setup();
    const completed = new Promise((resolve) => events.on('completed', resolve));
    startWorker(({ n }) => ({ doubled: n * 2 }));
    await queue.add('double', { n: 21 }, { jobId: 'job-5' });
    await completed;
    expect(await waiter.wait('job-5', 30_000)).toEqual({ state: 'completed', value: { doubled: 42 } });
  });
});

describe('JobWaiter.run', () => {
  it('adds the job and answers its return value', async () => {
    const { waiter, startWorker } = await setup();
    startWorker(({ n }) => ({ doubled: n * 2 }));
    expect(await waiter.run('double', { n: 5 }, { jobId: 'run-1', timeoutMs: 30_000 })).toEqual({ doubled: 10 });
  });

  it('rejects 503 with Retry-After 2 when the job fails', async () => {
    const { waiter, startWorker } = await setup();
    startWorker(() => {
      throw new Error('refused');
    });
    const error = await waiter.run('double', { n: 5 }, { jobId: 'run-2', timeoutMs: 30_000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, retryAfterSeconds: 2 });
  });

  it('rejects 503 with Retry-After 1 when no result comes within the bound', async () => {
    const { queue, waiter } = await setup();
    const error = await waiter.run('double', { n: 5 }, { jobId: 'run-3', timeoutMs: 3 * POLL_MS }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, retryAfterSeconds: 1 });
    expect(await queue.getJobState('run-3')).toBe('waiting');
  });
});
