import type { PoolClient } from 'pg';
import type { TPgPool } from '../connections.js';

/**
 * How a transaction starts. A snapshot read (many statements that must see one state of the
 * tables, e.g. an export's keyset batches) is REPEATABLE READ READ ONLY: its snapshot is taken at
 * its first statement and no concurrent commit shows in the later ones.
 */
export type TBegin = 'BEGIN' | 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY';

/**
 * Runs `work` in one transaction on one pooled connection: committed when it resolves (whatever
 * it returns, an early answer included), rolled back when it throws, the connection always handed
 * back.
 *
 * While the connection is checked out it has an 'error' listener of its own: node-postgres gives
 * one only to idle clients, so a server that goes away (a restart, a failover) in the middle of a
 * transaction would otherwise raise an unhandled 'error' event and end the process. The failed
 * query rejects as usual; the broken connection is destroyed instead of going back to the pool.
 */
export async function inTransaction<T>(pool: TPgPool, work: (client: PoolClient) => Promise<T>, begin: TBegin = 'BEGIN'): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken = error;
  };
  client.on('error', onError);
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    if (!broken) await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}
