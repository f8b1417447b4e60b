import { v7 as uuidv7 } from 'uuid';
import { AppError } from '@folio-vault/shared/errors';
import { findDestination, pathAllowed, type TForwardDestination } from '@folio-vault/shared/vault/forward/destinations';
import type { z } from 'zod';
import { forwardCardJob, type TForwardCardResult, type ZForwardCardPayload } from '@folio-vault/shared/vault/forward/forward-job';
import type { TForwardRequest, TForwardResponse } from '@folio-vault/shared/vault/forward/schemas';
import type { TTokenizationMode } from '@folio-vault/shared/vault/schemas';
import type { TAuditCaller } from '@folio-vault/shared/vault/vault-job-common';
import type { JobWaiter } from '../jobs/job-waiter.js';

interface TForwardRef {
  propertyId: string;
  mode: TTokenizationMode;
  requestId: string;
  idempotencyKey: string;
  /** Who asked, for the success event the worker writes with the answer (subject PAN-masked). */
  audit: TAuditCaller;
}

/** What the audit trail records of a forward once it has an outcome (never card data). */
export interface TForwardOutcome {
  gatewayStatus?: number;
  durationMs?: number;
}

/** The caller's answer, and whether its audit event is written already (by the worker). */
export interface TForwarded {
  answer: TForwardResponse;
  audited: boolean;
}

const invalid = (path: string, message: string) => AppError.invalid([{ path, message }], `${path}: ${message}.`);

/**
 * The API's side of a forward (docs/vault.md#forward-to-a-payment-gateway): it checks the request
 * against the destination (configured, in the token's mode, method and path allowed; the template
 * rules are the body schema's) and runs the forward job, which holds no card data. It never sees
 * the card nor the destination's credentials; it waits the destination's time-out plus the vault's
 * own wait, so a gateway that answers in time is answered.
 */
export class ForwardClient {
  constructor(
    private readonly waiter: JobWaiter,
    private readonly destinations: readonly TForwardDestination[],
    private readonly waitMs: number,
  ) {}

  /** The destination a request may use, or 400 at the field that is wrong. */
  check(request: TForwardRequest, mode: TTokenizationMode): TForwardDestination {
    const destination = findDestination(this.destinations, request.destination);
    // The name is not echoed: it came from outside and could be anything.
    if (!destination) throw invalid('destination', 'is not a configured destination');
    if (!destination.modes.includes(mode)) {
      throw invalid('destination', `takes ${destination.modes.join(' and ')} tokens only, not ${mode} ones`);
    }
    if (!destination.methods.includes(request.method)) {
      throw invalid('method', `is not allowed for this destination (allowed: ${destination.methods.join(', ')})`);
    }
    if (!pathAllowed(destination, request.path)) throw invalid('path', 'is not among the paths this destination allows');
    return destination;
  }

  /** Runs the forward to `destination`, which check() answered for this request. */
  async forward(
    tokenId: string,
    request: TForwardRequest,
    destination: TForwardDestination,
    ref: TForwardRef,
    outcome: TForwardOutcome,
  ): Promise<TForwarded> {
    const forwardId = uuidv7();
    const payload: z.input<typeof ZForwardCardPayload> = {
      version: 1,
      tokenId,
      forwardId,
      ...ref,
      destination: destination.name,
      method: request.method,
      path: request.path,
      headers: request.headers ?? {},
      ...(request.body !== undefined ? { body: request.body } : {}),
    };
    let value: unknown;
    try {
      const options = { jobId: forwardId, timeoutMs: destination.timeoutMs + this.waitMs, jobOptions: forwardCardJob.options };
      value = await this.waiter.run(forwardCardJob.name, payload, options);
    } catch (error) {
      // The job may still run (it waited behind slow gateways, or its result was lost): say how to retry safely.
      if (error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE') {
        throw AppError.unavailable(
          'The forward has no answer yet and may still be sent. Retry with the same Idempotency-Key and body: ' +
            'the answer is then the recorded one (or 409 FORWARD_OUTCOME_UNKNOWN), never a second call.',
          error.retryAfterSeconds,
        ).withCause(error);
      }
      throw error;
    }
    return answerOf(forwardCardJob.result.parse(value), outcome);
  }
}

/** The job's outcome as the client's answer, or the contract's error. */
function answerOf(result: TForwardCardResult, outcome: TForwardOutcome): TForwarded {
  switch (result.outcome) {
    case 'forwarded':
      outcome.gatewayStatus = result.answer.status;
      outcome.durationMs = result.answer.duration_ms;
      return { answer: result.answer, audited: result.audited === true };
    case 'gateway_error':
      outcome.durationMs = result.durationMs;
      throw new AppError(result.code, result.details);
    case 'idempotency_key_reused':
      throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different forward request.');
    case 'outcome_unknown':
      throw new AppError(
        'FORWARD_OUTCOME_UNKNOWN',
        `An earlier forward with this Idempotency-Key (forward ${result.forwardId}) has no recorded answer: it is still in flight, ` +
          'its worker stopped mid-call, or its answer is past retention. It may have reached the gateway, so it is never sent again; ' +
          'retry later for a recorded answer, or reconcile with the gateway, which received the same Idempotency-Key.',
      );
    case 'not_found':
      throw AppError.notFound('The token');
    case 'cvv_not_available':
      throw new AppError(
        'CVV_NOT_AVAILABLE',
        'The template asks for {{card.cvv}} and no CVV is held for this token: a CVV serves one forward and is held for VAULT_CVV_HOLD_SECONDS after tokenization.',
      );
    case 'destination_unknown':
      throw AppError.unavailable('The workers do not have this destination configured yet; retry shortly.', 5);
    case 'refused':
      throw invalid(result.path, result.message);
    case 'not_sent':
      // The destination's configuration or the template holds what the HTTP client will not send.
      throw new AppError('GATEWAY_UNREACHABLE', `${result.details}; nothing was sent, and the Idempotency-Key is free again.`);
  }
}
