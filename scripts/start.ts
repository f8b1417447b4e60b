// `npm start`: API and worker in one process, local Redis/PostgreSQL in ./.data when none answers.
// npm runs it as `exec node --import tsx scripts/start.ts` (package.json): no shell and no tsx CLI
// stand between npm and this process, so the SIGTERM npm forwards reaches it, and nothing
// SIGKILLs it before it has stopped what it started (docs/operations.md#stopping).

import { startTracing } from '@folio-vault/shared/tracing/start';
import { parseCommandLine } from './cli-support.js';

const { values } = parseCommandLine('start', `
usage: npm start [-- --data-dir DIR]

The API and the worker in one process, for development. Redis and PostgreSQL are used where
REDIS_URL and DATABASE_URL (or their defaults) answer; otherwise local servers are started on those
ports with their data in DIR, and stopped with the service. Ctrl-C or SIGTERM stops the API, then the
worker, then those servers. A server an earlier start left running in DIR is taken over.
  --data-dir DIR   where the local servers keep their data (default .data)`, { options: { 'data-dir': { type: 'string', default: '.data' } } });

// Tracing starts before the service's modules load (tracing/start.ts), and they load after the
// command line is read: `--help` answers without them (cli-support.ts).
const tracing = await startTracing('all');
const [{ startLocalServices }, { bootstrap }, { createMetrics }, { startApiAndWorker }] = await Promise.all([
  import('@folio-vault/dev-services/provision'),
  import('@folio-vault/shared/bootstrap'),
  import('@folio-vault/shared/metrics'),
  import('./run-together.js'),
]);
const bootstrapped = await bootstrap('all', { services: startLocalServices(values['data-dir']) });
// Registered first, so it runs last: the spans of the closing are sent too.
bootstrapped.onShutdown(() => tracing.shutdown());
// One process, one metrics registry: the API's /metrics shows the jobs and renders too.
const { api } = await startApiAndWorker(bootstrapped, { metrics: createMetrics() });

// Once, when it answers: where to go next. After the log lines written so far (stdout is written
// asynchronously), on stderr with the start's other lines for a person.
const origin = `http://localhost:${api.port}`;
await new Promise<void>((resolve) => bootstrapped.logger.flush(() => resolve()));
process.stderr.write(
  [
    `folio-vault all: ready at ${origin} (Ctrl-C stops it)`,
    `  API reference  ${origin}/docs`,
    '  a token        npm run -s token -- --property 1',
    `  dashboard      ${origin}/admin/queues (its token: npm run -s token -- --property '*' --scope admin)`,
    '',
  ].join('\n'),
);
