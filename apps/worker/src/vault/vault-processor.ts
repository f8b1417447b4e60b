import { UnrecoverableError, type Job } from 'bullmq';
import type { TForwardJobName, TVaultJobName } from '@folio-vault/shared/jobs/registry';
import { KeysUnavailableError } from '@folio-vault/shared/vault/keys/key-provider';
import { SealedCardError, type CardVault } from './card-vault.js';
import type { CardForwarder } from './forward/card-forwarder.js';
import type { VaultSweep } from './vault-sweep.js';
import { isLastAttempt } from '../jobs/attempts.js';
import type { THandlers } from '../jobs/processor-base.js';

/**
 * A job that needs the vault keys, when the key provider cannot be used (an HSM that does not
 * answer): retried while it has attempts left, then answered `keys_unavailable`, a result the API
 * turns into 503 naming the keys.
 */
async function orKeysUnavailable<T>(job: Job, work: () => Promise<T>): Promise<T | { outcome: 'keys_unavailable' }> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof KeysUnavailableError && isLastAttempt(job, error)) return { outcome: 'keys_unavailable' };
    throw error;
  }
}

/** Handlers of the vault queue. A transit envelope that does not open will never open: no retry. */
export function vaultHandlers(vault: CardVault, sweep: VaultSweep): THandlers<TVaultJobName> {
  return {
    'tokenize-card': (payload, job) =>
      orKeysUnavailable(job, async () => {
        try {
          return await vault.tokenize(payload);
        } catch (error) {
          if (error instanceof SealedCardError) throw new UnrecoverableError(error.message);
          throw error;
        }
      }),
    'read-card-token': (payload) => vault.read(payload),
    'delete-card-token': (payload) => vault.delete(payload),
    'search-card-tokens': (payload) => vault.search(payload),
    'card-token-labels': (payload) => vault.cardLabels(payload),
    'vault-sweep': () => sweep.run(),
  };
}

/** Handlers of the forward queue (its own queue: a slow gateway never holds tokenize's slots). */
export function forwardHandlers(forwarder: CardForwarder): THandlers<TForwardJobName> {
  return { 'forward-card-token': (payload, job) => orKeysUnavailable(job, () => forwarder.forward(payload)) };
}
