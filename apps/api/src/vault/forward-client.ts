// The API's side of a forward (docs/vault.md#forward-to-a-payment-gateway): it checks the request
// against the destination (configured, in the token's mode, method and path allowed; the template
// rules are the body schema's) and runs the forward job, which holds no card data. It never sees
// the card nor the destination's credentials; it waits the destination's time-out plus the vault's
// own wait, so a gateway that answers in time is answered.

import { v7 as uuidv7 } from 'uuid';
import { AppError } from '@folio-vault/shared/errors';
import { destinationRefusal, findDestination, type TForwardDestination } from '@folio-vault/shared/vault/forward/destinations';
import { forwardCardJob, type TForwardCardResult } from '@folio-vault/shared/vault/forward/forward-job';
import type { TForwardRequest, TForwardResponse } from '@folio-vault/shared/vault/forward/schemas';
import type { TJobSigner } from '@folio-vault/shared/vault/job-signature';
import type { TTokenizationMode } from '@folio-vault/shared/vault/schemas';
import type { JobWaiter } from '../jobs/job-waiter.js';
import { keysUnavailable, signedPayload, type TUnsignedPayload } from './signed-jobs.js';

interface TForwardRef {
  propertyId: string;
  mode: TTokenizationMode;
  requestId: string;
  idempotencyKey: string;
}

/**
 * How a forward ended: the gateway's answer, or the error to answer; either way what the audit
 * trail records of the gateway (its status, how long the call took), when it was reached.
 */
export type TForwarded =
  | { answer: TForwardResponse; gateway: { gatewayStatus: number; durationMs: number } }
  | { error: AppError; gateway: { durationMs?: number } };

const invalid = (path: string, message: string) => AppError.invalid([{ path, message }], `${path}: ${message}.`);

export class ForwardClient {
  constructor(
    private readonly waiter: JobWaiter,
    private readonly destinations: readonly TForwardDestination[],
    private readonly waitMs: number,
    private readonly signer: TJobSigner,
  ) {}

  /** The destination a request may use, or 400 at the field that is wrong. */
  check(request: TForwardRequest, mode: TTokenizationMode): TForwardDestination {
    const destination = findDestination(this.destinations, request.destination);
    // The name is not echoed: it came from outside and could be anything.
    if (!destination) throw invalid('destination', 'is not a configured destination');
    const refusal = destinationRefusal(destination, request, mode);
    if (refusal) throw invalid(refusal.path, refusal.message);
    return destination;
  }

  /** Runs the forward to `destination`, which check() answered for this request. */
  async forward(tokenId: string, request: TForwardRequest, destination: TForwardDestination, ref: TForwardRef): Promise<TForwarded> {
    const forwardId = uuidv7();
    const payload: TUnsignedPayload<typeof forwardCardJob.name> = {
      version: 2,
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
    const timeoutMs = destination.timeoutMs + this.waitMs;
    const signed = await signedPayload(this.signer, forwardCardJob.name, payload, timeoutMs);
    try {
      value = await this.waiter.run(forwardCardJob.name, signed, { jobId: forwardId, timeoutMs, jobOptions: forwardCardJob.options });
    } catch (error) {
      // The job may still run (it waited behind slow gateways, or its result was lost): say how to retry safely.
      if (error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE') {
        const unavailable = AppError.unavailable(
          'The forward has no answer yet and may still be sent. Retry with the same Idempotency-Key and body: ' +
            'the answer is then the recorded one (or 409 FORWARD_OUTCOME_UNKNOWN), never a second call.',
          error.retryAfterSeconds,
        ).withCause(error);
        return { error: unavailable, gateway: {} };
      }
      throw error;
    }
    return forwardedOf(forwardCardJob.result.parse(value));
  }
}

/** The job's outcome as the client's answer, or the contract's error. */
function forwardedOf(result: TForwardCardResult): TForwarded {
  switch (result.outcome) {
    case 'forwarded':
      return { answer: result.answer, gateway: { gatewayStatus: result.answer.status, durationMs: result.answer.duration_ms } };
    case 'gateway_error':
      return { error: new AppError(result.code, result.details), gateway: { durationMs: result.durationMs } };
    case 'idempotency_key_reused':
      return failed(new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different forward request.'));
    case 'outcome_unknown':
      return failed(
        new AppError(
          'FORWARD_OUTCOME_UNKNOWN',
          `An earlier forward with this Idempotency-Key (forward ${result.forwardId}) has no recorded answer: it is still in flight, ` +
            'its worker stopped mid-call, or its answer is past retention. It may have reached the gateway, so it is never sent again; ' +
            'retry later for a recorded answer, or reconcile with the gateway, which received the same Idempotency-Key.',
        ),
      );
    case 'not_found':
      return failed(AppError.notFound('The token'));
    case 'cvv_not_available':
      return failed(
        new AppError(
          'CVV_NOT_AVAILABLE',
          'The template asks for {{card.cvv}} and no CVV is held for this token: a CVV serves one forward and is held for VAULT_CVV_HOLD_SECONDS after tokenization.',
        ),
      );
    case 'destination_unknown':
      return failed(AppError.unavailable('The workers do not have this destination configured yet; retry shortly.', 5));
    case 'refused':
      return failed(invalid(result.path, result.message));
    case 'not_sent':
      // The destination's configuration or the template holds what the HTTP client will not send.
      return failed(new AppError('GATEWAY_UNREACHABLE', `${result.details}; nothing was sent, and the Idempotency-Key is free again.`));
    case 'record_does_not_open':
      // The stored record is not this property's (moved, or tampered with): a fault of the vault's
      // data, not the client's, logged by the worker with the token. Nothing was sent.
      return failed(new AppError('UNEXPECTED_ERROR', 'An unexpected error occurred; it has been logged.'));
    case 'keys_unavailable':
      return failed(keysUnavailable());
  }
}

const failed = (error: AppError): TForwarded => ({ error, gateway: {} });
