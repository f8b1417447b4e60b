import type { JobsOptions } from 'bullmq';
import type { z } from 'zod';
import type { TQueueName } from '../queues.js';

/**
 * A job contract: the name, the queue it runs on, and zod schemas for its payload and its result.
 * Producer and consumer import the same definition; the consumer validates the payload again.
 */
export interface TJobDefinition<
  TName extends string = string,
  TPayload extends z.ZodType = z.ZodType,
  TResult extends z.ZodType = z.ZodType,
> {
  name: TName;
  queue: TQueueName;
  /** Bumped when the payload changes shape; old payloads must still validate or fail unrecoverably. */
  version: number;
  /**
   * Only the API may ask for it: the payload carries the API's signature (vault/job-signature.ts),
   * and a worker refuses a job whose signature does not verify before it reads anything else.
   */
  signed?: true;
  /**
   * The workers' own housekeeping, run on a schedule whether or not there is anything to do: its
   * "job done" line is at debug (what it did, when it did anything, has a line of its own).
   */
  housekeeping?: true;
  payload: TPayload;
  result: TResult;
  options: JobsOptions;
}
