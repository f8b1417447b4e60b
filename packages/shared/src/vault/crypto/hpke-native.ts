// A kept performance measure (packages/shared/src/performance-measures.ts: `hpke-native`): HPKE
// base mode (RFC 9180 §5.1, single shot) for the one suite transit uses — DHKEM(X25519,
// HKDF-SHA256), HKDF-SHA256, AES-256-GCM — on node:crypto's native X25519, HMAC and AES-GCM.
// @hpke/core computes the same through WebCrypto, a dozen asynchronous calls a message, which
// every tokenize pays in the API (seal) and the worker (open). What it buys is measured by
// `npm run bench -- --only tokenize` with PERFORMANCE_MEASURES_OFF=hpke-native in the same run
// (docs/benchmarks.md). test/unit/hpke-native.test.ts checks that each side opens what the
// other sealed, so the two stay interchangeable envelope for envelope.

import { createCipheriv, createDecipheriv, createHmac, createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, type KeyObject } from 'node:crypto';

const KEM_ID = 0x0020;
const KDF_ID = 0x0001;
const AEAD_ID = 0x0002;
const MODE_BASE = 0x00;
const N_SECRET = 32;
const N_K = 32;
const N_N = 12;
const TAG = 16;

const i2osp = (value: number, length: number) => {
  const bytes = Buffer.alloc(length);
  bytes.writeUIntBE(value, 0, length);
  return bytes;
};
const KEM_SUITE = Buffer.concat([Buffer.from('KEM'), i2osp(KEM_ID, 2)]);
const HPKE_SUITE = Buffer.concat([Buffer.from('HPKE'), i2osp(KEM_ID, 2), i2osp(KDF_ID, 2), i2osp(AEAD_ID, 2)]);
const VERSION = Buffer.from('HPKE-v1');

const extract = (salt: Buffer, ikm: Buffer) => createHmac('sha256', salt).update(ikm).digest();
/** HKDF-Expand for at most one SHA-256 block (every length here is ≤ 32). */
const expand = (prk: Buffer, info: Buffer, length: number) => createHmac('sha256', prk).update(info).update(Buffer.from([1])).digest().subarray(0, length);
const labeledExtract = (suite: Buffer, salt: Buffer, label: string, ikm: Buffer) => extract(salt, Buffer.concat([VERSION, suite, Buffer.from(label), ikm]));
const labeledExpand = (suite: Buffer, prk: Buffer, label: string, info: Buffer, length: number) =>
  expand(prk, Buffer.concat([i2osp(length, 2), VERSION, suite, Buffer.from(label), info]), length);

// An X25519 private key in PKCS#8 DER is this fixed prefix and the 32 key bytes (RFC 8410).
const PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');
const publicKeyOf = (raw: Buffer) => createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: raw.toString('base64url') }, format: 'jwk' });
const rawPublic = (key: KeyObject) => Buffer.from(key.export({ format: 'jwk' }).x!, 'base64url');

/**
 * A recipient's private key as node:crypto holds it, and its raw public key, made once per keyring
 * buffer: OpenSSL's PKCS#8 decoding takes longer than the rest of an open together. Keyed by the
 * buffer object itself (a WeakMap, never by the key's bytes), so a keyring dropped takes its
 * entries with it.
 */
const recipients = new WeakMap<Buffer, { privateKey: KeyObject; publicRaw: Buffer }>();
function recipientOf(raw: Buffer): { privateKey: KeyObject; publicRaw: Buffer } {
  let recipient = recipients.get(raw);
  if (!recipient) {
    const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, raw]), format: 'der', type: 'pkcs8' });
    recipient = { privateKey, publicRaw: rawPublic(createPublicKey(privateKey)) };
    recipients.set(raw, recipient);
  }
  return recipient;
}

function sharedSecret(dh: Buffer, enc: Buffer, recipientPublic: Buffer): Buffer {
  const prk = labeledExtract(KEM_SUITE, Buffer.alloc(0), 'eae_prk', dh);
  return labeledExpand(KEM_SUITE, prk, 'shared_secret', Buffer.concat([enc, recipientPublic]), N_SECRET);
}

function keySchedule(secretInput: Buffer, info: Buffer): { key: Buffer; nonce: Buffer } {
  const context = Buffer.concat([
    Buffer.from([MODE_BASE]),
    labeledExtract(HPKE_SUITE, Buffer.alloc(0), 'psk_id_hash', Buffer.alloc(0)),
    labeledExtract(HPKE_SUITE, Buffer.alloc(0), 'info_hash', info),
  ]);
  const secret = labeledExtract(HPKE_SUITE, secretInput, 'secret', Buffer.alloc(0));
  // The first message of a context: its nonce is the base nonce (sequence number 0).
  return { key: labeledExpand(HPKE_SUITE, secret, 'key', context, N_K), nonce: labeledExpand(HPKE_SUITE, secret, 'base_nonce', context, N_N) };
}

/** Seals `plaintext` to the raw X25519 public key: the encapsulated key and the ciphertext (with its tag). */
export function nativeSeal(recipientPublic: Buffer, info: Buffer, aad: Buffer, plaintext: Buffer): { enc: Buffer; ct: Buffer } {
  const ephemeral = generateKeyPairSync('x25519');
  const enc = rawPublic(ephemeral.publicKey);
  const dh = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: publicKeyOf(recipientPublic) });
  const { key, nonce } = keySchedule(sharedSecret(dh, enc, recipientPublic), info);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(aad);
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return { enc, ct };
}

/** Opens what nativeSeal (or any RFC 9180 implementation of this suite) sealed to the raw private key's public key. */
export function nativeOpen(recipientPrivate: Buffer, info: Buffer, aad: Buffer, enc: Buffer, ct: Buffer): Buffer {
  if (enc.length !== 32 || ct.length < TAG) throw new Error('sealed data has an unknown layout');
  const { privateKey, publicRaw } = recipientOf(recipientPrivate);
  const dh = diffieHellman({ privateKey, publicKey: publicKeyOf(enc) });
  const { key, nonce } = keySchedule(sharedSecret(dh, enc, publicRaw), info);
  const decipher = createDecipheriv('aes-256-gcm', key, nonce);
  decipher.setAAD(aad);
  decipher.setAuthTag(ct.subarray(ct.length - TAG));
  return Buffer.concat([decipher.update(ct.subarray(0, ct.length - TAG)), decipher.final()]);
}
