import { v7 as uuidv7 } from 'uuid';
import { isPublicTestCard } from '@folio-vault/shared/vault/card/test-cards';
import type { TKeyring } from '@folio-vault/shared/vault/crypto/keyring';
import { sealTransit, transitAad } from '@folio-vault/shared/vault/crypto/transit';
import { AppError } from '@folio-vault/shared/errors';
import { deleteCardTokenJob } from '@folio-vault/shared/vault/delete-card-token-job';
import { readCardTokenJob } from '@folio-vault/shared/vault/read-card-token-job';
import { tokenizeCardJob, type TSealedCard } from '@folio-vault/shared/vault/tokenize-card-job';
import { searchCardTokensJob } from '@folio-vault/shared/vault/search-card-tokens-job';
import { cardTokenLabelsJob, MAX_LABEL_TOKEN_IDS } from '@folio-vault/shared/vault/card-token-labels-job';
import type { TForwardDestination } from '@folio-vault/shared/vault/forward/destinations';
import { JOBS, type TJobName, type TJobResult, type TJobs } from '@folio-vault/shared/jobs/registry';
import type { TJobSigner } from '@folio-vault/shared/vault/job-signature';
import type {
  TCardTokenMetadata,
  TTokenizationMode,
  TTokenizeCardRequest,
  TTokenizeCardResponse,
} from '@folio-vault/shared/vault/schemas';
import type { JobWaiter } from '../jobs/job-waiter.js';
import { ForwardClient } from './forward-client.js';
import { keysUnavailable, signedPayload, type TUnsignedPayload } from './signed-jobs.js';

export interface TTokenRef {
  propertyId: string;
  mode: TTokenizationMode;
  requestId: string;
}

export interface TVaultClientOptions {
  /** The vault queue's waiter (tokenize, read, delete, search) and the forward queue's. */
  waiter: JobWaiter;
  forwardWaiter: JobWaiter;
  /** The workers' public transit keys (VAULT_TRANSIT_PUBLIC_KEYS): what is sealed to them opens only in a worker. */
  transit: TKeyring;
  /** The API's job signing key: every vault job carries its signature (docs/security.md#jobs-only-the-api-can-ask-for). */
  signer: TJobSigner;
  /** TOKENIZE_WAIT_MS: how long a vault request waits for its job. */
  waitMs: number;
  /** VAULT_CVV_HOLD_SECONDS: 0 drops the CVV here; otherwise it travels sealed for the worker to hold. */
  cvvHoldSeconds: number;
  /** VAULT_SHRED_AFTER_EXPIRY_DAYS: a token ends at the latest this long after its card's expiry month. */
  shredAfterExpiryDays: number;
  destinations: readonly TForwardDestination[];
  /** The property's gateway mode when its imported data knows it, read for each request; undefined otherwise. */
  gatewayModeOf: (propertyId: string) => Promise<TTokenizationMode | undefined>;
}

const DAY_MS = 86_400_000;

/** A vault job's result once `keys_unavailable` has become its 503. */
/** What the vault tells of a card token: brand code, first six and last four. */
export interface TCardTokenLabels {
  creditCardType: string;
  cardTrailingDigits: string;
  first6?: string;
}

type TAnswered<N extends TJobName> = Exclude<TJobResult<N>, { outcome: 'keys_unavailable' }>;

/**
 * The API's side of the vault: it checks what needs the clear card (validation is done by the
 * route's schema; the live-mode test-card rule here), seals the card to the workers' public transit key, drops
 * the CVV, and runs the job. It holds no key-encryption key and runs no SQL against the vault.
 */
export class VaultClient {
  /** Forwards to payment gateways (forward-client.ts). */
  readonly forwards: ForwardClient;

  constructor(private readonly options: TVaultClientOptions) {
    this.forwards = new ForwardClient(options.forwardWaiter, options.destinations, options.waitMs, options.signer);
  }

  /** The mode check of tokenize, for every request that names a property's mode. */
  async checkMode(propertyId: string, mode: TTokenizationMode): Promise<void> {
    const knownMode = await this.options.gatewayModeOf(propertyId);
    if (knownMode && knownMode !== mode) {
      throw new AppError(
        'TOKENIZATION_MODE_MISMATCH',
        `The property's gateway is in ${knownMode} mode; ${knownMode === 'test' ? 'send SVC-Tokenization-Mode: test' : 'omit SVC-Tokenization-Mode'}.`,
      );
    }
  }

  /**
   * The token's end: the body's `expires_at`, or the latest allowed — VAULT_SHRED_AFTER_EXPIRY_DAYS
   * after the end of the card's expiry month (UTC). A later `expires_at` is refused.
   */
  private expiresAt(card: TTokenizeCardRequest): string {
    const cardEnd = Date.UTC(Number(card.expiration.year), Number(card.expiration.month)) + this.options.shredAfterExpiryDays * DAY_MS;
    if (card.expires_at === undefined) return new Date(cardEnd).toISOString();
    const asked = Date.parse(card.expires_at);
    if (asked > cardEnd) {
      const latest = new Date(cardEnd).toISOString();
      throw AppError.invalid(
        [{ path: 'expires_at', message: `must not be after ${latest} (the card's expiry month plus ${this.options.shredAfterExpiryDays} days)` }],
        `expires_at: must not be after ${latest}, the end of the card's expiry month plus ${this.options.shredAfterExpiryDays} days.`,
      );
    }
    return new Date(asked).toISOString();
  }

  /** The new token, or the earlier one of an Idempotency-Key replay. */
  async tokenize(card: TTokenizeCardRequest, ref: TTokenRef & { idempotencyKey?: string }): Promise<TTokenizeCardResponse> {
    const expiresAt = this.expiresAt(card);
    await this.checkMode(ref.propertyId, ref.mode);
    if (ref.mode === 'live' && isPublicTestCard(card.card_number)) {
      throw new AppError('TEST_CARD_IN_LIVE_MODE', 'A public test card number cannot be tokenized in live mode.');
    }
    const tokenId = uuidv7();
    const sealed: TSealedCard = {
      card_number: card.card_number,
      card_brand: card.card_brand,
      cardholder_name: card.cardholder_name,
      expiration: card.expiration,
      ...(card.billing_details ? { billing_details: card.billing_details as Record<string, string> } : {}),
      // Held for a first forward (docs/vault.md#cvv-hold): sealed like the card, never anywhere else.
      ...(this.options.cvvHoldSeconds > 0 ? { cvv: card.cvv } : {}),
    };
    const result = await this.run(tokenizeCardJob.name, {
      version: 2,
      tokenId,
      propertyId: ref.propertyId,
      mode: ref.mode,
      requestId: ref.requestId,
      sealedCard: await sealTransit(this.options.transit, sealed, transitAad({ tokenId, propertyId: ref.propertyId, mode: ref.mode })),
      expiresAt,
      ...(ref.idempotencyKey ? { idempotencyKey: ref.idempotencyKey } : {}),
    }, tokenId);
    if (result.outcome === 'idempotency_key_reused') {
      throw new AppError(
        'IDEMPOTENCY_KEY_REUSED',
        result.tokenGone
          ? "This Idempotency-Key's token has been deleted or has expired since; tokenize again with a new key."
          : 'This Idempotency-Key was used with a different request body.',
      );
    }
    return result.token;
  }

  async read(tokenId: string, ref: TTokenRef): Promise<TCardTokenMetadata> {
    const result = await this.run(readCardTokenJob.name, { version: 2, tokenId, ...ref }, uuidv7());
    if (result.outcome === 'not_found') throw AppError.notFound('The token');
    return result.token;
  }

  async search(fingerprint: string, ref: TTokenRef): Promise<TCardTokenMetadata[]> {
    const result = await this.run(searchCardTokensJob.name, { version: 2, fingerprint, ...ref }, uuidv7());
    return result.tokens;
  }

  /**
   * The creditCardType, first six and last four of those of `tokenIds` that are current tokens of the
   * property, test or live (a ledger import's card payments, an invoice's payment means): asked of
   * the vault workers, in jobs of at most MAX_LABEL_TOKEN_IDS ids. An id missing from the answer
   * names no such token.
   */
  async cardLabels(propertyId: string, tokenIds: string[], requestId: string): Promise<Map<string, TCardTokenLabels>> {
    const labels = new Map<string, TCardTokenLabels>();
    for (let i = 0; i < tokenIds.length; i += MAX_LABEL_TOKEN_IDS) {
      const payload = { version: 2 as const, propertyId, requestId, tokenIds: tokenIds.slice(i, i + MAX_LABEL_TOKEN_IDS) };
      const result = await this.run(cardTokenLabelsJob.name, payload, uuidv7());
      for (const { id, ...label } of result.tokens) labels.set(id, label);
    }
    return labels;
  }

  async delete(tokenId: string, ref: TTokenRef): Promise<void> {
    const result = await this.run(deleteCardTokenJob.name, { version: 2, tokenId, ...ref }, uuidv7());
    if (result.outcome === 'not_found') throw AppError.notFound('The token');
  }

  /** Signs and runs a vault job; its result, or 503 naming the keys when the worker could not use them. */
  private async run<N extends TJobName>(name: N, payload: TUnsignedPayload<N>, jobId: string): Promise<TAnswered<N>> {
    const definition: TJobs[N] = JOBS[name];
    const value = await this.options.waiter.run(name, await signedPayload(this.options.signer, name, payload, this.options.waitMs), {
      jobId,
      timeoutMs: this.options.waitMs,
      jobOptions: definition.options,
    });
    const result = definition.result.parse(value) as TJobResult<N>;
    if ((result as { outcome?: unknown }).outcome === 'keys_unavailable') throw keysUnavailable();
    return result as TAnswered<N>;
  }
}
