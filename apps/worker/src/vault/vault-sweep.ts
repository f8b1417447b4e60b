import type { AuditLog } from '@folio-vault/shared/vault/audit-log';
import type { TJobResult } from '@folio-vault/shared/jobs/registry';
import type { Logger } from '@folio-vault/shared/logger';
import type { TMetrics } from '@folio-vault/shared/metrics';
import type { TTokenizationMode } from '@folio-vault/shared/vault/schemas';
import type { CardRepository } from './card-repository.js';
import type { CardVault } from './card-vault.js';
import { runRecordPass } from './record-passes.js';
import type { ForwardAttempts } from './forward/forward-attempts.js';
import { missingCards, type KeyCoverage } from './key-coverage.js';

const MODES: TTokenizationMode[] = ['test', 'live'];
/** Rows per statement; a sweep goes on batch after batch until a batch comes back short. */
const BATCH = 500;
/** At most this many batches per mode and action in one run: the next run carries on. */
const MAX_BATCHES = 40;
/**
 * How long a forward's recorded answer is kept for replays: far beyond any gateway's own idempotency
 * window (a day at the common ones). Then the answer goes (the table must not grow by up to 1 MB per
 * forward for ever); the key stays bound, so a replay answers FORWARD_OUTCOME_UNKNOWN, never a second call.
 */
export const FORWARD_ANSWER_RETENTION_DAYS = 30;

/**
 * The vault's housekeeping (docs/vault.md#token-lifecycle), run by the `vault-sweep` job every
 * VAULT_SWEEP_SECONDS. Each step is one set-based statement per batch with SKIP LOCKED, so sweeps
 * on several workers at once share the work instead of repeating it:
 * - tokens past `expires_at` are crypto-shredded (their held CVV goes in the next step), each with its audit
 *   event in the same transaction;
 * - held CVVs past `cvv_held_until` are destroyed (a stale one is never used, swept or not);
 * - forwards' recorded answers older than FORWARD_ANSWER_RETENTION_DAYS are dropped (keys stay bound);
 * - records still under the version-1 (global) fingerprint get the per-property one, and records
 *   sealed without their property are re-bound to it (record-passes.ts, shared with keys:rotate);
 *   one that does not open with this worker's keys is passed over. What these keys cannot open
 *   for want of the key (another provider's records: key-coverage.ts) is said in one line when it
 *   changes; a pass's warning is only for records beyond those, which do not open with a key held.
 * The SQL of shredding and CVVs is the cards repository's, which the sweep is given; what needs
 * the keys it asks of the vault.
 */
export class VaultSweep {
  constructor(
    private readonly cards: CardRepository,
    private readonly vault: CardVault,
    private readonly audit: AuditLog,
    private readonly logger: Logger,
    private readonly attempts: ForwardAttempts,
    private readonly coverage: KeyCoverage,
    private readonly metrics?: TMetrics,
  ) {}

  async run(): Promise<TJobResult<'vault-sweep'>> {
    const totals = { shredded: 0, cvvsDestroyed: 0, refingerprinted: 0, rebound: 0, forwardAnswersDropped: 0 };
    const gaps = await this.coverage.report();
    for (const mode of MODES) {
      // Records under a KEK these keys do not hold are the coverage line's; a pass warns of more.
      const explained = missingCards(gaps, mode);
      totals.shredded += await this.repeat(() => this.shredExpired(mode));
      totals.cvvsDestroyed += await this.cards.destroyStaleCvvs(mode);
      totals.forwardAnswersDropped += await this.attempts.forgetAnswersOlderThan(mode, FORWARD_ANSWER_RETENTION_DAYS);
      const refingerprint = await runRecordPass(this.vault, 'refingerprint', mode, { batchSize: BATCH, maxBatches: MAX_BATCHES });
      totals.refingerprinted += refingerprint.done;
      if (refingerprint.unreadable > explained) {
        this.logger.warn({ mode, unreadable: refingerprint.unreadable }, 'vault sweep: records under the old fingerprint do not open with these keys');
      }
      const rebind = await runRecordPass(this.vault, 'rebind', mode, { batchSize: BATCH, maxBatches: MAX_BATCHES });
      totals.rebound += rebind.done;
      if (rebind.unreadable > explained) {
        this.logger.warn({ mode, unreadable: rebind.unreadable }, 'vault sweep: records not yet bound to their property do not open with these keys');
      }
    }
    this.metrics?.vaultSweep.inc({ action: 'shredded' }, totals.shredded);
    this.metrics?.vaultSweep.inc({ action: 'cvv_destroyed' }, totals.cvvsDestroyed);
    this.metrics?.vaultSweep.inc({ action: 'refingerprinted' }, totals.refingerprinted);
    this.metrics?.vaultSweep.inc({ action: 'rebound' }, totals.rebound);
    this.metrics?.vaultSweep.inc({ action: 'forward_answer_dropped' }, totals.forwardAnswersDropped);
    if (Object.values(totals).some((n) => n > 0)) this.logger.info(totals, 'vault sweep');
    return totals;
  }

  private async repeat(batch: () => Promise<number>): Promise<number> {
    let total = 0;
    for (let n = 0; n < MAX_BATCHES; n += 1) {
      const done = await batch();
      total += done;
      if (done < BATCH) break;
    }
    return total;
  }

  /** One transaction per batch: a token is shredded with its audit event, or neither is. */
  private shredExpired(mode: TTokenizationMode): Promise<number> {
    return this.cards.transaction(async (client) => {
      const shredded = await this.cards.shredExpired(client, mode, BATCH);
      await this.audit.record(
        shredded.map((row) => ({ action: 'token.expire', httpStatus: 200, tokenId: row.id, propertyId: row.property_id, mode, requestId: 'vault-sweep' })),
        client,
      );
      return shredded.length;
    });
  }
}
