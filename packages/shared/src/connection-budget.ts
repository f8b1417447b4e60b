// The PostgreSQL connections a fleet holds (docs/production.md#postgresql): every process's pools
// summed, as each process computes it from its own settings and FLEET_API_PROCESSES /
// FLEET_WORKER_PROCESSES. Each process logs it at start against the server's max_connections
// (deployment-checks.ts). Kept apart from connections.ts so the settings (config.ts) can use it.

/** What the sum reads: the pools' sizes and how many processes of each kind run. */
export interface TConnectionBudgetSettings {
  PG_POOL_SIZE: number;
  WORKER_CONCURRENCY: number;
  WORKER_HEALTH_PORT?: number | undefined;
  FLEET_API_PROCESSES: number;
  FLEET_WORKER_PROCESSES: number;
}

export interface TConnectionBudget {
  /** An API process: its pool (PG_POOL_SIZE) and the readiness probe's connection. */
  perApi: number;
  /** A worker process: its pool, min(WORKER_CONCURRENCY, 20), and its health server's probe when it runs one. The render processes hold none. */
  perWorker: number;
  apis: number;
  workers: number;
  total: number;
}

/** The most connections a worker's pool opens, however many jobs it runs at once (apps/worker/src/worker.ts). */
export const WORKER_POOL_MAX = 20;

export function workerPoolSize(workerConcurrency: number): number {
  return Math.min(workerConcurrency, WORKER_POOL_MAX);
}

export function connectionBudgetOf(settings: TConnectionBudgetSettings): TConnectionBudget {
  const perApi = settings.PG_POOL_SIZE + 1;
  const perWorker = workerPoolSize(settings.WORKER_CONCURRENCY) + (settings.WORKER_HEALTH_PORT === undefined ? 0 : 1);
  const [apis, workers] = [settings.FLEET_API_PROCESSES, settings.FLEET_WORKER_PROCESSES];
  return { perApi, perWorker, apis, workers, total: apis * perApi + workers * perWorker };
}
