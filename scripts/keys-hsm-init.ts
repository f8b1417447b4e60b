// `npm run keys:hsm-init [-- --for worker|api|all]`
// Creates keys in the PKCS#11 token the settings name (PKCS11_MODULE, PKCS11_TOKEN_LABEL,
// PKCS11_PIN_FILE, PKCS11_KEY_LABELS), for a new installation or a new key label. A worker's token
// (`--for worker`): AES-256 key-encryption keys and 32-byte HMAC secrets for the fingerprint and
// transit keys, each sensitive and non-extractable. An API's token (`--for api`): the Ed25519 job
// signing key pair, its private half sensitive and non-extractable. `all` (the default) makes both
// in one token, for `npm start` and development. A label already in the token is kept, so a second
// run creates nothing. Prints each label with its kind, whether it was created, and its check value
// (a signing key: its public key); then VAULT_JOB_VERIFY_KEYS=<value> for the workers' settings and,
// last, VAULT_TRANSIT_PUBLIC_KEYS=<value> for the API's, as far as the token holds those keys.
// Exit code 0 = every key is there, 2 = settings, arguments or token not usable.

import type { TKeysFor } from '@folio-vault/shared/vault/keys/key-labels';
import { fail, parseCommandLine } from './cli-support.js';

const COMMAND = 'keys:hsm-init';
const { values } = parseCommandLine(COMMAND, `
usage: npm run keys:hsm-init [-- --for worker|api|all]

Creates keys in the PKCS#11 token the settings name (PKCS11_MODULE, PKCS11_TOKEN_LABEL,
PKCS11_PIN_FILE, PKCS11_KEY_LABELS); a label already there is kept. Prints each label with its check
value, then VAULT_JOB_VERIFY_KEYS=<value> for the workers and VAULT_TRANSIT_PUBLIC_KEYS=<value> for
the API, as far as the token holds those keys.
  --for worker   the vault keys (key-encryption, fingerprint and transit keys): the workers' token
  --for api      the job signing key pair only: the API's own token
  --for all      both in one token, for npm start and development (default)
Exit code 0 = every key is there, 2 = settings, arguments or token not usable.`, { options: { for: { type: 'string', default: 'all' } } });
const holder = values.for as TKeysFor;
if (!['worker', 'api', 'all'].includes(holder)) fail(COMMAND, `--for must be worker, api or all (got ${values.for})`);
// What the work needs loads once the command line is read (cli-support.ts).
const [{ ConfigError, loadKeyCustody }, { formatKeyring, publicKeysSetting }, { openKeyProvider, pkcs11SettingsOf }, { Pkcs11Token }] = await Promise.all([
  import('@folio-vault/shared/config'),
  import('@folio-vault/shared/vault/crypto/transit'),
  import('@folio-vault/shared/vault/keys/open-key-provider'),
  import('@folio-vault/shared/vault/keys/pkcs11-provider'),
]);

const KINDS = { aes: 'AES-256 key-encryption key', hmac: 'HMAC-SHA256 secret', ed25519: 'Ed25519 job signing key' } as const;

try {
  const config = loadKeyCustody({ ...process.env, VAULT_KEY_PROVIDER: 'pkcs11' });
  const settings = pkcs11SettingsOf(config);
  const token = Pkcs11Token.open(settings);
  let jobVerifyKeys: string | undefined;
  try {
    for (const key of token.ensureKeys(settings.labels, holder)) {
      const state = key.created ? 'created' : 'already in the token';
      if (key.kind === 'ed25519') {
        const publicKey = token.ed25519PublicKey(token.findKeyPair(key.label)!.publicKey);
        jobVerifyKeys = formatKeyring({ activeId: key.label, keys: new Map([[key.label, publicKey]]) });
        console.log(`${key.label}: ${KINDS.ed25519}, ${state}; public key ${publicKey.toString('base64')}`);
      } else {
        console.log(`${key.label}: ${KINDS[key.kind]}, ${state}; check value ${await token.checkValue(key.handle, key.kind)}`);
      }
    }
  } finally {
    token.close();
  }
  if (jobVerifyKeys) console.log(`VAULT_JOB_VERIFY_KEYS=${jobVerifyKeys}`);
  if (holder !== 'api') {
    const keys = await openKeyProvider(config);
    console.log(`VAULT_TRANSIT_PUBLIC_KEYS=${publicKeysSetting(keys.transitKeys)}`);
    await keys.close();
  }
} catch (error) {
  if (error instanceof ConfigError) for (const problem of error.problems) console.error(`${COMMAND}: setting ${problem}`);
  else console.error(`${COMMAND}: ${(error as Error).message}`);
  process.exit(2);
}
