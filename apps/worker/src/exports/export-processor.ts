// The export queue's consumer: on-demand exports, fiscal documents' files, the retention and render
// sweeps; and the night-audit-export
// queue's: the night audit's source chunks (their handler is the night auditor's, passed in). A failed export attempt that will be
// retried leaves the export queued (with the reason); the last one marks it failed and records
// export.failed, so a status never waits forever.

import type { Worker } from 'bullmq';
import type { TWorkerConfig } from '@folio-vault/shared/config';
import type { ExportStore } from '@folio-vault/shared/exports/export-store';
import type { TExportJobName } from '@folio-vault/shared/jobs/registry';
import type { Logger } from '@folio-vault/shared/logger';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { exportFailedEvent } from '@folio-vault/shared/webhooks/events';
import type { FolioExporter } from './folio-exporter.js';
import type { RetentionSweep } from './retention-sweep.js';
import { queueWorker, type THandler, type THandlers, type TWorkerDeps } from '../jobs/processor-base.js';
import { attemptOf, isLastAttempt } from '../jobs/attempts.js';
import { exportFailureReason } from '../jobs/failure-reason.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import type { FiscalRenderer } from '../fiscal/fiscal-renderer.js';

/**
 * Export jobs a worker runs at once: more than the pool has render processes, so one job's
 * database reads, upload and status writes overlap another's render; renders themselves still run
 * EXPORT_CONCURRENCY at a time.
 */
export const exportJobConcurrency = (renderProcesses: number) => renderProcesses * 4;

export interface TExportParts {
  exporter: FolioExporter;
  store: ExportStore;
  outbox: WebhookOutbox;
  retention: RetentionSweep;
  nightAuditSource: THandler<'night-audit-source'>;
  /** Fiscal documents' files (docs/fiscal-documents.md#rendering): the front desk's too. */
  fiscal: FiscalRenderer;
  logger: Logger;
}

// 'night-audit-source': batch pieces queued here before they had a queue of their own
// (night-audit-export) are still taken.
function exportHandlers(parts: TExportParts): THandlers<TExportJobName | 'night-audit-source'> {
  const { exporter, store, outbox, retention, fiscal, logger } = parts;
  return {
    'night-audit-source': parts.nightAuditSource,
    'retention-sweep': () => retention.run(),
    'render-fiscal-document': (payload, job) => fiscal.run(payload, job, logger.child({ jobId: job.id, documentId: payload.documentId, requestId: payload.requestId })),
    'fiscal-render-sweep': () => fiscal.sweep(logger),
    'export-folio': async (payload, job) => {
      try {
        return await exporter.run(payload, job, logger.child({ jobId: job.id, exportId: payload.exportId, requestId: payload.requestId }));
      } catch (error) {
        const message = exportFailureReason(error, attemptOf(job), isLastAttempt(job, error));
        if (isLastAttempt(job, error)) {
          const recorded = await store.fail(payload.exportId, message, exportFailedEvent(payload.exportId, payload.propertyId, message)).catch(() => undefined);
          if (recorded) await outbox.enqueue(recorded.deliveryIds);
        } else {
          await store.retrying(payload.exportId, message).catch(() => undefined);
        }
        throw error;
      }
    },
  };
}

/** The export queue's worker (see exportJobConcurrency). */
export function startExportWorker(config: TWorkerConfig, deps: TWorkerDeps & TExportParts): Worker {
  return queueWorker(config, deps, QUEUE_NAMES.export, exportHandlers(deps), { concurrency: exportJobConcurrency(config.EXPORT_CONCURRENCY) });
}

/**
 * The night-audit-export queue's worker: a batch's source chunks, as many at once as on-demand
 * exports, in job slots of their own. Their pieces share the render processes, where on-demand
 * pieces go first (render-pool.ts).
 */
export function startNightAuditExportWorker(config: TWorkerConfig, deps: TWorkerDeps & Pick<TExportParts, 'nightAuditSource'>): Worker {
  return queueWorker(config, deps, QUEUE_NAMES.nightAuditExport, { 'night-audit-source': deps.nightAuditSource }, { concurrency: exportJobConcurrency(config.EXPORT_CONCURRENCY) });
}
