import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardInsertBatcher, plainCardInserts } from '../apps/worker/src/vault/card-insert-batcher.js';
import { CardRepository, type TCardRow, type TNewCardRow } from '../apps/worker/src/vault/card-repository.js';
import { createDatabase } from './support/world.js';

/**
 * Tokenize's inserts gathered across concurrent jobs (apps/worker/src/vault/card-insert-batcher.ts),
 * against a real PostgreSQL: which cards share a statement, and that each card still gets its own
 * row, held CVV and answer. The ciphertexts are random bytes: the statement stores
 * them as given (test/vault-tokenize.test.ts opens real ones).
 */
let pool: pg.Pool;
let repository: CardRepository;

beforeAll(async () => {
  const database = await createDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 10 });
  repository = new CardRepository(pool);
});
afterAll(async () => pool?.end());

function newCard(overrides: Partial<TNewCardRow> = {}): TNewCardRow {
  return {
    id: uuidv7(),
    propertyId: '1',
    cardBrand: 'visa',
    first6: '424242',
    last4: '4242',
    expMonth: '08',
    expYear: '2031',
    cardholderNameMasked: 'J*** D**',
    fingerprint: randomBytes(32).toString('hex'),
    fingerprintKey: 'local',
    kekId: 'test-1',
    wrappedDek: randomBytes(60),
    panCt: randomBytes(45),
    cardholderNameCt: randomBytes(37),
    billingDetailsCt: null,
    expiresAt: '2031-08-31T23:59:59.000Z',
    cvvCt: null,
    cvvHoldSeconds: 600,
    ...overrides,
  };
}

/** A batcher that keeps the size of every statement it sends. */
function batcher(maxInFlight: number): { inserts: CardInsertBatcher; sizes: number[] } {
  const sizes: number[] = [];
  return { inserts: new CardInsertBatcher(repository, { maxInFlight, onBatch: (cards) => sizes.push(cards) }), sizes };
}

describe('tokenize inserts gathered across jobs', () => {
  it('sends a lone card at once, and the cards that come while it runs together in one statement, each with its own row and CVV', async () => {
    const { inserts, sizes } = batcher(1);
    const cards = Array.from({ length: 30 }, (_, index) => newCard({ last4: String(1000 + index), cvvCt: index % 2 === 0 ? randomBytes(31) : null }));

    const rows = await Promise.all(cards.map((card) => inserts.insert('test', card)));

    expect(sizes).toEqual([1, 29]);
    expect(rows.map((row) => [row?.id, row?.last4])).toEqual(cards.map((card) => [card.id, card.last4]));
    const ids = cards.map((card) => card.id);
    const stored = await pool.query<{ id: string; last4: string; pan_ct: Buffer }>('SELECT id, last4, pan_ct FROM vault_test.cards WHERE id = ANY($1::uuid[])', [ids]);
    expect(new Map(stored.rows.map((row) => [row.id, [row.last4, row.pan_ct.toString('hex')]]))).toEqual(
      new Map(cards.map((card) => [card.id, [card.last4, card.panCt.toString('hex')]])),
    );
    const cvvs = await pool.query<{ token_id: string; cvv_ct: Buffer }>('SELECT token_id, cvv_ct FROM vault_test.held_cvvs WHERE token_id = ANY($1::uuid[])', [ids]);
    expect(new Map(cvvs.rows.map((row) => [row.token_id, row.cvv_ct.toString('hex')]))).toEqual(
      new Map(cards.filter((card) => card.cvvCt).map((card) => [card.id, card.cvvCt!.toString('hex')])),
    );
  });

  it('answers undefined for a card already there, leaves it alone, while the card beside it goes in', async () => {
    const { inserts, sizes } = batcher(1);
    const first = newCard({ last4: '1111' });
    await inserts.insert('test', first);
    // Its statement's slot is given back just after its answer.
    await new Promise((resolve) => setImmediate(resolve));

    const other = newCard({ last4: '2222' });
    const blocker = newCard();
    const [, again, beside] = await Promise.all([
      inserts.insert('test', blocker),
      // The same job run again: another data key.
      inserts.insert('test', { ...first, last4: '9999', panCt: randomBytes(45) }),
      inserts.insert('test', other),
    ]);

    expect(sizes).toEqual([1, 1, 2]);
    expect(again).toBeUndefined();
    expect(beside?.id).toBe(other.id);
    const stored = await pool.query<{ last4: string; pan_ct: Buffer }>('SELECT last4, pan_ct FROM vault_test.cards WHERE id = $1', [first.id]);
    expect(stored.rows.map((row) => [row.last4, row.pan_ct.toString('hex')])).toEqual([['1111', first.panCt.toString('hex')]]);
  });

  it('puts a second copy of a card waiting beside the first into the next statement, which finds it there', async () => {
    const { inserts, sizes } = batcher(1);
    const card = newCard();
    const [, first, copy] = await Promise.all([
      inserts.insert('test', newCard()),
      inserts.insert('test', card),
      inserts.insert('test', card),
    ]);

    expect(sizes).toEqual([1, 1, 1]);
    expect(first?.id).toBe(card.id);
    expect(copy).toBeUndefined();
  });

  it('fails only the card PostgreSQL refuses: the statement is tried again one card at a time', async () => {
    const { inserts, sizes } = batcher(1);
    const good = [newCard(), newCard()];
    const bad = newCard({ expiresAt: 'not a date' });
    const results = await Promise.allSettled([
      inserts.insert('test', newCard()),
      inserts.insert('test', good[0]!),
      inserts.insert('test', bad),
      inserts.insert('test', good[1]!),
    ]);

    expect(sizes).toEqual([1, 3, 1, 1, 1]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(((results[2] as PromiseRejectedResult).reason as { code?: string }).code).toBe('22007');
    expect((results[1] as PromiseFulfilledResult<TCardRow | undefined>).value?.id).toBe(good[0]!.id);
    expect((results[3] as PromiseFulfilledResult<TCardRow | undefined>).value?.id).toBe(good[1]!.id);
    const stored = await pool.query<{ id: string }>('SELECT id FROM vault_test.cards WHERE id = ANY($1::uuid[])', [[...good, bad].map((card) => card.id)]);
    expect(stored.rows.map((row) => row.id).sort()).toEqual(good.map((card) => card.id).sort());
  });

  it('keeps test and live cards in statements of their own mode, the mode of the oldest waiting card first', async () => {
    const sent: string[] = [];
    const inserts = new CardInsertBatcher(repository, { maxInFlight: 1, onBatch: (cards) => sent.push(`${cards}`) });
    const test = [newCard(), newCard()];
    const live = [newCard(), newCard()];
    const ended: string[] = [];
    const insert = (mode: 'test' | 'live', card: TNewCardRow) => inserts.insert(mode, card).then(() => ended.push(`${mode} ${card.id}`));
    await Promise.all([
      insert('test', newCard()),
      insert('live', live[0]!),
      insert('test', test[0]!),
      insert('live', live[1]!),
      insert('test', test[1]!),
    ]);

    expect(sent).toEqual(['1', '2', '2']);
    // The live cards came first, so their statement went first, though test cards were waiting too.
    expect(ended.slice(1)).toEqual([`live ${live[0]!.id}`, `live ${live[1]!.id}`, `test ${test[0]!.id}`, `test ${test[1]!.id}`]);
    const inLive = await pool.query<{ id: string }>('SELECT id FROM vault_live.cards WHERE id = ANY($1::uuid[])', [[...test, ...live].map((card) => card.id)]);
    expect(inLive.rows.map((row) => row.id).sort()).toEqual(live.map((card) => card.id).sort());
    const inTest = await pool.query<{ id: string }>('SELECT id FROM vault_test.cards WHERE id = ANY($1::uuid[])', [[...test, ...live].map((card) => card.id)]);
    expect(inTest.rows.map((row) => row.id).sort()).toEqual(test.map((card) => card.id).sort());
  });
});

describe('tokenize inserts one statement a card (PERFORMANCE_MEASURES_OFF=tokenize-insert-batching)', () => {
  it('inserts each card with its held CVV, and answers undefined for a card already there, leaving it alone', async () => {
    const inserts = plainCardInserts(repository);
    const cards = [newCard({ last4: '3001', cvvCt: randomBytes(31) }), newCard({ last4: '3002' })];
    const rows = await Promise.all(cards.map((card) => inserts.insert('live', card)));
    expect(rows.map((row) => [row?.id, row?.last4])).toEqual(cards.map((card) => [card.id, card.last4]));
    expect(await inserts.insert('live', { ...cards[0]!, last4: '9999' })).toBeUndefined();
    const stored = await pool.query<{ id: string; last4: string }>('SELECT id, last4 FROM vault_live.cards WHERE id = ANY($1::uuid[]) ORDER BY last4', [cards.map((card) => card.id)]);
    expect(stored.rows).toEqual(cards.map((card) => ({ id: card.id, last4: card.last4 })));
    const cvvs = await pool.query<{ token_id: string }>('SELECT token_id FROM vault_live.held_cvvs WHERE token_id = ANY($1::uuid[])', [cards.map((card) => card.id)]);
    expect(cvvs.rows).toEqual([{ token_id: cards[0]!.id }]);
  });
});
