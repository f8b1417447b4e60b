// The key providers as VAULT_KEY_PROVIDER chooses them. A worker opens its vault keys once at start
// (as do the key commands); the API opens only its job signing key. A provider that cannot open
// stops the start with its one line.

import type { TJobSigningSettings, TKeyCustodySettings } from '../../config.js';
import { softwareJobSigner, type TJobSigner } from '../job-signature.js';
import { readComponentKeys, readJobSigningComponents } from './components.js';
import { KeySetupError, softwareKeyProvider, type TKeyProvider } from './key-provider.js';
import { pkcs11JobSigningKey, pkcs11KeyProvider, type TPkcs11Settings } from './pkcs11-provider.js';

/** The fingerprint key id `local` records: its setting holds one key and no id. */
export const LOCAL_FINGERPRINT_KEY_ID = 'local';

/** The token the PKCS11_* settings name (loadConfig has refused `pkcs11` without them). */
export function pkcs11SettingsOf(settings: TJobSigningSettings): TPkcs11Settings {
  return { module: settings.PKCS11_MODULE!, tokenLabel: settings.PKCS11_TOKEN_LABEL!, pinFile: settings.PKCS11_PIN_FILE!, labels: settings.PKCS11_KEY_LABELS };
}

export async function openKeyProvider(settings: TKeyCustodySettings): Promise<TKeyProvider> {
  switch (settings.VAULT_KEY_PROVIDER) {
    case 'pkcs11':
      return pkcs11KeyProvider(pkcs11SettingsOf(settings));
    case 'components':
      return softwareKeyProvider('components', readComponentKeys(settings.VAULT_KEY_COMPONENTS!));
    case 'local': {
      const { VAULT_KEK_TEST, VAULT_KEK_LIVE, VAULT_FINGERPRINT_KEY, VAULT_TRANSIT_KEY, VAULT_JOB_SIGNING_KEY } = settings;
      // loadConfig refuses `local` without them; this is for what the compiler cannot see.
      if (!VAULT_KEK_TEST || !VAULT_KEK_LIVE || !VAULT_FINGERPRINT_KEY || !VAULT_TRANSIT_KEY) throw new Error('the local vault keys are not loaded in this process');
      return softwareKeyProvider('local', {
        kek: { test: VAULT_KEK_TEST, live: VAULT_KEK_LIVE },
        fingerprint: { id: LOCAL_FINGERPRINT_KEY_ID, key: VAULT_FINGERPRINT_KEY },
        transit: VAULT_TRANSIT_KEY,
        // `npm start`'s one provider signs the API's jobs too; a worker's config has no such key.
        ...(VAULT_JOB_SIGNING_KEY ? { jobSigning: { id: VAULT_JOB_SIGNING_KEY.activeId, seed: VAULT_JOB_SIGNING_KEY.keys.get(VAULT_JOB_SIGNING_KEY.activeId)! } } : {}),
      });
    }
  }
}

/**
 * The API's signing-only view of its key provider: the job signing key, which signs and opens
 * nothing, and `vaultKeys`, what else the provider holds (the component set's vault sections, the
 * token's secret keys; never opened here) for the API's production rule (docs/security.md#key-custody).
 */
export interface TJobSigningKey {
  signer: TJobSigner;
  vaultKeys: string[];
  close(): Promise<void>;
}

export async function openJobSigningKey(settings: TJobSigningSettings): Promise<TJobSigningKey> {
  switch (settings.VAULT_KEY_PROVIDER) {
    case 'pkcs11':
      return pkcs11JobSigningKey(pkcs11SettingsOf(settings));
    case 'components': {
      const key = readJobSigningComponents(settings.VAULT_KEY_COMPONENTS!);
      const signer = softwareJobSigner(key.id, key.seed);
      key.seed.fill(0);
      return { signer, vaultKeys: key.vaultSections, close: async () => undefined };
    }
    case 'local': {
      const ring = settings.VAULT_JOB_SIGNING_KEY;
      if (!ring) throw new KeySetupError('VAULT_JOB_SIGNING_KEY: is required with VAULT_KEY_PROVIDER=local');
      return { signer: softwareJobSigner(ring.activeId, ring.keys.get(ring.activeId)!), vaultKeys: [], close: async () => undefined };
    }
  }
}
