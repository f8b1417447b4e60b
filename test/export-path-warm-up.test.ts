import { createServer, type Server, type Socket } from 'node:net';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPgPool, openConnections } from '@folio-vault/shared/connections';
import { warmExportPath, WARM_UP_CONNECTIONS } from '@folio-vault/worker/warm-up/export-path-warm-up';
import { importFaultLedger } from './support/faults.js';
import { createDatabase } from './support/world.js';

/**
 * The worker's export-path warm-up (apps/worker/src/warm-up/export-path-warm-up.ts): it opens
 * connections and runs the ledger reads and document code of an export without writing anything
 * (it has no storage and no queue to write to: only the pool), and with PostgreSQL refusing or
 * never answering it settles anyway, with the reason, so the worker starts.
 */
let pool: pg.Pool;
let silent: Server;
const sockets: Socket[] = [];

async function rowCounts(): Promise<Record<string, number>> {
  const tables = await pool.query<{ name: string }>(
    "SELECT quote_ident(table_name) AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables.rows) counts[name] = Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${name}`)).rows[0]!.n);
  return counts;
}

beforeAll(async () => {
  const database = await createDatabase();
  pool = createPgPool(database.url, { max: 10 });
  await importFaultLedger(pool, 20);
  // A server that accepts connections and never answers: a PostgreSQL that hangs.
  silent = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent?.close(resolve));
  await pool?.end();
});

describe('export path warm-up', () => {
  it('opens connections and runs an export’s reads, writing no row', async () => {
    const before = await rowCounts();
    expect(Object.keys(before).length).toBeGreaterThan(0);
    const outcome = await warmExportPath(pool, 60_000);
    expect(outcome.timedOut).toBe(false);
    expect(outcome.error).toBeUndefined();
    expect(pool.totalCount).toBeGreaterThanOrEqual(WARM_UP_CONNECTIONS);
    expect(await rowCounts()).toEqual(before);
  });

  it('settles with the reason when PostgreSQL refuses connections', async () => {
    const refusing = createPgPool(`postgres://folio:folio@127.0.0.1:1/none`, { max: 4 });
    try {
      const outcome = await warmExportPath(refusing, 60_000);
      expect(outcome.timedOut).toBe(false);
      expect(outcome.error).toMatch(/ECONNREFUSED/);
    } finally {
      await refusing.end();
    }
  });

  it('settles at its bound when PostgreSQL never answers', async () => {
    const { port } = silent.address() as { port: number };
    // No connection time-out: only the warm-up's own bound can end the wait.
    const hanging = createPgPool(`postgres://folio:folio@127.0.0.1:${port}/none`, { max: 4, connectionTimeoutMillis: 0 });
    const outcome = await warmExportPath(hanging, 200);
    expect(outcome.timedOut).toBe(true);
    expect(outcome.error).toBeUndefined();
    // Its connects still wait (no time-out); the pool is left to end with the sockets in afterAll.
    void hanging.end().catch(() => undefined);
  });
});

describe('openConnections', () => {
  it('opens the pool’s connections up to its max and hands them back idle', async () => {
    const database = await createDatabase();
    const small = createPgPool(database.url, { max: 3 });
    try {
      await openConnections(small, 5);
      expect(small.totalCount).toBe(3);
      expect(small.idleCount).toBe(3);
      await openConnections(small, 2);
      expect(small.totalCount).toBe(3);
    } finally {
      await small.end();
    }
  });
});
