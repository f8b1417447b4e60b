import type { TTokenizationMode } from '@folio-vault/shared/vault/schemas';
import type { CardVault } from './card-vault.js';

export interface TRefingerprintReport {
  refingerprinted: number;
  /** Records under the old fingerprint whose key does not open with these keys: left as they are. */
  unreadable: number;
}

/**
 * Re-fingerprinting: records still under the version-1 (global) fingerprint, or fingerprinted with
 * another key than the provider's, get the per-property one under the provider's key
 * (docs/vault.md#fingerprints). The one implementation behind the vault sweep (a bounded number
 * of batches per run) and `npm run keys:rotate` (to the end). One transaction per batch: the rows
 * stay locked from reading the PAN to writing the fingerprint, and SKIP LOCKED lets a sweep and a
 * keys:rotate running at once share the work. Batches go on in id order, so a record that does not
 * open is counted once and passed over instead of stopping every run at the same row.
 */
export class Refingerprinter {
  constructor(
    private readonly vault: CardVault,
    private readonly batchSize: number,
  ) {}

  async run(mode: TTokenizationMode, maxBatches = Number.POSITIVE_INFINITY): Promise<TRefingerprintReport> {
    const report: TRefingerprintReport = { refingerprinted: 0, unreadable: 0 };
    let afterId: string | undefined;
    for (let n = 0; n < maxBatches; n += 1) {
      const batch = await this.batch(mode, afterId);
      report.refingerprinted += batch.refingerprinted;
      report.unreadable += batch.unreadable;
      if (batch.seen < this.batchSize) break;
      afterId = batch.lastId;
    }
    return report;
  }

  private batch(mode: TTokenizationMode, afterId: string | undefined) {
    const repository = this.vault.repository;
    return repository.transaction(async (client) => {
      const rows = await repository.lockOldFingerprints(client, mode, this.vault.fingerprintKeyId, this.batchSize, afterId);
      let refingerprinted = 0;
      for (const row of rows) {
        let pan: string;
        try {
          ({ pan } = await this.vault.openRecord(mode, row));
        } catch {
          continue;
        }
        await repository.setFingerprint(client, mode, row.id, await this.vault.fingerprint(row.property_id, pan));
        refingerprinted += 1;
      }
      return { seen: rows.length, lastId: rows.at(-1)?.id, refingerprinted, unreadable: rows.length - refingerprinted };
    });
  }
}
