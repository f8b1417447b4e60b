import { z } from 'zod';
import { QUEUE_NAMES } from '../queues.js';
import type { TJobDefinition } from '../jobs/definition.js';
import { FISCAL_FORMATS } from './document-model.js';

/**
 * Render one fiscal document's files from its frozen document (docs/fiscal-documents.md#rendering):
 * on the export queue, the front desk's, beside on-demand exports. The job id names the document
 * and its render round, so a re-delivered job or an enqueue repeated by the sweep is the same job;
 * the object keys name the document, so a second run replaces the same objects with the same bytes.
 */
export const renderFiscalDocumentJob = {
  name: 'render-fiscal-document',
  queue: QUEUE_NAMES.export,
  version: 1,
  payload: z.object({
    version: z.literal(1),
    documentId: z.uuid(),
    propertyId: z.string().regex(/^\d+$/),
    requestId: z.string().max(200),
  }),
  result: z.object({
    files: z.partialRecord(z.enum(FISCAL_FORMATS), z.object({ key: z.string(), size: z.number().int().nonnegative(), sha256: z.string() })),
  }),
  options: {
    attempts: 5,
    backoff: { type: 'exponential', delay: 1_000 },
    removeOnComplete: { age: 3_600, count: 10_000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
  },
} as const satisfies TJobDefinition;

/** The render job's id of a document's round: BullMQ adds a job id once, so an enqueue repeated is no second job. */
export const renderJobId = (documentId: string, round: number) => `fiscal-${documentId}-${round}`;

/**
 * The render sweep, every FISCAL_SWEEP_SECONDS (a job scheduler upserted at worker start, safe on
 * every worker at once): enqueues the documents still issuing a while after their issue (their job
 * was lost between the commit and its enqueue) and renders failed ones again.
 */
export const fiscalRenderSweepJob = {
  name: 'fiscal-render-sweep',
  queue: QUEUE_NAMES.export,
  version: 1,
  payload: z.object({ version: z.literal(1) }),
  result: z.object({ enqueued: z.number().int().nonnegative() }),
  options: { attempts: 1, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
  housekeeping: true,
} as const satisfies TJobDefinition;

export const FISCAL_RENDER_SWEEP_SCHEDULER_ID = 'fiscal-render-sweep';
/** How often the sweep runs; a document issuing this long is enqueued again (a no-op when its job is there). */
export const FISCAL_SWEEP_SECONDS = 60;
/** A failed document is rendered again this long after its last failure. */
export const FISCAL_RETRY_SECONDS = 900;
