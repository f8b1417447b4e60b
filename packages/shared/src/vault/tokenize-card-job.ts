import { z } from 'zod';
import { QUEUE_NAMES } from '../queues.js';
import { ZTokenizeCardResponse } from './schemas.js';
import type { TJobDefinition } from '../jobs/definition.js';
import { VAULT_JOB_OPTIONS, ZKeysUnavailable, ZVaultJobBase } from './vault-job-common.js';

/**
 * Tokenize a card. The API chooses the token id (UUIDv7) so a job that runs twice (at-least-once
 * delivery) writes one record. The card travels only as `sealedCard`, sealed to the workers' public transit key (HPKE);
 * the CVV is in it only when it is to be held (VAULT_CVV_HOLD_SECONDS > 0), else the API drops it.
 * `expiresAt` is the token's end, already bounded by the card's expiry (docs/vault.md#token-lifecycle).
 */
export const ZTokenizeCardPayload = ZVaultJobBase.extend({
  sealedCard: z.string().startsWith('v2.'),
  idempotencyKey: z.string().min(1).max(255).optional(),
  expiresAt: z.iso.datetime({ offset: true }),
});

/** What `sealedCard` opens to in the worker. */
export const ZSealedCard = z.object({
  card_number: z.string().regex(/^\d{12,19}$/),
  card_brand: z.string(),
  cardholder_name: z.string(),
  expiration: z.object({ month: z.string(), year: z.string() }),
  billing_details: z.record(z.string(), z.string()).optional(),
  cvv: z.string().regex(/^\d{3,4}$/).optional(),
});
export type TSealedCard = z.output<typeof ZSealedCard>;

export const ZTokenizeCardResult = z.discriminatedUnion('outcome', [
  z.object({ outcome: z.literal('tokenized'), token: ZTokenizeCardResponse }),
  /** The key was used with another request, or (tokenGone) its token was deleted or expired since. */
  z.object({ outcome: z.literal('idempotency_key_reused'), tokenGone: z.literal(true).optional() }),
  ZKeysUnavailable,
]);

export const tokenizeCardJob = {
  name: 'tokenize-card',
  queue: QUEUE_NAMES.vault,
  // 2: signed by the API (vault-job-common.ts); a version-1 job is refused as unsigned.
  version: 2,
  signed: true,
  payload: ZTokenizeCardPayload,
  result: ZTokenizeCardResult,
  options: VAULT_JOB_OPTIONS,
} as const satisfies TJobDefinition;
