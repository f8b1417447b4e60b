import type { TPgPoolHandle, TRedisClient } from '@folio-vault/shared/connections';
import type { Logger } from '@folio-vault/shared/logger';
import { closeConnections, createCloser } from '@folio-vault/shared/shutdown';
import { RENDER_EXIT_MS } from './exports/render-pool.js';

/**
 * The render pool bounds its own close (its processes stop together, each killed after
 * RENDER_EXIT_MS): let it, plus a second for the kill to be reported.
 */
const RENDER_POOL_CLOSE_MS = RENDER_EXIT_MS + 1_000;

/** What a worker process closes on shutdown, in this order. */
export interface TWorkerParts {
  health?: { close(): Promise<void> };
  workers: ReadonlyArray<{ close(force?: boolean): Promise<void> }>;
  renderer: { close(): Promise<void> };
  flows: { close(): Promise<void> };
  /** The forward destinations' HTTP pools (their open requests end with the workers). */
  gateways: { close(): Promise<void> };
  /** The key provider (an HSM's sessions), closed once no job can use it. */
  keys: { close(): Promise<void> };
  connection: TRedisClient;
  pool: TPgPoolHandle;
}

/**
 * worker.close() waits for active jobs; past the grace period it is forced: jobs still active are
 * handed back (their locks lapse and another worker takes them as stalled). Every other step is
 * bounded (createCloser): with Redis gone, even a forced Worker.close() waits for it to come back.
 */
export async function closeWorkerParts(parts: TWorkerParts, graceMs: number, logger: Logger): Promise<void> {
  const closer = createCloser(logger);
  const { health, workers } = parts;
  if (health) await closer.step('health server', () => health.close());
  await closer.graceThenForce(
    'bullmq workers',
    () => Promise.all(workers.map((worker) => worker.close())),
    graceMs,
    () => Promise.all(workers.map((worker) => worker.close(true))),
  );
  await closeConnections(
    closer,
    [
      ['render pool', () => parts.renderer.close(), RENDER_POOL_CLOSE_MS],
      ['flow producer', () => parts.flows.close()],
      ['gateway clients', () => parts.gateways.close()],
      ['key provider', () => parts.keys.close()],
    ],
    [parts.connection],
    parts.pool,
  );
  closer.report();
}
