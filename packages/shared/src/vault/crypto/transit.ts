// Transit encryption: the API seals card fields with the transit key before they go on the queue,
// so Redis (and its AOF file) only ever holds ciphertext. Format: `v1.<keyId>.<base64url sealed>`.
// The associated data ties the envelope to one job (token id, property and mode), so it cannot be
// replayed into another.

import type { TTokenizationMode } from '../schemas.js';
import { seal, open } from './aes-gcm.js';
import { activeKey, type TKeyring } from './keyring.js';

/**
 * The associated data of a tokenize job's envelope: one token, one property, one mode. The API
 * seals with it and the worker opens with it, both from the job's own fields.
 */
export function transitAad(job: { tokenId: string; propertyId: string; mode: TTokenizationMode }): string {
  return `${job.tokenId}:${job.propertyId}:${job.mode}`;
}

export function sealTransit(ring: TKeyring, value: unknown, aad: string): string {
  const sealed = seal(activeKey(ring), Buffer.from(JSON.stringify(value), 'utf8'), `transit:${aad}`);
  return `v1.${ring.activeId}.${sealed.toString('base64url')}`;
}

export function openTransit(ring: TKeyring, envelope: string, aad: string): unknown {
  const [, version, keyId, data] = /^([^.]*)\.(.*)\.([^.]*)$/.exec(envelope) ?? [];
  if (version !== 'v1' || !keyId || !data) throw new Error('transit envelope has an unknown format');
  const key = ring.keys.get(keyId);
  if (!key) throw new Error(`transit key ${keyId} is not configured`);
  return JSON.parse(open(key, Buffer.from(data, 'base64url'), `transit:${aad}`).toString('utf8'));
}
