// Readiness as the API's /readyz (apps/api/src/ops/routes.ts) and the worker's health server
// (apps/worker/src/health-server.ts) answer it: every check in parallel, each within a bound, so a
// store that hangs is "unavailable" rather than a probe that hangs; a 503 names what did not
// answer.

import { AppError } from './errors.js';
import { within } from './within.js';

/**
 * Each check's bound when the caller gives none: the checks run in parallel, so a probe gets its
 * answer within this, under the 1 s an orchestrator's probe commonly allows (Kubernetes'
 * timeoutSeconds default).
 */
export const READINESS_CHECK_MS = 900;

/** Rejects or throws when it is not ready. */
export type TReadinessCheck = () => Promise<unknown> | unknown;

export interface TReadiness {
  checks: Record<string, 'ok' | 'unavailable'>;
  /** When a check failed: the 503 (Retry-After 5) naming the checks that did not answer. */
  error?: AppError;
}

export async function checkReadiness(checks: Record<string, TReadinessCheck>, timeoutMs = READINESS_CHECK_MS): Promise<TReadiness> {
  const results = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => {
      try {
        await within(Promise.resolve().then(check), timeoutMs);
        return [name, 'ok'] as const;
      } catch {
        return [name, 'unavailable'] as const;
      }
    }),
  );
  const failing = results.filter(([, state]) => state !== 'ok').map(([name]) => name);
  const error = failing.length > 0 ? AppError.unavailable(`Not ready: ${failing.join(', ')} did not answer.`, 5) : undefined;
  return { checks: Object.fromEntries(results), ...(error ? { error } : {}) };
}
