// Every statement on the `exports` table. The API queues records and reads their status
// (apps/api/src/exports/export-service.ts); the worker moves them through running, progress and
// their end (apps/worker/src/exports/folio-exporter.ts). Records live in PostgreSQL so a status
// outlives the queue's retention.

import { inTransaction } from '../db/transaction.js';
import { insertDeliveries, type TDeliveryEvent } from '../webhooks/store.js';
import type { TPgPool } from '../connections.js';
import type { TLanguage } from '../i18n/languages.js';
import type { TExportStatus, TFolioExportRequest } from './schemas.js';

/** A row of `exports`. */
export interface TExportRow {
  id: string;
  property_id: string;
  status: TExportStatus;
  progress: number;
  created_at: Date;
  completed_at: Date | null;
  error: string | null;
  object_key: string | null;
  filename: string | null;
  size: string | null;
  pages: number | null;
  sha256: string | null;
  /** When the file is (completed) or was (expired) deleted by the retention sweep. */
  expires_at: Date | null;
}

/** How many expired exports one sweep statement takes; the sweep repeats until a batch comes back short. */
export const EXPIRE_BATCH = 100;

/** What a completed export stored: its file and what the worker measured of it. */
export interface TStoredResult {
  key: string;
  filename: string;
  size: number;
  sha256: string;
  pages: number;
  rows: number;
}

export interface TNewExport {
  exportId: string;
  propertyId: string;
  /** Identical requests (same property, language and normalized request) share a digest. */
  digest: string;
  language: TLanguage;
  request: TFolioExportRequest;
}

/** What an export's end recorded: the webhook deliveries its event added, to enqueue once committed. */
export interface TRecordedEnd {
  deliveryIds: string[];
}

const SELECT_ROW = `SELECT id, property_id, status, progress, created_at, completed_at, error, object_key, filename, size::text AS size, pages, sha256, expires_at
  FROM exports`;

/** How many records retention has expired: all of them, and those due in the last 24 hours. */
export interface TExpiredCounts {
  all: number;
  last24h: number;
}

/** joined: an identical export was already in flight; full: the property is at its cap. */
export type TQueueOutcome = { kind: 'queued' | 'joined'; exportId: string; status: TExportStatus } | { kind: 'full' };

export class ExportStore {
  constructor(private readonly pool: TPgPool) {}

  /**
   * Records a queued export unless an identical one is in flight (then answers that one) or the
   * property already has `inFlightCap` in flight. Count and insert run in one transaction under a
   * per-property advisory lock: with several API processes, two requests could otherwise both
   * count cap − 1 and both insert. The count comes from this table (not the queue) because a row
   * is queued before its job and stays in flight until the worker records the end.
   */
  async queue(record: TNewExport, inFlightCap: number): Promise<TQueueOutcome> {
    const { exportId, propertyId, digest, language, request } = record;
    return inTransaction(this.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`exports-in-flight:${propertyId}`]);
      const inFlight = await client.query<{ id: string; status: TExportStatus; request_digest: string }>(
        `SELECT id, status, request_digest FROM exports WHERE property_id = $1 AND status IN ('queued', 'running')`,
        [propertyId],
      );
      const joined = inFlight.rows.find((row) => row.request_digest === digest);
      if (joined) return { kind: 'joined', exportId: joined.id, status: joined.status };
      if (inFlight.rows.length >= inFlightCap) return { kind: 'full' };
      await client.query(
        `INSERT INTO exports (id, property_id, request_digest, request, language, format, status) VALUES ($1, $2, $3, $4, $5, $6, 'queued')`,
        [exportId, propertyId, digest, JSON.stringify(request), language, request.format],
      );
      return { kind: 'queued', exportId, status: 'queued' };
    });
  }

  /** The job for a queued record could not be added: the record must not stay in flight. */
  async unqueued(exportId: string): Promise<void> {
    await this.pool.query(`UPDATE exports SET status = 'failed', error = 'The export could not be queued.' WHERE id = $1`, [exportId]);
  }

  async find(propertyId: string, exportId: string): Promise<TExportRow | undefined> {
    const result = await this.pool.query<TExportRow>(`${SELECT_ROW} WHERE id = $1 AND property_id = $2`, [exportId, propertyId]);
    return result.rows[0];
  }

  /**
   * By id alone: for a download link, whose signature names the export (the link is the
   * authorization, there is no property header to match).
   */
  async findById(exportId: string): Promise<TExportRow | undefined> {
    const result = await this.pool.query<TExportRow>(`${SELECT_ROW} WHERE id = $1`, [exportId]);
    return result.rows[0];
  }

  /**
   * Whether the export's retention has ended: expired, or due (the sweep deletes a due export's
   * object before its transaction marks the row expired, so a reader can find the row completed and
   * the object gone).
   */
  async pastRetention(exportId: string): Promise<boolean> {
    const result = await this.pool.query<{ past: boolean }>(
      `SELECT status = 'expired' OR (status = 'completed' AND expires_at <= now()) AS past FROM exports WHERE id = $1`,
      [exportId],
    );
    return result.rows[0]?.past === true;
  }

  /**
   * Expires up to EXPIRE_BATCH completed exports past `expires_at` (docs/export.md#retention):
   * `remove` deletes each object while the rows are locked, then they are marked expired in the same
   * transaction. SKIP LOCKED lets sweeps on several workers share the work; a sweep that dies after a
   * delete leaves the row completed, and the next one deletes again (a missing object is no error).
   * Answers how many were expired.
   */
  async expireDue(remove: (objectKey: string) => Promise<void>): Promise<number> {
    return inTransaction(this.pool, async (client) => {
      const due = await client.query<{ id: string; object_key: string | null }>(
        `SELECT id, object_key FROM exports WHERE status = 'completed' AND expires_at <= now()
          ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [EXPIRE_BATCH],
      );
      for (const row of due.rows) if (row.object_key) await remove(row.object_key);
      if (due.rows.length > 0) {
        await client.query(`UPDATE exports SET status = 'expired' WHERE id = ANY($1::uuid[])`, [due.rows.map((row) => row.id)]);
      }
      return due.rows.length;
    });
  }

  /**
   * Exports of every property the retention sweep has expired, and those of them due in the last
   * 24 hours (by expires_at: the sweep expires a file at its next run after that), for the
   * operator's delivery panel (apps/api/src/ops/delivery-panel.ts).
   */
  async expiredCounts(): Promise<TExpiredCounts> {
    const result = await this.pool.query<TExpiredCounts>(
      `SELECT count(*)::float8 AS "all", count(*) FILTER (WHERE expires_at >= now() - interval '24 hours')::float8 AS "last24h"
         FROM exports WHERE status = 'expired'`,
    );
    return result.rows[0]!;
  }

  /** Marks the export running; answers its stored result instead when a previous delivery completed it. */
  async start(exportId: string): Promise<TStoredResult | undefined> {
    const started = await this.pool.query(
      `UPDATE exports SET status = 'running', started_at = now(), progress = 5, error = NULL WHERE id = $1 AND status <> 'completed'`,
      [exportId],
    );
    if (started.rowCount) return undefined;
    const done = await this.pool.query<{ object_key: string; filename: string; size: string; sha256: string; pages: number; rows: number }>(
      `SELECT object_key, filename, size::text AS size, sha256, pages, rows FROM exports WHERE id = $1 AND status = 'completed'`,
      [exportId],
    );
    const row = done.rows[0];
    return row ? { key: row.object_key, filename: row.filename, size: Number(row.size), sha256: row.sha256, pages: row.pages, rows: row.rows } : undefined;
  }

  async progress(exportId: string, progress: number): Promise<void> {
    await this.pool.query(`UPDATE exports SET progress = $2 WHERE id = $1 AND status = 'running'`, [exportId, progress]);
  }

  /**
   * Completes the export, kept `retentionSeconds` from now (EXPORT_RETENTION_SECONDS), and records
   * the deliveries of `event` in the same transaction: they commit with the status or not at all.
   */
  async complete(exportId: string, result: TStoredResult, retentionSeconds: number, event: TDeliveryEvent): Promise<TRecordedEnd> {
    return inTransaction(this.pool, async (client) => {
      await client.query(
        `UPDATE exports SET status = 'completed', progress = 100, completed_at = now(), object_key = $2, filename = $3,
                size = $4, sha256 = $5, pages = $6, rows = $7, error = NULL, expires_at = now() + make_interval(secs => $8)
          WHERE id = $1`,
        [exportId, result.key, result.filename, result.size, result.sha256, result.pages, result.rows, retentionSeconds],
      );
      return { deliveryIds: await insertDeliveries(client, event) };
    });
  }

  /** Back to queued while a retry is pending, so the status does not claim progress. */
  async retrying(exportId: string, error: string): Promise<void> {
    await this.pool.query(`UPDATE exports SET status = 'queued', progress = 0, error = $2 WHERE id = $1 AND status <> 'completed'`, [exportId, error]);
  }

  /** Fails the export unless it has ended; the deliveries of `event` are recorded only when it did fail here. */
  async fail(exportId: string, error: string, event: TDeliveryEvent): Promise<TRecordedEnd> {
    return inTransaction(this.pool, async (client) => {
      const failed = await client.query(
        `UPDATE exports SET status = 'failed', completed_at = now(), error = $2 WHERE id = $1 AND status NOT IN ('completed', 'failed', 'expired')`,
        [exportId, error],
      );
      return { deliveryIds: failed.rowCount ? await insertDeliveries(client, event) : [] };
    });
  }
}
