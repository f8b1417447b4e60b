import type { TPgPool } from '@folio-vault/shared/connections';
import type { TForwardCardResult } from '@folio-vault/shared/vault/forward/forward-job';
import type { TTokenizationMode } from '@folio-vault/shared/vault/schemas';
import { auditInsertSql, auditValuesOf, type TAuditEvent } from '@folio-vault/shared/vault/audit-log';
import { FORWARD_CARD_SQL, type TCardRow, type TSealedRecordRow } from '../card-repository.js';
import { VAULT_SCHEMA } from '../idempotency-keys.js';

/**
 * SQL for forward_attempts: one row per (property, Idempotency-Key) in each mode's schema. The row
 * is committed in state `started` before the gateway is called and set to `done` with the masked
 * answer after; a key is bound for good (a payment key is never sent twice, however late).
 * `begin` and `finish` also touch cards and held_cvvs, through FORWARD_CARD_SQL (card-repository.ts).
 *
 * Those two run on every forward and are named (prepared once per connection, then only bound and
 * executed): planning a CTE of three tables costs PostgreSQL more than running it (0.8 ms against
 * 0.45 ms in EXPLAIN ANALYZE). Each mode has its own text, hence its own name.
 */
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

/** What `begin` found: the current record (undefined when none), the attempt inserted or not, the CVV taken. */
export interface TBegun {
  record?: TSealedRecordRow & TCardRow;
  started: boolean;
  /** The held CVV taken out for this attempt; undefined when not asked for, or lost to another forward. */
  cvvCt?: Buffer;
}

export class ForwardAttempts {
  constructor(private readonly pool: TPgPool) {}

  /**
   * One statement, committed on its own (one round trip): reads the current record and its live
   * CVV, inserts the attempt `started` when the record is there (and a live CVV, when `needsCvv`),
   * and only then takes the held CVV out. The primary key (forward_attempts_pkey: property_id,
   * idempotency_key) serializes forwards with the same key: a second one waits for the first's
   * commit, then inserts nothing (the caller then reads the earlier attempt). All parts see one
   * snapshot; they tell each other only through RETURNING, so the DELETE's own row lock decides
   * which of two forwards (other keys) gets the CVV: the loser has started without it.
   * A CVV past its time goes too, as it did in the transaction this replaces (now also when the
   * key was used before, a replay: it could serve no forward anyway, the sweep would delete it).
   */
  async begin(mode: TTokenizationMode, attempt: TNewForwardAttempt, needsCvv: boolean): Promise<TBegun> {
    const schema = SCHEMA[mode];
    const result = await this.pool.query<TSealedRecordRow & TCardRow & { started: boolean; cvv_ct: Buffer | null }>({
      name: `forward-begin-${mode}`,
      text: `WITH card AS (${FORWARD_CARD_SQL.currentRecord(mode, '$5::uuid', '$1::bigint')}),
       attempt AS (
         INSERT INTO ${schema}.forward_attempts
           (property_id, idempotency_key, request_digest, forward_id, token_id, destination, method, state)
         SELECT $1::bigint, $2::text, $3::text, $4::uuid, card.id, $6::text, $7::text, 'started' FROM card
          WHERE NOT $8::boolean OR card.cvv_held_until IS NOT NULL
         ON CONFLICT (property_id, idempotency_key) DO NOTHING
         RETURNING forward_id
       ),
       cvv AS (${FORWARD_CARD_SQL.takeHeldCvv(mode, '(SELECT id FROM card)', '$8::boolean AND (EXISTS (SELECT 1 FROM attempt) OR held_until <= now())')})
       SELECT card.*, EXISTS (SELECT 1 FROM attempt) AS started, (SELECT cvv_ct FROM cvv WHERE live) AS cvv_ct FROM card`,
      values: [
        attempt.propertyId, attempt.idempotencyKey, attempt.requestDigest, attempt.forwardId, attempt.tokenId,
        attempt.destination, attempt.method, needsCvv,
      ],
    });
    const row = result.rows[0];
    if (!row) return { started: false };
    const { started, cvv_ct: cvvCt, ...record } = row;
    return { record, started, ...(cvvCt ? { cvvCt } : {}) };
  }

  async find(mode: TTokenizationMode, propertyId: string, key: string): Promise<TForwardAttemptRow | undefined> {
    const result = await this.pool.query<TForwardAttemptRow>(
      `SELECT request_digest, forward_id, state, answer FROM ${SCHEMA[mode]}.forward_attempts
        WHERE property_id = $1 AND idempotency_key = $2`,
      [propertyId, key],
    );
    return result.rows[0];
  }

  /** Drops an attempt that never sent anything (it failed before the call), so its key can be used again. */
  async release(mode: TTokenizationMode, propertyId: string, key: string, forwardId: string): Promise<void> {
    await this.pool.query(
      `DELETE FROM ${SCHEMA[mode]}.forward_attempts WHERE property_id = $1 AND idempotency_key = $2 AND forward_id = $3 AND state = 'started'`,
      [propertyId, key, forwardId],
    );
  }

  /**
   * The sweep: recorded answers older than `days` are dropped (they may hold up to 1 MB each). The
   * row stays: its key is bound for good, and a replay past that answers outcome_unknown.
   */
  async forgetAnswersOlderThan(mode: TTokenizationMode, days: number): Promise<number> {
    const result = await this.pool.query(
      `UPDATE ${SCHEMA[mode]}.forward_attempts SET answer = NULL
        WHERE answer IS NOT NULL AND finished_at < now() - make_interval(days => $1)`,
      [days],
    );
    return result.rowCount ?? 0;
  }

  /**
   * Records the answer (`done`) and marks the card used, in one statement (forward_attempts and
   * cards, one round trip): both or neither. The card is marked whatever the attempt row says, as
   * before; the attempt is set only while it is still this forward's and `started`. With `event`,
   * the request's audit event is written by the same statement (audit-log.ts: auditInsertSql).
   */
  async finish(
    mode: TTokenizationMode,
    attempt: { propertyId: string; key: string; forwardId: string; tokenId: string },
    answer: TRecordedForward,
    event?: TAuditEvent,
  ): Promise<void> {
    await this.pool.query({
      name: `forward-finish-${mode}${event ? '-audited' : ''}`,
      text: `WITH done AS (
         UPDATE ${SCHEMA[mode]}.forward_attempts SET state = 'done', answer = $3, finished_at = now()
          WHERE property_id = $1 AND idempotency_key = $2 AND forward_id = $4 AND state = 'started'
       )${event ? `, audited AS (${auditInsertSql(6)})` : ''}
       ${FORWARD_CARD_SQL.markUsed(mode, '$5::uuid')}`,
      values: [attempt.propertyId, attempt.key, JSON.stringify(answer), attempt.forwardId, attempt.tokenId, ...(event ? auditValuesOf(event) : [])],
    });
  }
}
