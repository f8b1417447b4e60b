import type { Queue, QueueEvents } from 'bullmq';
import { AppError } from '@folio-vault/shared/errors';

/**
 * Waits for jobs, bounded. `job.waitUntilFinished` alone is not enough (docs/vault.md#waiting-for-the-worker): with
 * removeOnComplete it can fail with "Missing key", and QueueEvents are best-effort. So: listen
 * before adding, race the event against a timer, poll the job's state now and then in case the
 * event was missed, and check the state once more before giving up.
 */
export type TJobOutcome = { state: 'completed'; value: unknown } | { state: 'failed'; reason: string } | { state: 'timeout' };

const POLL_FIRST_MS = 1_000;
const POLL_EVERY_MS = 1_000;

export class JobWaiter {
  private readonly pending = new Map<string, Set<(outcome: TJobOutcome) => void>>();

  constructor(
    private readonly queue: Queue,
    events: QueueEvents,
  ) {
    events.on('completed', ({ jobId, returnvalue }) => this.settle(jobId, { state: 'completed', value: parseReturnValue(returnvalue) }));
    events.on('failed', ({ jobId, failedReason }) => this.settle(jobId, { state: 'failed', reason: failedReason }));
  }

  private settle(jobId: string, outcome: TJobOutcome): void {
    for (const resolve of this.pending.get(jobId) ?? []) resolve(outcome);
  }

  /**
   * Adds the job and resolves with its return value. Rejects with 503 when Redis refuses the job,
   * when the job fails, or when no result arrives within `timeoutMs` (the job may still complete:
   * callers make retries safe with idempotency).
   */
  async run(name: string, data: unknown, options: { jobId: string; timeoutMs: number; jobOptions?: object }): Promise<unknown> {
    const outcome = await this.wait(options.jobId, options.timeoutMs, () => this.add(name, data, options.jobId, options.jobOptions));
    if (outcome.state === 'timeout') throw AppError.unavailable('The request is still being processed; retry shortly.', 1);
    if (outcome.state === 'failed') throw AppError.unavailable('The request could not be processed right now; retry shortly.', 2);
    return outcome.value;
  }

  async add(name: string, data: unknown, jobId: string, jobOptions: object = {}): Promise<void> {
    try {
      await this.queue.add(name, data as never, { ...jobOptions, jobId } as never);
    } catch (error) {
      throw AppError.unavailable('The job queue cannot be reached right now; retry shortly.', 2).withCause(error);
    }
  }

  /**
   * Waits for a job that is (or is about to be) on the queue: `start` runs once the listener is in
   * place (e.g. the add). Resolves `timeout` rather than rejecting, for callers that answer 202.
   */
  async wait(jobId: string, timeoutMs: number, start: () => Promise<void> = async () => undefined): Promise<TJobOutcome> {
    let resolve!: (outcome: TJobOutcome) => void;
    const settled = new Promise<TJobOutcome>((r) => {
      resolve = r;
    });
    const listeners = this.pending.get(jobId) ?? new Set();
    listeners.add(resolve);
    this.pending.set(jobId, listeners);
    const timers: NodeJS.Timeout[] = [];
    try {
      await start();
      const poll = async () => {
        const outcome = await this.readState(jobId).catch(() => undefined);
        if (outcome) resolve(outcome);
        else timers.push(setTimeout(() => void poll(), POLL_EVERY_MS));
      };
      timers.push(setTimeout(() => void poll(), Math.min(POLL_FIRST_MS, timeoutMs)));
      const outcome = await Promise.race([
        settled,
        new Promise<'timeout'>((r) => timers.push(setTimeout(() => r('timeout'), timeoutMs))),
      ]);
      if (outcome !== 'timeout') return outcome;
      return (await this.readState(jobId).catch(() => undefined)) ?? { state: 'timeout' };
    } finally {
      for (const timer of timers) clearTimeout(timer);
      listeners.delete(resolve);
      if (listeners.size === 0) this.pending.delete(jobId);
    }
  }

  private async readState(jobId: string): Promise<TJobOutcome | undefined> {
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
