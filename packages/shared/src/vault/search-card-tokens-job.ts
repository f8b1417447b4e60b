import { z } from 'zod';
import { QUEUE_NAMES } from '../queues.js';
import type { TJobDefinition } from '../jobs/definition.js';
import { ZCardTokenMetadata } from './schemas.js';
import { VAULT_JOB_OPTIONS, ZVaultRequestBase } from './vault-job-common.js';

/** The property's current tokens with a fingerprint, newest first (GET /vault/v1/tokens?fingerprint=). */
export const searchCardTokensJob = {
  name: 'search-card-tokens',
  queue: QUEUE_NAMES.vault,
  // 2: signed by the API (vault-job-common.ts); a version-1 job is refused as unsigned.
  version: 2,
  signed: true,
  payload: ZVaultRequestBase.extend({ fingerprint: z.string().min(1).max(100) }),
  result: z.object({ tokens: z.array(ZCardTokenMetadata).max(100) }),
  options: VAULT_JOB_OPTIONS,
} as const satisfies TJobDefinition;
