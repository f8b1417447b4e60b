// The worker's key provider with every call counted in vault_key_operations_total: how many HSM
// operations a request costs, and how busy the HSM is, read off /metrics.

import type { TMetrics } from '@folio-vault/shared/metrics';
import type { TKeyProvider } from '@folio-vault/shared/vault/keys/key-provider';

export function countedKeys(keys: TKeyProvider, metrics: Pick<TMetrics, 'vaultKeyOperations'>): TKeyProvider {
  const count = (operation: 'wrap' | 'unwrap' | 'hmac') => metrics.vaultKeyOperations.inc({ provider: keys.kind, operation });
  return {
    ...keys,
    wrapDataKey: (mode, dataKey, aad) => {
      count('wrap');
      return keys.wrapDataKey(mode, dataKey, aad);
    },
    unwrapDataKey: (mode, wrapped, aad) => {
      count('unwrap');
      return keys.unwrapDataKey(mode, wrapped, aad);
    },
    hmac: (message) => {
      count('hmac');
      return keys.hmac(message);
    },
  };
}
