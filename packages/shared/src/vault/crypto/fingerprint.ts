import { createHmac } from 'node:crypto';

/**
 * Keyed fingerprint of a PAN for duplicate detection within one property. HMAC with its own key: a
 * plain hash of a PAN can be reversed by enumerating the few billion numbers that share a BIN and
 * last four. The property id is bound in, so one card gives unrelated fingerprints in two
 * properties and tenants cannot correlate their guests' cards (docs/vault.md#fingerprints).
 */
export function cardFingerprint(key: Buffer, propertyId: string, pan: string): string {
  return createHmac('sha256', key).update(`pan:v2:${propertyId}:${pan}`).digest('base64url');
}

/** The fingerprint version cardFingerprint computes (column fingerprint_version). */
export const FINGERPRINT_VERSION = 2;

/** Keyed digest of an arbitrary canonical string (e.g. a request body for idempotency). */
export function keyedDigest(key: Buffer, purpose: string, value: string): string {
  return createHmac('sha256', key).update(`${purpose}:${value}`).digest('base64url');
}

/** Canonical JSON (sorted keys, undefined left out) so an equal request always digests the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
