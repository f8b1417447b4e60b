import { z } from 'zod';
import { QUEUE_NAMES } from '../queues.js';
import type { TJobDefinition } from '../jobs/definition.js';
import { VAULT_JOB_OPTIONS, ZVaultJobBase } from './vault-job-common.js';

/** Delete a token by destroying its data key (crypto-shredding). Running it twice is harmless. */
export const deleteCardTokenJob = {
  name: 'delete-card-token',
  queue: QUEUE_NAMES.vault,
  // 2: signed by the API (vault-job-common.ts); a version-1 job is refused as unsigned.
  version: 2,
  signed: true,
  payload: ZVaultJobBase,
  result: z.discriminatedUnion('outcome', [
    z.object({ outcome: z.literal('deleted') }),
    z.object({ outcome: z.literal('not_found') }),
  ]),
  options: VAULT_JOB_OPTIONS,
} as const satisfies TJobDefinition;
