import { startLocalServices } from '@folio-vault/dev-services/provision';
import { bootstrap } from '@folio-vault/shared/bootstrap';
import { createMetrics } from '@folio-vault/shared/metrics';
import { startApiAndWorker } from './run-together.js';

// `npm start`: API and worker in one process, local Redis/PostgreSQL in ./.data when none answers.
const bootstrapped = await bootstrap('all', { services: startLocalServices });
// One process, one metrics registry: the API's /metrics shows the jobs and renders too.
await startApiAndWorker(bootstrapped, { metrics: createMetrics() });
