import type { PoolClient } from 'pg';
import type { TPgPool } from '../connections.js';

/**
 * Runs `work` in one transaction on one pooled connection: committed when it resolves (whatever
 * it returns, an early answer included), rolled back when it throws, the connection always handed
 * back.
 */
export async function inTransaction<T>(pool: TPgPool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
