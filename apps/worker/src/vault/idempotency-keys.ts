import type { PoolClient } from 'pg';
import type { TTokenizationMode } from '@folio-vault/shared/vault/schemas';

/** The schema of each mode's vault tables: test and live tokens live apart. */
export const VAULT_SCHEMA: Record<TTokenizationMode, string> = { test: 'vault_test', live: 'vault_live' };
const SCHEMA = VAULT_SCHEMA;

/**
 * SQL for idempotency_keys: tokenize's Idempotency-Key, per property and mode, for 24 hours. Every
 * statement runs on the caller's transaction, under the key's advisory lock.
 */
export class IdempotencyKeys {
  /** Serializes requests that share an idempotency key until the transaction ends. */
  async lock(client: PoolClient, mode: TTokenizationMode, propertyId: string, key: string): Promise<void> {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${mode}:${propertyId}:${key}`]);
  }

  async find(
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

  async save(
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
}
