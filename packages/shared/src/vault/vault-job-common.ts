import { z } from 'zod';
import { ZTokenizationMode } from './schemas.js';

/** Fields every vault request carries. Never card data in clear: see tokenize-card-job.ts. */
export const ZVaultRequestBase = z.object({
  version: z.literal(1),
  propertyId: z.string().regex(/^\d+$/),
  mode: ZTokenizationMode,
  requestId: z.string().max(200),
});

/** …and a job about one token names it. */
export const ZVaultJobBase = ZVaultRequestBase.extend({ tokenId: z.uuid() });

/**
 * Vault jobs are request/response: the API waits for them. Completed jobs go quickly (their result
 * holds no card data but there is no reason to keep it); failed ones stay a day for inspection and
 * hold only transit ciphertext.
 */
export const VAULT_JOB_OPTIONS = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 200 },
  removeOnComplete: { age: 300, count: 10_000 },
  removeOnFail: { age: 24 * 3600, count: 10_000 },
} as const;
