// SQL of webhook_endpoints and webhook_deliveries (migration 008). Every read and change of an
// endpoint names its property: another property's endpoint is simply not found. Deliveries are the
// outbox: written with the status change that raised the event, sent by the `webhooks` queue.

import type { PoolClient } from 'pg';
import type { TPgPool } from '../connections.js';
import type { TDelivery, TDeliveryStatus, TEndpoint, TWebhookEvent } from './schemas.js';

type TQueryable = Pick<PoolClient, 'query'>;

interface TEndpointRow {
  id: string;
  url: string;
  events: TWebhookEvent[];
  description: string | null;
  created_at: Date;
}

const endpointOf = (row: TEndpointRow): TEndpoint => ({
  id: row.id, url: row.url, events: row.events, description: row.description, createdAt: row.created_at.toISOString(),
});

export async function insertEndpoint(
  pool: TPgPool,
  endpoint: { id: string; propertyId: string; url: string; events: TWebhookEvent[]; description?: string; secretCt: Buffer },
): Promise<TEndpoint> {
  const result = await pool.query<TEndpointRow>(
    `INSERT INTO webhook_endpoints (id, property_id, url, events, description, secret_ct) VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING id, url, events, description, created_at`,
    [endpoint.id, endpoint.propertyId, endpoint.url, endpoint.events, endpoint.description ?? null, endpoint.secretCt],
  );
  return endpointOf(result.rows[0]!);
}

export async function listEndpoints(pool: TPgPool, propertyId: string): Promise<TEndpoint[]> {
  const result = await pool.query<TEndpointRow>(
    `SELECT id, url, events, description, created_at FROM webhook_endpoints WHERE property_id = $1 AND deleted_at IS NULL ORDER BY created_at, id`,
    [propertyId],
  );
  return result.rows.map(endpointOf);
}

export async function findEndpoint(pool: TPgPool, propertyId: string, id: string): Promise<TEndpoint | undefined> {
  const result = await pool.query<TEndpointRow>(
    `SELECT id, url, events, description, created_at FROM webhook_endpoints WHERE id = $1 AND property_id = $2 AND deleted_at IS NULL`,
    [id, propertyId],
  );
  return result.rows[0] ? endpointOf(result.rows[0]) : undefined;
}

/** Every live endpoint's sealed secret (the worker's key checks and `npm run keys:rotate` read them: of every property). */
export async function endpointSecrets(pool: TPgPool): Promise<Array<{ id: string; secretCt: Buffer }>> {
  const result = await pool.query<{ id: string; secret_ct: Buffer }>('SELECT id, secret_ct FROM webhook_endpoints WHERE deleted_at IS NULL ORDER BY id');
  return result.rows.map((row) => ({ id: row.id, secretCt: row.secret_ct }));
}

/**
 * An endpoint's secret sealed again (to other keys: `npm run keys:rotate`), only if it still holds
 * what was read: true when it was replaced.
 */
export async function resealEndpointSecret(pool: TPgPool, id: string, was: Buffer, now: Buffer): Promise<boolean> {
  const result = await pool.query('UPDATE webhook_endpoints SET secret_ct = $3 WHERE id = $1 AND secret_ct = $2', [id, was, now]);
  return result.rowCount === 1;
}

/** Deletes (softly: deliveries keep their endpoint) and fails its pending deliveries, in one transaction. */
export async function deleteEndpoint(client: TQueryable, propertyId: string, id: string): Promise<boolean> {
  const deleted = await client.query(`UPDATE webhook_endpoints SET deleted_at = now() WHERE id = $1 AND property_id = $2 AND deleted_at IS NULL`, [id, propertyId]);
  if (!deleted.rowCount) return false;
  await client.query(
    `UPDATE webhook_deliveries SET status = 'failed', last_error = 'endpoint deleted', next_attempt_at = NULL, updated_at = now()
      WHERE endpoint_id = $1 AND status = 'pending'`,
    [id],
  );
  return true;
}

interface TDeliveryRow {
  id: string;
  event_id: string;
  type: TWebhookEvent;
  status: TDeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  created_at: Date;
}

const deliveryOf = (row: TDeliveryRow): TDelivery => ({
  id: row.id, eventId: row.event_id, type: row.type, status: row.status, attempts: row.attempts,
  lastStatusCode: row.last_status_code, lastError: row.last_error, nextAttemptAt: row.next_attempt_at?.toISOString() ?? null, createdAt: row.created_at.toISOString(),
});

/** The endpoint's last 100 deliveries, newest first. */
export async function listDeliveries(pool: TPgPool, endpointId: string): Promise<TDelivery[]> {
  const result = await pool.query<TDeliveryRow>(
    `SELECT id, event_id, type, status, attempts, last_status_code, last_error, next_attempt_at, created_at
       FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at DESC, id DESC LIMIT 100`,
    [endpointId],
  );
  return result.rows.map(deliveryOf);
}

/**
 * Pending again, due now, attempts kept, version raised (an attempt in flight then cannot end it:
 * recordAttempt); false when the delivery is not the endpoint's.
 */
export async function requeueDelivery(pool: TPgPool, endpointId: string, deliveryId: string): Promise<boolean> {
  const result = await pool.query(
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), last_error = NULL, version = version + 1, updated_at = now()
      WHERE id = $1 AND endpoint_id = $2`,
    [deliveryId, endpointId],
  );
  return Boolean(result.rowCount);
}

/** An event to record as deliveries (webhooks/events.ts webhookEvent). */
export interface TDeliveryEvent {
  propertyId: string;
  eventId: string;
  type: TWebhookEvent;
  payload: object;
}

/**
 * Records one delivery per live endpoint of the property subscribed to the event's type, inside
 * the caller's transaction; an event already recorded for an endpoint (the same event id) is not
 * recorded twice. Returns the ids of the deliveries added, to enqueue once the transaction has
 * committed (apps/worker/src/webhooks/outbox.ts).
 */
export async function insertDeliveries(client: TQueryable, event: TDeliveryEvent): Promise<string[]> {
  const inserted = await client.query<{ id: string }>(
    `INSERT INTO webhook_deliveries (id, endpoint_id, property_id, event_id, type, payload, status, next_attempt_at)
     SELECT gen_random_uuid(), w.id, w.property_id, $2::text, $3::text, $4::jsonb, 'pending', now()
       FROM webhook_endpoints w
      WHERE w.property_id = $1::bigint AND w.deleted_at IS NULL AND $3::text = ANY(w.events)
     ON CONFLICT (endpoint_id, event_id) DO NOTHING
     RETURNING id`,
    [event.propertyId, event.eventId, event.type, JSON.stringify(event.payload)],
  );
  return inserted.rows.map((row) => row.id);
}

/** What the worker needs to send one delivery. */
export interface TDeliveryToSend {
  id: string;
  endpointId: string;
  eventId: string;
  type: TWebhookEvent;
  payload: object;
  status: TDeliveryStatus;
  attempts: number;
  /** Raised by each manual retry: the attempt records its outcome against it. */
  version: number;
  url: string;
  secretCt: Buffer;
  endpointDeleted: boolean;
}

export async function deliveryToSend(pool: TPgPool, deliveryId: string): Promise<TDeliveryToSend | undefined> {
  const result = await pool.query(
    `SELECT d.id, d.endpoint_id, d.event_id, d.type, d.payload, d.status, d.attempts, d.version, e.url, e.secret_ct, e.deleted_at IS NOT NULL AS deleted
       FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE d.id = $1`,
    [deliveryId],
  );
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    id: row.id, endpointId: row.endpoint_id, eventId: row.event_id, type: row.type, payload: row.payload, status: row.status,
    attempts: row.attempts, version: row.version, url: row.url, secretCt: row.secret_ct, endpointDeleted: row.deleted,
  };
}

/**
 * The file of an export that is still completed and not yet due for retention, for the download
 * link an export.completed attempt carries; undefined once it expired (or is due to).
 */
export async function liveExportFile(pool: TPgPool, exportId: string): Promise<{ objectKey: string; filename: string; expiresAt: Date } | undefined> {
  const result = await pool.query<{ object_key: string; filename: string; expires_at: Date }>(
    `SELECT object_key, filename, expires_at FROM exports WHERE id = $1 AND status = 'completed' AND expires_at > now() AND object_key IS NOT NULL`,
    [exportId],
  );
  const row = result.rows[0];
  return row ? { objectKey: row.object_key, filename: row.filename, expiresAt: row.expires_at } : undefined;
}

/**
 * One attempt's outcome, recorded against the version the attempt started from. `next` is when the
 * next attempt is due (pending), or the final status. Only a pending delivery is changed: one
 * failed by a deleted endpoint stays failed. When a manual retry raised the version meanwhile, a
 * failed attempt is counted (attempts, last status code, last error) but the delivery stays pending
 * and due as the retry left it: 'superseded', and the caller sends it again. A success always
 * stands: the receiver has the event. One statement, so a retry committed just before or after
 * it is seen either way (the row lock orders them).
 */
export async function recordAttempt(
  pool: TPgPool,
  deliveryId: string,
  version: number,
  attempt: { statusCode: number | null; error: string | null; next: { retryAt: Date } | 'succeeded' | 'failed' },
): Promise<'recorded' | 'superseded' | 'ended'> {
  const status = typeof attempt.next === 'object' ? 'pending' : attempt.next;
  const retryAt = typeof attempt.next === 'object' ? attempt.next.retryAt : null;
  const result = await pool.query<{ superseded: boolean }>(
    `UPDATE webhook_deliveries
        SET attempts = attempts + 1, last_status_code = $2, last_error = $3,
            status = CASE WHEN version = $6 OR $4::text = 'succeeded' THEN $4::text ELSE status END,
            next_attempt_at = CASE WHEN version = $6 OR $4::text = 'succeeded' THEN $5::timestamptz ELSE next_attempt_at END,
            updated_at = now()
      WHERE id = $1 AND status = 'pending'
      RETURNING version <> $6 AND $4::text <> 'succeeded' AS superseded`,
    [deliveryId, attempt.statusCode, attempt.error, status, retryAt, version],
  );
  const row = result.rows[0];
  if (!row) return 'ended';
  return row.superseded ? 'superseded' : 'recorded';
}

/** Ends a delivery without an attempt (its endpoint was deleted, its secret does not open). */
export async function failDelivery(pool: TPgPool, deliveryId: string, error: string): Promise<void> {
  await pool.query(`UPDATE webhook_deliveries SET status = 'failed', last_error = $2, next_attempt_at = NULL, updated_at = now() WHERE id = $1 AND status = 'pending'`, [deliveryId, error]);
}

/** Pending deliveries due for some time: the sweep re-enqueues those that have no job. */
export async function overdueDeliveries(pool: TPgPool, graceSeconds: number, limit = 500): Promise<string[]> {
  const result = await pool.query<{ id: string }>(
    `SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at < now() - make_interval(secs => $1)
      ORDER BY next_attempt_at LIMIT $2`,
    [graceSeconds, limit],
  );
  return result.rows.map((row) => row.id);
}

/** One event type's deliveries as they stand: how many in each status, and their attempts summed. */
export interface TDeliveryCounts {
  pending: number;
  succeeded: number;
  failed: number;
  attempts: number;
}

/** All of an event type's deliveries, and those recorded in the last 24 hours. */
export interface TDeliveryTally {
  event: string;
  all: TDeliveryCounts;
  last24h: TDeliveryCounts;
}

/**
 * Deliveries of every property by event type (the operator's delivery panel,
 * apps/api/src/ops/delivery-panel.ts): one pass over the table, the last 24 hours (by created_at)
 * counted in the same pass. The counts come as one float8 array (bigint would come back as strings).
 */
export async function deliveryTallies(pool: TPgPool): Promise<TDeliveryTally[]> {
  const recent = `created_at >= now() - interval '24 hours'`;
  const result = await pool.query<{ type: string; counts: number[] }>(
    `SELECT type, ARRAY[
              count(*) FILTER (WHERE status = 'pending'), count(*) FILTER (WHERE status = 'succeeded'),
              count(*) FILTER (WHERE status = 'failed'), sum(attempts),
              count(*) FILTER (WHERE status = 'pending' AND ${recent}), count(*) FILTER (WHERE status = 'succeeded' AND ${recent}),
              count(*) FILTER (WHERE status = 'failed' AND ${recent}), coalesce(sum(attempts) FILTER (WHERE ${recent}), 0)
            ]::float8[] AS counts
       FROM webhook_deliveries GROUP BY type ORDER BY type`,
  );
  const countsOf = ([pending = 0, succeeded = 0, failed = 0, attempts = 0]: number[]): TDeliveryCounts => ({ pending, succeeded, failed, attempts });
  return result.rows.map((row) => ({ event: row.type, all: countsOf(row.counts.slice(0, 4)), last24h: countsOf(row.counts.slice(4)) }));
}

/** A delivery not yet succeeded, as the operator's delivery panel lists it. */
export interface TUnfinishedDelivery {
  id: string;
  event: string;
  propertyId: string;
  endpoint: { id: string; url: string };
  attempts: number;
  /** The last attempt's status code when the receiver answered, and its error ("answered 500", a connection's reason, why it failed). */
  lastStatusCode: number | null;
  lastError: string | null;
  /** When the next attempt is due (a pending delivery's); null for a failed one. */
  nextAttemptAt: string | null;
  updatedAt: string;
}

/**
 * Of every property, the pending deliveries by their next attempt (the soonest first) and the failed
 * ones by their last change (the latest first), at most `limit` of each, with their endpoint.
 */
export async function unfinishedDeliveries(pool: TPgPool, limit: number): Promise<{ pending: TUnfinishedDelivery[]; failed: TUnfinishedDelivery[] }> {
  const select = (status: 'pending' | 'failed', order: string) =>
    pool.query<{
      id: string; type: string; property_id: string; endpoint_id: string; url: string; attempts: number;
      last_status_code: number | null; last_error: string | null; next_attempt_at: Date | null; updated_at: Date;
    }>(
      `SELECT d.id, d.type, d.property_id::text AS property_id, d.endpoint_id, e.url, d.attempts, d.last_status_code, d.last_error,
              d.next_attempt_at, d.updated_at
         FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
        WHERE d.status = $1 ORDER BY ${order}, d.id LIMIT $2`,
      [status, limit],
    );
  const [pending, failed] = await Promise.all([select('pending', 'd.next_attempt_at NULLS LAST'), select('failed', 'd.updated_at DESC')]);
  const of = (row: (typeof pending.rows)[number]): TUnfinishedDelivery => ({
    id: row.id, event: row.type, propertyId: row.property_id, endpoint: { id: row.endpoint_id, url: row.url }, attempts: row.attempts,
    lastStatusCode: row.last_status_code, lastError: row.last_error, nextAttemptAt: row.next_attempt_at?.toISOString() ?? null, updatedAt: row.updated_at.toISOString(),
  });
  return { pending: pending.rows.map(of), failed: failed.rows.map(of) };
}
