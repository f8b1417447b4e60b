import { startApi } from '@folio-vault/api/server';
import { bootstrap } from '@folio-vault/shared/bootstrap';
import { startWorker } from '@folio-vault/worker/worker';

// `npm start`: API and worker in one process, local Redis/PostgreSQL in ./.data when none answers.
const { config, logger, onShutdown } = await bootstrap('all', { provision: true });
const worker = await startWorker(config, logger);
onShutdown(() => worker.close());
const api = await startApi(config, logger);
onShutdown(() => api.close());
