import type { PoolClient } from 'pg';
import type { TPgPool } from '@folio-vault/shared/connections';
import { inTransaction } from '@folio-vault/shared/db/transaction';
import type { TTokenizationMode } from '@folio-vault/shared/vault/schemas';

/**
 * SQL for the vault tables. Test and live tokens are in separate schemas; the mode picks the
 * schema from this fixed map, never from a string that came from outside.
 */
const SCHEMA: Record<TTokenizationMode, string> = { test: 'vault_test', live: 'vault_live' };

export interface TCardRow {
  id: string;
  property_id: string;
  card_brand: string;
  first6: string;
  last4: string;
  exp_month: string;
  exp_year: string;
  cardholder_name_masked: string | null;
  fingerprint: string;
  created_at: Date;
  deleted_at: Date | null;
}

export interface TNewCardRow {
  id: string;
  propertyId: string;
  cardBrand: string;
  first6: string;
  last4: string;
  expMonth: string;
  expYear: string;
  cardholderNameMasked: string;
  fingerprint: string;
  kekId: string;
  wrappedDek: Buffer;
  panCt: Buffer;
  cardholderNameCt: Buffer;
  billingDetailsCt: Buffer | null;
}

export interface TWrappedKeyRow {
  id: string;
  kek_id: string;
  wrapped_dek: Buffer;
}

export interface TSealedRecordRow extends TWrappedKeyRow {
  pan_ct: Buffer;
  cardholder_name_ct: Buffer;
  billing_details_ct: Buffer | null;
}

const METADATA_COLUMNS =
  'id, property_id, card_brand, first6, last4, exp_month, exp_year, cardholder_name_masked, fingerprint, created_at, deleted_at';

export class CardRepository {
  constructor(readonly pool: TPgPool) {}

  transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, work);
  }

  /** Serializes requests that share an idempotency key until the transaction ends. */
  async lockIdempotencyKey(client: PoolClient, mode: TTokenizationMode, propertyId: string, key: string): Promise<void> {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${mode}:${propertyId}:${key}`]);
  }

  async findIdempotencyKey(
    client: PoolClient,
    mode: TTokenizationMode,
    propertyId: string,
    key: string,
  ): Promise<{ request_digest: string; token_id: string } | undefined> {
    const result = await client.query<{ request_digest: string; token_id: string }>(
      `SELECT request_digest, token_id FROM ${SCHEMA[mode]}.idempotency_keys
        WHERE property_id = $1 AND idempotency_key = $2 AND created_at > now() - interval '24 hours'`,
      [propertyId, key],
    );
    return result.rows[0];
  }

  async saveIdempotencyKey(
    client: PoolClient,
    mode: TTokenizationMode,
    row: { propertyId: string; key: string; requestDigest: string; tokenId: string },
  ): Promise<void> {
    // An expired row (older than 24 h) is replaced; a live one was found before we got here.
    await client.query(
      `INSERT INTO ${SCHEMA[mode]}.idempotency_keys (property_id, idempotency_key, request_digest, token_id)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (property_id, idempotency_key)
       DO UPDATE SET request_digest = EXCLUDED.request_digest, token_id = EXCLUDED.token_id, created_at = now()`,
      [row.propertyId, row.key, row.requestDigest, row.tokenId],
    );
  }

  /**
   * Inserts the card and answers its metadata; a second run of the same job (same id) leaves the
   * first record alone and answers undefined (the caller reads the record). `db` may be the pool:
   * one statement commits on its own, one round trip.
   */
  async insertCard(db: TPgPool | PoolClient, mode: TTokenizationMode, card: TNewCardRow): Promise<TCardRow | undefined> {
    const result = await db.query<TCardRow>(
      `INSERT INTO ${SCHEMA[mode]}.cards
         (id, property_id, card_brand, first6, last4, exp_month, exp_year, cardholder_name_masked,
          fingerprint, kek_id, wrapped_dek, pan_ct, cardholder_name_ct, billing_details_ct)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
       ON CONFLICT (id) DO NOTHING
       RETURNING ${METADATA_COLUMNS}`,
      [
        card.id, card.propertyId, card.cardBrand, card.first6, card.last4, card.expMonth, card.expYear,
        card.cardholderNameMasked, card.fingerprint, card.kekId, card.wrappedDek, card.panCt,
        card.cardholderNameCt, card.billingDetailsCt,
      ],
    );
    return result.rows[0];
  }

  async findCard(
    db: TPgPool | PoolClient,
    mode: TTokenizationMode,
    propertyId: string,
    id: string,
  ): Promise<TCardRow | undefined> {
    const result = await db.query<TCardRow>(
      `SELECT ${METADATA_COLUMNS} FROM ${SCHEMA[mode]}.cards WHERE id = $1 AND property_id = $2`,
      [id, propertyId],
    );
    return result.rows[0];
  }

  /**
   * The next batch (in id order, after `afterId`) of records whose data key is wrapped by a KEK
   * other than `activeId`, locked until the transaction ends. Shredded records have no wrapped key
   * and are never returned: a shred that commits first is seen by the lock's re-check, one that
   * comes later waits for the re-wrap and then shreds the new wrapped key.
   */
  async lockKeysToRewrap(
    client: PoolClient,
    mode: TTokenizationMode,
    activeId: string,
    afterId: string | undefined,
    limit: number,
  ): Promise<TWrappedKeyRow[]> {
    const result = await client.query<TWrappedKeyRow>(
      `SELECT id, kek_id, wrapped_dek FROM ${SCHEMA[mode]}.cards
        WHERE wrapped_dek IS NOT NULL AND kek_id <> $1 AND ($2::uuid IS NULL OR id > $2::uuid)
        ORDER BY id
        LIMIT $3
        FOR UPDATE`,
      [activeId, afterId ?? null, limit],
    );
    return result.rows;
  }

  async rewrapKey(client: PoolClient, mode: TTokenizationMode, id: string, kekId: string, wrappedDek: Buffer): Promise<void> {
    await client.query(
      `UPDATE ${SCHEMA[mode]}.cards SET kek_id = $2, wrapped_dek = $3 WHERE id = $1 AND wrapped_dek IS NOT NULL`,
      [id, kekId, wrappedDek],
    );
  }

  /** How many readable (not shredded) records each KEK wraps. */
  async countKeysByKek(mode: TTokenizationMode): Promise<Record<string, number>> {
    const result = await this.pool.query<{ kek_id: string; n: number }>(
      `SELECT kek_id, count(*)::int AS n FROM ${SCHEMA[mode]}.cards WHERE wrapped_dek IS NOT NULL GROUP BY kek_id ORDER BY kek_id`,
    );
    return Object.fromEntries(result.rows.map((row) => [row.kek_id, row.n]));
  }

  /** A page of readable records with their ciphertexts, for verifying that every one still opens. */
  async sealedRecords(mode: TTokenizationMode, afterId: string | undefined, limit: number): Promise<TSealedRecordRow[]> {
    const result = await this.pool.query<TSealedRecordRow>(
      `SELECT id, kek_id, wrapped_dek, pan_ct, cardholder_name_ct, billing_details_ct FROM ${SCHEMA[mode]}.cards
        WHERE wrapped_dek IS NOT NULL AND ($1::uuid IS NULL OR id > $1::uuid)
        ORDER BY id
        LIMIT $2`,
      [afterId ?? null, limit],
    );
    return result.rows;
  }

  /**
   * Crypto-shredding: the wrapped data key and every ciphertext are destroyed; the clear metadata
   * row stays as a tombstone so the id is never reused. Returns false when there is no such card.
   */
  async shredCard(mode: TTokenizationMode, propertyId: string, id: string): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE ${SCHEMA[mode]}.cards
          SET wrapped_dek = NULL, kek_id = NULL, pan_ct = NULL, cardholder_name_ct = NULL,
              billing_details_ct = NULL, deleted_at = COALESCE(deleted_at, now())
        WHERE id = $1 AND property_id = $2`,
      [id, propertyId],
    );
    return (result.rowCount ?? 0) > 0;
  }
}
