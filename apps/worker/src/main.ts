import { bootstrap, SETTINGS_REFUSED_EXIT_CODE } from '@folio-vault/shared/bootstrap';
import { KeySetupError } from '@folio-vault/shared/vault/keys/key-provider';
import { startWorker, type TRunningWorker } from './worker.js';

const { config, logger, onShutdown } = await bootstrap('worker');
let worker: TRunningWorker;
try {
  worker = await startWorker(config, logger);
} catch (error) {
  // Keys that do not open (no token, a wrong PIN, a bad component) stop the start with their one line.
  if (!(error instanceof KeySetupError)) throw error;
  process.stderr.write(`folio-vault worker: ${error.message}\n`);
  process.exit(SETTINGS_REFUSED_EXIT_CODE);
}
onShutdown(() => worker.close());
