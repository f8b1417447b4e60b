// What the vault's keyed HMACs are computed over; the key provider computes them with its
// fingerprint key (inside the HSM with `pkcs11`). A plain hash of a PAN could be reversed by
// enumerating the few billion numbers that share a BIN and last four, hence a key.

/**
 * The message of a PAN's fingerprint in a property. The property id is bound in, so one card gives
 * unrelated fingerprints in two properties and tenants cannot correlate their guests' cards
 * (docs/vault.md#fingerprints).
 */
export function fingerprintMessage(propertyId: string, pan: string): string {
  return `pan:v2:${propertyId}:${pan}`;
}

/** The fingerprint version fingerprintMessage gives (column fingerprint_version). */
export const FINGERPRINT_VERSION = 2;

/** The message of a keyed digest of an arbitrary canonical string (e.g. a request body for idempotency). */
export function digestMessage(purpose: string, value: string): string {
  return `${purpose}:${value}`;
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
