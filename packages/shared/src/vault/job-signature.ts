// Jobs only the API can ask for (docs/security.md#jobs-only-the-api-can-ask-for). Every vault job
// the API enqueues carries its Ed25519 signature over the job's name and its whole payload, in
// canonical JSON: property, mode, token id, destination, template, sealed card, idempotency key,
// request id, and `signedUntil`, after which the job is refused so that a copy cannot be replayed
// later. The API holds the private key (its key provider's `jobSigner`, which opens nothing); a
// worker holds only the public keys (VAULT_JOB_VERIFY_KEYS) and checks a job before anything else,
// so a job written straight to Redis uses no card.

import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from './crypto/fingerprint.js';
import type { TKeyring } from './crypto/keyring.js';
import { formatKeyring } from './crypto/transit.js';

/** The signature a job carries: the id of the key that made it and the Ed25519 signature, base64url. */
export const ZJobSignature = z.object({
  keyId: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/),
  value: z.string().regex(/^[A-Za-z0-9_-]{86}$/),
});

/** The fields every signed job adds to its payload (vault-job-common.ts). */
export const ZSignedJobFields = z.object({
  /** After this instant the job is refused, whatever its signature. */
  signedUntil: z.iso.datetime(),
  signature: ZJobSignature,
});

/**
 * How long a signature outlives the request's own wait: room for the job's retries, a stalled job
 * handed to another worker, and clocks a little apart. A copy replayed within it is a replay of the
 * same request, which the vault's idempotency absorbs (the same token id, forward id and key).
 */
export const JOB_SIGNATURE_MARGIN_MS = 5 * 60_000;

/** Why a worker refused a job (the audit event's `refusal`, the metric's `reason`). */
export type TJobRefusal = 'unsigned' | 'unknown_key' | 'bad_signature' | 'expired';

/** The API's signing key, as its key provider holds it: it signs, and opens nothing. */
export interface TJobSigner {
  readonly keyId: string;
  /** The raw 32-byte Ed25519 public key (VAULT_JOB_VERIFY_KEYS holds it as `keyId:base64`). */
  readonly publicKey: Buffer;
  sign(message: Buffer): Promise<Buffer>;
}

/** What is signed: the job's name and its payload without the signature, in canonical JSON. */
export function signedJobMessage(name: string, data: Record<string, unknown>): Buffer {
  const { signature: _signature, ...payload } = data;
  return Buffer.from(canonicalJson({ job: name, payload }), 'utf8');
}

/** `payload` signed for job `name`, valid for `validForMs` from `now`. */
export async function signJob<P extends object>(
  signer: TJobSigner,
  name: string,
  payload: P,
  validForMs: number,
  now = Date.now(),
): Promise<P & z.output<typeof ZSignedJobFields>> {
  const unsigned = { ...payload, signedUntil: new Date(now + validForMs).toISOString() };
  const value = await signer.sign(signedJobMessage(name, unsigned));
  return { ...unsigned, signature: { keyId: signer.keyId, value: value.toString('base64url') } };
}

// An Ed25519 private key in PKCS#8 DER is this fixed prefix and the 32-byte seed (RFC 8410).
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A signer over a 32-byte Ed25519 seed held in memory (the `local` and `components` providers). */
export function softwareJobSigner(keyId: string, seed: Buffer): TJobSigner {
  const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return {
    keyId,
    publicKey: Buffer.from(spki.subarray(spki.length - 32)),
    sign: async (message) => sign(null, message, privateKey),
  };
}

/** VAULT_JOB_VERIFY_KEYS's value for a signer: `keyId:base64` of its public key. */
export function jobVerifyKeysSetting(signer: TJobSigner): string {
  return formatKeyring(jobVerifyKeyring(signer));
}

/** A signer's public key as a keyring of one. */
export function jobVerifyKeyring(signer: TJobSigner): TKeyring {
  return { activeId: signer.keyId, keys: new Map([[signer.keyId, signer.publicKey]]) };
}

/** The workers' public keys, ready to verify with. */
export type TJobVerifyKeys = ReadonlyMap<string, KeyObject>;

export function jobVerifyKeys(ring: TKeyring): TJobVerifyKeys {
  return new Map(
    [...ring.keys].map(([id, key]) => [id, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.toString('base64url') }, format: 'jwk' })]),
  );
}

/**
 * Why job `name` with `data` (as it came off the queue) is refused, or undefined when its signature
 * verifies with one of `keys` and has not expired. The expiry is read only once the signature has
 * verified: until then `signedUntil` is anyone's text.
 */
export function jobRefusal(keys: TJobVerifyKeys, name: string, data: unknown, now = Date.now()): TJobRefusal | undefined {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return 'unsigned';
  const fields = ZSignedJobFields.safeParse(data);
  if (!fields.success) return 'unsigned';
  const key = keys.get(fields.data.signature.keyId);
  if (!key) return 'unknown_key';
  const signature = Buffer.from(fields.data.signature.value, 'base64url');
  if (!verify(null, signedJobMessage(name, data as Record<string, unknown>), key, signature)) return 'bad_signature';
  return Date.parse(fields.data.signedUntil) < now ? 'expired' : undefined;
}
