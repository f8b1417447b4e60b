// A kept performance measure (packages/shared/src/performance-measures.ts: `gateway-mode-cache`):
// the API remembers a property's gateway mode for GATEWAY_MODE_TTL_MS. Every tokenization and
// forward checks its SVC-Tokenization-Mode header against the mode the property's imported data
// names, and a property's mode changes perhaps once in its life (test → live): remembered, the
// check needs no database round trip, so a tokenization or forward spends no API or PostgreSQL
// CPU on it. What it buys is measured by `npm run bench -- --only tokenize`, the service against
// itself with PERFORMANCE_MEASURES_OFF=gateway-mode-cache in the same run (docs/benchmarks.md).
// Only known modes are remembered: a property imported a moment ago is seen at once, and a mode
// change takes effect within GATEWAY_MODE_TTL_MS.

import type { TPgPool } from '@folio-vault/shared/connections';
import { findPropertyGatewayMode } from '@folio-vault/shared/properties/property-store';
import type { TTokenizationMode } from '@folio-vault/shared/vault/schemas';

/** How long a known mode is trusted without asking PostgreSQL again. */
export const GATEWAY_MODE_TTL_MS = 5_000;

/** The property's gateway mode when its imported data knows it; undefined otherwise. */
export type TGatewayModeOf = (propertyId: string) => Promise<TTokenizationMode | undefined>;

/** Where a property's lookup runs: the API's pool within the property's share (db/property-share.ts). */
export type TPoolOf = (propertyId: string) => TPgPool;

/** Asks PostgreSQL every time (the plain code, and what the measure is compared with). */
export const gatewayModeOf = (poolOf: TPoolOf): TGatewayModeOf => (propertyId) => findPropertyGatewayMode(poolOf(propertyId), propertyId);

/** The same answers, a known mode remembered for `ttlMs`. */
export function rememberedGatewayModes(
  poolOf: TPoolOf,
  ttlMs = GATEWAY_MODE_TTL_MS,
  /** The clock the TTL is measured on; a test steps it instead of waiting. */
  clock: () => number = Date.now,
): TGatewayModeOf {
  const known = new Map<string, { mode: TTokenizationMode; until: number }>();
  return async (propertyId) => {
    const now = clock();
    const remembered = known.get(propertyId);
    if (remembered && remembered.until > now) return remembered.mode;
    const mode = await findPropertyGatewayMode(poolOf(propertyId), propertyId);
    if (mode) known.set(propertyId, { mode, until: now + ttlMs });
    else known.delete(propertyId);
    return mode;
  };
}
