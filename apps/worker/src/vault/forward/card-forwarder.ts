// The worker's side of a forward (docs/vault.md#forward-to-a-payment-gateway): at most one call
// toward the gateway per Idempotency-Key. One transaction, under the record's row lock and the
// key's primary key, answers an earlier attempt of the key (its recorded answer, or
// outcome_unknown), or records this attempt `started` and takes the held CVV out when the template
// asks for it; it commits before the call. Then the card is opened, the template filled, the destination called,
// the answer masked and recorded. A re-run that finds `started` without an answer (its worker died
// mid-call) answers outcome_unknown and never calls again.

import type { z } from 'zod';
import type { TMetrics } from '@folio-vault/shared/metrics';
import { destinationRefusal, type TResolvedDestination } from '@folio-vault/shared/vault/forward/destinations';
import type { TForwardCardResult, ZForwardCardPayload } from '@folio-vault/shared/vault/forward/forward-job';
import { clientAnswer } from '@folio-vault/shared/vault/forward/answer';
import { maskSecrets, type TMaskedSecrets } from '@folio-vault/shared/vault/forward/mask';
import { cardValues, substitute, templateProblems, usesCvv } from '@folio-vault/shared/vault/forward/template';
import type { Logger } from '@folio-vault/shared/logger';
import { RecordDoesNotOpenError, type CardVault, type TOpenedCard } from '../card-vault.js';
import type { CardRepository, TCardRow, TSealedRecordRow } from '../card-repository.js';
import { GatewayError, NotSentError, type GatewayClients } from './gateway-client.js';
import type { ForwardAttempts, TRecordedForward } from './forward-attempts.js';

type TForwardPayload = z.output<typeof ZForwardCardPayload>;
type TRecord = TSealedRecordRow & TCardRow;
type TNotSent = Extract<TForwardCardResult, { outcome: 'not_sent' }>;
interface TPrepared {
  filled: { path: string; body?: string };
  secrets: TMaskedSecrets;
}

/** The metric's `result` of a failed call: every 502 but an answer over the cap is `unreachable`. */
const OBSERVED_FAILURE: Record<GatewayError['code'], string> = {
  GATEWAY_TIMEOUT: 'timeout',
  GATEWAY_UNREACHABLE: 'unreachable',
  FORWARD_ANSWER_TOO_LARGE: 'too_large',
};

/**
 * The key the gateway receives: the property's id before the client's key. A destination's gateway
 * account is shared by every property, while the vault binds keys per property: unprefixed, two
 * properties' charges under one key would be one charge to the gateway.
 */
export function gatewayIdempotencyKey(propertyId: string, key: string): string {
  return `${propertyId}:${key}`;
}

export class CardForwarder {
  private readonly destinations: Map<string, TResolvedDestination>;

  constructor(
    private readonly vault: CardVault,
    /** The cards' SQL, for the one transaction before the call (begin). */
    private readonly cards: CardRepository,
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
    const refusal = destinationRefusal(destination, payload, payload.mode) ?? templateProblems(payload)[0];
    if (refusal) return { outcome: 'refused', ...refusal };
    const begun = await this.begin(payload);
    if (!('record' in begun)) return begun;
    let prepared: TPrepared;
    try {
      prepared = await this.prepare(payload, begun.record, begun.cvvCt);
    } catch (error) {
      // Nothing was sent: the key is free again (the CVV, taken out, stays used).
      await this.attempts.release(payload.mode, payload.propertyId, payload.idempotencyKey, payload.forwardId);
      if (!(error instanceof RecordDoesNotOpenError)) throw error;
      // Never retried: the record will not open under this row's property on another attempt either.
      const { tokenId, propertyId, mode } = payload;
      this.logger.error({ tokenId, propertyId, mode, reason: error.reason }, 'record does not open under its property');
      return { outcome: 'record_does_not_open' };
    }
    const result = await this.call(payload, destination, prepared);
    if (result.outcome === 'not_sent') return result;
    try {
      await this.record(payload, result);
    } catch (error) {
      // The call was made: its answer goes to the caller even when it cannot be recorded (a replay
      // then answers outcome_unknown, which is true to what the vault knows). Never a retry.
      this.logger.error({ err: { message: (error as Error).message }, forwardId: payload.forwardId }, 'forward answer not recorded');
    }
    return result;
  }

  /**
   * Before the call, in one transaction: the record locked, the attempt recorded `started` (unless
   * the key has one), the held CVV taken out when the template asks for it, the token marked used
   * (last_used_at: its card is opened to be sent). Answers, in this order:
   * an earlier attempt of the key (its recorded answer, idempotency_key_reused or outcome_unknown;
   * a replay of a token deleted since still gets its recorded answer), not_found,
   * cvv_not_available (the attempt dropped, nothing sent), or the record and CVV to send with.
   */
  private async begin(payload: TForwardPayload): Promise<TForwardCardResult | { record: TRecord; cvvCt?: Buffer }> {
    const { mode, propertyId, idempotencyKey: key, tokenId, forwardId } = payload;
    const digest = await this.vault.requestDigest('forward', {
      tokenId, destination: payload.destination, method: payload.method, path: payload.path, headers: payload.headers, body: payload.body,
    });
    return this.cards.transaction(async (client) => {
      const earlier = async () => {
        const previous = await this.attempts.find(client, mode, propertyId, key);
        if (!previous) return undefined;
        if (previous.request_digest !== digest) return { outcome: 'idempotency_key_reused' as const };
        if (previous.state === 'done' && previous.answer) return previous.answer;
        return { outcome: 'outcome_unknown' as const, forwardId: previous.forward_id };
      };
      const record = await this.cards.lockCurrentRecord(client, mode, propertyId, tokenId);
      if (!record) return (await earlier()) ?? { outcome: 'not_found' as const };
      const attempt = { propertyId, idempotencyKey: key, requestDigest: digest, forwardId, tokenId, destination: payload.destination, method: payload.method };
      if (!(await this.attempts.start(client, mode, attempt))) return (await earlier())!;
      let cvvCt: Buffer | undefined;
      if (usesCvv(payload)) {
        // Taken whatever follows; one past its time is taken too, and never used.
        const held = await this.cards.takeHeldCvv(client, mode, tokenId);
        if (!held?.live) {
          await this.attempts.release(mode, propertyId, key, forwardId, client);
          return { outcome: 'cvv_not_available' as const };
        }
        cvvCt = held.cvvCt;
      }
      await this.cards.markUsed(client, mode, tokenId);
      return { record, ...(cvvCt ? { cvvCt } : {}) };
    });
  }

  /** After the call: the answer recorded, for replays of the key. */
  private record(payload: TForwardPayload, result: TRecordedForward): Promise<void> {
    return this.attempts.finish(payload.mode, { propertyId: payload.propertyId, key: payload.idempotencyKey, forwardId: payload.forwardId }, result);
  }

  /** Opens the card and fills the template: the card exists in clear from here to the end of call(). */
  private async prepare(payload: TForwardPayload, record: TRecord, cvvCt: Buffer | undefined): Promise<TPrepared> {
    const card: TOpenedCard = await this.vault.openRecord(payload.mode, record, cvvCt);
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

  /** Sends, and keeps of the answer what the destination's allowlist names, masked (answer.ts). */
  private async call(payload: TForwardPayload, destination: TResolvedDestination, { filled, secrets }: TPrepared): Promise<TRecordedForward | TNotSent> {
    const started = performance.now();
    try {
      const answer = await this.gateways.send(payload.destination, {
        method: payload.method,
        path: filled.path,
        headers: { ...payload.headers, 'idempotency-key': gatewayIdempotencyKey(payload.propertyId, payload.idempotencyKey) },
        ...(filled.body !== undefined ? { body: filled.body } : {}),
      });
      this.observe(payload.destination, `${Math.floor(answer.status / 100)}xx`, answer.durationMs);
      return {
        outcome: 'forwarded',
        answer: {
          forward_id: payload.forwardId,
          destination: payload.destination,
          status: answer.status,
          ...(await clientAnswer(destination.answer, answer, secrets)),
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
      this.observe(payload.destination, OBSERVED_FAILURE[error.code], durationMs);
      const details = maskSecrets(error.message, secrets) ?? 'the payment gateway call failed';
      return { outcome: 'gateway_error', forwardId: payload.forwardId, code: error.code, details, durationMs };
    }
  }

  private observe(destination: string, result: string, durationMs: number): void {
    this.metrics?.forwardDuration.observe({ destination, result }, durationMs / 1000);
  }
}
