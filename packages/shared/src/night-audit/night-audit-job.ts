// Night-audit batch (docs/night-audit.md) as a BullMQ flow: `night-audit-source` children on the
// night-audit-export queue (apart from on-demand exports), each a chunk of sources (sourcesPerJob),
// and a `night-audit-manifest` parent that writes manifest.json once every child has finished or failed for good (children ignore their
// failure for the parent, so it never hangs). A scheduled `night-audit-scheduled` job starts the
// batch of the previous local date.

import { z } from 'zod';
import { QUEUE_NAMES } from '../queues.js';
import type { TJobDefinition } from '../jobs/definition.js';

const ZFormat = z.enum(['PDF', 'XLSX']);
const ZBatchRef = z.object({
  version: z.literal(1),
  batchId: z.uuid(),
  run: z.number().int().min(1),
  propertyId: z.string().regex(/^\d+$/),
  businessDate: z.iso.date(),
  format: ZFormat,
});

const NIGHT_AUDIT_OPTIONS = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 1_000 },
  removeOnComplete: { age: 24 * 3600, count: 100_000 },
  removeOnFail: { age: 7 * 24 * 3600, count: 100_000 },
} as const;

const ZSource = z.object({ sourceKind: z.enum(['RESERVATION', 'HOUSE_ACCOUNT']), sourceId: z.string().regex(/^\d+$/) });

/**
 * Sources a `night-audit-source` job exports: about 64 jobs a batch, so every worker gets a share
 * and the last job is short, at most 25 sources. One job per chunk, not per source, saves a job's
 * bookkeeping per source (BullMQ's moves, the parent's dependencies, logs) and lets the job read
 * the next source while the current one renders.
 */
export function sourcesPerJob(sources: number): number {
  return Math.min(25, Math.max(1, Math.ceil(sources / 64)));
}

export const nightAuditSourceJob = {
  name: 'night-audit-source',
  queue: QUEUE_NAMES.nightAuditExport,
  version: 1,
  payload: ZBatchRef.extend({ sources: z.array(ZSource).min(1).max(100) }),
  result: z.object({ exported: z.number(), skipped: z.number() }),
  options: { ...NIGHT_AUDIT_OPTIONS, ignoreDependencyOnFailure: true },
} as const satisfies TJobDefinition;

export const nightAuditManifestJob = {
  name: 'night-audit-manifest',
  queue: QUEUE_NAMES.nightAudit,
  version: 1,
  payload: ZBatchRef,
  result: z.object({ manifestKey: z.string(), total: z.number(), completed: z.number(), failed: z.number() }),
  options: NIGHT_AUDIT_OPTIONS,
} as const satisfies TJobDefinition;

export const nightAuditScheduledJob = {
  name: 'night-audit-scheduled',
  queue: QUEUE_NAMES.nightAudit,
  version: 1,
  payload: z.object({ version: z.literal(1), propertyId: z.string().regex(/^\d+$/) }),
  result: z.object({ batchId: z.uuid().optional(), businessDate: z.iso.date() }),
  options: NIGHT_AUDIT_OPTIONS,
} as const satisfies TJobDefinition;
