// Webhook signing secrets (docs/export.md#webhooks). A secret is `whsec_` + base64 of 24 random
// bytes, the form the standardwebhooks package reads. The API creates it, shows it once to the
// client and stores it sealed to the worker's transit key (HPKE, vault/crypto/transit.ts): the API
// cannot open it again, the worker opens it to sign deliveries.

import { randomBytes } from 'node:crypto';
import type { TKeyring } from '../vault/crypto/keyring.js';
import { openStored, sealStored, storedKeyId } from '../vault/crypto/transit.js';

const SECRET_BYTES = 24;

export function generateSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** The associated data ties a sealed secret to its endpoint: copied to another row, it does not open. */
const aadOf = (endpointId: string) => `webhook-secret:${endpointId}`;

/** Sealed to the newest of the worker's public transit keys (the API's VAULT_TRANSIT_PUBLIC_KEYS). */
export function sealSecret(publicKeys: TKeyring, endpointId: string, secret: string): Promise<Buffer> {
  return sealStored(publicKeys, Buffer.from(secret, 'utf8'), aadOf(endpointId));
}

/** Opened with the worker's private transit keys (its key provider's). */
export async function openSecret(privateKeys: TKeyring, endpointId: string, stored: Buffer): Promise<string> {
  return (await openStored(privateKeys, stored, aadOf(endpointId))).toString('utf8');
}

/** The transit key a sealed secret needs (its id), or undefined when the stored bytes have no known layout. */
export function secretKeyId(stored: Buffer): string | undefined {
  try {
    return storedKeyId(stored);
  } catch {
    return undefined;
  }
}
