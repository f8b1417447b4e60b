import { startTracing } from '@folio-vault/shared/tracing/start';

// Tracing first: the modules it instruments (http, express, pg, ioredis) load after it has started.
const tracing = await startTracing('api');
const { bootstrap, SETTINGS_REFUSED_EXIT_CODE } = await import('@folio-vault/shared/bootstrap');
const { KeySetupError } = await import('@folio-vault/shared/vault/keys/key-provider');
const { startApi } = await import('./server.js');

const { config, logger, onShutdown } = await bootstrap('api');
// Registered first, so it runs last: the spans of the API's own closing are sent too.
onShutdown(() => tracing.shutdown());
let api: Awaited<ReturnType<typeof startApi>>;
try {
  api = await startApi(config, logger);
} catch (error) {
  // A job signing key that does not open (no token, a wrong PIN, a bad component), or a production
  // provider that also holds vault keys, stops the start with its one line.
  if (!(error instanceof KeySetupError)) throw error;
  process.stderr.write(`folio-vault api: ${error.message}\n`);
  process.exit(SETTINGS_REFUSED_EXIT_CODE);
}
onShutdown(() => api.close());
