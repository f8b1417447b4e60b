// The vault's passes over old records, asked of the vault batch by batch: re-fingerprinting
// (records under the version-1 global fingerprint, or another key's: docs/vault.md#fingerprints)
// and re-binding (records sealed without their property: record-binding.ts). The one
// implementation behind the vault sweep (a bounded number of batches per run) and
// `npm run keys:rotate` (to the end). Each batch is one transaction whose rows are locked with SKIP
// LOCKED, so a sweep and a keys:rotate running at once share the work; batches go on in id order,
// so a record that does not open is counted once and passed over instead of stopping every run at
// the same row.

import type { TTokenizationMode } from '@folio-vault/shared/vault/schemas';
import type { CardVault, TBatchOutcome } from './card-vault.js';

export type TRecordPass = 'refingerprint' | 'rebind';

export interface TPassReport {
  /** Records re-fingerprinted or re-bound. */
  done: number;
  /** Records the pass found that do not open with these keys: left as they are. */
  unreadable: number;
}

export async function runRecordPass(
  vault: CardVault,
  pass: TRecordPass,
  mode: TTokenizationMode,
  options: { batchSize: number; maxBatches?: number; onBatch?: (done: number) => void },
): Promise<TPassReport> {
  const batch = (afterId: string | undefined): Promise<TBatchOutcome> =>
    pass === 'refingerprint' ? vault.refingerprintBatch(mode, afterId, options.batchSize) : vault.rebindBatch(mode, afterId, options.batchSize);
  const report: TPassReport = { done: 0, unreadable: 0 };
  let afterId: string | undefined;
  for (let n = 0; n < (options.maxBatches ?? Number.POSITIVE_INFINITY); n += 1) {
    const outcome = await batch(afterId);
    report.done += outcome.done;
    report.unreadable += outcome.unreadable;
    options.onBatch?.(report.done);
    if (outcome.seen < options.batchSize) break;
    afterId = outcome.lastId;
  }
  return report;
}
