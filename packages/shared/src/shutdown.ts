// Shutdown with a deadline, for the API and the worker. SHUTDOWN_GRACE_MS is for work in flight
// (requests, active jobs); every step after it — closing queue events, queues, connections — gets
// at most CLOSE_STEP_MS. A step that overruns is left behind: BullMQ's close waits for Redis to
// come back (QueueEvents and Worker do, while ioredis reconnects), and a process that is told to
// stop must stop anyway. What did not close is named in one log line, and the process exits
// (docs/operations.md#stopping).

import type { Logger } from './logger.js';
import { within } from './within.js';

/** The bound of each close step after the grace (TCloser.step). */
export const CLOSE_STEP_MS = 1_500;

export interface TCloser {
  /** Runs `close` within `ms`; true when it finished. A failure or an overrun is noted, not thrown. */
  step(what: string, close: () => unknown, ms?: number): Promise<boolean>;
  /** Work in flight gets `graceMs` to finish; then `force` (itself one bounded step). */
  graceThenForce(what: string, graceful: () => Promise<unknown>, graceMs: number, force: () => unknown): Promise<void>;
  /** Logs the steps that did not finish, one line; answers their names ([] when everything closed). */
  report(): string[];
}

export function createCloser(logger: Logger, stepMs = CLOSE_STEP_MS): TCloser {
  const notClosed: string[] = [];
  const step = async (what: string, close: () => unknown, ms = stepMs): Promise<boolean> => {
    try {
      await within(Promise.resolve().then(close), ms);
      return true;
    } catch (error) {
      notClosed.push(what);
      logger.debug({ step: what, err: { message: (error as Error).message } }, 'shutdown step did not finish');
      return false;
    }
  };
  return {
    step,
    async graceThenForce(what, graceful, graceMs, force) {
      // The graceful close goes on in the background after the grace; only its wait ends here.
      const finished = await within(graceful(), graceMs).then(
        () => true,
        () => false,
      );
      if (finished) return;
      logger.warn({ step: what, graceMs }, 'work in flight did not finish within the grace period');
      await step(what, force);
    },
    report() {
      if (notClosed.length > 0) logger.warn({ notClosed }, 'shutdown: did not close in time, exiting anyway');
      return [...notClosed];
    },
  };
}

/** A close after the grace: its name for the report, the close, and its own bound when it has one. */
export type TCloseStep = readonly [what: string, close: () => unknown, ms?: number];

/**
 * The end of the API's and the worker's shutdown: the BullMQ objects (and the like) close together,
 * each bounded; then the Redis connections are cut — whatever did not close waits on them, and
 * disconnecting also stops ioredis reconnecting — and the PostgreSQL pool ends, bounded.
 */
export async function closeConnections(
  closer: TCloser,
  steps: ReadonlyArray<TCloseStep>,
  redis: ReadonlyArray<{ disconnect(): void }>,
  pool: { end(): Promise<void> },
): Promise<void> {
  await Promise.all(steps.map(([what, close, ms]) => closer.step(what, close, ms)));
  for (const connection of redis) connection.disconnect();
  await closer.step('postgresql pool', () => pool.end());
}
