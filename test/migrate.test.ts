import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureDatabase, migrate } from '@folio-vault/shared/db/migrate';
import { testDatabaseName } from './support/world.js';

/** The migration files, listed rather than hard-coded, so a new file needs no test change (the sources: no build needed). */
const MIGRATIONS_DIR = fileURLToPath(new URL('../packages/shared/src/db/migrations', import.meta.url));
const MIGRATION_FILES = readdirSync(MIGRATIONS_DIR).filter((file) => file.endsWith('.sql')).sort();

let admin: pg.Client;

/** A new database name (global teardown drops it) and its URL on the test server. */
function newDatabase(): { name: string; url: string } {
  const name = testDatabaseName();
  const url = new URL(inject('postgresUrl'));
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

async function databaseExists(name: string): Promise<boolean> {
  const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  return found.rowCount === 1;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  admin = new pg.Client({ connectionString: inject('postgresUrl') });
  await admin.connect();
});
afterAll(async () => admin?.end());

describe('ensureDatabase', () => {
  it('creates a missing database and answers false the second time', async () => {
    const db = newDatabase();
    expect(await databaseExists(db.name)).toBe(false);
    expect(await ensureDatabase(db.url)).toBe(true);
    expect(await databaseExists(db.name)).toBe(true);
    expect(await ensureDatabase(db.url)).toBe(false);
    expect(await databaseExists(db.name)).toBe(true);
  });

  it('lets 4 concurrent calls on the same new name all succeed, creating it once', async () => {
    const db = newDatabase();
    const results = await Promise.all(Array.from({ length: 4 }, () => ensureDatabase(db.url)));
    expect(results.filter((created) => created)).toHaveLength(1);
    expect(results.filter((created) => !created)).toHaveLength(3);
    expect(await databaseExists(db.name)).toBe(true);
  });

  it('creates a database whose name needs quoting', async () => {
    const name = `${testDatabaseName()}-Mixed`;
    const url = new URL(inject('postgresUrl'));
    url.pathname = `/${encodeURIComponent(name)}`;
    expect(await ensureDatabase(url.toString())).toBe(true);
    expect(await databaseExists(name)).toBe(true);
    expect(await ensureDatabase(url.toString())).toBe(false);
    // Dropped here too: the name needs quoting.
    await admin.query(`DROP DATABASE ${pg.escapeIdentifier(name)}`);
  });

  it('refuses a URL that names no database', async () => {
    const url = new URL(inject('postgresUrl'));
    url.pathname = '/';
    await expect(ensureDatabase(url.toString())).rejects.toThrow(/names no database/);
  });
});

describe('migrate', () => {
  it('has at least one migration file to apply', () => {
    expect(MIGRATION_FILES.length).toBeGreaterThan(0);
  });

  it('applies every file exactly once when 5 processes migrate a fresh database at the same time', async () => {
    const db = newDatabase();
    expect(await ensureDatabase(db.url)).toBe(true);
    const applied = await Promise.all(Array.from({ length: 5 }, () => migrate(db.url)));
    // Each call succeeded; together they applied each file once.
    expect(applied.flat()).toHaveLength(MIGRATION_FILES.length);
    expect([...applied.flat()].sort()).toEqual(MIGRATION_FILES);
    const rows = await withClient(db.url, async (client) =>
      (await client.query<{ name: string; n: number }>('SELECT name, count(*)::int AS n FROM schema_migrations GROUP BY name ORDER BY name')).rows,
    );
    expect(rows).toEqual(MIGRATION_FILES.map((name) => ({ name, n: 1 })));
  });

  it('creates vault_test.cards, vault_live.cards and properties', async () => {
    const db = newDatabase();
    await ensureDatabase(db.url);
    const lines: string[] = [];
    const applied = await migrate(db.url, (line) => lines.push(line));
    expect(applied).toEqual(MIGRATION_FILES);
    expect(lines).toEqual(MIGRATION_FILES.map((file) => `applied migration ${file}`));
    const tables = await withClient(db.url, async (client) =>
      (
        await client.query<{ name: string }>(
          `SELECT table_schema || '.' || table_name AS name FROM information_schema.tables
           WHERE (table_schema, table_name) IN (('vault_test', 'cards'), ('vault_live', 'cards'), ('public', 'properties'),
                                                ('vault_test', 'idempotency_keys'), ('vault_live', 'idempotency_keys'))
           ORDER BY 1`,
        )
      ).rows.map((row) => row.name),
    );
    expect(tables).toEqual([
      'public.properties',
      'vault_live.cards',
      'vault_live.idempotency_keys',
      'vault_test.cards',
      'vault_test.idempotency_keys',
    ]);
  });

  it('gives vault_live.cards the same columns as vault_test.cards', async () => {
    const db = newDatabase();
    await ensureDatabase(db.url);
    await migrate(db.url);
    const columns = await withClient(db.url, async (client) =>
      (
        await client.query<{ table_schema: string; cols: string }>(
          `SELECT table_schema, string_agg(column_name || ' ' || data_type, ', ' ORDER BY ordinal_position) AS cols
           FROM information_schema.columns WHERE table_name = 'cards' AND table_schema IN ('vault_test', 'vault_live')
           GROUP BY table_schema`,
        )
      ).rows,
    );
    expect(columns).toHaveLength(2);
    expect(columns[0]!.cols).toBe(columns[1]!.cols);
    expect(columns[0]!.cols).toContain('wrapped_dek bytea');
    expect(columns[0]!.cols).not.toMatch(/cvv/);
  });

  it('applies nothing the second time and keeps one row per file', async () => {
    const db = newDatabase();
    await ensureDatabase(db.url);
    expect(await migrate(db.url)).toEqual(MIGRATION_FILES);
    expect(await migrate(db.url)).toEqual([]);
    const count = await withClient(db.url, async (client) =>
      (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations')).rows[0]!.n,
    );
    expect(count).toBe(MIGRATION_FILES.length);
  });

  it('turns the stored bigint customer and external relation ids into text of their digits (011)', async () => {
    const db = newDatabase();
    await ensureDatabase(db.url);
    const before = MIGRATION_FILES.filter((file) => file < '011_');
    await withClient(db.url, async (client) => {
      // The database as a server before 011 left it, with a transaction imported then.
      await client.query('CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      for (const file of before) {
        await client.query(readFileSync(join(MIGRATIONS_DIR, file), 'utf8'));
        await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
      }
      await client.query(
        `INSERT INTO transactions (property_id, id, folio_id, source_kind, source_id, transaction_datetime, service_date, internal_transaction_code,
           internal_code_group, description, quantity, amount, currency, posted, root_id, customer_id, external_relation_id)
         VALUES (1, 1, 101, 'RESERVATION', 5001, now(), '2026-03-10', 'RR', 'ROOM_REVENUE_RATE', 'Room rate', 1, 120, 'EUR', true, 1, 9223372036854775807, 88),
                (1, 2, 101, 'RESERVATION', 5001, now(), '2026-03-10', 'RR', 'ROOM_REVENUE_RATE', 'Room rate', 1, 120, 'EUR', true, 2, NULL, NULL)`,
      );
    });
    expect(await migrate(db.url)).toEqual(MIGRATION_FILES.filter((file) => file >= '011_'));
    const stored = await withClient(db.url, async (client) => ({
      rows: (await client.query('SELECT id::text, customer_id, external_relation_id FROM transactions ORDER BY id')).rows,
      types: (
        await client.query(
          `SELECT column_name, data_type FROM information_schema.columns
            WHERE table_name = 'transactions' AND column_name IN ('customer_id', 'external_relation_id') ORDER BY column_name`,
        )
      ).rows,
    }));
    expect(stored.rows).toEqual([
      { id: '1', customer_id: '9223372036854775807', external_relation_id: '88' },
      { id: '2', customer_id: null, external_relation_id: null },
    ]);
    expect(stored.types).toEqual([
      { column_name: 'customer_id', data_type: 'text' },
      { column_name: 'external_relation_id', data_type: 'text' },
    ]);
  });

  it('releases its lock, so another migrate on the same database can run afterwards', async () => {
    const db = newDatabase();
    await ensureDatabase(db.url);
    await migrate(db.url);
    const held = await withClient(db.url, async (client) =>
      (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted
             AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)).rows[0]!.n,
    );
    expect(held).toBe(0);
  });
});
