import { bootstrap } from '@folio-vault/shared/bootstrap';
import { startApi } from './server.js';

const { config, logger, onShutdown } = await bootstrap('api');
const api = await startApi(config, logger);
onShutdown(() => api.close());
