import { UnrecoverableError } from 'bullmq';
import type { TVaultJobName } from '@folio-vault/shared/jobs/registry';
import { SealedCardError, type CardVault } from './card-vault.js';
import type { THandlers } from '../jobs/processor-base.js';

/** Handlers of the vault queue. A transit envelope that does not open will never open: no retry. */
export function vaultHandlers(vault: CardVault): THandlers<TVaultJobName> {
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
  };
}
