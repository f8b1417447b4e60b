import { z } from 'zod';
import { QUEUE_NAMES } from '../queues.js';
import { ZCardTokenMetadata } from './schemas.js';
import type { TJobDefinition } from '../jobs/definition.js';
import { VAULT_JOB_OPTIONS, ZVaultJobBase } from './vault-job-common.js';

/** Read a token's metadata. A job because only the worker reads the vault (docs/vault.md#request-flow). */
export const readCardTokenJob = {
  name: 'read-card-token',
  queue: QUEUE_NAMES.vault,
  // 2: signed by the API (vault-job-common.ts); a version-1 job is refused as unsigned.
  version: 2,
  signed: true,
  payload: ZVaultJobBase,
  result: z.discriminatedUnion('outcome', [
    z.object({ outcome: z.literal('found'), token: ZCardTokenMetadata }),
    z.object({ outcome: z.literal('not_found') }),
  ]),
  options: VAULT_JOB_OPTIONS,
} as const satisfies TJobDefinition;
