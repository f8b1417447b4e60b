import type { ExportStore } from '@folio-vault/shared/exports/export-store';
import type { TExportJobName } from '@folio-vault/shared/jobs/registry';
import type { Logger } from '@folio-vault/shared/logger';
import type { FolioExporter } from './folio-exporter.js';
import type { THandler, THandlers } from '../jobs/processor-base.js';
import { attemptOf, isLastAttempt } from '../jobs/attempts.js';
import { exportFailureReason } from '../jobs/failure-reason.js';

/**
 * Handlers of the export queue. A failed attempt that will be retried leaves the export queued
 * (with the reason); the last one marks it failed, so a status never waits forever.
 */
export function exportHandlers(
  exporter: FolioExporter,
  store: ExportStore,
  nightAuditSource: THandler<'night-audit-source'>,
  logger: Logger,
): THandlers<Exclude<TExportJobName, 'retention-sweep'>> {
  return {
    'night-audit-source': nightAuditSource,
    'export-folio': async (payload, job) => {
      try {
        return await exporter.run(payload, job, logger.child({ jobId: job.id, exportId: payload.exportId, requestId: payload.requestId }));
      } catch (error) {
        const last = isLastAttempt(job, error);
        const message = exportFailureReason(error, attemptOf(job), last);
        // Failed for good: export.failed is recorded by the failure's own statement, its job added after.
        const announced = last ? exporter.webhooks?.exportFailed(payload.exportId, payload.propertyId, message) : undefined;
        await (last ? store.fail(payload.exportId, message, announced) : store.retrying(payload.exportId, message)).catch(() => undefined);
        await announced?.enqueue();
        throw error;
      }
    },
  };
}
