import { bootstrap } from '@folio-vault/shared/bootstrap';
import { startWorker } from './worker.js';

const { config, logger, onShutdown } = await bootstrap('worker');
const worker = await startWorker(config, logger);
onShutdown(() => worker.close());
