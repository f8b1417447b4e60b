// `npm run keys:public`
// Prints the API's one vault setting, VAULT_TRANSIT_PUBLIC_KEYS=<value>: the public halves of the
// worker's transit keys, from the configured key provider (VAULT_KEY_PROVIDER and its settings, as
// the worker reads them). Public keys only: they seal, and open nothing.
// Exit code 0 = printed, 2 = the provider's settings or keys are not usable.

import { ConfigError, loadKeyCustody } from '@folio-vault/shared/config';
import { withDevKeys } from '@folio-vault/shared/dev-keys';
import { publicKeysSetting } from '@folio-vault/shared/vault/crypto/transit';
import { openKeyProvider } from '@folio-vault/shared/vault/keys/open-key-provider';
import { parseCommandLine } from './cli-support.js';

const COMMAND = 'keys:public';
parseCommandLine(COMMAND, `
usage: npm run -s keys:public

Prints VAULT_TRANSIT_PUBLIC_KEYS=<value>, the API's one vault setting: the public halves of the
worker's transit keys, from the configured key provider (VAULT_KEY_PROVIDER and its settings).
Exit code 0 = printed, 2 = the provider's settings or keys are not usable.`, { options: {} });
try {
  const keys = await openKeyProvider(loadKeyCustody(withDevKeys(process.env, { role: 'worker' })));
  try {
    console.log(`VAULT_TRANSIT_PUBLIC_KEYS=${publicKeysSetting(keys.transitKeys)}`);
  } finally {
    await keys.close();
  }
} catch (error) {
  if (error instanceof ConfigError) for (const problem of error.problems) console.error(`${COMMAND}: setting ${problem}`);
  else console.error(`${COMMAND}: ${(error as Error).message}`);
  process.exit(2);
}
