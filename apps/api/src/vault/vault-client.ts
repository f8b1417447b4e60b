import { v7 as uuidv7 } from 'uuid';
import { AuditLog } from '@folio-vault/shared/vault/audit-log';
import { isPublicTestCard } from '@folio-vault/shared/vault/card/test-cards';
import type { TPgPool } from '@folio-vault/shared/connections';
import type { TKeyring } from '@folio-vault/shared/vault/crypto/keyring';
import { sealTransit, transitAad } from '@folio-vault/shared/vault/crypto/transit';
import { AppError } from '@folio-vault/shared/errors';
import { deleteCardTokenJob } from '@folio-vault/shared/vault/delete-card-token-job';
import { readCardTokenJob } from '@folio-vault/shared/vault/read-card-token-job';
import { tokenizeCardJob, type TSealedCard } from '@folio-vault/shared/vault/tokenize-card-job';
import { JOBS, type TJobName, type TJobPayload, type TJobResult, type TJobs } from '@folio-vault/shared/jobs/registry';
import type {
  TCardTokenMetadata,
  TTokenizationMode,
  TTokenizeCardRequest,
  TTokenizeCardResponse,
} from '@folio-vault/shared/vault/schemas';
import type { JobWaiter } from '../jobs/job-waiter.js';
import { GatewayModes } from './gateway-mode.js';

interface TTokenRef {
  propertyId: string;
  mode: TTokenizationMode;
  requestId: string;
}

/**
 * The API's side of the vault: it checks what needs the clear card (validation is done by the
 * route's schema; the live-mode test-card rule here), seals the card with the transit key, drops
 * the CVV, and runs the job. It holds no key-encryption key and runs no SQL against the vault.
 */
export class VaultClient {
  /** The vault's audit trail; written by the API, which knows the caller (vault-audit.ts). */
  readonly audit: AuditLog;
  private readonly gatewayModes: GatewayModes;

  constructor(
    private readonly waiter: JobWaiter,
    private readonly pool: TPgPool,
    private readonly transit: TKeyring,
    private readonly waitMs: number,
  ) {
    this.audit = new AuditLog(pool);
    this.gatewayModes = new GatewayModes(pool);
  }

  async tokenize(
    card: TTokenizeCardRequest,
    ref: TTokenRef & { idempotencyKey?: string },
  ): Promise<TTokenizeCardResponse> {
    const knownMode = await this.gatewayModes.find(ref.propertyId);
    if (knownMode && knownMode !== ref.mode) {
      throw new AppError(
        'TOKENIZATION_MODE_MISMATCH',
        `The property's gateway is in ${knownMode} mode; ${knownMode === 'test' ? 'send SVC-Tokenization-Mode: test' : 'omit SVC-Tokenization-Mode'}.`,
      );
    }
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
    };
    const result = await this.run(tokenizeCardJob.name, {
      version: 1,
      tokenId,
      propertyId: ref.propertyId,
      mode: ref.mode,
      requestId: ref.requestId,
      sealedCard: sealTransit(this.transit, sealed, transitAad({ tokenId, propertyId: ref.propertyId, mode: ref.mode })),
      ...(ref.idempotencyKey ? { idempotencyKey: ref.idempotencyKey } : {}),
    }, tokenId);
    if (result.outcome === 'idempotency_key_reused') {
      throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request body.');
    }
    return result.token;
  }

  async read(tokenId: string, ref: TTokenRef): Promise<TCardTokenMetadata> {
    const result = await this.run(readCardTokenJob.name, { version: 1, tokenId, ...ref }, uuidv7());
    if (result.outcome === 'not_found') throw AppError.notFound('The token');
    return result.token;
  }

  async delete(tokenId: string, ref: TTokenRef): Promise<void> {
    const result = await this.run(deleteCardTokenJob.name, { version: 1, tokenId, ...ref }, uuidv7());
    if (result.outcome === 'not_found') throw AppError.notFound('The token');
  }

  private async run<N extends TJobName>(name: N, payload: TJobPayload<N>, jobId: string): Promise<TJobResult<N>> {
    const definition: TJobs[N] = JOBS[name];
    const value = await this.waiter.run(name, payload, {
      jobId,
      timeoutMs: this.waitMs,
      jobOptions: definition.options,
    });
    return definition.result.parse(value) as TJobResult<N>;
  }
}
