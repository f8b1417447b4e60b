import { UnrecoverableError } from 'bullmq';
import type { TForwardJobName, TVaultJobName } from '@folio-vault/shared/jobs/registry';
import { SealedCardError, type CardVault } from './card-vault.js';
import type { CardForwarder } from './forward/card-forwarder.js';
import type { VaultSweep } from './vault-sweep.js';
import type { THandlers } from '../jobs/processor-base.js';

/** Handlers of the vault queue. A transit envelope that does not open will never open: no retry. */
export function vaultHandlers(vault: CardVault, sweep: VaultSweep): THandlers<TVaultJobName> {
  return {
    'tokenize-card': async (payload) => {
      try {
        return await vault.tokenize(payload);
      } catch (error) {
        if (error instanceof SealedCardError) throw new UnrecoverableError(error.message);
        throw error;
      }
    },
    'read-card-token': (payload) => vault.read(payload),
    'delete-card-token': (payload) => vault.delete(payload),
    'search-card-tokens': (payload) => vault.search(payload),
    'card-token-labels': (payload) => vault.cardLabels(payload),
    'vault-sweep': () => sweep.run(),
  };
}

/** Handlers of the forward queue (its own queue: a slow gateway never holds tokenize's slots). */
export function forwardHandlers(forwarder: CardForwarder): THandlers<TForwardJobName> {
  return { 'forward-card-token': (payload) => forwarder.forward(payload) };
}
