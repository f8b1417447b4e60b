import { inTransaction } from '../db/transaction.js';
import { prepared } from '../db/prepared.js';
import { deliveriesInsertSql, deliveryEventValues, type TDeliveryEvent } from '../webhooks/store.js';
import type { TPgPool } from '../connections.js';
import type { TLanguage } from '../i18n/languages.js';
import type { TExportStatus, TFolioExportRequest } from './schemas.js';

/**
 * Every statement on the `exports` table. The API queues records and reads their status
 * (apps/api/src/exports/export-service.ts); the worker moves them through running, progress and
 * their end (apps/worker/src/exports/folio-exporter.ts). Records live in PostgreSQL so a status
 * outlives the queue's retention.
 */
export interface TExportRow {
  id: string;
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

/**
 * What a status change announces (apps/worker/src/webhooks/outbox.ts): the event, recorded as
 * webhook deliveries by the change's own statement, so it commits with the status or not at all;
 * `recorded` takes the ids of the deliveries added, to enqueue once committed.
 */
export interface TAnnounced {
  event: TDeliveryEvent;
  recorded(deliveryIds: string[]): void;
}

const SELECT_ROW = `SELECT id, status, progress, created_at, completed_at, error, object_key, filename, size::text AS size, pages, sha256, expires_at
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
   * property already has `inFlightCap` in flight. Count and insert run under a per-property
   * advisory lock: with several API processes, two requests could otherwise both count cap − 1
   * and both insert. The count comes from this table (not the queue) because a row is queued
   * before its job and stays in flight until the worker records the end. Lock, insert and the
   * answer are one call of `exports_queue`, a function defined with the table's migrations
   * (packages/shared/src/db/migrations/010_exports_queue.sql): one round trip where a transaction
   * took four.
   */
  async queue(record: TNewExport, inFlightCap: number): Promise<TQueueOutcome> {
    const { exportId, propertyId, digest, language, request } = record;
    const result = await this.pool.query<{ outcome: 'queued' | 'joined' | 'full'; export_id: string | null; export_status: TExportStatus | null }>(
      prepared('exports-queue', 'SELECT outcome, export_id, export_status FROM exports_queue($1, $2, $3, $4, $5, $6, $7)', [
        exportId,
        propertyId,
        digest,
        JSON.stringify(request),
        language,
        request.format,
        inFlightCap,
      ]),
    );
    const row = result.rows[0];
    if (!row || row.outcome === 'full' || !row.export_id || !row.export_status) return { kind: 'full' };
    return { kind: row.outcome, exportId: row.export_id, status: row.export_status };
  }

  /** The job for a queued record could not be added: the record must not stay in flight. */
  async unqueued(exportId: string): Promise<void> {
    await this.pool.query(`UPDATE exports SET status = 'failed', error = 'The export could not be queued.' WHERE id = $1`, [exportId]);
  }

  async find(propertyId: string, exportId: string): Promise<TExportRow | undefined> {
    const result = await this.pool.query<TExportRow>(prepared('exports-find', `${SELECT_ROW} WHERE id = $1 AND property_id = $2`, [exportId, propertyId]));
    return result.rows[0];
  }

  /**
   * By id alone: for a download link, whose signature names the export (the link is the
   * authorization, there is no property header to match).
   */
  async findById(exportId: string): Promise<TExportRow | undefined> {
    const result = await this.pool.query<TExportRow>(prepared('exports-find-by-id', `${SELECT_ROW} WHERE id = $1`, [exportId]));
    return result.rows[0];
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

  /**
   * Marks the export running; answers its stored result when a previous delivery completed it.
   * One statement in the usual case: the stored result is read only when the update skipped a
   * completed record.
   */
  async start(exportId: string): Promise<TStoredResult | undefined> {
    const started = await this.pool.query(
      prepared('exports-start', `UPDATE exports SET status = 'running', started_at = now(), progress = 5, error = NULL WHERE id = $1 AND status <> 'completed'`, [exportId]),
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
   * what it announces in the same statement: one round trip where a transaction took four (BEGIN,
   * the update, the subscribed endpoints, COMMIT).
   */
  async complete(exportId: string, result: TStoredResult, retentionSeconds: number, announced?: TAnnounced): Promise<void> {
    const update = `UPDATE exports SET status = 'completed', progress = 100, completed_at = now(), object_key = $2, filename = $3,
        size = $4, sha256 = $5, pages = $6, rows = $7, error = NULL, expires_at = now() + make_interval(secs => $8)
      WHERE id = $1`;
    const values = [exportId, result.key, result.filename, result.size, result.sha256, result.pages, result.rows, retentionSeconds];
    await this.changeAnnounced('exports-complete', update, values, announced);
  }

  /** Back to queued while a retry is pending, so the status does not claim progress. */
  async retrying(exportId: string, error: string): Promise<void> {
    await this.pool.query(`UPDATE exports SET status = 'queued', progress = 0, error = $2 WHERE id = $1 AND status <> 'completed'`, [exportId, error]);
  }

  /** Fails the export unless it completed; what it announces is recorded only when it did fail here. */
  async fail(exportId: string, error: string, announced?: TAnnounced): Promise<void> {
    const update = `UPDATE exports SET status = 'failed', completed_at = now(), error = $2 WHERE id = $1 AND status NOT IN ('completed', 'failed', 'expired')`;
    await this.changeAnnounced('exports-fail', update, [exportId, error], announced);
  }

  /**
   * Runs a status `update` whose placeholders are `values`; with an announcement, as one statement
   * that also records the event's deliveries when the update changed the row.
   */
  private async changeAnnounced(name: string, update: string, values: unknown[], announced: TAnnounced | undefined): Promise<void> {
    if (!announced) {
      await this.pool.query(prepared(name, update, values));
      return;
    }
    const at = (offset: number) => `$${values.length + offset}`;
    const recorded = await this.pool.query<{ id: string }>(
      prepared(
        `${name}-announced`,
        `WITH changed AS (${update} RETURNING id)
         ${deliveriesInsertSql({ propertyId: at(1), eventId: at(2), type: at(3), payload: at(4) }, 'EXISTS (SELECT 1 FROM changed)')}`,
        [...values, ...deliveryEventValues(announced.event)],
      ),
    );
    announced.recorded(recorded.rows.map((row) => row.id));
  }
}
