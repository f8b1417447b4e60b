import { z } from 'zod';
import { QUEUE_NAMES } from '../queues.js';
import type { TJobDefinition } from '../jobs/definition.js';

/**
 * Retention of delivered files (docs/export.md#retention), every RETENTION_SWEEP_SECONDS (a BullMQ
 * job scheduler upserted at worker start; safe on every worker at once): deletes the objects of
 * on-demand exports past EXPORT_RETENTION_SECONDS and the files and manifests of night-audit
 * batches past NIGHT_AUDIT_RETENTION_DAYS, and marks them expired. It runs on the export queue,
 * whose workers hold the object store.
 */
export const retentionSweepJob = {
  name: 'retention-sweep',
  queue: QUEUE_NAMES.export,
  version: 1,
  housekeeping: true,
  payload: z.object({ version: z.literal(1) }),
  result: z.object({
    exports: z.number().int(),
    nightAuditBatches: z.number().int(),
    nightAuditFiles: z.number().int(),
    nightAuditManifests: z.number().int(),
  }),
  options: { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
} as const satisfies TJobDefinition;

/** One stable scheduler id: every worker upserts the same one, so there is one sweep per interval. */
export const RETENTION_SWEEP_SCHEDULER_ID = 'retention-sweep';
