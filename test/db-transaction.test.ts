import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgPool } from '@folio-vault/shared/connections';
import { inTransaction } from '@folio-vault/shared/db/transaction';
import { createDatabase } from './support/world.js';

/**
 * inTransaction (packages/shared/src/db/transaction.ts) when the server ends the connection in the
 * middle of a transaction, as a PostgreSQL restart or failover does: the transaction rejects, the
 * process does not die of an unhandled 'error' event, and the broken connection is not reused;
 * and the same of any connection checked out of the service's pools (createPgPool).
 */
let pool: pg.Pool;
let admin: pg.Pool;
let url: string;

beforeAll(async () => {
  const database = await createDatabase();
  url = database.url;
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

describe('a connection of the service pool checked out, its server gone between statements', () => {
  it('raises no unhandled error, fails its next statement, and the pool replaces it', async () => {
    const service = createPgPool(url, { max: 1 });
    const unhandled: unknown[] = [];
    const onUncaught = (error: unknown) => unhandled.push(error);
    process.on('uncaughtException', onUncaught);
    let killedPid = 0;
    try {
      const client = await service.connect();
      killedPid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      const ended = new Promise((resolve) => client.once('end', resolve));
      await admin.query('SELECT pg_terminate_backend($1)', [killedPid]);
      await ended;
      await expect(client.query('SELECT 1')).rejects.toThrow();
      client.release();
      const next = await service.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      expect(next.rows[0]!.pid).not.toBe(killedPid);
    } finally {
      process.off('uncaughtException', onUncaught);
      await service.end();
    }
    expect(unhandled).toEqual([]);
  });
});
