// One export job: ledger → document → render (in the render pool) → upload with size and sha256
// → status, with export.completed recorded by the completion's transaction and enqueued after it.
// Safe to run twice: the object key is the export id, the upload replaces it whole, and a
// completed export answers its stored result.

import { randomUUID } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Job } from 'bullmq';
import type { z } from 'zod';
import type { TPgPool } from '@folio-vault/shared/connections';
import type { ZExportFolioPayload } from '@folio-vault/shared/exports/export-folio-job';
import type { Logger } from '@folio-vault/shared/logger';
import type { ExportStore, TStoredResult } from '@folio-vault/shared/exports/export-store';
import type { TFolioDocument } from '@folio-vault/shared/exports/folio-document';
import { localDate } from '@folio-vault/shared/i18n/format';
import { ZFolioExportRequest, type TExportFormat } from '@folio-vault/shared/exports/schemas';
import { exportCompletedEvent } from '@folio-vault/shared/webhooks/events';
import type { ObjectStorage } from '@folio-vault/shared/storage/object-storage';
import { buildFolioDocument } from './build-document.js';
import type { RenderPool, TRenderPriority } from './render-pool.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';

type TPayload = z.output<typeof ZExportFolioPayload>;

const CONTENT_TYPES = { PDF: 'application/pdf', XLSX: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' } as const;

/** Documents of fewer rows (a few pages) go from progress 5 (running) to 100 (completed) directly. */
export const PROGRESS_FROM_ROWS = 250;

function rowsOf(document: TFolioDocument): number {
  let rows = 0;
  for (const folio of document.folios) for (const section of folio.sections) rows += section.rows.length;
  return rows;
}

export class FolioExporter {
  constructor(
    private readonly pool: TPgPool,
    private readonly store: ExportStore,
    private readonly storage: ObjectStorage,
    private readonly renderer: RenderPool,
    /** EXPORT_RETENTION_SECONDS: how long an on-demand export's file is kept. */
    private readonly retentionSeconds: number,
    private readonly outbox: WebhookOutbox,
    /** EXPORT_MAX_ROWS: past it an export (or a night audit's source) fails (ExportTooLargeError) before rendering. */
    readonly maxRows: number,
  ) {}

  async run(payload: TPayload, job: Job, log: Logger): Promise<TStoredResult> {
    const previous = await this.store.start(payload.exportId);
    if (previous) return previous;
    const request = ZFolioExportRequest.parse(payload.request);
    const extension = request.format === 'XLSX' ? 'xlsx' : 'pdf';
    const now = new Date();
    const document = await buildFolioDocument(this.pool, payload.propertyId, payload.language, request, now, undefined, { maxRows: this.maxRows });
    // A small document renders before anyone could read its progress, and reporting it costs two
    // writes each time (the export row, the job).
    const reported = rowsOf(document) >= PROGRESS_FROM_ROWS;
    if (reported) await this.reportProgress(job, payload.exportId, 20);

    const published = await this.publish(document, request.format, `exports/${payload.propertyId}/${payload.exportId}.${extension}`, log, async () => {
      if (reported) await this.reportProgress(job, payload.exportId, 90);
    });
    const result: TStoredResult = {
      ...published,
      filename: `folio-${request.sourceKind}-${request.sourceId}-${localDate(now, document.timezone).replaceAll('-', '')}.${extension}`,
    };
    const recorded = await this.store.complete(payload.exportId, result, this.retentionSeconds, exportCompletedEvent(payload.exportId, payload.propertyId, result));
    await this.outbox.enqueue(recorded.deliveryIds);
    return result;
  }

  /**
   * Renders a document in the render pool to a temp file and uploads it under `key` as a stream of
   * known length (storage.putFile): the file never sits whole in the worker's memory, whatever the
   * export's size. The same key on a re-run replaces the object, never adds one.
   */
  async publish(
    document: TFolioDocument,
    format: TExportFormat,
    key: string,
    log: Logger,
    onRendered: () => Promise<void> = async () => undefined,
    /** A night audit's documents render after every on-demand one waiting (render-pool.ts). */
    priority: TRenderPriority = 'on-demand',
  ): Promise<Omit<TStoredResult, 'filename'>> {
    const temp = join(tmpdir(), `folio-vault-${randomUUID()}.${format === 'XLSX' ? 'xlsx' : 'pdf'}`);
    try {
      const started = performance.now();
      const rendered = await this.renderer.render(format, document, temp, priority);
      log.info({ key, format, rows: rendered.rows, pages: rendered.pages, ms: Math.round(performance.now() - started) }, 'document rendered');
      await onRendered();
      const stored = await this.storage.putFile(key, temp, CONTENT_TYPES[format]);
      return { key, size: stored.size, sha256: stored.sha256, pages: rendered.pages, rows: rendered.rows };
    } finally {
      await unlink(temp).catch((error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      });
    }
  }

  private async reportProgress(job: Job, exportId: string, progress: number): Promise<void> {
    await Promise.all([job.updateProgress(progress), this.store.progress(exportId, progress)]);
  }
}
