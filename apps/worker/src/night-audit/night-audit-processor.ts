// Night-audit handlers: a chunk of sources' exports (a job of the export queue, whose worker takes
// this handler: exports/export-processor.ts), and the night-audit queue's worker, which writes the
// manifest and starts the scheduled batches.

import type { Worker } from 'bullmq';
import type { TWorkerConfig } from '@folio-vault/shared/config';
import type { TJobResult } from '@folio-vault/shared/jobs/registry';
import type { Logger } from '@folio-vault/shared/logger';
import { QUEUE_NAMES } from '@folio-vault/shared/queues';
import { SourcesFailedError, type NightAuditor } from './night-auditor.js';
import { isLastAttempt } from '../jobs/attempts.js';
import { queueWorker, type THandler, type TWorkerDeps } from '../jobs/processor-base.js';

export function nightAuditSourceHandler(auditor: NightAuditor, logger: Logger): THandler<'night-audit-source'> {
  return async (payload, job): Promise<TJobResult<'night-audit-source'>> => {
    try {
      return await auditor.exportSources(payload, logger.child({ jobId: job.id, batchId: payload.batchId }));
    } catch (error) {
      // The last attempt records the failed sources in the batch (all of the chunk's when the job
      // failed before them); the parent still runs (the child ignores its failure for the parent)
      // and writes them into the manifest.
      if (isLastAttempt(job, error)) {
        const message = (error as Error).message.slice(0, 300);
        const failures = error instanceof SourcesFailedError ? error.failures : payload.sources.map((source) => ({ source, message }));
        await auditor.sourcesFailed(payload, failures).catch(() => undefined);
      }
      throw error;
    }
  };
}

export function nightAuditHandlers(auditor: NightAuditor) {
  const manifest: THandler<'night-audit-manifest'> = async (payload, job) => {
    try {
      return await auditor.writeManifest(payload);
    } catch (error) {
      // Its last attempt ends the batch failed and announces it: a batch never stays running.
      if (isLastAttempt(job, error)) await auditor.manifestFailed(payload, (error as Error).message.slice(0, 300)).catch(() => undefined);
      throw error;
    }
  };
  return {
    'night-audit-manifest': manifest,
    'night-audit-scheduled': (payload: Parameters<THandler<'night-audit-scheduled'>>[0]) => auditor.scheduled(payload),
  } satisfies { [K in 'night-audit-manifest' | 'night-audit-scheduled']: THandler<K> };
}

/** The night-audit queue's worker: manifests and scheduled starts are short, two at a time. */
export function startNightAuditWorker(config: TWorkerConfig, deps: TWorkerDeps & { auditor: NightAuditor }): Worker {
  return queueWorker(config, deps, QUEUE_NAMES.nightAudit, nightAuditHandlers(deps.auditor), { concurrency: 2 });
}
