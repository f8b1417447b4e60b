import { Queue, QueueEvents, Worker } from 'bullmq';
import { createRedis } from '@folio-vault/shared/connections';
import { runSchedule, type TOpenLoopResult } from '@folio-vault/test-kit/open-loop';
import { withLoad } from '../support/machine.js';
import { summary } from '../support/stats.js';

/**
 * The tokenize benchmarks' baseline: a bare BullMQ add → process → result round trip on the
 * service's Redis, the worker in the same process with the service's concurrency and a handler that
 * does nothing. What the queue alone costs, to set the service's figures against.
 */
export interface TLoadFigures {
  perSecond: number;
  p50: number;
  p99: number;
  count: number;
  load: number;
}

interface TBareConfig {
  REDIS_URL: string;
  QUEUE_PREFIX: string;
  WORKER_CONCURRENCY: number;
}

export interface TBareQueue {
  /** One job added, processed and its result awaited (as the API waits for the worker). */
  roundTrip(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startBareBullmq(config: TBareConfig): Promise<TBareQueue> {
  const connection = createRedis(config.REDIS_URL, 'worker');
  const producer = createRedis(config.REDIS_URL, 'producer');
  const eventsConnection = createRedis(config.REDIS_URL, 'events');
  const prefix = `${config.QUEUE_PREFIX}-bare`;
  const queue = new Queue('bare', { connection: producer, prefix });
  const events = new QueueEvents('bare', { connection: eventsConnection, prefix });
  await events.waitUntilReady();
  // Every waiting caller listens on these, and an open loop may have hundreds waiting: that is the
  // load asked for, not a leak.
  queue.setMaxListeners(0);
  events.setMaxListeners(0);
  const worker = new Worker('bare', async () => ({ ok: true }), { connection, prefix, concurrency: config.WORKER_CONCURRENCY });
  await worker.waitUntilReady();
  return {
    async roundTrip(timeoutMs = 10_000) {
      // Completed jobs kept a minute: waitUntilFinished fails on a job already removed (docs/vault.md#waiting-for-the-worker).
      const job = await queue.add('bare', { n: 1 }, { removeOnComplete: { age: 60 } });
      await job.waitUntilFinished(events, timeoutMs);
    },
    async close() {
      await worker.close();
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
      // Connections handed in as instances are not closed by BullMQ.
      for (const client of [connection, producer, eventsConnection]) client.disconnect();
    },
  };
}

/** Closed loop: `callers` concurrent callers, each adding its next job once its last one is done. */
export async function bareBullmq(config: TBareConfig, seconds: number, callers: number, warmUpSeconds: number): Promise<TLoadFigures> {
  const bare = await startBareBullmq(config);
  const run = async (forSeconds: number) => {
    const samples: number[] = [];
    const until = performance.now() + forSeconds * 1000;
    await Promise.all(
      Array.from({ length: callers }, async () => {
        while (performance.now() < until) {
          const started = performance.now();
          await bare.roundTrip();
          samples.push(performance.now() - started);
        }
      }),
    );
    return samples;
  };
  try {
    await run(warmUpSeconds);
    const started = performance.now();
    const { value: samples, load } = await withLoad(() => run(seconds));
    const s = summary(samples);
    return { perSecond: samples.length / ((performance.now() - started) / 1000), p50: s.p50, p99: s.p99, count: samples.length, load };
  } finally {
    await bare.close();
  }
}

/** Open loop: round trips at `rate` per second on a fixed schedule, after a warm-up at the same rate. */
export async function bareBullmqOpenLoop(config: TBareConfig, rate: number, seconds: number, warmUpSeconds: number, timeoutMs = 10_000): Promise<TOpenLoopResult & { load: number }> {
  const bare = await startBareBullmq(config);
  try {
    const send = async () => {
      await bare.roundTrip(timeoutMs);
      return 200;
    };
    await runSchedule({ rate, seconds: warmUpSeconds, timeoutMs, send });
    const { value, load } = await withLoad(() => runSchedule({ rate, seconds, timeoutMs, send }));
    return { ...value, load };
  } finally {
    await bare.close();
  }
}
