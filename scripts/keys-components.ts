// `npm run keys:components -- --parts N --out DIR [--for worker|api|all]`
// A key ceremony's new set for VAULT_KEY_PROVIDER=components: each key made at random and split into
// N full-length components, one file per component (DIR/<keyId>.<n>.b64, mode 0600) to hand to N
// custodians, and DIR/components.json for VAULT_KEY_COMPONENTS. A workers' set (`--for worker`)
// holds the vault keys (test and live KEK, fingerprint key, transit key); an API's (`--for api`)
// the job signing key alone; `all` (the default) both, for `npm start`. Prints each key id with its
// check value and component files, then the public halves for the other side's settings
// (VAULT_JOB_VERIFY_KEYS=… for the workers, VAULT_TRANSIT_PUBLIC_KEYS=… for the API). No key is
// written or printed whole.
// Exit code 0 = written, 2 = bad arguments or DIR already holds a set.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TKeysFor } from '@folio-vault/shared/vault/keys/key-labels';
import { fail, parseCommandLine } from './cli-support.js';

const COMMAND = 'keys:components';
const USAGE = `
usage: npm run keys:components -- --parts N --out DIR [--for worker|api|all]

A new set of keys for VAULT_KEY_PROVIDER=components, each split into N components (one file per
custodian, DIR/<keyId>.<n>.b64) and DIR/components.json for VAULT_KEY_COMPONENTS. Prints each key's
check value and the other side's public keys; no key is printed whole.
  --parts N   custodians, 2-9 (default 2)
  --out DIR   a directory that does not hold a set yet
  --for WHO   worker: the vault keys; api: the job signing key only; all: both, for npm start (default)
Exit code 0 = written, 2 = bad arguments or DIR already holds a set.`;
const { values } = parseCommandLine(COMMAND, USAGE, {
  options: { parts: { type: 'string', default: '2' }, out: { type: 'string' }, for: { type: 'string', default: 'all' } },
});
const parts = Number(values.parts);
if (!Number.isInteger(parts) || parts < 2 || parts > 9) fail(COMMAND, `--parts must be 2-9 (got ${values.parts})`);
if (!values.out) fail(COMMAND, '--out DIR is required');
if (!['worker', 'api', 'all'].includes(values.for)) fail(COMMAND, `--for must be worker, api or all (got ${values.for})`);
if (existsSync(join(values.out, 'components.json'))) fail(COMMAND, `${join(values.out, 'components.json')} exists: a new set goes into a new directory`);
// What the work needs loads once the command line is read (cli-support.ts).
const { writeNewComponentSet } = await import('@folio-vault/shared/vault/keys/components');

const written = writeNewComponentSet(values.out, parts, { for: values.for as TKeysFor });
for (const key of written.keys) {
  console.log(`${key.section} ${key.keyId}: check value ${key.checkValue}; components ${key.files.join(', ')}`);
}
console.log(`VAULT_KEY_COMPONENTS=${written.file}`);
if (written.jobVerifyKeys) console.log(`VAULT_JOB_VERIFY_KEYS=${written.jobVerifyKeys}`);
if (written.transitPublicKeys) console.log(`VAULT_TRANSIT_PUBLIC_KEYS=${written.transitPublicKeys}`);
