// `npm run keys:public`
// Prints the public halves of the configured key provider's keys (VAULT_KEY_PROVIDER and its
// settings): VAULT_JOB_VERIFY_KEYS=<value>, the API's job signing key for the workers' settings,
// when the provider holds it; and, last, VAULT_TRANSIT_PUBLIC_KEYS=<value>, the workers' transit
// keys for the API's settings, when it holds those. Run it with the API's settings for the first
// and with a worker's for the second (with `local` in development, both). Public keys only: they
// check and seal, and open nothing.
// Exit code 0 = printed, 2 = the provider's settings or keys are not usable.

import type { TKeyCustodySettings } from '@folio-vault/shared/config';
import { parseCommandLine } from './cli-support.js';

const COMMAND = 'keys:public';
parseCommandLine(COMMAND, `
usage: npm run -s keys:public

Prints VAULT_JOB_VERIFY_KEYS=<value> (the API's job signing key, for the workers) when the configured
key provider (VAULT_KEY_PROVIDER and its settings) holds it, and VAULT_TRANSIT_PUBLIC_KEYS=<value>
(the workers' transit keys, for the API) when it holds those: run it with the API's settings for the
one and a worker's for the other.
Exit code 0 = printed, 2 = the provider's settings or keys are not usable.`, { options: {} });
// What the work needs loads once the command line is read (cli-support.ts).
const [
  { ConfigError, loadKeyCustody },
  { withDevKeys },
  { publicKeysSetting },
  { jobVerifyKeysSetting },
  { componentSections },
  { openJobSigningKey, openKeyProvider, pkcs11SettingsOf },
  { Pkcs11Token },
] = await Promise.all([
  import('@folio-vault/shared/config'),
  import('@folio-vault/shared/dev-keys'),
  import('@folio-vault/shared/vault/crypto/transit'),
  import('@folio-vault/shared/vault/job-signature'),
  import('@folio-vault/shared/vault/keys/components'),
  import('@folio-vault/shared/vault/keys/open-key-provider'),
  import('@folio-vault/shared/vault/keys/pkcs11-provider'),
]);

/** What the provider holds: the vault keys (a worker's), the job signing key (an API's), or both. */
function holdings(settings: TKeyCustodySettings): { vault: boolean; jobSigning: boolean } {
  switch (settings.VAULT_KEY_PROVIDER) {
    case 'local':
      return { vault: Boolean(settings.VAULT_TRANSIT_KEY), jobSigning: Boolean(settings.VAULT_JOB_SIGNING_KEY) };
    case 'components': {
      const sections = componentSections(settings.VAULT_KEY_COMPONENTS!);
      return { vault: sections.some((section) => section !== 'jobSigning'), jobSigning: sections.includes('jobSigning') };
    }
    case 'pkcs11': {
      const labels = settings.PKCS11_KEY_LABELS;
      const token = Pkcs11Token.open(pkcs11SettingsOf(settings));
      try {
        const jobSigning = token.findKeyPair(labels.jobSigning) !== undefined;
        // A token with neither is a worker's still missing its keys: opening it says which.
        return { vault: token.findKey(labels.kekTest[0]!) !== undefined || !jobSigning, jobSigning };
      } finally {
        token.close();
      }
    }
  }
}

try {
  const settings = loadKeyCustody(withDevKeys(process.env, { role: 'all' }));
  const held = holdings(settings);
  if (!held.vault && !held.jobSigning) throw new Error('VAULT_KEY_PROVIDER=local: neither VAULT_TRANSIT_KEY nor VAULT_JOB_SIGNING_KEY is set');
  if (held.jobSigning) {
    const key = await openJobSigningKey(settings);
    console.log(`VAULT_JOB_VERIFY_KEYS=${jobVerifyKeysSetting(key.signer)}`);
    await key.close();
  }
  if (held.vault) {
    const keys = await openKeyProvider(settings);
    try {
      console.log(`VAULT_TRANSIT_PUBLIC_KEYS=${publicKeysSetting(keys.transitKeys)}`);
    } finally {
      await keys.close();
    }
  }
} catch (error) {
  if (error instanceof ConfigError) for (const problem of error.problems) console.error(`${COMMAND}: setting ${problem}`);
  else console.error(`${COMMAND}: ${(error as Error).message}`);
  process.exit(2);
}
