import { UnrecoverableError, type Job } from 'bullmq';

export interface TAttempt {
  /** 1 for the first run of the job. */
  number: number;
  /** How many runs the job is allowed (its `attempts` option). */
  of: number;
}

/** Which run of its job this is. */
export function attemptOf(job: Job): TAttempt {
  return { number: job.attemptsMade + 1, of: job.opts.attempts ?? 1 };
}

/**
 * Whether a failing run is the job's last: no attempt is left, or the error is one BullMQ never
 * retries (UnrecoverableError). Handlers record a final failure only then; BullMQ retries the rest.
 */
export function isLastAttempt(job: Job, error: unknown): boolean {
  const { number, of } = attemptOf(job);
  return error instanceof UnrecoverableError || number >= of;
}
