// The worker's key provider, as VAULT_KEY_PROVIDER chooses it. Opened once at a worker's start (and
// by the key commands); a provider that cannot open stops the start with its one line.

import type { TKeyCustodySettings } from '../../config.js';
import { readComponentKeys } from './components.js';
import { softwareKeyProvider, type TKeyProvider } from './key-provider.js';
import { pkcs11KeyProvider, type TPkcs11Settings } from './pkcs11-provider.js';

/** The fingerprint key id `local` records: its setting holds one key and no id. */
export const LOCAL_FINGERPRINT_KEY_ID = 'local';

/** The token the PKCS11_* settings name (loadConfig has refused `pkcs11` without them). */
export function pkcs11SettingsOf(settings: TKeyCustodySettings): TPkcs11Settings {
  return { module: settings.PKCS11_MODULE!, tokenLabel: settings.PKCS11_TOKEN_LABEL!, pinFile: settings.PKCS11_PIN_FILE!, labels: settings.PKCS11_KEY_LABELS };
}

export async function openKeyProvider(settings: TKeyCustodySettings): Promise<TKeyProvider> {
  switch (settings.VAULT_KEY_PROVIDER) {
    case 'pkcs11':
      return pkcs11KeyProvider(pkcs11SettingsOf(settings));
    case 'components':
      return softwareKeyProvider('components', readComponentKeys(settings.VAULT_KEY_COMPONENTS!));
    case 'local': {
      const { VAULT_KEK_TEST, VAULT_KEK_LIVE, VAULT_FINGERPRINT_KEY, VAULT_TRANSIT_KEY } = settings;
      // loadConfig refuses `local` without them; this is for what the compiler cannot see.
      if (!VAULT_KEK_TEST || !VAULT_KEK_LIVE || !VAULT_FINGERPRINT_KEY || !VAULT_TRANSIT_KEY) throw new Error('the local vault keys are not loaded in this process');
      return softwareKeyProvider('local', {
        kek: { test: VAULT_KEK_TEST, live: VAULT_KEK_LIVE },
        fingerprint: { id: LOCAL_FINGERPRINT_KEY_ID, key: VAULT_FINGERPRINT_KEY },
        transit: VAULT_TRANSIT_KEY,
      });
    }
  }
}
