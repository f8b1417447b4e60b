// Waits for jobs, bounded. `job.waitUntilFinished` alone is not enough (docs/vault.md): with
// removeOnComplete it can fail with "Missing key", and QueueEvents are best-effort. So: listen
// before adding, race the event against a timer, poll the job's state now and then in case the
// event was missed, and check the state once more before giving up. A job Redis does not hold
// (removed, or lost with Redis's data) ends the wait at once: no event will ever come for it.

import type { Queue, QueueEvents } from 'bullmq';
import { AppError } from '@folio-vault/shared/errors';
import { within } from '@folio-vault/shared/within';

/** How a wait ended: the job's return value, its failure, the job gone from Redis, or the bound reached. */
export type TJobOutcome =
  | { state: 'completed'; value: unknown }
  | { state: 'failed'; reason: string }
  | { state: 'missing' }
  | { state: 'timeout' };

export interface TJobWaiterOptions {
  /** The first state poll, this long after the wait starts (or at the bound, when that is sooner). */
  pollFirstMs?: number;
  pollEveryMs?: number;
}

const POLL_FIRST_MS = 1_000;
const POLL_EVERY_MS = 1_000;

/**
 * The end of one wait: what it started (timers, the event listener) is undone at once when it
 * stops. Plain timers rather than AbortSignal-driven ones: aborting a timers/promises sleep builds
 * an AbortError with its stack trace, and a wait would abort two per request, on the API's busiest
 * path.
 */
class WaitEnd {
  stopped = false;
  private readonly undo: Array<() => void> = [];

  /** Runs `undo` when the wait stops (at once if it has). */
  onStop(undo: () => void): void {
    if (this.stopped) undo();
    else this.undo.push(undo);
  }

  /** Resolves with `value` after `ms`; never, once the wait has stopped (its timer is cleared). */
  after<T>(ms: number, value: T): Promise<T> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(value), ms);
      this.onStop(() => clearTimeout(timer));
    });
  }

  stop(): void {
    this.stopped = true;
    for (const undo of this.undo.splice(0)) undo();
  }
}

export class JobWaiter {
  private readonly pending = new Map<string, Set<(outcome: TJobOutcome) => void>>();
  private readonly pollFirstMs: number;
  private readonly pollEveryMs: number;

  constructor(
    private readonly queue: Queue,
    events: QueueEvents,
    options: TJobWaiterOptions = {},
  ) {
    this.pollFirstMs = options.pollFirstMs ?? POLL_FIRST_MS;
    this.pollEveryMs = options.pollEveryMs ?? POLL_EVERY_MS;
    events.on('completed', ({ jobId, returnvalue }) => this.settle(jobId, { state: 'completed', value: parseReturnValue(returnvalue) }));
    events.on('failed', ({ jobId, failedReason }) => this.settle(jobId, { state: 'failed', reason: failedReason }));
    events.on('removed', ({ jobId }) => this.settle(jobId, { state: 'missing' }));
  }

  private settle(jobId: string, outcome: TJobOutcome): void {
    for (const resolve of this.pending.get(jobId) ?? []) resolve(outcome);
  }

  /**
   * Adds the job and resolves with its return value. Rejects with 503 when Redis refuses the job,
   * when the job fails or vanishes, or when no result arrives within `timeoutMs` (the job may still
   * complete: callers make retries safe with idempotency).
   */
  async run(name: string, data: unknown, options: { jobId: string; timeoutMs: number; jobOptions?: object }): Promise<unknown> {
    const outcome = await this.wait(options.jobId, options.timeoutMs, () => this.add(name, data, options.jobId, options.jobOptions));
    if (outcome.state === 'timeout') throw AppError.unavailable('The request is still being processed; retry shortly.', 1);
    if (outcome.state !== 'completed') throw AppError.unavailable('The request could not be processed right now; retry shortly.', 2);
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
   * Nothing of the wait outlives it: once it resolves, no poll starts again.
   */
  async wait(jobId: string, timeoutMs: number, start: () => Promise<void> = async () => undefined): Promise<TJobOutcome> {
    const end = new WaitEnd();
    const event = this.listen(jobId, end);
    try {
      await start();
      const bound = end.after(timeoutMs, 'timeout' as const);
      const outcome = await Promise.race([event, this.poll(jobId, end), bound]);
      if (outcome !== 'timeout') return outcome;
      // The bound has passed: one last look (itself bounded), in case the event was missed.
      return (await within(this.readState(jobId), this.pollEveryMs).catch(() => undefined)) ?? { state: 'timeout' };
    } finally {
      end.stop();
    }
  }

  /** The job's event, until `stop`; the listener is removed then, so nothing is kept per job. */
  private listen(jobId: string, end: WaitEnd): Promise<TJobOutcome> {
    return new Promise((resolve) => {
      const listeners = this.pending.get(jobId) ?? new Set();
      listeners.add(resolve);
      this.pending.set(jobId, listeners);
      end.onStop(() => {
        listeners.delete(resolve);
        if (listeners.size === 0 && this.pending.get(jobId) === listeners) this.pending.delete(jobId);
      });
    });
  }

  /**
   * Reads the job's state now and then until it is known. A read in flight when the wait ends
   * finishes, and `stop` is checked before the next: no poll is scheduled after the wait is over.
   * Never resolves once stopped (the wait has its answer by then).
   */
  private async poll(jobId: string, end: WaitEnd): Promise<TJobOutcome> {
    let delay = this.pollFirstMs;
    for (;;) {
      await end.after(delay, undefined);
      if (end.stopped) return new Promise<never>(() => undefined);
      const outcome = await this.readState(jobId).catch(() => undefined);
      if (outcome) return outcome;
      delay = this.pollEveryMs;
    }
  }

  /** The job's outcome when it has one; `missing` when Redis holds no such job (any more). */
  private async readState(jobId: string): Promise<TJobOutcome | undefined> {
    const state = await this.queue.getJobState(jobId);
    if (state === 'unknown') return { state: 'missing' };
    if (state === 'failed') return { state: 'failed', reason: 'failed' };
    if (state !== 'completed') return undefined;
    // State first, then the hash: once completed, the return value is in it (unless removed since).
    const job = await this.queue.getJob(jobId);
    return job ? { state: 'completed', value: job.returnvalue } : { state: 'missing' };
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
