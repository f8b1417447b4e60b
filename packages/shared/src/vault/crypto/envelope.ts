// Envelope encryption for vault records: every record gets its own data key (DEK) that seals its
// fields; the DEK is stored wrapped by a key-encryption key (KEK) of the key provider
// (vault/keys/key-provider.ts), named by its key id. Rotating a KEK re-wraps DEKs only; destroying a
// record's wrapped DEK makes its ciphertexts unrecoverable (crypto-shredding).

import { randomBytes } from 'node:crypto';
import { open, seal } from './aes-gcm.js';

export function newDataKey(): Buffer {
  return randomBytes(32);
}

export function sealField(dataKey: Buffer, value: string, aad: string): Buffer {
  return seal(dataKey, Buffer.from(value, 'utf8'), aad);
}

export function openField(dataKey: Buffer, sealed: Buffer, aad: string): string {
  return open(dataKey, sealed, aad).toString('utf8');
}
