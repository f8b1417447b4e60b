// Webhook signing secrets (docs/export.md#webhooks). A secret is `whsec_` + base64 of 24 random
// bytes, the form the standardwebhooks package reads. It is stored sealed (AES-256-GCM, aes-gcm.ts)
// under a key derived with HKDF-SHA256 (info "webhook-secrets") from the transit key, which both
// the API (that creates endpoints) and the worker (that signs deliveries) hold; the derivation
// keeps the webhook key apart from the card envelopes sealed with the transit key itself.
//
// Stored layout: keyIdLength(1) | keyId (utf8) | sealed. The key id of the transit keyring entry is
// kept, so after a rotation (a new active transit key) older secrets still open with theirs.

import { hkdfSync, randomBytes } from 'node:crypto';
import { open, seal } from '../vault/crypto/aes-gcm.js';
import type { TKeyring } from '../vault/crypto/keyring.js';

const SECRET_BYTES = 24;
const HKDF_INFO = 'webhook-secrets';

export function generateSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
}

function derivedKey(transitKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', transitKey, Buffer.alloc(0), HKDF_INFO, 32));
}

/** The associated data ties a sealed secret to its endpoint: copied to another row, it does not open. */
const aadOf = (endpointId: string) => `webhook-secret:${endpointId}`;

export function sealSecret(ring: TKeyring, endpointId: string, secret: string): Buffer {
  const key = ring.keys.get(ring.activeId);
  if (!key) throw new Error(`transit key ${ring.activeId} missing from keyring`);
  const keyId = Buffer.from(ring.activeId, 'utf8');
  return Buffer.concat([Buffer.from([keyId.length]), keyId, seal(derivedKey(key), Buffer.from(secret, 'utf8'), aadOf(endpointId))]);
}

export function openSecret(ring: TKeyring, endpointId: string, stored: Buffer): string {
  const idLength = stored[0] ?? 0;
  const keyId = stored.subarray(1, 1 + idLength).toString('utf8');
  const key = ring.keys.get(keyId);
  if (!key) throw new Error(`transit key ${keyId} (of a webhook secret) is not configured`);
  return open(derivedKey(key), stored.subarray(1 + idLength), aadOf(endpointId)).toString('utf8');
}
