import { bootstrap, SETTINGS_REFUSED_EXIT_CODE } from '@folio-vault/shared/bootstrap';
import { KeySetupError } from '@folio-vault/shared/vault/keys/key-provider';
import { startApi, type TRunningApi } from './server.js';

const { config, logger, onShutdown } = await bootstrap('api');
let api: TRunningApi;
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
