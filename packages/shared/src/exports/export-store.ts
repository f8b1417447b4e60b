import { inTransaction } from '../db/transaction.js';
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
}

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

/** joined: an identical export was already in flight; full: the property is at its cap. */
export type TQueueOutcome = { kind: 'queued' | 'joined'; exportId: string; status: TExportStatus } | { kind: 'full' };

export class ExportStore {
  constructor(private readonly pool: TPgPool) {}

  /**
   * Records a queued export unless an identical one is in flight (then answers that one) or the
   * property already has `inFlightCap` in flight. Count and insert run under a per-property
   * advisory lock: with several API processes, two requests could otherwise both count cap − 1
   * and both insert. The count comes from this table (not the queue) because a row is queued
   * before its job and stays in flight until the worker records the end.
   */
  async queue(record: TNewExport, inFlightCap: number): Promise<TQueueOutcome> {
    const { exportId, propertyId, digest, language, request } = record;
    return inTransaction(this.pool, async (client): Promise<TQueueOutcome> => {
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`exports-in-flight:${propertyId}`]);
      const existing = await client.query<{ id: string; status: TExportStatus }>(
        `SELECT id, status FROM exports WHERE property_id = $1 AND request_digest = $2 AND status IN ('queued', 'running')`,
        [propertyId, digest],
      );
      if (existing.rows[0]) return { kind: 'joined', exportId: existing.rows[0].id, status: existing.rows[0].status };
      const inFlight = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM exports WHERE property_id = $1 AND status IN ('queued', 'running')`,
        [propertyId],
      );
      if (inFlight.rows[0]!.n >= inFlightCap) return { kind: 'full' };
      await client.query(
        `INSERT INTO exports (id, property_id, request_digest, request, language, format, status)
         VALUES ($1, $2, $3, $4, $5, $6, 'queued')`,
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
    const result = await this.pool.query<TExportRow>(
      `SELECT id, status, progress, created_at, completed_at, error, object_key, filename, size::text AS size, pages, sha256
         FROM exports WHERE id = $1 AND property_id = $2`,
      [exportId, propertyId],
    );
    return result.rows[0];
  }

  /** Marks the export running; answers its stored result when a previous delivery completed it. */
  async start(exportId: string): Promise<TStoredResult | undefined> {
    const done = await this.pool.query<{ object_key: string; filename: string; size: string; sha256: string; pages: number; rows: number }>(
      `SELECT object_key, filename, size::text AS size, sha256, pages, rows FROM exports WHERE id = $1 AND status = 'completed'`,
      [exportId],
    );
    const row = done.rows[0];
    if (row) return { key: row.object_key, filename: row.filename, size: Number(row.size), sha256: row.sha256, pages: row.pages, rows: row.rows };
    await this.pool.query(`UPDATE exports SET status = 'running', started_at = now(), progress = 5, error = NULL WHERE id = $1`, [exportId]);
    return undefined;
  }

  async progress(exportId: string, progress: number): Promise<void> {
    await this.pool.query(`UPDATE exports SET progress = $2 WHERE id = $1 AND status = 'running'`, [exportId, progress]);
  }

  async complete(exportId: string, result: TStoredResult): Promise<void> {
    await this.pool.query(
      `UPDATE exports SET status = 'completed', progress = 100, completed_at = now(), object_key = $2, filename = $3,
         size = $4, sha256 = $5, pages = $6, rows = $7, error = NULL
       WHERE id = $1`,
      [exportId, result.key, result.filename, result.size, result.sha256, result.pages, result.rows],
    );
  }

  /** Back to queued while a retry is pending, so the status does not claim progress. */
  async retrying(exportId: string, error: string): Promise<void> {
    await this.pool.query(`UPDATE exports SET status = 'queued', progress = 0, error = $2 WHERE id = $1 AND status <> 'completed'`, [exportId, error]);
  }

  async fail(exportId: string, error: string): Promise<void> {
    await this.pool.query(`UPDATE exports SET status = 'failed', completed_at = now(), error = $2 WHERE id = $1 AND status <> 'completed'`, [exportId, error]);
  }
}
