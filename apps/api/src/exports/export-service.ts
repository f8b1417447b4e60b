import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { v7 as uuidv7 } from 'uuid';
import type { TPgPool } from '@folio-vault/shared/connections';
import { inTransaction } from '@folio-vault/shared/db/transaction';
import { AppError } from '@folio-vault/shared/errors';
import type { TLanguage } from '@folio-vault/shared/i18n/languages';
import { exportFolioJob } from '@folio-vault/shared/exports/export-folio-job';
import { sourceExists } from '@folio-vault/shared/ledger/list-transactions';
import type { TExportStatus, TExportStatusBody, TFolioExportRequest } from '@folio-vault/shared/exports/schemas';
import type { ObjectStorage } from '@folio-vault/shared/storage/object-storage';
import type { JobWaiter } from '../jobs/job-waiter.js';

/**
 * The API's side of folio exports (docs/export.md): checks what the request refers to, shares one
 * export between identical requests in flight, queues the job, waits for it (bounded) and serves
 * status and file. Export records live in PostgreSQL so status outlives the queue's retention.
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

/** A small export renders in seconds: a slot frees up soon after the cap is hit. */
const CAP_RETRY_AFTER_SECONDS = 5;

export const statusPath = (exportId: string) => `/fiscal-document/v1/folios/exports/${exportId}`;

export class ExportService {
  constructor(
    private readonly pool: TPgPool,
    private readonly waiter: JobWaiter,
    private readonly storage: ObjectStorage,
    /** EXPORT_QUEUE_CAP_PER_PROPERTY: queued + running exports a property may have at once. */
    private readonly inFlightCap: number,
  ) {}

  /** 404 for an unknown source, a folio of another source, or an unknown recipient. */
  async checkReferences(propertyId: string, request: TFolioExportRequest): Promise<void> {
    if (!(await sourceExists(this.pool, propertyId, request.sourceKind, request.sourceId))) throw AppError.notFound('The source');
    if (request.folioIds) {
      const found = await this.pool.query<{ id: string }>(
        'SELECT id FROM folios WHERE property_id = $1 AND source_kind = $2 AND source_id = $3 AND id = ANY($4::bigint[])',
        [propertyId, request.sourceKind, request.sourceId, request.folioIds],
      );
      if (found.rowCount !== request.folioIds.length) throw AppError.notFound('A folio of this source');
    }
    if (request.recipient) {
      const found = await this.pool.query('SELECT 1 FROM recipients WHERE property_id = $1 AND type = $2 AND id = $3', [
        propertyId,
        request.recipient.type,
        request.recipient.id,
      ]);
      if (!found.rowCount) throw AppError.notFound('The recipient');
    }
  }

  /**
   * The export for this request: the one already queued or running for an identical request, or a
   * new one (queued here). Identical = same property, language and normalized request. A new one
   * past the property's cap of exports in flight is refused with 429 RATE_LIMITED; joining an
   * identical export adds no work, so it is never refused.
   *
   * Count and insert run under a per-property advisory lock: with several API processes, two
   * requests could otherwise both count cap − 1 and both insert. The count comes from the exports
   * table (not the queue) because a row is queued before its job and stays in flight until the
   * worker records the end, whichever process and queue state it passes through.
   */
  async start(propertyId: string, language: TLanguage, request: TFolioExportRequest, requestId: string): Promise<{ exportId: string; status: TExportStatus }> {
    const digest = createHash('sha256').update(JSON.stringify({ propertyId, language, request })).digest('base64url');
    const exportId = uuidv7();
    const started = await inTransaction(this.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`exports-in-flight:${propertyId}`]);
      const existing = await client.query<{ id: string; status: TExportStatus }>(
        `SELECT id, status FROM exports WHERE property_id = $1 AND request_digest = $2 AND status IN ('queued', 'running')`,
        [propertyId, digest],
      );
      if (existing.rows[0]) return { exportId: existing.rows[0].id, status: existing.rows[0].status, joined: true };
      const inFlight = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM exports WHERE property_id = $1 AND status IN ('queued', 'running')`,
        [propertyId],
      );
      if (inFlight.rows[0]!.n >= this.inFlightCap) {
        throw new AppError('RATE_LIMITED', `This property already has ${this.inFlightCap} exports queued or running; retry when one has finished.`, {
          retryAfterSeconds: CAP_RETRY_AFTER_SECONDS,
        });
      }
      await client.query(
        `INSERT INTO exports (id, property_id, request_digest, request, language, format, status)
         VALUES ($1, $2, $3, $4, $5, $6, 'queued')`,
        [exportId, propertyId, digest, JSON.stringify(request), language, request.format],
      );
      return { exportId, status: 'queued' as TExportStatus, joined: false };
    });
    if (started.joined) return { exportId: started.exportId, status: started.status };
    try {
      await this.waiter.add(exportFolioJob.name, { version: 1, exportId, propertyId, language, request, requestId }, exportId, exportFolioJob.options);
    } catch (error) {
      await this.pool.query(`UPDATE exports SET status = 'failed', error = 'The export could not be queued.' WHERE id = $1`, [exportId]);
      throw error;
    }
    return { exportId, status: 'queued' };
  }

  /** Waits up to `timeoutMs` for the export's job; true when it completed. */
  async waitForCompletion(exportId: string, timeoutMs: number): Promise<boolean> {
    const outcome = await this.waiter.wait(exportId, timeoutMs);
    return outcome.state === 'completed';
  }

  async find(propertyId: string, exportId: string): Promise<TExportRow> {
    const result = await this.pool.query<TExportRow>(
      `SELECT id, status, progress, created_at, completed_at, error, object_key, filename, size::text AS size, pages, sha256
         FROM exports WHERE id = $1 AND property_id = $2`,
      [exportId, propertyId],
    );
    if (!result.rows[0]) throw AppError.notFound('The export');
    return result.rows[0];
  }

  statusBody(row: TExportRow): TExportStatusBody {
    return {
      exportId: row.id,
      status: row.status,
      progress: row.progress,
      createdAt: row.created_at.toISOString(),
      ...(row.completed_at ? { completedAt: row.completed_at.toISOString() } : {}),
      ...(row.error ? { error: row.error } : {}),
      ...(row.size !== null ? { size: Number(row.size) } : {}),
      ...(row.pages !== null ? { pages: row.pages } : {}),
      ...(row.sha256 ? { sha256: row.sha256 } : {}),
      ...(row.status === 'completed' ? { fileUrl: `${statusPath(row.id)}/file` } : {}),
    };
  }

  /** The finished file; 409 EXPORT_NOT_READY before. */
  async file(row: TExportRow): Promise<{ stream: Readable; size: number; filename: string }> {
    if (row.status !== 'completed' || !row.object_key || !row.filename || row.size === null) {
      throw new AppError(
        'EXPORT_NOT_READY',
        row.status === 'failed' ? 'The export failed; its file does not exist. Request a new export.' : `The export is ${row.status}; its file is not ready yet.`,
        { retryAfterSeconds: row.status === 'failed' ? undefined : 2 },
      );
    }
    try {
      return { stream: await this.storage.get(row.object_key), size: Number(row.size), filename: row.filename };
    } catch (error) {
      throw AppError.unavailable('The file store cannot be reached right now; retry shortly.').withCause(error);
    }
  }
}
