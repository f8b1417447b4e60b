// `npm run keys:hsm-init`
// Creates the vault's keys in the PKCS#11 token the worker's settings name (PKCS11_MODULE,
// PKCS11_TOKEN_LABEL, PKCS11_PIN_FILE, PKCS11_KEY_LABELS), for a new installation or a new key
// label: AES-256 key-encryption keys and 32-byte HMAC secrets for the fingerprint and transit keys,
// each sensitive and non-extractable. A label already in the token is kept, so a second run creates
// nothing. Prints each label with its kind, whether it was created, and its check value; the last
// line is VAULT_TRANSIT_PUBLIC_KEYS=<value> for the API's settings.
// Exit code 0 = every key is there, 2 = settings or token not usable.

import { ConfigError, loadKeyCustody } from '@folio-vault/shared/config';
import { publicKeysSetting } from '@folio-vault/shared/vault/crypto/transit';
import { openKeyProvider, pkcs11SettingsOf } from '@folio-vault/shared/vault/keys/open-key-provider';
import { Pkcs11Token } from '@folio-vault/shared/vault/keys/pkcs11-provider';
import { parseCommandLine } from './cli-support.js';

const COMMAND = 'keys:hsm-init';
parseCommandLine(COMMAND, `
usage: npm run keys:hsm-init

Creates the vault's keys in the PKCS#11 token the worker's settings name (PKCS11_MODULE,
PKCS11_TOKEN_LABEL, PKCS11_PIN_FILE, PKCS11_KEY_LABELS); a label already there is kept. Prints each
label with its check value, then VAULT_TRANSIT_PUBLIC_KEYS=<value> for the API.
Exit code 0 = every key is there, 2 = settings or token not usable.`, { options: {} });
try {
  const config = loadKeyCustody({ ...process.env, VAULT_KEY_PROVIDER: 'pkcs11' });
  const settings = pkcs11SettingsOf(config);
  const token = Pkcs11Token.open(settings);
  try {
    for (const key of token.ensureKeys(settings.labels)) {
      const what = key.kind === 'aes' ? 'AES-256 key-encryption key' : 'HMAC-SHA256 secret';
      console.log(`${key.label}: ${what}, ${key.created ? 'created' : 'already in the token'}; check value ${await token.checkValue(key.handle, key.kind)}`);
    }
  } finally {
    token.close();
  }
  const keys = await openKeyProvider(config);
  console.log(`VAULT_TRANSIT_PUBLIC_KEYS=${publicKeysSetting(keys.transitKeys)}`);
  await keys.close();
} catch (error) {
  if (error instanceof ConfigError) for (const problem of error.problems) console.error(`${COMMAND}: setting ${problem}`);
  else console.error(`${COMMAND}: ${(error as Error).message}`);
  process.exit(2);
}
