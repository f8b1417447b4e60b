// The card fields of a ledger import's payments (docs/ledger.md#card-payments): for those of
// `tokenIds` that are current tokens of the property, test or live, their accounting creditCardType,
// first six and last four (what an invoice's payment means may show of a card, EN 16931 BR-51). No
// mode: an imported payment may name a token of either schema. An id missing from the answer names
// no such token.

import { z } from 'zod';
import { QUEUE_NAMES } from '../queues.js';
import type { TJobDefinition } from '../jobs/definition.js';
import { VAULT_JOB_OPTIONS, ZVaultRequestBase } from './vault-job-common.js';

/** At most this many token ids in one job. */
export const MAX_LABEL_TOKEN_IDS = 10_000;

export const cardTokenLabelsJob = {
  name: 'card-token-labels',
  queue: QUEUE_NAMES.vault,
  // 2: signed by the API (vault-job-common.ts); a version-1 job is refused as unsigned.
  version: 2,
  signed: true,
  payload: ZVaultRequestBase.omit({ mode: true }).extend({ tokenIds: z.array(z.uuid()).min(1).max(MAX_LABEL_TOKEN_IDS) }),
  result: z.object({
    tokens: z
      .array(z.object({ id: z.uuid(), creditCardType: z.string(), cardTrailingDigits: z.string().regex(/^\d{4}$/), first6: z.string().regex(/^\d{6}$/).optional() }))
      .max(MAX_LABEL_TOKEN_IDS),
  }),
  options: VAULT_JOB_OPTIONS,
} as const satisfies TJobDefinition;
