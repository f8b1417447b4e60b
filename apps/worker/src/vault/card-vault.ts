import type { PoolClient } from 'pg';
import type { z } from 'zod';
import { maskName } from '@folio-vault/shared/vault/card/mask';
import { newDataKey, openField, sealField } from '@folio-vault/shared/vault/crypto/envelope';
import { canonicalJson, digestMessage, fingerprintMessage } from '@folio-vault/shared/vault/crypto/fingerprint';
import { openTransit, transitAad } from '@folio-vault/shared/vault/crypto/transit';
import { KeysUnavailableError, type TKeyProvider } from '@folio-vault/shared/vault/keys/key-provider';
import type { TJobResult } from '@folio-vault/shared/jobs/registry';
import { ZSealedCard, type TSealedCard, type ZTokenizeCardPayload } from '@folio-vault/shared/vault/tokenize-card-job';
import type { ZVaultJobBase } from '@folio-vault/shared/vault/vault-job-common';
import type { searchCardTokensJob } from '@folio-vault/shared/vault/search-card-tokens-job';
import type { cardTokenLabelsJob } from '@folio-vault/shared/vault/card-token-labels-job';
import { creditCardTypeOf, type TCardBrand } from '@folio-vault/shared/vault/card/brand';
import type { TCardTokenMetadata, TTokenizationMode } from '@folio-vault/shared/vault/schemas';
import type { CardRepository, TCardRow, TNewCardRow, TResealedRecord, TSealedRecordRow } from './card-repository.js';
import { IdempotencyKeys } from './idempotency-keys.js';
import { RECORD_BINDING, recordAad } from './record-binding.js';

type TTokenizePayload = z.output<typeof ZTokenizeCardPayload>;
type TTokenRef = z.output<typeof ZVaultJobBase>;

/** A record opened in the worker's memory, for the moment of a forward (or a re-fingerprint). */
export interface TOpenedCard {
  pan: string;
  holderName: string;
  billing?: Record<string, string>;
  cvv?: string;
}

/** A transit envelope that does not open (wrong key, tampered, replayed into another job). */
export class SealedCardError extends Error {
  constructor() {
    super('the sealed card could not be opened with the transit keys');
    this.name = 'SealedCardError';
  }
}

/**
 * A record that does not open under the property, mode and token id its row names (record-binding.ts):
 * moved into another property's row, tampered with, or under a key-encryption key these keys do not
 * hold. Whatever would have used it uses nothing.
 */
export class RecordDoesNotOpenError extends Error {
  constructor(readonly reason: string) {
    super('the record does not open under its property');
    this.name = 'RecordDoesNotOpenError';
  }
}

/** A PAN's fingerprint and the id of the key that computed it. */
export interface TFingerprint {
  value: string;
  keyId: string;
}

/** One batch of a pass over old records (record-passes.ts): rows seen, the last id, how many were done and how many did not open. */
export interface TBatchOutcome {
  seen: number;
  lastId?: string;
  done: number;
  unreadable: number;
}

/**
 * The only code that uses vault keys, through the worker's key provider. Tokenize opens the transit
 * envelope, fingerprints the PAN, seals PAN, name and billing details under a fresh data key wrapped
 * by the mode's KEK, and stores the record. Safe to run twice: the token id comes from the job.
 */
export class CardVault {
  private readonly idempotencyKeys = new IdempotencyKeys();

  constructor(
    private readonly repository: CardRepository,
    private readonly keys: TKeyProvider,
    /** VAULT_CVV_HOLD_SECONDS: how long a CVV that came with the card is held (0: dropped). */
    private readonly cvvHoldSeconds: number,
  ) {}

  /** A keyed digest of a request, for comparing an idempotent retry with the first (never reversible). */
  async requestDigest(purpose: string, request: unknown): Promise<string> {
    return (await this.keys.hmac(digestMessage(purpose, canonicalJson(request)))).toString('base64url');
  }

  /** The id of the key fingerprints are computed with now. */
  get fingerprintKeyId(): string {
    return this.keys.fingerprintKeyId;
  }

  /** The fingerprint of a PAN in a property (docs/vault.md#fingerprints). */
  async fingerprint(propertyId: string, pan: string): Promise<TFingerprint> {
    return { value: (await this.keys.hmac(fingerprintMessage(propertyId, pan))).toString('base64url'), keyId: this.keys.fingerprintKeyId };
  }

  /**
   * Opens a record's PAN, name and billing details (and a held CVV taken out of held_cvvs) with
   * its data key, under the associated data its row names; the data key is wiped before this
   * returns. Throws RecordDoesNotOpenError when the record does not open (KeysUnavailableError
   * when the keys cannot be used right now).
   */
  async openRecord(mode: TTokenizationMode, row: TSealedRecordRow, cvvCt?: Buffer): Promise<TOpenedCard> {
    const aad = recordAad(mode, row);
    const dataKey = await this.unwrap(mode, row);
    try {
      return {
        pan: openField(dataKey, row.pan_ct, `${aad}:pan`),
        holderName: openField(dataKey, row.cardholder_name_ct, `${aad}:cardholder_name`),
        ...(row.billing_details_ct
          ? { billing: JSON.parse(openField(dataKey, row.billing_details_ct, `${aad}:billing_details`)) as Record<string, string> }
          : {}),
        ...(cvvCt ? { cvv: openField(dataKey, cvvCt, `${aad}:cvv`) } : {}),
      };
    } catch (error) {
      throw new RecordDoesNotOpenError((error as Error).message);
    } finally {
      dataKey.fill(0);
    }
  }

  /** A record's data key, unwrapped under the associated data its row names. */
  private async unwrap(mode: TTokenizationMode, row: TSealedRecordRow): Promise<Buffer> {
    try {
      return await this.keys.unwrapDataKey(mode, { kekId: row.kek_id, wrapped: row.wrapped_dek }, recordAad(mode, row));
    } catch (error) {
      if (error instanceof KeysUnavailableError) throw error;
      throw new RecordDoesNotOpenError((error as Error).message);
    }
  }

  private async openCard(payload: TTokenizePayload): Promise<TSealedCard> {
    try {
      return ZSealedCard.parse(await openTransit(this.keys.transitKeys, payload.sealedCard, transitAad(payload)));
    } catch {
      throw new SealedCardError();
    }
  }

  async tokenize(payload: TTokenizePayload): Promise<TJobResult<'tokenize-card'>> {
    const card = await this.openCard(payload);
    const { mode, propertyId, tokenId } = payload;
    const fingerprint = await this.fingerprint(propertyId, card.card_number);
    const answer = (row: TCardRow) => ({
      outcome: 'tokenized' as const,
      token: {
        id: row.id,
        card_brand: row.card_brand as TCardBrand,
        last4: row.last4,
        expiration: { month: row.exp_month, year: row.exp_year },
        test_mode: mode === 'test',
      },
    });
    const found = async (id: string, client?: PoolClient) => {
      const row = await this.repository.findCard(mode, propertyId, id, client);
      if (!row) throw new Error('tokenized card not found after insert');
      return row;
    };

    if (!payload.idempotencyKey) {
      // A re-run of the job finds its record already there and reads it.
      return answer((await this.insert(undefined, payload, card, fingerprint)) ?? (await found(tokenId)));
    }
    const idempotencyKey = payload.idempotencyKey;
    return this.repository.transaction(async (client) => {
      // The CVV is not part of the comparison: it is never digested, and a retry may carry another.
      // The token's end is: the same card with another expires_at is another request.
      const { cvv: _cvv, ...compared } = card;
      const requestDigest = await this.requestDigest('idempotency', { ...compared, expires_at: payload.expiresAt });
      await this.idempotencyKeys.lock(client, mode, propertyId, idempotencyKey);
      const previous = await this.idempotencyKeys.find(client, mode, propertyId, idempotencyKey);
      if (previous && previous.request_digest !== requestDigest) return { outcome: 'idempotency_key_reused' as const };
      if (previous) {
        // The key's token deleted or past its end since: its id names nothing any more, and a new
        // token under the same key would be a second answer to one key (the contract's 409).
        const row = await found(previous.token_id, client);
        if (row.deleted_at || row.expires_at.getTime() <= Date.now()) return { outcome: 'idempotency_key_reused' as const, tokenGone: true as const };
        return answer(row);
      }
      const inserted = await this.insert(client, payload, card, fingerprint);
      await this.idempotencyKeys.save(client, mode, { propertyId, key: idempotencyKey, requestDigest, tokenId });
      return answer(inserted ?? (await found(tokenId, client)));
    });
  }

  /** The record sealed and inserted: in `client`'s transaction, or without one through the batcher. */
  private async insert(client: PoolClient | undefined, payload: TTokenizePayload, card: TSealedCard, fingerprint: TFingerprint): Promise<TCardRow | undefined> {
    const { mode, tokenId } = payload;
    const dataKey = newDataKey();
    const aad = recordAad(mode, { id: tokenId, property_id: payload.propertyId, record_binding: RECORD_BINDING });
    let sealed: TNewCardRow;
    try {
      const wrapped = await this.keys.wrapDataKey(mode, dataKey, aad);
      sealed = {
        id: tokenId,
        propertyId: payload.propertyId,
        cardBrand: card.card_brand,
        first6: card.card_number.slice(0, 6),
        last4: card.card_number.slice(-4),
        expMonth: card.expiration.month,
        expYear: card.expiration.year,
        cardholderNameMasked: maskName(card.cardholder_name),
        fingerprint: fingerprint.value,
        fingerprintKey: fingerprint.keyId,
        kekId: wrapped.kekId,
        wrappedDek: wrapped.wrapped,
        panCt: sealField(dataKey, card.card_number, `${aad}:pan`),
        cardholderNameCt: sealField(dataKey, card.cardholder_name, `${aad}:cardholder_name`),
        billingDetailsCt: card.billing_details
          ? sealField(dataKey, JSON.stringify(card.billing_details), `${aad}:billing_details`)
          : null,
        expiresAt: payload.expiresAt,
        cvvCt: card.cvv && this.cvvHoldSeconds > 0 ? sealField(dataKey, card.cvv, `${aad}:cvv`) : null,
        cvvHoldSeconds: this.cvvHoldSeconds,
      };
    } finally {
      // Everything is sealed: the data key is wiped before the record goes to PostgreSQL.
      dataKey.fill(0);
    }
    return (await this.repository.insertCards(mode, [sealed], client))[0];
  }

  async read(ref: TTokenRef): Promise<TJobResult<'read-card-token'>> {
    const row = await this.repository.findCard(ref.mode, ref.propertyId, ref.tokenId);
    // Past its end the token is gone, whether or not the sweep has shredded it yet.
    if (!row || row.deleted_at || row.expires_at.getTime() <= Date.now()) return { outcome: 'not_found' };
    return { outcome: 'found', token: toMetadata(row, ref.mode) };
  }

  async search(ref: z.output<typeof searchCardTokensJob.payload>): Promise<TJobResult<'search-card-tokens'>> {
    const rows = await this.repository.findByFingerprint(ref.mode, ref.propertyId, ref.fingerprint);
    return { tokens: rows.map((row) => toMetadata(row, ref.mode)) };
  }

  /** A ledger import's or an invoice's card payments: brand code, first six and last four of the property's current tokens, test or live. */
  async cardLabels(ref: z.output<typeof cardTokenLabelsJob.payload>): Promise<TJobResult<'card-token-labels'>> {
    const rows = await this.repository.cardLabels(ref.propertyId, ref.tokenIds);
    return { tokens: rows.map((row) => ({ id: row.id, creditCardType: creditCardTypeOf(row.card_brand as TCardBrand), cardTrailingDigits: row.last4, first6: row.first6 })) };
  }

  async delete(ref: TTokenRef): Promise<TJobResult<'delete-card-token'>> {
    return (await this.repository.shredCard(ref.mode, ref.propertyId, ref.tokenId))
      ? { outcome: 'deleted' }
      : { outcome: 'not_found' };
  }

  /**
   * One batch of re-fingerprinting: records (after `afterId`) still under the version-1 (global)
   * fingerprint, or fingerprinted with another key than the provider's, get the per-property one
   * under the provider's key (docs/vault.md#fingerprints). One transaction: the rows stay locked
   * from reading the PAN to writing the fingerprint; rows another transaction holds are skipped.
   */
  refingerprintBatch(mode: TTokenizationMode, afterId: string | undefined, limit: number): Promise<TBatchOutcome> {
    return this.repository.transaction(async (client) => {
      const rows = await this.repository.lockOldFingerprints(client, mode, this.keys.fingerprintKeyId, limit, afterId);
      let done = 0;
      for (const row of rows) {
        let pan: string;
        try {
          ({ pan } = await this.openRecord(mode, row));
        } catch (error) {
          if (error instanceof RecordDoesNotOpenError) continue;
          throw error;
        }
        await this.repository.setFingerprint(client, mode, row.id, await this.fingerprint(row.property_id, pan));
        done += 1;
      }
      return { seen: rows.length, lastId: rows.at(-1)?.id, done, unreadable: rows.length - done };
    });
  }

  /**
   * One batch of re-binding (record-binding.ts): records (after `afterId`) still sealed with
   * binding 1 are opened under it and sealed again naming their property — the data key wrapped
   * under the mode's active KEK, each ciphertext and a held CVV sealed afresh under the same data
   * key. One transaction, the rows locked; a record that does not open is left as it is.
   */
  rebindBatch(mode: TTokenizationMode, afterId: string | undefined, limit: number): Promise<TBatchOutcome> {
    return this.repository.transaction(async (client) => {
      const rows = await this.repository.lockUnboundRecords(client, mode, limit, afterId);
      let done = 0;
      for (const row of rows) {
        const resealed = await this.resealBound(mode, row);
        if (!resealed) continue;
        await this.repository.rebindRecord(client, mode, row.id, resealed);
        done += 1;
      }
      return { seen: rows.length, lastId: rows.at(-1)?.id, done, unreadable: rows.length - done };
    });
  }

  /** A binding-1 record (and its held CVV) sealed again with RECORD_BINDING; undefined when it does not open. */
  private async resealBound(mode: TTokenizationMode, row: TSealedRecordRow & { cvv_ct: Buffer | null }): Promise<TResealedRecord | undefined> {
    const from = recordAad(mode, row);
    const to = recordAad(mode, { ...row, record_binding: RECORD_BINDING });
    let dataKey: Buffer;
    try {
      dataKey = await this.unwrap(mode, row);
    } catch (error) {
      if (error instanceof RecordDoesNotOpenError) return undefined;
      throw error;
    }
    try {
      const reseal = (sealed: Buffer, field: string) => sealField(dataKey, openField(dataKey, sealed, `${from}:${field}`), `${to}:${field}`);
      let fields: Omit<TResealedRecord, 'kekId' | 'wrappedDek'>;
      try {
        fields = {
          panCt: reseal(row.pan_ct, 'pan'),
          cardholderNameCt: reseal(row.cardholder_name_ct, 'cardholder_name'),
          billingDetailsCt: row.billing_details_ct ? reseal(row.billing_details_ct, 'billing_details') : null,
          cvvCt: row.cvv_ct ? reseal(row.cvv_ct, 'cvv') : null,
        };
      } catch {
        return undefined;
      }
      const wrapped = await this.keys.wrapDataKey(mode, dataKey, to);
      return { kekId: wrapped.kekId, wrappedDek: wrapped.wrapped, ...fields };
    } finally {
      dataKey.fill(0);
    }
  }

  /** Readable records still sealed with binding 1, per mode (a progress bar's total). */
  unboundRecords(mode: TTokenizationMode): Promise<number> {
    return this.repository.countUnbound(mode);
  }
}

function toMetadata(row: TCardRow, mode: TTokenizationMode): TCardTokenMetadata {
  return {
    id: row.id,
    card_brand: row.card_brand as TCardBrand,
    first6: row.first6,
    last4: row.last4,
    expiration: { month: row.exp_month, year: row.exp_year },
    ...(row.cardholder_name_masked ? { cardholder_name_masked: row.cardholder_name_masked } : {}),
    test_mode: mode === 'test',
    created_at: row.created_at.toISOString(),
    fingerprint: row.fingerprint ?? '',
    expires_at: row.expires_at.toISOString(),
    ...(row.cvv_held_until ? { cvv_held_until: row.cvv_held_until.toISOString() } : {}),
    ...(row.last_used_at ? { last_used_at: row.last_used_at.toISOString() } : {}),
  };
}
