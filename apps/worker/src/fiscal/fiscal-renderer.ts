// One fiscal document's render job (docs/fiscal-documents.md#rendering): the frozen document →
// its files (the CII and UBL strings, the Factur-X PDF with the CII attached) → storage, each with
// its size and sha256 → the document issued, with invoice.issued recorded in that transaction and
// enqueued after it. It reads the frozen document and nothing else, so a second run (a re-delivered
// job, a retry) writes the same bytes under the same keys; an issued document answers its stored
// files. And the render sweep, which queues what was not queued or failed.

import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnrecoverableError, type Job, type Queue } from 'bullmq';
import type { TPgPool } from '@folio-vault/shared/connections';
import type { TFiscalDocument, TFiscalFormat } from '@folio-vault/shared/fiscal/document-model';
import { documentsToRender, findForRender, markFailed, markIssued, recordRenderError, type TStoredFiscalFile } from '@folio-vault/shared/fiscal/fiscal-store';
import {
  FISCAL_RENDER_SWEEP_SCHEDULER_ID, FISCAL_RETRY_SECONDS, FISCAL_SWEEP_SECONDS, fiscalRenderSweepJob, renderFiscalDocumentJob, renderJobId,
} from '@folio-vault/shared/fiscal/render-fiscal-document-job';
import type { TJobPayload, TJobResult } from '@folio-vault/shared/jobs/registry';
import type { Logger } from '@folio-vault/shared/logger';
import { StorageWriteError, type ObjectStorage } from '@folio-vault/shared/storage/object-storage';
import { invoiceFailedEvent, invoiceIssuedEvent } from '@folio-vault/shared/webhooks/events';
import { attemptOf, isLastAttempt } from '../jobs/attempts.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';

/** What turns a frozen document into its files (cii.ts, ubl.ts, facturx-pdf.tsx). */
export interface TFiscalFileBuilders {
  cii(document: TFiscalDocument): string;
  ubl(document: TFiscalDocument): string;
  /** Writes the Factur-X PDF/A-3b, `cii` attached as factur-x.xml, to `outputPath` (it starts on the pages before the CII is there). */
  facturX(document: TFiscalDocument, cii: Promise<string>, outputPath: string): Promise<void>;
}

/** Each format's object name under the document's folder, and its content type. */
const FILES: Record<TFiscalFormat, { name: string; contentType: string }> = {
  FACTURX: { name: 'factur-x.pdf', contentType: 'application/pdf' },
  CII: { name: 'cii.xml', contentType: 'application/xml' },
  UBL: { name: 'ubl.xml', contentType: 'application/xml' },
};

/** A document's object key: `fiscal/<propertyId>/<documentId>/<file>`. */
export const fiscalObjectKey = (propertyId: string, documentId: string, format: TFiscalFormat) => `fiscal/${propertyId}/${documentId}/${FILES[format].name}`;

type TPayload = TJobPayload<'render-fiscal-document'>;

/** A render's failure as a document's `error` says it: one sentence of ours, never a driver's message. */
function renderFailureReason(error: unknown, attempt: { number: number; of: number }, last: boolean): string {
  const what = error instanceof StorageWriteError ? error.message : 'The files could not be rendered.';
  return last ? `${what} Gave up after ${attempt.number} of ${attempt.of} attempt(s); it is rendered again later.` : `${what} Attempt ${attempt.number} of ${attempt.of} failed; it will be retried.`;
}

export class FiscalRenderer {
  constructor(
    private readonly pool: TPgPool,
    private readonly storage: ObjectStorage,
    private readonly builders: TFiscalFileBuilders,
    private readonly outbox: WebhookOutbox,
    /** The export queue: the sweep queues renders on it. */
    private readonly queue: Queue,
  ) {}

  /** The render job: files stored, document issued; on a failure, its reason kept (and on the last, the document failed). */
  async run(payload: TPayload, job: Job, log: Logger): Promise<TJobResult<'render-fiscal-document'>> {
    const row = await findForRender(this.pool, payload.documentId);
    if (!row || row.property_id !== payload.propertyId) throw new UnrecoverableError('no such fiscal document');
    if (row.status === 'issued') return { files: row.files };
    try {
      const files = await this.render(row.document, row.formats, payload.propertyId, log);
      const recorded = await markIssued(this.pool, row.id, files, invoiceIssuedEvent(row.document, payload.propertyId));
      await this.outbox.enqueue(recorded.deliveryIds);
      return { files };
    } catch (error) {
      const last = isLastAttempt(job, error);
      const reason = renderFailureReason(error, attemptOf(job), last);
      if (last) {
        const recorded = await markFailed(this.pool, row.id, reason, invoiceFailedEvent(row.document, payload.propertyId, reason)).catch(() => undefined);
        if (recorded) await this.outbox.enqueue(recorded.deliveryIds);
      } else {
        await recordRenderError(this.pool, row.id, reason).catch(() => undefined);
      }
      throw error;
    }
  }

  /**
   * Builds and stores each requested file; the CII is built once for itself and for the Factur-X.
   * The PDF's piece goes to a render process first, which lays out the pages while the XML is built
   * here; the CII follows it there (RenderPool.renderInvoice), since it is attached only at the end.
   * The PDF is written to a temporary file and uploaded with its known length, as an export is; each
   * file is stored as soon as it is built.
   */
  private async render(document: TFiscalDocument, formats: TFiscalFormat[], propertyId: string, log: Logger): Promise<Partial<Record<TFiscalFormat, TStoredFiscalFile>>> {
    const started = performance.now();
    const storeXml = async (format: 'CII' | 'UBL', xml: string): Promise<[TFiscalFormat, TStoredFiscalFile]> => {
      const key = fiscalObjectKey(propertyId, document.id, format);
      const { size, sha256 } = await this.storage.put(key, Buffer.from(xml, 'utf8'), FILES[format].contentType);
      return [format, { key, size, sha256 }];
    };
    const stored: Array<Promise<[TFiscalFormat, TStoredFiscalFile]>> = [];
    let attach: { resolve(xml: string): void; reject(error: unknown): void } | undefined;
    if (formats.includes('FACTURX')) {
      const cii = new Promise<string>((resolve, reject) => (attach = { resolve, reject }));
      stored.push(this.storeFacturX(document, cii, propertyId));
    }
    try {
      const cii = formats.includes('CII') || attach ? this.builders.cii(document) : undefined;
      attach?.resolve(cii!);
      if (formats.includes('CII')) stored.push(storeXml('CII', cii!));
      if (formats.includes('UBL')) stored.push(storeXml('UBL', this.builders.ubl(document)));
    } catch (error) {
      // The PDF's piece fails without its CII: no file of this round is still being written after.
      attach?.reject(error);
      await Promise.allSettled(stored);
      throw error;
    }
    const files = Object.fromEntries(await Promise.all(stored)) as Partial<Record<TFiscalFormat, TStoredFiscalFile>>;
    log.info({ documentId: document.id, formats, ms: Math.round(performance.now() - started) }, 'fiscal document rendered');
    return files;
  }

  private async storeFacturX(document: TFiscalDocument, cii: Promise<string>, propertyId: string): Promise<[TFiscalFormat, TStoredFiscalFile]> {
    const key = fiscalObjectKey(propertyId, document.id, 'FACTURX');
    const temp = join(tmpdir(), `folio-vault-${randomUUID()}.pdf`);
    try {
      await this.builders.facturX(document, cii, temp);
      const { size, sha256 } = await this.storage.putFile(key, temp, FILES.FACTURX.contentType);
      return ['FACTURX', { key, size, sha256 }];
    } finally {
      await rm(temp, { force: true });
    }
  }

  /**
   * The render sweep: queues each document still issuing FISCAL_SWEEP_SECONDS after its issue (a
   * no-op when its job is there) and each failed one FISCAL_RETRY_SECONDS after its failure (a new
   * round, a new job). Answers how many it queued.
   */
  async sweep(log: Logger): Promise<TJobResult<'fiscal-render-sweep'>> {
    const due = await documentsToRender(this.pool, FISCAL_SWEEP_SECONDS, FISCAL_RETRY_SECONDS);
    if (due.length === 0) return { enqueued: 0 };
    await this.queue.addBulk(
      due.map((row) => ({
        name: renderFiscalDocumentJob.name,
        data: { version: 1, documentId: row.id, propertyId: row.property_id, requestId: `fiscal-render-sweep-${row.render_round}` } satisfies TPayload,
        opts: { ...renderFiscalDocumentJob.options, jobId: renderJobId(row.id, row.render_round) },
      })),
    );
    log.info({ enqueued: due.length }, 'fiscal render sweep');
    return { enqueued: due.length };
  }
}

/** Upserts the render sweep's job scheduler (one stable id, every FISCAL_SWEEP_SECONDS). */
export async function scheduleFiscalRenderSweep(queue: Queue): Promise<void> {
  await queue.upsertJobScheduler(
    FISCAL_RENDER_SWEEP_SCHEDULER_ID,
    { every: FISCAL_SWEEP_SECONDS * 1000 },
    { name: fiscalRenderSweepJob.name, data: { version: 1 }, opts: fiscalRenderSweepJob.options },
  );
}
