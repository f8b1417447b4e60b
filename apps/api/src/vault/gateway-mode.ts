import type { TPgPool } from '@folio-vault/shared/connections';
import type { TTokenizationMode } from '@folio-vault/shared/vault/schemas';
import { findPropertyGatewayMode } from '@folio-vault/shared/properties/property-store';

/** How long a known mode is trusted without asking PostgreSQL again. */
export const GATEWAY_MODE_TTL_MS = 5_000;

/**
 * The property's gateway mode, when imported property data knows it (docs/vault.md#test-and-live),
 * read with findPropertyGatewayMode: ledger data, not vault data, so the API may read it directly.
 * With a short memory of the modes it found: every tokenization asks, and a
 * property's mode changes perhaps once in its life (test → live), so a busy API saves a database
 * round trip per request. Only known modes are remembered: a property imported a moment ago is
 * seen at once, and a mode change takes effect within GATEWAY_MODE_TTL_MS (docs/vault.md).
 */
export class GatewayModes {
  private readonly known = new Map<string, { mode: TTokenizationMode; until: number }>();

  constructor(
    private readonly pool: TPgPool,
    private readonly ttlMs = GATEWAY_MODE_TTL_MS,
    /** The clock the TTL is measured on; a test steps it instead of waiting. */
    private readonly clock: () => number = Date.now,
  ) {}

  async find(propertyId: string): Promise<TTokenizationMode | undefined> {
    const now = this.clock();
    const remembered = this.known.get(propertyId);
    if (remembered && remembered.until > now) return remembered.mode;
    const mode = await findPropertyGatewayMode(this.pool, propertyId);
    if (mode) this.known.set(propertyId, { mode, until: now + this.ttlMs });
    else this.known.delete(propertyId);
    return mode;
  }
}
