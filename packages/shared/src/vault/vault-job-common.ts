import { z } from 'zod';
import { ZSignedJobFields } from './job-signature.js';
import { ZTokenizationMode } from './schemas.js';

/**
 * Fields every vault request carries, the API's signature over the whole payload among them
 * (job-signature.ts). Never card data in clear: see tokenize-card-job.ts. Version 2 is the signed
 * shape; a job of version 1 carries no signature and is refused as `unsigned` before its payload is
 * read (no version-1 job can still be waiting: they lived minutes).
 */
export const ZVaultRequestBase = z
  .object({
    version: z.literal(2),
    propertyId: z.string().regex(/^\d+$/),
    mode: ZTokenizationMode,
    requestId: z.string().max(200),
  })
  .extend(ZSignedJobFields.shape);

/** …and a job about one token names it. */
export const ZVaultJobBase = ZVaultRequestBase.extend({ tokenId: z.uuid() });

/** The payload fields the API fills in by signing (job-signature.ts signJob). */
export type TSignatureFields = keyof z.output<typeof ZSignedJobFields>;

/**
 * A job that needs the vault keys ended without them: the key provider could not be used (an HSM
 * that does not answer) on its last attempt. The API answers 503 naming the keys, with Retry-After.
 */
export const ZKeysUnavailable = z.object({ outcome: z.literal('keys_unavailable') });

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
