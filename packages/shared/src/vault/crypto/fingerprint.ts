import { createHmac } from 'node:crypto';

/**
 * Keyed fingerprint of a PAN for duplicate detection. HMAC with its own key: a plain hash of a
 * PAN can be reversed by enumerating the few billion numbers that share a BIN and last four.
 */
export function cardFingerprint(key: Buffer, pan: string): string {
  return createHmac('sha256', key).update(`pan:${pan}`).digest('base64url');
}

/** Keyed digest of an arbitrary canonical string (e.g. a request body for idempotency). */
export function keyedDigest(key: Buffer, purpose: string, value: string): string {
  return createHmac('sha256', key).update(`${purpose}:${value}`).digest('base64url');
}
