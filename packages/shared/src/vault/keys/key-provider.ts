// The vault's key custody behind one interface (docs/security.md#key-custody). A key provider seals
// and opens record data keys under the key-encryption keys (KEKs), computes the keyed HMAC of
// fingerprints and request digests, and holds the worker's transit private keys. Three kinds,
// chosen by VAULT_KEY_PROVIDER: `pkcs11` (the keys stay inside an HSM; pkcs11-provider.ts),
// `components` (each key the XOR of custodians' components; components.ts) and `local` (development
// keys from settings or .data/dev-keys.json). A worker (and the key commands) opens the vault keys;
// the API opens only the job signing key of a provider of its own (open-key-provider.ts,
// openJobSigningKey), which signs jobs and opens nothing.

import { createHmac } from 'node:crypto';
import type { TTokenizationMode } from '../schemas.js';
import { open, seal } from '../crypto/aes-gcm.js';
import type { TKeyring } from '../crypto/keyring.js';
import { softwareJobSigner, type TJobSigner } from '../job-signature.js';

export type TKeyProviderKind = 'local' | 'components' | 'pkcs11';

/**
 * The keys cannot be used right now (the HSM does not answer), as opposed to data that does not
 * open with them: the job is retried, and its last attempt answers `keys_unavailable`
 * (vault-job-common.ts), which the API answers with 503 naming the keys.
 */
export class KeysUnavailableError extends Error {
  constructor(reason: string) {
    super(`vault keys unavailable: ${reason}`);
    this.name = 'KeysUnavailableError';
  }
}

/** Keys that cannot be opened at start (a wrong PIN, a bad component): the message is the one line the start prints. */
export class KeySetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeySetupError';
  }
}

/** A data key wrapped by the KEK `kekId` names (AES-256-GCM; aes-gcm.ts's layout whoever wrapped it). */
export interface TWrappedKey {
  kekId: string;
  wrapped: Buffer;
}

export interface TKeyProvider {
  readonly kind: TKeyProviderKind;
  /** Each mode's KEK ids, the active one (that wraps new data keys) first. */
  readonly kekIds: Readonly<Record<TTokenizationMode, readonly string[]>>;
  /** The fingerprint key's id, stored with every fingerprint so a change of key is found. */
  readonly fingerprintKeyId: string;
  /** The worker's transit private keys (raw X25519), the newest first. */
  readonly transitKeys: TKeyring;
  /**
   * The API's job signing key when this provider holds it (`npm start`'s one provider, a
   * development token); a worker's provider in production does not.
   */
  readonly jobSigner?: TJobSigner;
  wrapDataKey(mode: TTokenizationMode, dataKey: Buffer, aad: string): Promise<TWrappedKey>;
  /** Throws when the KEK is not held here or the wrapped key does not open with `aad`. */
  unwrapDataKey(mode: TTokenizationMode, wrapped: TWrappedKey, aad: string): Promise<Buffer>;
  /** HMAC-SHA256 of `message` with the fingerprint key. */
  hmac(message: string): Promise<Buffer>;
  /** Resolves when the keys can be used now; throws naming what is wrong (an HSM gone). */
  check(): Promise<void>;
  close(): Promise<void>;
}

/** Keys held in the process's memory: what `local` and `components` give. */
export interface TSoftwareKeys {
  kek: Record<TTokenizationMode, TKeyring>;
  fingerprint: { id: string; key: Buffer };
  transit: TKeyring;
  /** The API's Ed25519 job signing key (its 32-byte seed), when these keys include it. */
  jobSigning?: { id: string; seed: Buffer };
}

const ringIds = (ring: TKeyring) => [ring.activeId, ...[...ring.keys.keys()].filter((id) => id !== ring.activeId)];

export function softwareKeyProvider(kind: 'local' | 'components', keys: TSoftwareKeys): TKeyProvider {
  const kekOf = (mode: TTokenizationMode, kekId: string) => {
    const key = keys.kek[mode].keys.get(kekId);
    if (!key) throw new Error(`key-encryption key ${kekId} is not configured`);
    return key;
  };
  return {
    kind,
    kekIds: { test: ringIds(keys.kek.test), live: ringIds(keys.kek.live) },
    fingerprintKeyId: keys.fingerprint.id,
    transitKeys: keys.transit,
    ...(keys.jobSigning ? { jobSigner: softwareJobSigner(keys.jobSigning.id, keys.jobSigning.seed) } : {}),
    async wrapDataKey(mode, dataKey, aad) {
      const kekId = keys.kek[mode].activeId;
      return { kekId, wrapped: seal(kekOf(mode, kekId), dataKey, `dek:${aad}`) };
    },
    async unwrapDataKey(mode, wrapped, aad) {
      return open(kekOf(mode, wrapped.kekId), wrapped.wrapped, `dek:${aad}`);
    },
    async hmac(message) {
      return createHmac('sha256', keys.fingerprint.key).update(message).digest();
    },
    async check() {},
    async close() {},
  };
}
