// The night-audit request, POST /fiscal-document/v1/night-audit/exports (always 202), and its
// status (docs/night-audit.md).

import { ZIsoDate } from '../ledger/schemas.js';
import { z } from '../schemas/zod.js';

export const ZNightAuditRequest = z
  .strictObject({
    businessDate: ZIsoDate,
    format: z.enum(['PDF', 'XLSX']).nullish().transform((v) => v ?? 'PDF'),
  })
  // A business date that has passed stays valid: the example does not age.
  .openapi('NightAuditRequest', { example: { businessDate: '2026-11-20', format: 'PDF' } });

export const ZBatchParams = z.object({ batchId: z.uuid({ error: 'must be a batch id (UUID)' }) });

/** expired: past NIGHT_AUDIT_RETENTION_DAYS, its files and manifest deleted (docs/export.md#retention). */
const BATCH_STATUSES = ['queued', 'running', 'completed', 'completed_with_failures', 'failed', 'expired'] as const;

export const ZBatchAccepted = z
  .object({ batchId: z.uuid(), statusUrl: z.string(), status: z.enum(BATCH_STATUSES) })
  .openapi('NightAuditAccepted');

export const ZBatchStatus = z
  .object({
    batchId: z.uuid(),
    businessDate: z.iso.date(),
    format: z.enum(['PDF', 'XLSX']),
    status: z.enum(BATCH_STATUSES),
    total: z.int().min(0),
    completed: z.int().min(0),
    failed: z.int().min(0),
    manifestKey: z.string().nullable().openapi({ description: 'Object key of manifest.json once the batch has finished; null again once expired (the object is deleted)' }),
    expiresAt: z.string().optional().openapi({ description: 'When the files and manifest are (or were, once expired) deleted: NIGHT_AUDIT_RETENTION_DAYS after the batch finished' }),
  })
  .openapi('NightAuditStatus');
