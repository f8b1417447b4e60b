import type { z } from 'zod';
import type { TMetrics } from '@folio-vault/shared/metrics';
import { pathAllowed, type TResolvedDestination } from '@folio-vault/shared/vault/forward/destinations';
import type { TForwardCardResult, ZForwardCardPayload } from '@folio-vault/shared/vault/forward/forward-job';
import { maskHeaders, maskSecrets, type TMaskedSecrets } from '@folio-vault/shared/vault/forward/mask';
import { cardValues, substitute, templateProblems, usesCvv } from '@folio-vault/shared/vault/forward/template';
import type { Logger } from '@folio-vault/shared/logger';
import { successEventOf, type TAuditEvent } from '@folio-vault/shared/vault/audit-log';
import type { CardVault, TOpenedCard } from '../card-vault.js';
import type { TCardRow, TSealedRecordRow } from '../card-repository.js';
import { GatewayError, NotSentError, type GatewayClients } from './gateway-client.js';
import type { ForwardAttempts, TRecordedForward } from './forward-attempts.js';

type TForwardPayload = z.output<typeof ZForwardCardPayload>;
type TRecord = TSealedRecordRow & TCardRow;
type TNotSent = Extract<TForwardCardResult, { outcome: 'not_sent' }>;
/** Rounds of begin() before the job fails (and is retried): each lost to an attempt taken and released. */
const BEGIN_ROUNDS = 3;
interface TPrepared {
  filled: { path: string; body?: string };
  secrets: TMaskedSecrets;
}

/** A forward answered 200: its event, when the payload leaves it to the worker. */
function successEvent(payload: TForwardPayload, result: TRecordedForward): TAuditEvent | undefined {
  if (result.outcome !== 'forwarded') return undefined;
  return successEventOf(payload, {
    action: 'token.forward',
    tokenId: payload.tokenId,
    forward: { destination: payload.destination, method: payload.method, path: payload.path, gatewayStatus: result.answer.status, durationMs: result.answer.duration_ms },
  });
}

/** The destination's own rules and the template's, as the API checks them; undefined when all hold. */
function refusalOf(destination: TResolvedDestination, payload: TForwardPayload): { path: string; message: string } | undefined {
  if (!destination.modes.includes(payload.mode)) return { path: 'destination', message: `takes ${destination.modes.join(' and ')} tokens only` };
  if (!destination.methods.includes(payload.method)) return { path: 'method', message: 'is not allowed for this destination' };
  if (!pathAllowed(destination, payload.path)) return { path: 'path', message: 'is not among the paths this destination allows' };
  return templateProblems({ method: payload.method, path: payload.path, headers: payload.headers, body: payload.body })[0];
}

/**
 * The worker's side of a forward (docs/vault.md#forward-to-a-payment-gateway): exactly once toward
 * the gateway. One statement records "attempt started" (the key's primary key serializes
 * forwards with the same key), taking the held CVV out when the template asks for it; it commits
 * before the call. When no attempt was inserted, a replay is answered from the recorded attempt.
 * Then it opens the record, substitutes, calls the destination, masks the answer and records it.
 * A re-run that finds "started" without an answer (its worker died mid-call) answers
 * outcome_unknown and never calls again.
 */
export class CardForwarder {
  private readonly destinations: Map<string, TResolvedDestination>;

  constructor(
    private readonly vault: CardVault,
    private readonly attempts: ForwardAttempts,
    private readonly gateways: GatewayClients,
    destinations: readonly TResolvedDestination[],
    private readonly logger: Logger,
    private readonly metrics?: TMetrics,
  ) {
    this.destinations = new Map(destinations.map((destination) => [destination.name, destination]));
  }

  async forward(payload: TForwardPayload): Promise<TForwardCardResult> {
    const destination = this.destinations.get(payload.destination);
    if (!destination) return { outcome: 'destination_unknown' };
    // The worker is where the card is opened: it judges the request again, whatever the API (or
    // anything else that could write to the queue) let through.
    const refusal = refusalOf(destination, payload);
    if (refusal) return { outcome: 'refused', ...refusal };
    const begun = await this.begin(payload);
    if (!('record' in begun)) return begun;
    let prepared: TPrepared;
    try {
      prepared = this.prepare(payload, begun.record, begun.cvvCt);
    } catch (error) {
      // Nothing was sent: the key is free again (the CVV, taken out, stays used).
      await this.attempts.release(payload.mode, payload.propertyId, payload.idempotencyKey, payload.forwardId);
      throw error;
    }
    const result = await this.call(payload, prepared);
    if (result.outcome === 'not_sent') return result;
    // A gateway error is answered 502/504 and recorded by the API with its error code: no event here.
    const event = successEvent(payload, result);
    const attempt = { propertyId: payload.propertyId, key: payload.idempotencyKey, forwardId: payload.forwardId, tokenId: payload.tokenId };
    try {
      // The answer recorded, the card marked used and the success event written: one statement, one round trip.
      await this.attempts.finish(payload.mode, attempt, result, event);
    } catch (error) {
      // The call was made: its answer goes to the caller even when it cannot be recorded (a replay
      // then answers outcome_unknown, which is true to what the vault knows). Never a retry. The
      // API writes the event then (no `audited`).
      this.logger.error({ err: { message: (error as Error).message }, forwardId: payload.forwardId }, 'forward answer not recorded');
      return result;
    }
    // Not in the recorded answer: a replay answers it again and is an event of its own, the API's.
    return event && result.outcome === 'forwarded' ? { ...result, audited: true } : result;
  }

  /**
   * Before the call: an early answer, or the record (and CVV) to send with. The common case (a new
   * key) is one statement; a replay or a refusal reads the earlier attempt too. The order of the
   * answers is the transaction's this replaces: the earlier attempt first (a replay of a token
   * deleted since still answers its recorded answer), then not_found, then cvv_not_available.
   */
  private async begin(payload: TForwardPayload): Promise<TForwardCardResult | { record: TRecord; cvvCt?: Buffer }> {
    const { mode, propertyId, idempotencyKey: key, tokenId, forwardId } = payload;
    const digest = this.vault.requestDigest('forward', {
      tokenId, destination: payload.destination, method: payload.method, path: payload.path, headers: payload.headers, body: payload.body,
    });
    const needsCvv = usesCvv({ path: payload.path, body: payload.body });
    const attempt = { propertyId, idempotencyKey: key, requestDigest: digest, forwardId, tokenId, destination: payload.destination, method: payload.method };
    // A second round only when the key was taken and released (nothing sent) between the two statements.
    for (let round = 1; round <= BEGIN_ROUNDS; round += 1) {
      const begun = await this.attempts.begin(mode, attempt, needsCvv);
      if (begun.started && begun.record) {
        if (!needsCvv || begun.cvvCt) return { record: begun.record, ...(begun.cvvCt ? { cvvCt: begun.cvvCt } : {}) };
        // Another forward (another key) or a delete took the CVV after this statement's snapshot:
        // nothing is sent, the key is free again, as when the CVV was found gone.
        await this.attempts.release(mode, propertyId, key, forwardId);
        return { outcome: 'cvv_not_available' };
      }
      const previous = await this.attempts.find(mode, propertyId, key);
      if (previous && previous.request_digest !== digest) return { outcome: 'idempotency_key_reused' };
      if (previous?.state === 'done' && previous.answer) return previous.answer;
      if (previous) return { outcome: 'outcome_unknown', forwardId: previous.forward_id };
      if (!begun.record) return { outcome: 'not_found' };
      if (needsCvv && !begun.record.cvv_held_until) return { outcome: 'cvv_not_available' };
    }
    throw new Error(`forward ${forwardId}: its Idempotency-Key was taken and released again, ${BEGIN_ROUNDS} times`);
  }

  /** Opens the card and fills the template: the card exists in clear from here to the end of call(). */
  private prepare(payload: TForwardPayload, record: TRecord, cvvCt: Buffer | undefined): TPrepared {
    const card: TOpenedCard = this.vault.openRecord(payload.mode, record, cvvCt);
    const secrets = { pan: card.pan, holderName: card.holderName, ...(card.cvv ? { cvv: card.cvv } : {}) };
    const values = cardValues({
      pan: card.pan,
      ...(card.cvv ? { cvv: card.cvv } : {}),
      expMonth: record.exp_month,
      expYear: record.exp_year,
      holderName: card.holderName,
      brand: record.card_brand,
      ...(card.billing ? { billing: card.billing } : {}),
    });
    const filled = substitute({ method: payload.method, path: payload.path, headers: payload.headers, body: payload.body }, values);
    return { filled, secrets };
  }

  /** Sends and masks the answer. */
  private async call(payload: TForwardPayload, { filled, secrets }: TPrepared): Promise<TRecordedForward | TNotSent> {
    const started = performance.now();
    try {
      const answer = await this.gateways.send(payload.destination, {
        method: payload.method,
        path: filled.path,
        headers: { ...payload.headers, 'idempotency-key': payload.idempotencyKey },
        ...(filled.body !== undefined ? { body: filled.body } : {}),
      });
      this.observe(payload.destination, `${Math.floor(answer.status / 100)}xx`, answer.durationMs);
      return {
        outcome: 'forwarded',
        answer: {
          forward_id: payload.forwardId,
          destination: payload.destination,
          status: answer.status,
          headers: maskHeaders(answer.headers, secrets),
          // U+0000 (binary in an answer) cannot be stored in jsonb: it is U+FFFD for the caller and the record alike.
          body: maskSecrets(answer.body.replaceAll('\0', '\uFFFD'), secrets),
          duration_ms: answer.durationMs,
        },
      };
    } catch (error) {
      // Nothing left the worker: the attempt is released (the key is free again) and the job fails.
      if (error instanceof NotSentError) {
        await this.attempts.release(payload.mode, payload.propertyId, payload.idempotencyKey, payload.forwardId);
        return { outcome: 'not_sent', details: error.message };
      }
      if (!(error instanceof GatewayError)) throw error;
      const durationMs = Math.round(error.durationMs ?? performance.now() - started);
      this.observe(payload.destination, error.code === 'GATEWAY_TIMEOUT' ? 'timeout' : 'unreachable', durationMs);
      return { outcome: 'gateway_error', forwardId: payload.forwardId, code: error.code, details: maskSecrets(error.message, secrets), durationMs };
    }
  }

  private observe(destination: string, result: string, durationMs: number): void {
    this.metrics?.forwardDuration.observe({ destination, result }, durationMs / 1000);
  }
}
