// Whether the workers can use their vault keys, as the API's /readyz tells it. The API has no key
// and no access to the HSM, so a worker whose key provider fails its check (an HSM gone, a token
// removed) says so in Redis under the queue prefix: the flag is set again on every failed check
// and expires three checks after the last one, so a worker that died or recovered stops counting.

import type { TRedisClient } from '../../connections.js';

/** How often a worker checks its key provider. */
export const KEY_CHECK_MS = 5_000;
const FLAG_TTL_MS = 3 * KEY_CHECK_MS;

/** What the API's /readyz says of the keys while a worker reports them unusable. */
export const KEYS_UNAVAILABLE = 'vault keys unavailable';

const flagKey = (queuePrefix: string) => `${queuePrefix}:vault-keys-unavailable`;

/** A worker's check result: a failure (re)sets the flag, a success after a failure clears it. */
export async function reportKeyHealth(redis: TRedisClient, queuePrefix: string, usable: boolean): Promise<void> {
  if (usable) await redis.del(flagKey(queuePrefix));
  else await redis.set(flagKey(queuePrefix), '1', 'PX', FLAG_TTL_MS);
}

/**
 * Throws when a worker has reported its keys unusable within the last three checks. With Redis
 * unreachable nothing is known of the keys: the redis check names that, this one does not.
 */
export async function checkWorkersKeys(redis: TRedisClient, queuePrefix: string): Promise<void> {
  const flagged = await redis.exists(flagKey(queuePrefix)).catch(() => 0);
  if (flagged) throw new Error(KEYS_UNAVAILABLE);
}
