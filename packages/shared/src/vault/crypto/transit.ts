// Transit: what the API hands the worker — card fields on the queue, webhook signing secrets in
// PostgreSQL — is sealed to the worker's public key with HPKE (RFC 9180, base mode:
// DHKEM(X25519, HKDF-SHA256), HKDF-SHA256, AES-256-GCM; the @hpke/core implementation). The API
// holds public keys only, so nothing it has opens what it sealed; the private keys come from the
// worker's key provider (docs/security.md#key-custody).
//
// Job envelope: `v2.<keyId>.<enc>.<ciphertext>` (base64url). Stored form: 0x02 | keyId length (1) |
// keyId (utf8) | enc (32) | ciphertext. The key id names the worker key it was sealed to, so after
// a rotation (a newer key first in VAULT_TRANSIT_PUBLIC_KEYS) older envelopes still open. The
// associated data binds an envelope to where it belongs (one job, one webhook endpoint).

import { createPrivateKey, createPublicKey } from 'node:crypto';
import { Aes256Gcm, CipherSuite, DhkemX25519HkdfSha256, HkdfSha256 } from '@hpke/core';
import type { TTokenizationMode } from '../schemas.js';
import { nativeOpen, nativeSeal } from './hpke-native.js';
import type { TKeyring } from './keyring.js';

const suite = new CipherSuite({ kem: new DhkemX25519HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
const INFO = new TextEncoder().encode('folio-vault transit v2');
const ENVELOPE_VERSION = 'v2';
const STORED_VERSION = 2;
const ENC_BYTES = 32;

/**
 * The associated data of a tokenize job's envelope: one token, one property, one mode. The API
 * seals with it and the worker opens with it, both from the job's own fields.
 */
export function transitAad(job: { tokenId: string; propertyId: string; mode: TTokenizationMode }): string {
  return `${job.tokenId}:${job.propertyId}:${job.mode}`;
}

interface TSealed {
  keyId: string;
  enc: Buffer;
  ct: Buffer;
}

const bytesOf = (text: string) => new TextEncoder().encode(text);

// With the `hpke-native` measure on, the same suite on node:crypto (hpke-native.ts); set once at a
// process's start (useNativeHpke), as the API and the worker read PERFORMANCE_MEASURES_OFF.
let native = true;

/** Whether transit uses hpke-native.ts (the `hpke-native` measure) or @hpke/core. */
export function useNativeHpke(on: boolean): void {
  native = on;
}

async function sealTo(publicKeys: TKeyring, plaintext: Buffer, aad: string): Promise<TSealed> {
  const publicKey = publicKeys.keys.get(publicKeys.activeId);
  if (!publicKey) throw new Error(`transit public key ${publicKeys.activeId} missing from its list`);
  if (native) return { keyId: publicKeys.activeId, ...nativeSeal(publicKey, Buffer.from(INFO), Buffer.from(aad, 'utf8'), plaintext) };
  const recipientPublicKey = await suite.kem.deserializePublicKey(publicKey);
  const sealed = await suite.seal({ recipientPublicKey, info: INFO }, plaintext, bytesOf(aad));
  return { keyId: publicKeys.activeId, enc: Buffer.from(sealed.enc), ct: Buffer.from(sealed.ct) };
}

async function openWith(privateKeys: TKeyring, sealed: TSealed, aad: string): Promise<Buffer> {
  const privateKey = privateKeys.keys.get(sealed.keyId);
  if (!privateKey) throw new Error(`transit key ${sealed.keyId} is not configured`);
  if (native) return nativeOpen(privateKey, Buffer.from(INFO), Buffer.from(aad, 'utf8'), sealed.enc, sealed.ct);
  const recipientKey = await suite.kem.deserializePrivateKey(privateKey);
  return Buffer.from(await suite.open({ recipientKey, enc: sealed.enc, info: INFO }, sealed.ct, bytesOf(aad)));
}

/** A job's envelope: `value` as JSON, sealed to the newest worker key. */
export async function sealTransit(publicKeys: TKeyring, value: unknown, aad: string): Promise<string> {
  const sealed = await sealTo(publicKeys, Buffer.from(JSON.stringify(value), 'utf8'), `transit:${aad}`);
  return [ENVELOPE_VERSION, sealed.keyId, sealed.enc.toString('base64url'), sealed.ct.toString('base64url')].join('.');
}

export async function openTransit(privateKeys: TKeyring, envelope: string, aad: string): Promise<unknown> {
  const [, version, keyId, enc, ct] = /^([^.]*)\.(.*)\.([^.]*)\.([^.]*)$/.exec(envelope) ?? [];
  if (version !== ENVELOPE_VERSION || !keyId || !enc || !ct) throw new Error('transit envelope has an unknown format');
  const opened = await openWith(privateKeys, { keyId, enc: Buffer.from(enc, 'base64url'), ct: Buffer.from(ct, 'base64url') }, `transit:${aad}`);
  return JSON.parse(opened.toString('utf8'));
}

/** The stored form of a small secret (a webhook signing secret), sealed to the newest worker key. */
export async function sealStored(publicKeys: TKeyring, plaintext: Buffer, aad: string): Promise<Buffer> {
  const sealed = await sealTo(publicKeys, plaintext, aad);
  const keyId = Buffer.from(sealed.keyId, 'utf8');
  return Buffer.concat([Buffer.from([STORED_VERSION, keyId.length]), keyId, sealed.enc, sealed.ct]);
}

export async function openStored(privateKeys: TKeyring, stored: Buffer, aad: string): Promise<Buffer> {
  const keyId = storedKeyId(stored);
  const idLength = Buffer.byteLength(keyId, 'utf8');
  const enc = stored.subarray(2 + idLength, 2 + idLength + ENC_BYTES);
  return openWith(privateKeys, { keyId, enc, ct: stored.subarray(2 + idLength + ENC_BYTES) }, aad);
}

/** The id of the worker key a stored secret was sealed to (what opens it), read without opening it. */
export function storedKeyId(stored: Buffer): string {
  const idLength = stored[1] ?? 0;
  if (stored[0] !== STORED_VERSION || stored.length < 2 + idLength + ENC_BYTES + 16) throw new Error('sealed secret has an unknown layout');
  return stored.subarray(2, 2 + idLength).toString('utf8');
}

// An X25519 private key in PKCS#8 DER is this fixed prefix and the 32 key bytes (RFC 8410).
const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

/** The public key of a raw X25519 private key (32 bytes). */
export function transitPublicKey(privateKey: Buffer): Buffer {
  const key = createPrivateKey({ key: Buffer.concat([X25519_PKCS8_PREFIX, privateKey]), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
  return Buffer.from(spki.subarray(spki.length - 32));
}

/** The public keyring of a private one: the same ids in the same order. */
export function publicKeyring(privateKeys: TKeyring): TKeyring {
  return { activeId: privateKeys.activeId, keys: new Map([...privateKeys.keys].map(([id, key]) => [id, transitPublicKey(key)])) };
}

/** VAULT_TRANSIT_PUBLIC_KEYS's value for the worker's private transit keys (what `npm run keys:public` prints). */
export function publicKeysSetting(privateKeys: TKeyring): string {
  return formatKeyring(publicKeyring(privateKeys));
}

/** A keyring written as its setting: `id:base64[,id:base64…]`, the active one first. */
export function formatKeyring(ring: TKeyring): string {
  const ids = [ring.activeId, ...[...ring.keys.keys()].filter((id) => id !== ring.activeId)];
  return ids.map((id) => `${id}:${ring.keys.get(id)!.toString('base64')}`).join(',');
}
