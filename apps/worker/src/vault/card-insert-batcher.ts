// A kept performance measure (packages/shared/src/performance-measures.ts:
// `tokenize-insert-batching`): tokenize's inserts without an Idempotency-Key gathered across the
// worker's concurrent jobs into one statement. Under load PostgreSQL spends its time per statement
// and per commit rather than per row, so the cards of several jobs cost little more than one:
// tokenize throughput is what it buys. It is measured by `npm run bench -- --only tokenize`,
// against the service with PERFORMANCE_MEASURES_OFF=tokenize-insert-batching (plainCardInserts:
// one statement per card) in the same run (docs/benchmarks.md).

import type { TTokenizationMode } from '@folio-vault/shared/vault/schemas';
import type { CardRepository, TCardRow, TNewCardRow } from './card-repository.js';

interface TWaiting {
  /** Arrival order, across both modes. */
  seq: number;
  card: TNewCardRow;
  resolve(row: TCardRow | undefined): void;
  reject(error: unknown): void;
}

/** How tokenize inserts a card outside a transaction: the row inserted, or undefined when it was already there. */
export interface TCardInserts {
  insert(mode: TTokenizationMode, card: TNewCardRow): Promise<TCardRow | undefined>;
}

/** One statement per card. */
export function plainCardInserts(repository: CardRepository): TCardInserts {
  return { insert: async (mode, card) => (await repository.insertCards(mode, [card]))[0] };
}

export interface TCardInsertBatcherOptions {
  /** Insert statements in flight at once (default 1); a card that comes while they all run waits for the next one. */
  maxInFlight?: number;
  /** Cards in one statement at the most. */
  maxBatch?: number;
  /** Told the number of cards of every statement sent (the worker's vault_card_insert_batch_size). */
  onBatch?: (cards: number) => void;
}

/**
 * A card goes to PostgreSQL at once while fewer than `maxInFlight` insert statements run, and
 * otherwise waits for one of them to end and goes with every card that waited meanwhile, in one
 * statement (CardRepository.insertCards). A lone card never waits for a timer.
 *
 * Every job still gets its own answer: its card's row, or undefined when the card was already there
 * (a re-run of its job). A statement that fails is tried again one card at a time, so a card that
 * cannot be inserted fails its own job and no other.
 */
export class CardInsertBatcher implements TCardInserts {
  private readonly waiting: Record<TTokenizationMode, TWaiting[]> = { test: [], live: [] };
  private inFlight = 0;
  private arrivals = 0;
  private readonly maxInFlight: number;
  private readonly maxBatch: number;

  constructor(
    private readonly repository: CardRepository,
    private readonly options: TCardInsertBatcherOptions = {},
  ) {
    this.maxInFlight = options.maxInFlight ?? 1;
    this.maxBatch = options.maxBatch ?? 50;
  }

  insert(mode: TTokenizationMode, card: TNewCardRow): Promise<TCardRow | undefined> {
    return new Promise((resolve, reject) => {
      this.waiting[mode].push({ seq: (this.arrivals += 1), card, resolve, reject });
      this.drain();
    });
  }

  private drain(): void {
    while (this.inFlight < this.maxInFlight) {
      // The mode whose oldest card has waited longer: cards of one mode never hold the other's back.
      const [test, live] = [this.waiting.test[0], this.waiting.live[0]];
      if (!test && !live) return;
      const mode: TTokenizationMode = test && (!live || test.seq < live.seq) ? 'test' : 'live';
      const batch = this.take(mode);
      this.inFlight += 1;
      void this.send(mode, batch).finally(() => {
        this.inFlight -= 1;
        this.drain();
      });
    }
  }

  /**
   * Up to maxBatch waiting cards of `mode`, oldest first, one per token id: a job run twice at once
   * (a stalled job handed to another slot) waits for the next statement, which finds its card there.
   */
  private take(mode: TTokenizationMode): TWaiting[] {
    const batch: TWaiting[] = [];
    const ids = new Set<string>();
    const left: TWaiting[] = [];
    for (const waiting of this.waiting[mode]) {
      if (batch.length < this.maxBatch && !ids.has(waiting.card.id)) {
        ids.add(waiting.card.id);
        batch.push(waiting);
      } else {
        left.push(waiting);
      }
    }
    this.waiting[mode] = left;
    return batch;
  }

  private async send(mode: TTokenizationMode, batch: TWaiting[]): Promise<void> {
    this.options.onBatch?.(batch.length);
    try {
      const rows = await this.repository.insertCards(mode, batch.map((waiting) => waiting.card));
      const byId = new Map(rows.map((row) => [row.id, row]));
      for (const waiting of batch) waiting.resolve(byId.get(waiting.card.id));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      // One card that cannot go in (a value PostgreSQL refuses) must not fail the other jobs.
      await Promise.all(batch.map((waiting) => this.send(mode, [waiting])));
    }
  }
}
