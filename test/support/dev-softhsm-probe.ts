// Run by test/key-custody.test.ts in a process of its own: what `npm start` does for a development
// PKCS#11 token (packages/dev-services/src/softhsm.ts) in the data directory given, then the
// worker's keys opened from the settings it answers. Prints its log lines and the public key line.

import { devSoftHsmToken } from '@folio-vault/dev-services/softhsm';
import { loadKeyCustody } from '@folio-vault/shared/config';
import { publicKeysSetting } from '@folio-vault/shared/vault/crypto/transit';
import { openKeyProvider } from '@folio-vault/shared/vault/keys/open-key-provider';

const env = { ...process.env, VAULT_KEY_PROVIDER: 'pkcs11' };
const print = (line: string) => process.stdout.write(`${line}\n`);
const settings = devSoftHsmToken(env, process.argv[2]!, print);
const keys = await openKeyProvider(loadKeyCustody({ ...env, ...settings }));
print(`VAULT_TRANSIT_PUBLIC_KEYS=${publicKeysSetting(keys.transitKeys)}`);
await keys.close();
