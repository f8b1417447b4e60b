import type { PoolClient } from 'pg';
import type { z } from 'zod';
import type { TVaultKeys } from '@folio-vault/shared/config';
import type { TPgPool } from '@folio-vault/shared/connections';
import { maskName } from '@folio-vault/shared/vault/card/mask';
import { newDataKey, sealField, wrapDataKey } from '@folio-vault/shared/vault/crypto/envelope';
import { cardFingerprint, keyedDigest } from '@folio-vault/shared/vault/crypto/fingerprint';
import type { TKeyring } from '@folio-vault/shared/vault/crypto/keyring';
import { openTransit, transitAad } from '@folio-vault/shared/vault/crypto/transit';
import type { TJobResult } from '@folio-vault/shared/jobs/registry';
import { ZSealedCard, type TSealedCard, type ZTokenizeCardPayload } from '@folio-vault/shared/vault/tokenize-card-job';
import type { ZVaultJobBase } from '@folio-vault/shared/vault/vault-job-common';
import type { TCardBrand } from '@folio-vault/shared/vault/card/brand';
import type { TCardTokenMetadata, TTokenizationMode } from '@folio-vault/shared/vault/schemas';
import type { CardRepository, TCardRow } from './card-repository.js';

type TTokenizePayload = z.output<typeof ZTokenizeCardPayload>;
type TTokenRef = z.output<typeof ZVaultJobBase>;

/** A transit envelope that does not open (wrong key, tampered, replayed into another job). */
export class SealedCardError extends Error {
  constructor() {
    super('the sealed card could not be opened with the transit keys');
    this.name = 'SealedCardError';
  }
}

/**
 * The associated data of a record's wrapped data key and, with a field suffix, of its ciphertexts:
 * a key or ciphertext copied into another record or mode fails to open.
 */
export function recordAad(mode: TTokenizationMode, tokenId: string): string {
  return `${mode}:${tokenId}`;
}

/** Canonical JSON (sorted keys) so the same card always digests the same for idempotency. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The only code that holds vault keys. Tokenize decrypts the transit envelope, fingerprints the
 * PAN, seals PAN, name and billing details under a fresh data key wrapped by the mode's KEK, and
 * stores the record. Safe to run twice: the token id comes from the job.
 */
export class CardVault {
  private readonly keks: Record<TTokenizationMode, TKeyring>;

  constructor(
    private readonly repository: CardRepository,
    private readonly keys: TVaultKeys,
  ) {
    this.keks = { test: keys.VAULT_KEK_TEST, live: keys.VAULT_KEK_LIVE };
  }

  private openCard(payload: TTokenizePayload): TSealedCard {
    try {
      return ZSealedCard.parse(openTransit(this.keys.VAULT_TRANSIT_KEY, payload.sealedCard, transitAad(payload)));
    } catch {
      throw new SealedCardError();
    }
  }

  async tokenize(payload: TTokenizePayload): Promise<TJobResult<'tokenize-card'>> {
    const card = this.openCard(payload);
    const { mode, propertyId, tokenId } = payload;
    const fingerprint = cardFingerprint(this.keys.VAULT_FINGERPRINT_KEY, card.card_number);

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
    const found = async (db: TPgPool | PoolClient, id: string) => {
      const row = await this.repository.findCard(db, mode, propertyId, id);
      if (!row) throw new Error('tokenized card not found after insert');
      return row;
    };

    if (!payload.idempotencyKey) {
      // The common case is one statement (no transaction, one round trip): a re-run of the job
      // finds its record already there and reads it.
      const pool = this.repository.pool;
      return answer((await this.insert(pool, payload, card, fingerprint)) ?? (await found(pool, tokenId)));
    }
    const idempotencyKey = payload.idempotencyKey;
    return this.repository.transaction(async (client) => {
      // The CVV is not part of the comparison: it is never stored in any form, not even digested.
      const requestDigest = keyedDigest(this.keys.VAULT_FINGERPRINT_KEY, 'idempotency', canonicalJson(card));
      await this.repository.lockIdempotencyKey(client, mode, propertyId, idempotencyKey);
      const previous = await this.repository.findIdempotencyKey(client, mode, propertyId, idempotencyKey);
      if (previous && previous.request_digest !== requestDigest) return { outcome: 'idempotency_key_reused' as const };
      if (previous) return answer(await found(client, previous.token_id));
      const inserted = await this.insert(client, payload, card, fingerprint);
      await this.repository.saveIdempotencyKey(client, mode, { propertyId, key: idempotencyKey, requestDigest, tokenId });
      return answer(inserted ?? (await found(client, tokenId)));
    });
  }

  private async insert(
    db: TPgPool | PoolClient,
    payload: TTokenizePayload,
    card: TSealedCard,
    fingerprint: string,
  ): Promise<TCardRow | undefined> {
    const { mode, tokenId } = payload;
    const dataKey = newDataKey();
    const aad = recordAad(mode, tokenId);
    const wrapped = wrapDataKey(this.keks[mode], dataKey, aad);
    try {
      return await this.repository.insertCard(db, mode, {
        id: tokenId,
        propertyId: payload.propertyId,
        cardBrand: card.card_brand,
        first6: card.card_number.slice(0, 6),
        last4: card.card_number.slice(-4),
        expMonth: card.expiration.month,
        expYear: card.expiration.year,
        cardholderNameMasked: maskName(card.cardholder_name),
        fingerprint,
        kekId: wrapped.kekId,
        wrappedDek: wrapped.wrapped,
        panCt: sealField(dataKey, card.card_number, `${aad}:pan`),
        cardholderNameCt: sealField(dataKey, card.cardholder_name, `${aad}:cardholder_name`),
        billingDetailsCt: card.billing_details
          ? sealField(dataKey, JSON.stringify(card.billing_details), `${aad}:billing_details`)
          : null,
      });
    } finally {
      dataKey.fill(0);
    }
  }

  async read(ref: TTokenRef): Promise<TJobResult<'read-card-token'>> {
    const row = await this.repository.findCard(this.repository.pool, ref.mode, ref.propertyId, ref.tokenId);
    if (!row || row.deleted_at) return { outcome: 'not_found' };
    return { outcome: 'found', token: toMetadata(row, ref.mode) };
  }

  async delete(ref: TTokenRef): Promise<TJobResult<'delete-card-token'>> {
    return (await this.repository.shredCard(ref.mode, ref.propertyId, ref.tokenId))
      ? { outcome: 'deleted' }
      : { outcome: 'not_found' };
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
    fingerprint: row.fingerprint,
  };
}
