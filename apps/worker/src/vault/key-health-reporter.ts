// A worker checks its key provider every KEY_CHECK_MS and reports what it finds where the API's
// /readyz reads it (packages/shared/src/vault/keys/key-health.ts). A change is logged once: the
// keys going unusable as a warning, coming back as info.

import type { TRedisClient } from '@folio-vault/shared/connections';
import type { Logger } from '@folio-vault/shared/logger';
import { KEY_CHECK_MS, reportKeyHealth } from '@folio-vault/shared/vault/keys/key-health';
import type { TKeyProvider } from '@folio-vault/shared/vault/keys/key-provider';
import { within } from '@folio-vault/shared/within';

/** Starts the checks; the answer stops them. */
export function startKeyHealthReporter(keys: TKeyProvider, redis: TRedisClient, queuePrefix: string, logger: Logger): { stop(): void } {
  let usable = true;
  const check = async () => {
    const now = await within(keys.check(), KEY_CHECK_MS / 2).then(
      () => true,
      (error: unknown) => {
        if (usable) logger.warn({ provider: keys.kind, err: { message: (error as Error).message } }, 'vault keys unavailable');
        return false;
      },
    );
    if (now && !usable) logger.info({ provider: keys.kind }, 'vault keys available again');
    // A healthy worker clears the flag only when it had set it: another worker may still be failing.
    if (!now || !usable) await reportKeyHealth(redis, queuePrefix, now).catch(() => undefined);
    usable = now;
  };
  const timer = setInterval(() => void check(), KEY_CHECK_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
