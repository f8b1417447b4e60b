import { startTracing } from '@folio-vault/shared/tracing/start';

// Tracing first: the modules it instruments (http, pg, ioredis) load after it has started.
const tracing = await startTracing('worker');
const { bootstrap, SETTINGS_REFUSED_EXIT_CODE } = await import('@folio-vault/shared/bootstrap');
const { KeySetupError } = await import('@folio-vault/shared/vault/keys/key-provider');
const { startWorker } = await import('./worker.js');

const { config, logger, onShutdown } = await bootstrap('worker');
// Registered first, so it runs last: the spans of the jobs finished while stopping are sent too.
onShutdown(() => tracing.shutdown());
let worker: Awaited<ReturnType<typeof startWorker>>;
try {
  worker = await startWorker(config, logger);
} catch (error) {
  // Keys that do not open (no token, a wrong PIN, a bad component) stop the start with their one line.
  if (!(error instanceof KeySetupError)) throw error;
  process.stderr.write(`folio-vault worker: ${error.message}\n`);
  process.exit(SETTINGS_REFUSED_EXIT_CODE);
}
onShutdown(() => worker.close());
