// SQL for the cards and held_cvvs tables (tokenize's idempotency_keys: idempotency-keys.ts;
// forwards' attempts: forward/forward-attempts.ts). Test and live tokens are in separate schemas;
// VAULT_SCHEMA picks one from the mode, never from a string that came from outside.

import type { PoolClient } from 'pg';
import type { TPgPool } from '@folio-vault/shared/connections';
import { inTransaction } from '@folio-vault/shared/db/transaction';
import { FINGERPRINT_VERSION } from '@folio-vault/shared/vault/crypto/fingerprint';
import type { TTokenizationMode } from '@folio-vault/shared/vault/schemas';
import { VAULT_SCHEMA } from './idempotency-keys.js';
import { RECORD_BINDING } from './record-binding.js';

/**
 * Crypto-shredding: the wrapped data key, every ciphertext and the fingerprint are destroyed; the
 * clear metadata row stays as a tombstone so the id is never reused.
 */
const SHRED = `wrapped_dek = NULL, kek_id = NULL, pan_ct = NULL, cardholder_name_ct = NULL, billing_details_ct = NULL,
               fingerprint = NULL, deleted_at = COALESCE(deleted_at, now())`;

const SCHEMA = VAULT_SCHEMA;

export interface TCardRow {
  id: string;
  property_id: string;
  card_brand: string;
  first6: string;
  last4: string;
  exp_month: string;
  exp_year: string;
  cardholder_name_masked: string | null;
  /** Null once shredded. */
  fingerprint: string | null;
  created_at: Date;
  deleted_at: Date | null;
  expires_at: Date;
  last_used_at: Date | null;
  /** From held_cvvs, while a CVV is held and its time has not passed (findCard only). */
  cvv_held_until?: Date | null;
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
  /** The key provider's id of the key that computed `fingerprint`. */
  fingerprintKey: string;
  kekId: string;
  wrappedDek: Buffer;
  panCt: Buffer;
  cardholderNameCt: Buffer;
  billingDetailsCt: Buffer | null;
  expiresAt: string;
  /** The CVV sealed under the record's data key, held `cvvHoldSeconds`; null when none is held. */
  cvvCt: Buffer | null;
  cvvHoldSeconds: number;
}

/** A record's wrapped data key, with what its associated data names (card-vault.ts recordAad). */
export interface TWrappedKeyRow {
  id: string;
  property_id: string;
  /** 1: sealed naming mode and token id; 2: property, mode and token id (migration 017). */
  record_binding: number;
  kek_id: string;
  wrapped_dek: Buffer;
}

export interface TSealedRecordRow extends TWrappedKeyRow {
  pan_ct: Buffer;
  cardholder_name_ct: Buffer;
  billing_details_ct: Buffer | null;
}

/** A record sealed again: its data key wrapped and its ciphertexts (and held CVV) under new associated data. */
export interface TResealedRecord {
  kekId: string;
  wrappedDek: Buffer;
  panCt: Buffer;
  cardholderNameCt: Buffer;
  billingDetailsCt: Buffer | null;
  cvvCt: Buffer | null;
}

const METADATA_COLUMNS =
  'id, property_id, card_brand, first6, last4, exp_month, exp_year, cardholder_name_masked, fingerprint, created_at, deleted_at, expires_at, last_used_at';
/** The same columns of `c` with the held CVV's end (held_cvvs `h`), for a query that joins them. */
const METADATA_WITH_CVV = `${METADATA_COLUMNS.split(', ').map((column) => `c.${column}`).join(', ')}, h.held_until AS cvv_held_until`;
/** `cards c` of a mode with its live held CVV (`h`), for the metadata queries. */
const cardsWithCvv = (mode: TTokenizationMode) =>
  `${SCHEMA[mode]}.cards c LEFT JOIN ${SCHEMA[mode]}.held_cvvs h ON h.token_id = c.id AND h.held_until > now()`;
/** A token that can be used: not shredded, not past its end (the sweep may not have run yet). */
const CURRENT = 'c.deleted_at IS NULL AND c.expires_at > now()';

/** Brand and last four of the property's current tokens among `ids`, test and live alike (a ledger import's payments; ledger:import calls it too). */
export async function findCardLabels(db: TPgPool | PoolClient, propertyId: string, ids: string[]): Promise<Array<{ id: string; card_brand: string; first6: string; last4: string }>> {
  const select = (mode: TTokenizationMode) => `SELECT c.id, c.card_brand, c.first6, c.last4 FROM ${SCHEMA[mode]}.cards c WHERE c.property_id = $1 AND c.id = ANY($2::uuid[]) AND ${CURRENT}`;
  return (await db.query<{ id: string; card_brand: string; first6: string; last4: string }>(`${select('test')} UNION ALL ${select('live')}`, [propertyId, ids])).rows;
}

/** The columns a record is opened with (TSealedRecordRow), of `cards c`. */
const SEALED_COLUMNS = 'c.id, c.property_id, c.record_binding, c.kek_id, c.wrapped_dek, c.pan_ct, c.cardholder_name_ct, c.billing_details_ct';

export class CardRepository {
  constructor(private readonly pool: TPgPool) {}

  transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, work);
  }

  /**
   * Inserts cards, each with its held CVV, and answers the metadata of those it inserted; a card
   * whose id is already there (a second run of the same job) is left alone and missing from the
   * answer (the caller reads the record). The ids must differ. In `client`'s transaction, or as one
   * statement that commits on its own, whatever the number of cards. Every card is sealed with
   * binding `RECORD_BINDING` (its associated data names its property).
   */
  async insertCards(mode: TTokenizationMode, cards: ReadonlyArray<TNewCardRow>, client?: PoolClient): Promise<TCardRow[]> {
    const db = client ?? this.pool;
    const schema = SCHEMA[mode];
    const column = <K extends keyof TNewCardRow>(key: K) => cards.map((card) => card[key]);
    // One array per column, unnested side by side. A held CVV goes in only with its card: a re-run
    // that finds the card already there inserts none (`card` has no row for it).
    const result = await db.query<TCardRow>(
      `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                              $9::text[], $10::text[], $11::bytea[], $12::bytea[], $13::bytea[], $14::bytea[], $15::timestamptz[],
                              $16::bytea[], $17::int[], $18::text[])
           WITH ORDINALITY AS t(id, property_id, card_brand, first6, last4, exp_month, exp_year, cardholder_name_masked,
                                fingerprint, kek_id, wrapped_dek, pan_ct, cardholder_name_ct, billing_details_ct, expires_at,
                                cvv_ct, cvv_hold_seconds, fingerprint_key, n)
       ), card AS (
         INSERT INTO ${schema}.cards
           (id, property_id, card_brand, first6, last4, exp_month, exp_year, cardholder_name_masked,
            fingerprint, fingerprint_version, fingerprint_key, kek_id, wrapped_dek, pan_ct, cardholder_name_ct, billing_details_ct, expires_at,
            record_binding)
         SELECT id, property_id, card_brand, first6, last4, exp_month, exp_year, cardholder_name_masked,
                fingerprint, ${FINGERPRINT_VERSION}, fingerprint_key, kek_id, wrapped_dek, pan_ct, cardholder_name_ct, billing_details_ct, expires_at,
                ${RECORD_BINDING}
           FROM input ORDER BY n
         ON CONFLICT (id) DO NOTHING
         RETURNING ${METADATA_COLUMNS}
       ), cvv AS (
         INSERT INTO ${schema}.held_cvvs (token_id, cvv_ct, held_until)
         SELECT input.id, input.cvv_ct, now() + make_interval(secs => input.cvv_hold_seconds)
           FROM input JOIN card ON card.id = input.id
          WHERE input.cvv_ct IS NOT NULL
       )
       SELECT * FROM card`,
      [
        column('id'), column('propertyId'), column('cardBrand'), column('first6'), column('last4'), column('expMonth'),
        column('expYear'), column('cardholderNameMasked'), column('fingerprint'), column('kekId'), column('wrappedDek'),
        column('panCt'), column('cardholderNameCt'), column('billingDetailsCt'), column('expiresAt'), column('cvvCt'),
        column('cvvHoldSeconds'), column('fingerprintKey'),
      ],
    );
    return result.rows;
  }

  /** The property's card `id` (current or not), with its held CVV's end; in `client`'s transaction when given. */
  async findCard(mode: TTokenizationMode, propertyId: string, id: string, client?: PoolClient): Promise<TCardRow | undefined> {
    const result = await (client ?? this.pool).query<TCardRow>(
      `SELECT ${METADATA_WITH_CVV} FROM ${cardsWithCvv(mode)}
        WHERE c.id = $1 AND c.property_id = $2`,
      [id, propertyId],
    );
    return result.rows[0];
  }

  /** Brand and last four of the property's current tokens among `ids`, test and live alike. */
  cardLabels(propertyId: string, ids: string[]): Promise<Array<{ id: string; card_brand: string; first6: string; last4: string }>> {
    return findCardLabels(this.pool, propertyId, ids);
  }

  /** The property's current tokens with this fingerprint, newest first, at most 100. */
  async findByFingerprint(mode: TTokenizationMode, propertyId: string, fingerprint: string): Promise<TCardRow[]> {
    const result = await this.pool.query<TCardRow>(
      `SELECT ${METADATA_WITH_CVV} FROM ${cardsWithCvv(mode)}
        WHERE c.property_id = $1 AND c.fingerprint = $2 AND ${CURRENT}
        ORDER BY c.created_at DESC, c.id DESC
        LIMIT 100`,
      [propertyId, fingerprint],
    );
    return result.rows;
  }

  /**
   * A forward's record: the current token (not shredded, not past its end) with its ciphertexts,
   * wrapped key and live CVV's end, locked until `client`'s transaction ends, so a delete or
   * another forward of the same token waits for this one's attempt to be recorded.
   */
  async lockCurrentRecord(client: PoolClient, mode: TTokenizationMode, propertyId: string, id: string): Promise<(TSealedRecordRow & TCardRow) | undefined> {
    const result = await client.query<TSealedRecordRow & TCardRow>(
      `SELECT ${METADATA_WITH_CVV}, ${SEALED_COLUMNS}
         FROM ${cardsWithCvv(mode)}
        WHERE c.id = $1 AND c.property_id = $2 AND ${CURRENT}
          FOR UPDATE OF c`,
      [id, propertyId],
    );
    return result.rows[0];
  }

  /**
   * Takes the token's held CVV out: deleted whatever happens next (a CVV serves one authorization).
   * `live` is false for one past its time, which goes too but must not be used.
   */
  async takeHeldCvv(client: PoolClient, mode: TTokenizationMode, id: string): Promise<{ cvvCt: Buffer; live: boolean } | undefined> {
    const result = await client.query<{ cvv_ct: Buffer; live: boolean }>(
      `DELETE FROM ${SCHEMA[mode]}.held_cvvs WHERE token_id = $1 RETURNING cvv_ct, held_until > now() AS live`,
      [id],
    );
    const row = result.rows[0];
    return row ? { cvvCt: row.cvv_ct, live: row.live } : undefined;
  }

  /** The token was used (a forward reached its gateway). */
  async markUsed(client: PoolClient, mode: TTokenizationMode, id: string): Promise<void> {
    await client.query(`UPDATE ${SCHEMA[mode]}.cards SET last_used_at = now() WHERE id = $1`, [id]);
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
      `SELECT id, property_id, record_binding, kek_id, wrapped_dek FROM ${SCHEMA[mode]}.cards
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
      `SELECT ${SEALED_COLUMNS} FROM ${SCHEMA[mode]}.cards c
        WHERE c.wrapped_dek IS NOT NULL AND ($1::uuid IS NULL OR c.id > $1::uuid)
        ORDER BY c.id
        LIMIT $2`,
      [afterId ?? null, limit],
    );
    return result.rows;
  }

  /**
   * Crypto-shreds one token (SHRED) and its held CVV. Returns false when there is no such card. The
   * card's row is locked first, as a forward locks it before it takes the CVV.
   */
  async shredCard(mode: TTokenizationMode, propertyId: string, id: string): Promise<boolean> {
    const schema = SCHEMA[mode];
    return this.transaction(async (client) => {
      const shredded = await client.query(`UPDATE ${schema}.cards SET ${SHRED} WHERE id = $1 AND property_id = $2`, [id, propertyId]);
      if (!shredded.rowCount) return false;
      await client.query(`DELETE FROM ${schema}.held_cvvs WHERE token_id = $1`, [id]);
      return true;
    });
  }

  /** The sweep: shreds up to `limit` tokens past their end; answers their ids and properties. */
  async shredExpired(client: PoolClient, mode: TTokenizationMode, limit: number): Promise<Array<{ id: string; property_id: string }>> {
    const schema = SCHEMA[mode];
    const result = await client.query<{ id: string; property_id: string }>(
      `UPDATE ${schema}.cards SET ${SHRED}
        WHERE id IN (SELECT id FROM ${schema}.cards WHERE expires_at <= now() AND wrapped_dek IS NOT NULL
                      ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING id, property_id`,
      [limit],
    );
    return result.rows;
  }

  /** The sweep: destroys held CVVs past their time and any of a shredded or expired token. */
  async destroyStaleCvvs(mode: TTokenizationMode): Promise<number> {
    const schema = SCHEMA[mode];
    const result = await this.pool.query(
      `DELETE FROM ${schema}.held_cvvs h
        WHERE h.held_until <= now()
           OR EXISTS (SELECT 1 FROM ${schema}.cards c WHERE c.id = h.token_id AND (c.wrapped_dek IS NULL OR c.expires_at <= now()))`,
    );
    return result.rowCount ?? 0;
  }

  /**
   * The next batch (in id order, after `afterId`) of records whose fingerprint is old: the
   * version-1 (global) one, or one computed with another key than `keyId`. Locked for
   * re-fingerprinting; rows another transaction holds are skipped.
   */
  async lockOldFingerprints(
    client: PoolClient,
    mode: TTokenizationMode,
    keyId: string,
    limit: number,
    afterId?: string,
  ): Promise<TSealedRecordRow[]> {
    const result = await client.query<TSealedRecordRow>(
      `SELECT ${SEALED_COLUMNS} FROM ${SCHEMA[mode]}.cards c
        WHERE (c.fingerprint_version = 1 OR c.fingerprint_key <> $3) AND c.wrapped_dek IS NOT NULL AND ($2::uuid IS NULL OR c.id > $2::uuid)
        ORDER BY c.id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit, afterId ?? null, keyId],
    );
    return result.rows;
  }

  async setFingerprint(client: PoolClient, mode: TTokenizationMode, id: string, fingerprint: { value: string; keyId: string }): Promise<void> {
    await client.query(
      `UPDATE ${SCHEMA[mode]}.cards SET fingerprint = $2, fingerprint_version = ${FINGERPRINT_VERSION}, fingerprint_key = $3 WHERE id = $1`,
      [id, fingerprint.value, fingerprint.keyId],
    );
  }

  /**
   * The next batch (in id order, after `afterId`) of readable records still sealed with binding 1
   * (mode and token id, no property), each with its held CVV's ciphertext, locked for re-binding;
   * rows another transaction holds (a forward, a sweep elsewhere) are skipped. The card row is
   * locked before its held CVV is touched, as a forward does.
   */
  async lockUnboundRecords(client: PoolClient, mode: TTokenizationMode, limit: number, afterId?: string): Promise<Array<TSealedRecordRow & { cvv_ct: Buffer | null }>> {
    const result = await client.query<TSealedRecordRow & { cvv_ct: Buffer | null }>(
      `SELECT ${SEALED_COLUMNS}, h.cvv_ct FROM ${SCHEMA[mode]}.cards c LEFT JOIN ${SCHEMA[mode]}.held_cvvs h ON h.token_id = c.id
        WHERE c.record_binding = 1 AND c.wrapped_dek IS NOT NULL AND ($2::uuid IS NULL OR c.id > $2::uuid)
        ORDER BY c.id LIMIT $1 FOR UPDATE OF c SKIP LOCKED`,
      [limit, afterId ?? null],
    );
    return result.rows;
  }

  /** A record locked by lockUnboundRecords, written back sealed with binding RECORD_BINDING. */
  async rebindRecord(client: PoolClient, mode: TTokenizationMode, id: string, sealed: TResealedRecord): Promise<void> {
    const schema = SCHEMA[mode];
    await client.query(
      `UPDATE ${schema}.cards SET kek_id = $2, wrapped_dek = $3, pan_ct = $4, cardholder_name_ct = $5, billing_details_ct = $6,
              record_binding = ${RECORD_BINDING}
        WHERE id = $1 AND wrapped_dek IS NOT NULL`,
      [id, sealed.kekId, sealed.wrappedDek, sealed.panCt, sealed.cardholderNameCt, sealed.billingDetailsCt],
    );
    if (sealed.cvvCt) await client.query(`UPDATE ${schema}.held_cvvs SET cvv_ct = $2 WHERE token_id = $1`, [id, sealed.cvvCt]);
  }

  /** Readable records still sealed with binding 1 (a progress bar's total). */
  async countUnbound(mode: TTokenizationMode): Promise<number> {
    const result = await this.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${SCHEMA[mode]}.cards WHERE record_binding = 1 AND wrapped_dek IS NOT NULL`);
    return result.rows[0]!.n;
  }
}
