// KEK rotation (`npm run keys:rotate`): every record's data key is unwrapped with the KEK its
// `kek_id` names and wrapped again under the mode's active KEK; ciphertexts are not touched.
// Batches of records are locked, re-wrapped and committed one at a time, so the service keeps
// running: a tokenize never waits for more than one batch, and a delete that races a batch either
// shreds first (the record is skipped) or waits and shreds the re-wrapped key.
//
// A worker that still has the old KEK first in its keyring keeps wrapping new records with it while
// the rotation runs; those records turn up after the pass and get further passes. What is left
// after the last pass is reported, so the old key is retired only when the count says so.

import { openField, unwrapDataKey, wrapDataKey } from '@folio-vault/shared/vault/crypto/envelope';
import type { TKeyring } from '@folio-vault/shared/vault/crypto/keyring';
import type { TTokenizationMode } from '@folio-vault/shared/vault/schemas';
import type { CardRepository } from './card-repository.js';
import { recordAad } from './card-vault.js';

/** What a rotation of one mode re-wrapped, and what it left under other KEKs. */
export interface TRotationReport {
  mode: TTokenizationMode;
  activeId: string;
  rewrapped: number;
  /** Records whose kek_id names a key this keyring does not hold. */
  missingKey: number;
  /** Records whose wrapped key does not open (tampered or under another key with the same id). */
  unreadable: number;
  /** Readable records per KEK id after the rotation. */
  byKek: Record<string, number>;
  /** Records still wrapped by a KEK other than the active one. */
  remaining: number;
}

export interface TVerifyReport {
  mode: TTokenizationMode;
  checked: number;
  unreadable: number;
  /** Unreadable records per KEK id (ids only, never keys). */
  unreadableByKek: Record<string, number>;
}

const MAX_PASSES = 3;

export class KeyRotator {
  constructor(
    private readonly repository: CardRepository,
    private readonly keks: Record<TTokenizationMode, TKeyring>,
    private readonly batchSize = 500,
  ) {}

  async rotate(mode: TTokenizationMode, onBatch?: (done: number) => void): Promise<TRotationReport> {
    const kek = this.keks[mode];
    const report: TRotationReport = { mode, activeId: kek.activeId, rewrapped: 0, missingKey: 0, unreadable: 0, byKek: {}, remaining: 0 };
    // Records that cannot be re-wrapped here are seen again in every pass; count each once.
    const skipped = new Set<string>();
    for (let pass = 0; pass < MAX_PASSES; pass += 1) {
      const before = report.rewrapped;
      await this.pass(mode, report, skipped, onBatch);
      // Nothing new in a pass: the rest (if any) is records that cannot be re-wrapped here.
      if (report.rewrapped === before) break;
    }
    report.byKek = await this.repository.countKeysByKek(mode);
    report.remaining = Object.entries(report.byKek)
      .filter(([id]) => id !== kek.activeId)
      .reduce((sum, [, n]) => sum + n, 0);
    return report;
  }

  private async pass(mode: TTokenizationMode, report: TRotationReport, skipped: Set<string>, onBatch?: (done: number) => void): Promise<void> {
    const kek = this.keks[mode];
    let afterId: string | undefined;
    for (;;) {
      const batch = await this.repository.transaction(async (client) => {
        const rows = await this.repository.lockKeysToRewrap(client, mode, kek.activeId, afterId, this.batchSize);
        for (const row of rows) {
          const aad = recordAad(mode, row.id);
          if (!kek.keys.has(row.kek_id)) {
            if (!skipped.has(row.id)) report.missingKey += 1;
            skipped.add(row.id);
            continue;
          }
          let dataKey: Buffer;
          try {
            dataKey = unwrapDataKey(kek, { kekId: row.kek_id, wrapped: row.wrapped_dek }, aad);
          } catch {
            if (!skipped.has(row.id)) report.unreadable += 1;
            skipped.add(row.id);
            continue;
          }
          try {
            const wrapped = wrapDataKey(kek, dataKey, aad);
            await this.repository.rewrapKey(client, mode, row.id, wrapped.kekId, wrapped.wrapped);
            report.rewrapped += 1;
          } finally {
            dataKey.fill(0);
          }
        }
        return rows;
      });
      if (batch.length === 0) return;
      afterId = batch[batch.length - 1]!.id;
      onBatch?.(report.rewrapped);
    }
  }

  /**
   * Opens every readable record's data key and ciphertexts with this keyring, without changing
   * anything: run it with only the new KEK configured before the old one is destroyed.
   */
  async verify(mode: TTokenizationMode): Promise<TVerifyReport> {
    const kek = this.keks[mode];
    const report: TVerifyReport = { mode, checked: 0, unreadable: 0, unreadableByKek: {} };
    let afterId: string | undefined;
    for (;;) {
      const rows = await this.repository.sealedRecords(mode, afterId, this.batchSize);
      if (rows.length === 0) return report;
      for (const row of rows) {
        report.checked += 1;
        const aad = recordAad(mode, row.id);
        let dataKey: Buffer | undefined;
        try {
          dataKey = unwrapDataKey(kek, { kekId: row.kek_id, wrapped: row.wrapped_dek }, aad);
          // Opened to prove they open; the clear values are dropped at once.
          openField(dataKey, row.pan_ct, `${aad}:pan`);
          openField(dataKey, row.cardholder_name_ct, `${aad}:cardholder_name`);
          if (row.billing_details_ct) openField(dataKey, row.billing_details_ct, `${aad}:billing_details`);
        } catch {
          report.unreadable += 1;
          report.unreadableByKek[row.kek_id] = (report.unreadableByKek[row.kek_id] ?? 0) + 1;
        } finally {
          dataKey?.fill(0);
        }
      }
      afterId = rows[rows.length - 1]!.id;
    }
  }
}
