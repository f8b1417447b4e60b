// SQL for forward_attempts: one row per (property, Idempotency-Key) in each mode's schema. The row
// is committed in state `started` before the gateway is called and set to `done` with the masked
// answer after; a key is bound for good (a payment key is never sent twice, however late).

import type { PoolClient } from 'pg';
import type { TPgPool } from '@folio-vault/shared/connections';
import type { TForwardCardResult } from '@folio-vault/shared/vault/forward/forward-job';
import type { TTokenizationMode } from '@folio-vault/shared/vault/schemas';
import { VAULT_SCHEMA } from '../idempotency-keys.js';

const SCHEMA = VAULT_SCHEMA;

/** What a replay answers: the recorded outcome of the one call (already masked). */
export type TRecordedForward = Extract<TForwardCardResult, { outcome: 'forwarded' | 'gateway_error' }>;

export interface TForwardAttemptRow {
  request_digest: string;
  forward_id: string;
  state: 'started' | 'done';
  answer: TRecordedForward | null;
}

export interface TNewForwardAttempt {
  propertyId: string;
  idempotencyKey: string;
  requestDigest: string;
  forwardId: string;
  tokenId: string;
  destination: string;
  method: string;
}

export class ForwardAttempts {
  constructor(private readonly pool: TPgPool) {}

  async find(db: TPgPool | PoolClient, mode: TTokenizationMode, propertyId: string, key: string): Promise<TForwardAttemptRow | undefined> {
    const result = await db.query<TForwardAttemptRow>(
      `SELECT request_digest, forward_id, state, answer FROM ${SCHEMA[mode]}.forward_attempts
        WHERE property_id = $1 AND idempotency_key = $2`,
      [propertyId, key],
    );
    return result.rows[0];
  }

  /**
   * Records the attempt `started` in `client`'s transaction, committed before the gateway is
   * called; false when the key has an attempt already. The key's primary key serializes attempts:
   * while another transaction's attempt with the key is not committed, this waits for it.
   */
  async start(client: PoolClient, mode: TTokenizationMode, attempt: TNewForwardAttempt): Promise<boolean> {
    const inserted = await client.query(
      `INSERT INTO ${SCHEMA[mode]}.forward_attempts
         (property_id, idempotency_key, request_digest, forward_id, token_id, destination, method, state)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'started')
       ON CONFLICT (property_id, idempotency_key) DO NOTHING`,
      [attempt.propertyId, attempt.idempotencyKey, attempt.requestDigest, attempt.forwardId, attempt.tokenId, attempt.destination, attempt.method],
    );
    return inserted.rowCount === 1;
  }

  /** Records the answer (`done`), while the attempt is still this forward's and `started`. */
  async finish(mode: TTokenizationMode, attempt: { propertyId: string; key: string; forwardId: string }, answer: TRecordedForward): Promise<void> {
    await this.pool.query(
      `UPDATE ${SCHEMA[mode]}.forward_attempts SET state = 'done', answer = $3, finished_at = now()
        WHERE property_id = $1 AND idempotency_key = $2 AND forward_id = $4 AND state = 'started'`,
      [attempt.propertyId, attempt.key, JSON.stringify(answer), attempt.forwardId],
    );
  }

  /** Drops an attempt that never sent anything (it failed before the call), so its key can be used again. */
  async release(mode: TTokenizationMode, propertyId: string, key: string, forwardId: string, db: TPgPool | PoolClient = this.pool): Promise<void> {
    await db.query(
      `DELETE FROM ${SCHEMA[mode]}.forward_attempts WHERE property_id = $1 AND idempotency_key = $2 AND forward_id = $3 AND state = 'started'`,
      [propertyId, key, forwardId],
    );
  }

  /**
   * The sweep: recorded answers older than `days` are dropped (each up to FORWARD_MAX_ANSWER_BYTES).
   * The row stays: its key is bound for good, and a replay past that answers outcome_unknown.
   */
  async forgetAnswersOlderThan(mode: TTokenizationMode, days: number): Promise<number> {
    const result = await this.pool.query(
      `UPDATE ${SCHEMA[mode]}.forward_attempts SET answer = NULL
        WHERE answer IS NOT NULL AND finished_at < now() - make_interval(days => $1)`,
      [days],
    );
    return result.rowCount ?? 0;
  }
}
