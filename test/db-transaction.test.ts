import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '@folio-vault/shared/db/transaction';
import { createDatabase } from './support/world.js';

/**
 * inTransaction (packages/shared/src/db/transaction.ts) when the server ends the connection in the
 * middle of a transaction, as a PostgreSQL restart or failover does: the transaction rejects, the
 * process does not die of an unhandled 'error' event, and the broken connection is not reused.
 */
let pool: pg.Pool;
let admin: pg.Pool;

beforeAll(async () => {
  const database = await createDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
  admin = new pg.Pool({ connectionString: database.url, max: 1 });
});
afterAll(async () => {
  await pool?.end();
  await admin?.end();
});

describe('inTransaction with the connection terminated mid-transaction', () => {
  it('rejects, keeps the process alive and hands the pool a fresh connection afterwards', async () => {
    let killedPid = 0;
    const unhandled: unknown[] = [];
    const onUncaught = (error: unknown) => unhandled.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      await expect(
        inTransaction(pool, async (client) => {
          killedPid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
          // The server's notice arrives as an 'error' event on the client between queries (listened to
          // by inTransaction only: without it the process would die), then the connection ends.
          const ended = new Promise((resolve) => client.once('end', resolve));
          await admin.query('SELECT pg_terminate_backend($1)', [killedPid]);
          await ended;
          await client.query('SELECT 1');
        }),
      ).rejects.toThrow();
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(unhandled).toEqual([]);
    // max 1: the only connection was the broken one; the next query gets a new backend.
    const next = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(next.rows[0]!.pid).not.toBe(killedPid);
  });
});
