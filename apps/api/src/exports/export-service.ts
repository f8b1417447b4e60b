// The API's side of folio exports (docs/export.md): checks what the request refers to, shares one
// export between identical requests in flight, queues the job, waits for it (bounded) and serves
// status and file. Export records live in PostgreSQL so status outlives the queue's retention;
// their statements are in packages/shared/src/exports/export-store.ts, shared with the worker.

import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { v7 as uuidv7 } from 'uuid';
import type { PropertyShares } from '@folio-vault/shared/db/property-share';
import { AppError } from '@folio-vault/shared/errors';
import type { TLanguage } from '@folio-vault/shared/i18n/languages';
import { exportFolioJob } from '@folio-vault/shared/exports/export-folio-job';
import { ExportStore, type TExportRow, type TStoredResult } from '@folio-vault/shared/exports/export-store';
import type { TExportStatus, TExportStatusBody, TFolioExportRequest } from '@folio-vault/shared/exports/schemas';
import { checkLinkSignature, downloadLink } from '@folio-vault/shared/exports/download-links';
import { exportFilePath } from '@folio-vault/shared/exports/export-paths';
import { exportFilter } from '@folio-vault/shared/exports/export-filter';
import { tooManyRowsMessage } from '@folio-vault/shared/exports/export-size';
import { countFoliosOfSource, countTransactions, recipientExists, sourceExists } from '@folio-vault/shared/ledger/ledger-store';
import { findPropertyProfile } from '@folio-vault/shared/properties/property-store';
import { ObjectMissingError, type ObjectStorage } from '@folio-vault/shared/storage/object-storage';
import type { JobWaiter } from '../jobs/job-waiter.js';

/** A small export renders in seconds: a slot frees up soon after the cap is hit. */
const CAP_RETRY_AFTER_SECONDS = 5;

export class ExportService {
  constructor(
    /** The API's pool, within each property's share (db/property-share.ts). */
    private readonly shares: PropertyShares,
    private readonly waiter: JobWaiter,
    private readonly storage: ObjectStorage,
    /** EXPORT_QUEUE_CAP_PER_PROPERTY: queued + running exports a property may have at once. */
    private readonly inFlightCap: number,
    /** EXPORT_LINK_KEY and EXPORT_LINK_TTL_SECONDS: download links (docs/export.md#download-links). */
    private readonly links: { linkKey: Buffer; ttlSeconds: number },
    /** EXPORT_MAX_ROWS: transactions one document may hold (docs/export.md#size-bound). */
    private readonly maxRows: number,
  ) {}

  /** The export records, read and written within the property's share of the pool. */
  private store(propertyId: string): ExportStore {
    return new ExportStore(this.shares.of(propertyId));
  }

  /** 404 for an unknown source, a folio of another source, or an unknown recipient. */
  async checkReferences(propertyId: string, request: TFolioExportRequest): Promise<void> {
    const db = this.shares.of(propertyId);
    if (!(await sourceExists(db, propertyId, request.sourceKind, request.sourceId))) throw AppError.notFound('The source');
    if (request.folioIds) {
      const found = await countFoliosOfSource(db, propertyId, request.sourceKind, request.sourceId, request.folioIds);
      if (found !== request.folioIds.length) throw AppError.notFound('A folio of this source');
    }
    if (request.recipient && !(await recipientExists(db, propertyId, request.recipient.type, request.recipient.id))) {
      throw AppError.notFound('The recipient');
    }
  }

  /**
   * 413 PAYLOAD_TOO_LARGE when the request selects more than EXPORT_MAX_ROWS transactions, with the
   * count and the bound. Counting stops one past the bound, so a huge source costs no more than a
   * bound's worth; the exact count is read only for the refusal.
   */
  async checkSize(propertyId: string, request: TFolioExportRequest): Promise<void> {
    const db = this.shares.of(propertyId);
    const timezone = (await findPropertyProfile(db, propertyId))?.timezone ?? 'UTC';
    const filter = exportFilter(propertyId, request, timezone);
    if ((await countTransactions(db, filter, this.maxRows + 1)) <= this.maxRows) return;
    throw new AppError('PAYLOAD_TOO_LARGE', tooManyRowsMessage(await countTransactions(db, filter), this.maxRows));
  }

  /**
   * The export for this request: the one already queued or running for an identical request, or a
   * new one (queued here). Identical = same property, language and normalized request. A new one
   * past the property's cap of exports in flight is refused with 429 RATE_LIMITED; joining an
   * identical export adds no work, so it is never refused. The store counts and inserts under a
   * per-property lock, so several API processes cannot both take the last slot.
   */
  async start(propertyId: string, language: TLanguage, request: TFolioExportRequest, requestId: string): Promise<{ exportId: string; status: TExportStatus }> {
    const digest = createHash('sha256').update(JSON.stringify({ propertyId, language, request })).digest('base64url');
    const exportId = uuidv7();
    const queued = await this.store(propertyId).queue({ exportId, propertyId, digest, language, request }, this.inFlightCap);
    if (queued.kind === 'full') {
      throw new AppError('RATE_LIMITED', `This property already has ${this.inFlightCap} exports queued or running; retry when one has finished.`, {
        retryAfterSeconds: CAP_RETRY_AFTER_SECONDS,
      });
    }
    if (queued.kind === 'joined') {
      // Its job again, under the same id: a no-op while Redis holds it (in any state), and the job
      // anew when Redis lost it (the last writes before a failover, a restart without AOF), so an
      // export in flight is never waited for in vain (docs/production.md#redis).
      await this.waiter.add(exportFolioJob.name, { version: 1, exportId: queued.exportId, propertyId, language, request, requestId }, queued.exportId, exportFolioJob.options);
      return { exportId: queued.exportId, status: queued.status };
    }
    try {
      await this.waiter.add(exportFolioJob.name, { version: 1, exportId, propertyId, language, request, requestId }, exportId, exportFolioJob.options);
    } catch (error) {
      await this.store(propertyId).unqueued(exportId);
      throw error;
    }
    return { exportId, status: 'queued' };
  }

  /**
   * Waits up to `timeoutMs` for the export's job; when it completed, its return value: the result
   * the worker recorded with the completed status (FolioExporter.run), so the file can be served
   * without reading the record again. Undefined otherwise (then the record tells what happened).
   */
  async waitForCompletion(exportId: string, timeoutMs: number): Promise<TStoredFile | undefined> {
    const outcome = await this.waiter.wait(exportId, timeoutMs);
    return outcome.state === 'completed' ? storedFileOf(outcome.value) : undefined;
  }

  async find(propertyId: string, exportId: string): Promise<TExportRow> {
    const row = await this.store(propertyId).find(propertyId, exportId);
    if (!row) throw AppError.notFound('The export');
    return row;
  }

  /**
   * The export a valid download link names, whatever its property: the signature is the
   * authorization. 403 ACCESS_DENIED for a link tampered with, expired or signed for another export.
   */
  checkLink(exportId: string, expires: string, signature: string): void {
    const verdict = checkLinkSignature(this.links.linkKey, exportId, expires, signature);
    if (verdict === 'expired') throw new AppError('ACCESS_DENIED', 'This download link has expired; read the export status for a new one.');
    if (verdict !== 'valid') throw new AppError('ACCESS_DENIED', 'This download link is not valid.');
  }

  /** Read on the pool itself: a link names an export, not a property, and this is one row by its key. */
  async findForLink(exportId: string): Promise<TExportRow> {
    const row = await new ExportStore(this.shares.pool).findById(exportId);
    if (!row) throw AppError.notFound('The export');
    return row;
  }

  /**
   * The status answer; a completed export's carries a download link valid EXPORT_LINK_TTL_SECONDS
   * from this read, or until its retention ends when that is sooner (a presigned MinIO URL, or the
   * signed file path with the folder driver); none once the retention has ended.
   */
  async statusBody(row: TExportRow): Promise<TExportStatusBody> {
    const alive = row.status === 'completed' && row.object_key && row.filename && row.expires_at;
    const link = alive
      ? await downloadLink(this.storage, this.links, { exportId: row.id, objectKey: row.object_key!, filename: row.filename!, expiresAt: row.expires_at! }).catch((error: unknown) => {
          throw AppError.unavailable('The file store cannot be reached right now; retry shortly.').withCause(error);
        })
      : undefined;
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
      ...(row.status === 'completed' ? { fileUrl: exportFilePath(row.id) } : {}),
      // Shown while the file lives and, once expired, as when it went.
      ...((row.status === 'completed' || row.status === 'expired') && row.expires_at ? { expiresAt: row.expires_at.toISOString() } : {}),
      ...(link ?? {}),
    };
  }

  /** The finished file; 409 EXPORT_NOT_READY before, 410 EXPORT_EXPIRED once the retention sweep deleted it. */
  async file(row: TExportRow): Promise<{ stream: Readable; size: number; filename: string }> {
    if (row.status === 'expired') throw expiredError();
    if (row.status !== 'completed' || !row.object_key || !row.filename || row.size === null) {
      throw new AppError(
        'EXPORT_NOT_READY',
        row.status === 'failed' ? 'The export failed; its file does not exist. Request a new export.' : `The export is ${row.status}; its file is not ready yet.`,
        { retryAfterSeconds: row.status === 'failed' ? undefined : 2 },
      );
    }
    return this.open(row.property_id, row.id, { key: row.object_key, size: Number(row.size), filename: row.filename });
  }

  /**
   * The stored file of a completed export. An object gone when the export's retention has ended
   * is an expired file (410), like one whose row says so: the retention sweep deletes the object
   * before it marks the row, so the row read before can still say completed.
   */
  async open(propertyId: string, exportId: string, stored: TStoredFile): Promise<{ stream: Readable; size: number; filename: string }> {
    try {
      return { stream: await this.storage.get(stored.key), size: stored.size, filename: stored.filename };
    } catch (error) {
      if (error instanceof ObjectMissingError && (await this.store(propertyId).pastRetention(exportId))) throw expiredError();
      throw AppError.unavailable('The file store cannot be reached right now; retry shortly.').withCause(error);
    }
  }
}

function expiredError(): AppError {
  return new AppError('EXPORT_EXPIRED', 'The export is past its retention and its file was deleted. Request the export again.');
}

/** What serving a completed export's file needs of its stored result. */
export type TStoredFile = Pick<TStoredResult, 'key' | 'size' | 'filename'>;

/** The stored file named by a job's return value; undefined when it does not name one. */
function storedFileOf(value: unknown): TStoredFile | undefined {
  const result = value as Partial<TStoredResult> | null;
  if (!result || typeof result.key !== 'string' || typeof result.filename !== 'string' || typeof result.size !== 'number') return undefined;
  return { key: result.key, size: result.size, filename: result.filename };
}
