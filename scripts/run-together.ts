import { startApi, type TRunningApi } from '@folio-vault/api/server';
import type { TBootstrapped } from '@folio-vault/shared/bootstrap';
import { ConnectionLog } from '@folio-vault/shared/connection-log';
import type { TMetrics } from '@folio-vault/shared/metrics';
import { startWorker, type TRunningWorker } from '@folio-vault/worker/worker';

/**
 * The worker and then the API in one process (`npm start`, `npm run demo`). They share one
 * connection log, so an outage is logged once for the process, not once by each. On shutdown the
 * API closes first — its requests in flight may wait on the worker's jobs — and the worker gets what
 * is left of the same SHUTDOWN_GRACE_MS, so the process ends within one grace, not two.
 */
export async function startApiAndWorker(
  { config, logger, onShutdown }: TBootstrapped<'all'>,
  options: { port?: number; metrics?: TMetrics } = {},
): Promise<{ api: TRunningApi; worker: TRunningWorker }> {
  const connections = new ConnectionLog(logger);
  // Registered before either starts: a signal during start-up stops what has started.
  const running: { api?: TRunningApi; worker?: TRunningWorker } = {};
  onShutdown(async () => {
    const deadline = Date.now() + config.SHUTDOWN_GRACE_MS;
    try {
      if (running.api) {
        await running.api.close();
        logger.info('api closed');
      }
    } finally {
      if (running.worker) {
        await running.worker.close(Math.max(0, deadline - Date.now()));
        logger.info('worker closed');
      }
      connections.close();
    }
  });
  const worker = (running.worker = await startWorker(config, logger, { metrics: options.metrics, connections }));
  // One process: the API seals to this worker's keys unless VAULT_TRANSIT_PUBLIC_KEYS names others,
  // and signs its jobs with the job signing key of the same provider when it holds one.
  const apiConfig = { ...config, VAULT_TRANSIT_PUBLIC_KEYS: config.VAULT_TRANSIT_PUBLIC_KEYS ?? worker.transitPublicKeys };
  const jobSigner = worker.jobSigner ? { jobSigner: worker.jobSigner } : {};
  const api = (running.api = await startApi(apiConfig, logger, { port: options.port, metrics: options.metrics, connections, ...jobSigner }));
  return { api, worker };
}
