// KEK rotation and migration between key providers (`npm run keys:rotate`): every record's data key
// is unwrapped with the KEK its `kek_id` names — held by the active provider or by an old one (e.g.
// the `local` keys a site used before its HSM) — and wrapped again under the active provider's
// active KEK of the mode; ciphertexts are not touched. Batches of records are locked, re-wrapped and
// committed one at a time, so the service keeps running and a run killed half-way resumes where it
// stopped (a record already under the active KEK is not selected again): a tokenize never waits for
// more than one batch, and a delete that races a batch either shreds first (the record is skipped)
// or waits and shreds the re-wrapped key.
//
// A worker that still has the old KEK active keeps wrapping new records with it while the rotation
// runs; those records turn up after the pass and get further passes. What is left after the last
// pass is reported, so the old key is retired only when the count says so.
//
// A data key keeps its record's binding here (record-binding.ts): it is unwrapped and wrapped again
// under the associated data its row names. Re-binding is a pass of its own (record-passes.ts),
// which keys:rotate runs after this one, under the active KEK.

import { openField } from '@folio-vault/shared/vault/crypto/envelope';
import type { TKeyProvider } from '@folio-vault/shared/vault/keys/key-provider';
import type { TTokenizationMode } from '@folio-vault/shared/vault/schemas';
import type { CardRepository, TWrappedKeyRow } from './card-repository.js';
import { recordAad } from './record-binding.js';

/** What a rotation of one mode re-wrapped, and what it left under other KEKs. */
export interface TRotationReport {
  mode: TTokenizationMode;
  activeId: string;
  rewrapped: number;
  /** Records whose kek_id names a key no configured provider holds. */
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
    /** The provider whose active KEK every data key ends under. */
    private readonly active: TKeyProvider,
    /** Providers of older keys, only unwrapped with. */
    private readonly old: readonly TKeyProvider[] = [],
    private readonly batchSize = 500,
  ) {}

  /** The provider holding KEK `kekId` of `mode`, the active one first. */
  private holderOf(mode: TTokenizationMode, kekId: string): TKeyProvider | undefined {
    return [this.active, ...this.old].find((provider) => provider.kekIds[mode].includes(kekId));
  }

  /** Every KEK id of `mode` the providers hold, the active one first. */
  kekIds(mode: TTokenizationMode): string[] {
    return [...new Set([this.active, ...this.old].flatMap((provider) => provider.kekIds[mode]))];
  }

  async rotate(mode: TTokenizationMode, onBatch?: (done: number) => void): Promise<TRotationReport> {
    const activeId = this.active.kekIds[mode][0]!;
    const report: TRotationReport = { mode, activeId, rewrapped: 0, missingKey: 0, unreadable: 0, byKek: {}, remaining: 0 };
    // Records that cannot be re-wrapped here are seen again in every pass; count each once.
    const skipped = new Set<string>();
    for (let pass = 0; pass < MAX_PASSES; pass += 1) {
      const before = report.rewrapped;
      await this.pass(mode, activeId, report, skipped, onBatch);
      // Nothing new in a pass: the rest (if any) is records that cannot be re-wrapped here.
      if (report.rewrapped === before) break;
    }
    report.byKek = await this.repository.countKeysByKek(mode);
    report.remaining = Object.entries(report.byKek)
      .filter(([id]) => id !== activeId)
      .reduce((sum, [, n]) => sum + n, 0);
    return report;
  }

  /** Records still to re-wrap in `mode` (a progress bar's total). */
  async toRewrap(mode: TTokenizationMode): Promise<number> {
    const byKek = await this.repository.countKeysByKek(mode);
    const activeId = this.active.kekIds[mode][0]!;
    return Object.entries(byKek).reduce((sum, [id, n]) => (id === activeId ? sum : sum + n), 0);
  }

  private async pass(mode: TTokenizationMode, activeId: string, report: TRotationReport, skipped: Set<string>, onBatch?: (done: number) => void): Promise<void> {
    let afterId: string | undefined;
    for (;;) {
      const batch = await this.repository.transaction(async (client) => {
        const rows = await this.repository.lockKeysToRewrap(client, mode, activeId, afterId, this.batchSize);
        for (const row of rows) {
          const outcome = await this.rewrap(mode, row, async (kekId, wrapped) => this.repository.rewrapKey(client, mode, row.id, kekId, wrapped));
          if (outcome === 'rewrapped') report.rewrapped += 1;
          else if (!skipped.has(row.id)) {
            report[outcome] += 1;
            skipped.add(row.id);
          }
        }
        return rows;
      });
      if (batch.length === 0) return;
      afterId = batch[batch.length - 1]!.id;
      onBatch?.(report.rewrapped);
    }
  }

  private async rewrap(
    mode: TTokenizationMode,
    row: TWrappedKeyRow,
    save: (kekId: string, wrapped: Buffer) => Promise<void>,
  ): Promise<'rewrapped' | 'missingKey' | 'unreadable'> {
    const holder = this.holderOf(mode, row.kek_id);
    if (!holder) return 'missingKey';
    const aad = recordAad(mode, row);
    let dataKey: Buffer;
    try {
      dataKey = await holder.unwrapDataKey(mode, { kekId: row.kek_id, wrapped: row.wrapped_dek }, aad);
    } catch {
      return 'unreadable';
    }
    try {
      const wrapped = await this.active.wrapDataKey(mode, dataKey, aad);
      await save(wrapped.kekId, wrapped.wrapped);
      return 'rewrapped';
    } finally {
      dataKey.fill(0);
    }
  }

  /**
   * Opens every readable record's data key and ciphertexts with the configured keys, without
   * changing anything: run it with only the new keys configured before the old ones are destroyed.
   */
  async verify(mode: TTokenizationMode): Promise<TVerifyReport> {
    const report: TVerifyReport = { mode, checked: 0, unreadable: 0, unreadableByKek: {} };
    let afterId: string | undefined;
    for (;;) {
      const rows = await this.repository.sealedRecords(mode, afterId, this.batchSize);
      if (rows.length === 0) return report;
      for (const row of rows) {
        report.checked += 1;
        const aad = recordAad(mode, row);
        let dataKey: Buffer | undefined;
        try {
          const holder = this.holderOf(mode, row.kek_id);
          if (!holder) throw new Error('no provider holds the key');
          dataKey = await holder.unwrapDataKey(mode, { kekId: row.kek_id, wrapped: row.wrapped_dek }, aad);
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
