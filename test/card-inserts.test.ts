import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardRepository, type TNewCardRow } from '../apps/worker/src/vault/card-repository.js';
import { createDatabase } from './support/world.js';

/**
 * Tokenize's inserts (CardRepository.insertCards, one statement a card outside an
 * Idempotency-Key's transaction) against a real PostgreSQL: each card gets its own row, held CVV
 * and answer. The ciphertexts are random bytes: the statement stores
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

describe('tokenize inserts, one statement a card', () => {
  const insert = async (card: TNewCardRow) => (await repository.insertCards('live', [card]))[0];

  it('inserts each card with its held CVV, and answers undefined for a card already there, leaving it alone', async () => {
    const cards = [newCard({ last4: '3001', cvvCt: randomBytes(31) }), newCard({ last4: '3002' })];
    const rows = await Promise.all(cards.map((card) => insert(card)));
    expect(rows.map((row) => [row?.id, row?.last4])).toEqual(cards.map((card) => [card.id, card.last4]));
    expect(await insert({ ...cards[0]!, last4: '9999' })).toBeUndefined();
    const stored = await pool.query<{ id: string; last4: string }>('SELECT id, last4 FROM vault_live.cards WHERE id = ANY($1::uuid[]) ORDER BY last4', [cards.map((card) => card.id)]);
    expect(stored.rows).toEqual(cards.map((card) => ({ id: card.id, last4: card.last4 })));
    const cvvs = await pool.query<{ token_id: string }>('SELECT token_id FROM vault_live.held_cvvs WHERE token_id = ANY($1::uuid[])', [cards.map((card) => card.id)]);
    expect(cvvs.rows).toEqual([{ token_id: cards[0]!.id }]);
  });
});
