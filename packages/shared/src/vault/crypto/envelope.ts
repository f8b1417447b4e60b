// Envelope encryption for vault records: every record gets its own data key (DEK); the DEK is
// stored wrapped by a key-encryption key (KEK) named by its key id. Rotating a KEK re-wraps DEKs
// only; destroying a record's wrapped DEK makes its ciphertexts unrecoverable (crypto-shredding).

import { randomBytes } from 'node:crypto';
import { open, seal } from './aes-gcm.js';
import { activeKey, type TKeyring } from './keyring.js';

/** A data key wrapped by the KEK `kekId` names. */
export interface TWrappedKey {
  kekId: string;
  wrapped: Buffer;
}

export function newDataKey(): Buffer {
  return randomBytes(32);
}

export function wrapDataKey(kek: TKeyring, dataKey: Buffer, aad: string): TWrappedKey {
  return { kekId: kek.activeId, wrapped: seal(activeKey(kek), dataKey, `dek:${aad}`) };
}

export function unwrapDataKey(kek: TKeyring, wrappedKey: TWrappedKey, aad: string): Buffer {
  const key = kek.keys.get(wrappedKey.kekId);
  if (!key) throw new Error(`key-encryption key ${wrappedKey.kekId} is not configured`);
  return open(key, wrappedKey.wrapped, `dek:${aad}`);
}

export function sealField(dataKey: Buffer, value: string, aad: string): Buffer {
  return seal(dataKey, Buffer.from(value, 'utf8'), aad);
}

export function openField(dataKey: Buffer, sealed: Buffer, aad: string): string {
  return open(dataKey, sealed, aad).toString('utf8');
}
