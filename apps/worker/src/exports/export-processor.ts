// The export queue's consumer: on-demand exports, the night audit's source chunks (their handler is
// the night auditor's, passed in) and the retention sweep. A failed export attempt that will be
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
  logger: Logger;
}

function exportHandlers(parts: TExportParts): THandlers<TExportJobName> {
  const { exporter, store, outbox, retention, logger } = parts;
  return {
    'night-audit-source': parts.nightAuditSource,
    'retention-sweep': () => retention.run(),
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
