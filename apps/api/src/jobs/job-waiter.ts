import type { Queue, QueueEvents } from 'bullmq';
import { AppError } from '@folio-vault/shared/errors';

/**
 * Runs a job and waits for its result, bounded. `job.waitUntilFinished` alone is not enough
 * (DESIGN.md): with removeOnComplete it can fail with "Missing key", and QueueEvents are
 * best-effort. So: listen before adding, race the event against a timer, poll the job's state
 * now and then in case the event was missed, and check the state once more before giving up.
 */
type TOutcome = { state: 'completed'; value: unknown } | { state: 'failed'; reason: string };

interface TPending {
  settle(outcome: TOutcome): void;
}

const POLL_FIRST_MS = 1_000;
const POLL_EVERY_MS = 1_000;

export class JobWaiter {
  private readonly pending = new Map<string, TPending>();

  constructor(
    private readonly queue: Queue,
    events: QueueEvents,
  ) {
    events.on('completed', ({ jobId, returnvalue }) => {
      this.pending.get(jobId)?.settle({ state: 'completed', value: parseReturnValue(returnvalue) });
    });
    events.on('failed', ({ jobId, failedReason }) => {
      this.pending.get(jobId)?.settle({ state: 'failed', reason: failedReason });
    });
  }

  get waiting(): number {
    return this.pending.size;
  }

  /**
   * Adds the job and resolves with its return value. Rejects with 503 when Redis refuses the job,
   * when the job fails, or when no result arrives within `timeoutMs` (the job may still complete:
   * callers make retries safe with idempotency).
   */
  async run(name: string, data: unknown, options: { jobId: string; timeoutMs: number; jobOptions?: object }): Promise<unknown> {
    const { jobId, timeoutMs } = options;
    let settle!: (outcome: TOutcome) => void;
    const settled = new Promise<TOutcome>((resolve) => {
      settle = resolve;
    });
    this.pending.set(jobId, { settle });
    const timers: NodeJS.Timeout[] = [];
    try {
      try {
        await this.queue.add(name, data as never, { ...options.jobOptions, jobId } as never);
      } catch (error) {
        throw AppError.unavailable('The job queue cannot be reached right now; retry shortly.', 2).withCause(error);
      }
      const poll = async () => {
        const outcome = await this.readState(jobId).catch(() => undefined);
        if (outcome) settle(outcome);
        else timers.push(setTimeout(() => void poll(), POLL_EVERY_MS));
      };
      timers.push(setTimeout(() => void poll(), Math.min(POLL_FIRST_MS, timeoutMs)));
      const outcome = await Promise.race([
        settled,
        new Promise<'timeout'>((resolve) => timers.push(setTimeout(() => resolve('timeout'), timeoutMs))),
      ]);
      const final = outcome === 'timeout' ? await this.readState(jobId).catch(() => undefined) : outcome;
      if (!final) throw AppError.unavailable('The request is still being processed; retry shortly.', 1);
      if (final.state === 'failed') throw AppError.unavailable('The request could not be processed right now; retry shortly.', 2);
      return final.value;
    } finally {
      for (const timer of timers) clearTimeout(timer);
      this.pending.delete(jobId);
    }
  }

  private async readState(jobId: string): Promise<TOutcome | undefined> {
    const state = await this.queue.getJobState(jobId);
    if (state === 'failed') return { state: 'failed', reason: 'failed' };
    if (state !== 'completed') return undefined;
    const job = await this.queue.getJob(jobId);
    return job ? { state: 'completed', value: job.returnvalue } : undefined;
  }
}

function parseReturnValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
