import { startApi } from '@folio-vault/api/server';
import { startLocalServices } from '@folio-vault/dev-services/provision';
import { bootstrap } from '@folio-vault/shared/bootstrap';
import { createMetrics } from '@folio-vault/shared/metrics';
import { startWorker } from '@folio-vault/worker/worker';

// `npm start`: API and worker in one process, local Redis/PostgreSQL in ./.data when none answers.
const { config, logger, onShutdown } = await bootstrap('all', { services: startLocalServices });
// One process, one metrics registry: the API's /metrics shows the jobs and renders too.
const metrics = createMetrics();
const worker = await startWorker(config, logger, { metrics });
onShutdown(() => worker.close());
const api = await startApi(config, logger, { metrics });
onShutdown(() => api.close());
