import { z } from 'zod';
import { QUEUE_NAMES } from '../../queues.js';
import type { TJobDefinition } from '../../jobs/definition.js';
import { VAULT_JOB_OPTIONS, ZKeysUnavailable, ZVaultJobBase } from '../vault-job-common.js';
import { FORWARD_METHODS } from './destinations.js';
import { ZForwardResponse } from './schemas.js';

/**
 * Forward a token to a payment gateway (docs/vault.md#forward-to-a-payment-gateway). The payload
 * is the caller's template — destination, method, path, headers and body with placeholders — and
 * never card data: the worker opens the record and substitutes. `forwardId` is chosen by the API.
 */
export const ZForwardCardPayload = ZVaultJobBase.extend({
  forwardId: z.uuid(),
  idempotencyKey: z.string().min(1).max(255),
  destination: z.string().min(1).max(100),
  method: z.enum(FORWARD_METHODS),
  path: z.string().min(1).max(2048),
  headers: z.record(z.string(), z.string()),
  body: z.string().optional(),
});

export const ZGatewayErrorCode = z.enum(['GATEWAY_UNREACHABLE', 'GATEWAY_TIMEOUT', 'FORWARD_ANSWER_TOO_LARGE']);

export const ZForwardCardResult = z.discriminatedUnion('outcome', [
  /** The gateway answered (any status); `answer` is already masked. */
  z.object({ outcome: z.literal('forwarded'), answer: ZForwardResponse }),
  /** The gateway could not be reached, failed TLS, redirected, answered too much (no body is kept) or too late. */
  z.object({
    outcome: z.literal('gateway_error'),
    forwardId: z.string(),
    code: ZGatewayErrorCode,
    details: z.string(),
    durationMs: z.number().int(),
  }),
  z.object({ outcome: z.literal('idempotency_key_reused') }),
  /** An earlier attempt with this key started and recorded no answer: it is never sent again. */
  z.object({ outcome: z.literal('outcome_unknown'), forwardId: z.string() }),
  z.object({ outcome: z.literal('not_found') }),
  z.object({ outcome: z.literal('cvv_not_available') }),
  /** The workers have no such destination (their VAULT_FORWARD_DESTINATIONS differs from the API's). */
  z.object({ outcome: z.literal('destination_unknown') }),
  /** The request could not be sent (the HTTP client refused it); nothing left the worker and the key is free. */
  z.object({ outcome: z.literal('not_sent'), details: z.string() }),
  /** The worker's own check of the destination's and the template's rules refused it (400 at `path`). */
  z.object({ outcome: z.literal('refused'), path: z.string(), message: z.string() }),
  /**
   * The record does not open under the property, mode and token id its row names (a row moved to
   * another property, or tampered with): nothing was sent, and the key is free again.
   */
  z.object({ outcome: z.literal('record_does_not_open') }),
  ZKeysUnavailable,
]);
export type TForwardCardResult = z.output<typeof ZForwardCardResult>;

export const forwardCardJob = {
  name: 'forward-card-token',
  queue: QUEUE_NAMES.forward,
  // 2: signed by the API (vault-job-common.ts); a version-1 job is refused as unsigned.
  version: 2,
  signed: true,
  payload: ZForwardCardPayload,
  result: ZForwardCardResult,
  // A retry is safe: an attempt that got as far as the gateway is recorded before the call, so a
  // re-run answers outcome_unknown instead of calling again. Results hold the masked answer only.
  options: VAULT_JOB_OPTIONS,
} as const satisfies TJobDefinition;
