import { z } from 'zod';
import { LANGUAGES } from '../i18n/languages.js';
import { QUEUE_NAMES } from '../queues.js';
import type { TJobDefinition } from '../jobs/definition.js';

/**
 * Render one folio export (docs/export.md). The job id is the export id, so a retried or re-delivered
 * job writes the same object key. The request is the validated, normalized export request.
 */
export const ZExportFolioPayload = z.object({
  version: z.literal(1),
  exportId: z.uuid(),
  propertyId: z.string().regex(/^\d+$/),
  language: z.enum(LANGUAGES),
  /** TFolioExportRequest after validation (ids as strings, defaults applied). */
  request: z.record(z.string(), z.unknown()),
  requestId: z.string().max(200),
});

export const ZExportFolioResult = z.object({
  key: z.string(),
  filename: z.string(),
  size: z.number().int().nonnegative(),
  sha256: z.string(),
  pages: z.number().int().nonnegative(),
  rows: z.number().int().nonnegative(),
});

export const exportFolioJob = {
  name: 'export-folio',
  queue: QUEUE_NAMES.export,
  version: 1,
  payload: ZExportFolioPayload,
  result: ZExportFolioResult,
  options: {
    attempts: 3,
    backoff: { type: 'exponential', delay: 1_000 },
    removeOnComplete: { age: 3_600, count: 10_000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
  },
} as const satisfies TJobDefinition;
