import type { TPgPool } from '@folio-vault/shared/connections';
import { database } from '../http/database.js';
import type { TTokenizationMode } from '@folio-vault/shared/schemas/vault';

/**
 * The property's gateway mode, when imported property data knows it (CONTRACT §3). Ledger data,
 * not vault data: the API may read it directly.
 */
export async function findGatewayMode(pool: TPgPool, propertyId: string): Promise<TTokenizationMode | undefined> {
  const result = await database(() =>
    pool.query<{ gateway_mode: TTokenizationMode }>('SELECT gateway_mode FROM properties WHERE id = $1', [propertyId]),
  );
  return result.rows[0]?.gateway_mode;
}
