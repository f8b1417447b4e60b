import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureDatabase, migrate, pendingMigrations } from '@folio-vault/shared/db/migrate';
import { monthsFrom, partitionName } from '@folio-vault/shared/db/audit-partitions';
import { DATABASE_ROLES, roleUrlOf } from '@folio-vault/shared/db/roles';
import { freePort } from '@folio-vault/dev-services/process-utils';
import { spawnTs } from '@folio-vault/test-kit/processes';
import { createDatabase, testDatabaseName, testKeys } from './support/world.js';

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

/**
 * The grant policy as docs/operations.md#database-roles lists it: table → what each role may do.
 * A row names one table or several (`vault_test.cards`, `vault_live.cards`); `—` is nothing.
 */
function documentedGrants(): Map<string, { api: string[]; worker: string[] }> {
  const page = readFileSync(fileURLToPath(new URL('../docs/operations.md', import.meta.url)), 'utf8');
  const section = /\n### Database roles\n([\s\S]*?)\n### /.exec(page)?.[1] ?? '';
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  expect(rows.length, 'the roles table of docs/operations.md').toBeGreaterThan(0);
  const privileges = (cell: string) => (cell.trim() === '—' ? [] : cell.split(',').map((word) => word.trim()));
  const grants = new Map<string, { api: string[]; worker: string[] }>();
  for (const row of rows) {
    const [tables, api, worker] = row.split('|').slice(1, 4) as [string, string, string];
    for (const [, table] of tables.matchAll(/`([a-z_.]+)`/g)) grants.set(table!, { api: privileges(api), worker: privileges(worker) });
  }
  return grants;
}

const TABLE_PRIVILEGES = ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER'];

/** Every table of every schema of the database but the system's, public ones unqualified, as the docs name them. */
const CATALOG_TABLES = `
  SELECT c.oid, n.nspname AS schema, c.relname AS table,
         CASE WHEN n.nspname = 'public' THEN c.relname ELSE n.nspname || '.' || c.relname END AS name
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition
     AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
   ORDER BY 4`;

describe('database roles', () => {
  let db: { name: string; url: string };
  beforeAll(async () => {
    db = await createDatabase();
  });

  it('grants each role exactly what docs/operations.md lists, for every table the catalog has', async () => {
    const granted = await withClient(db.url, async (client) =>
      (
        await client.query<{ name: string; api: string[]; worker: string[] }>(
          `SELECT t.name,
                  ARRAY(SELECT p FROM unnest($1::text[]) p WHERE has_table_privilege($2, t.oid, p)) AS api,
                  ARRAY(SELECT p FROM unnest($1::text[]) p WHERE has_table_privilege($3, t.oid, p)) AS worker
             FROM (${CATALOG_TABLES}) t`,
          [TABLE_PRIVILEGES, DATABASE_ROLES.api, DATABASE_ROLES.worker],
        )
      ).rows,
    );
    const documented = documentedGrants();
    // A table missing from the list has no grant decision yet: add it to the table, and its grants
    // to its migration.
    expect(granted.map((row) => row.name).filter((name) => !documented.has(name))).toEqual([]);
    expect([...documented.keys()].filter((name) => !granted.some((row) => row.name === name))).toEqual([]);
    expect(Object.fromEntries(granted.map((row) => [row.name, { api: row.api, worker: row.worker }]))).toEqual(Object.fromEntries(documented));
  });

  it('gives the API no use of the vault schemas, both roles the use of public and audit, and neither the right to create', async () => {
    const schemas = await withClient(db.url, async (client) =>
      (
        await client.query<{ schema: string; api: boolean; worker: boolean; api_create: boolean; worker_create: boolean }>(
          `SELECT nspname AS schema, has_schema_privilege($1, oid, 'USAGE') AS api, has_schema_privilege($2, oid, 'USAGE') AS worker,
                  has_schema_privilege($1, oid, 'CREATE') AS api_create, has_schema_privilege($2, oid, 'CREATE') AS worker_create
             FROM pg_namespace WHERE nspname IN ('public', 'audit', 'vault_test', 'vault_live') ORDER BY 1`,
          [DATABASE_ROLES.api, DATABASE_ROLES.worker],
        )
      ).rows,
    );
    expect(schemas).toEqual([
      { schema: 'audit', api: true, worker: true, api_create: false, worker_create: false },
      { schema: 'public', api: true, worker: true, api_create: false, worker_create: false },
      { schema: 'vault_live', api: false, worker: true, api_create: false, worker_create: false },
      { schema: 'vault_test', api: false, worker: true, api_create: false, worker_create: false },
    ]);
  });

  it('has no sequence but identity columns\' (an insert needs no grant on those)', async () => {
    const sequences = await withClient(db.url, async (client) =>
      (
        await client.query<{ name: string }>(
          `SELECT n.nspname || '.' || s.relname AS name FROM pg_class s JOIN pg_namespace n ON n.oid = s.relnamespace
            WHERE s.relkind = 'S' AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = s.oid AND d.deptype = 'i')`,
        )
      ).rows.map((row) => row.name),
    );
    // A sequence of its own (a serial column) would need USAGE for the role that inserts: decide it in its migration.
    expect(sequences).toEqual([]);
  });

  it('refuses the API\'s role (42501) every SELECT, INSERT, UPDATE and DELETE on every vault table, and runs the workers\' where the list grants it', async () => {
    const tables = await withClient(db.url, async (client) =>
      (
        await client.query<{ schema: string; table: string; name: string; column: string }>(
          `SELECT t.schema, t.table, t.name, (SELECT attname FROM pg_attribute WHERE attrelid = t.oid AND attnum = 1) AS column
             FROM (${CATALOG_TABLES}) t WHERE t.schema IN ('vault_test', 'vault_live')`,
        )
      ).rows,
    );
    expect(tables.map((row) => row.name)).toEqual([
      'vault_live.cards', 'vault_live.forward_attempts', 'vault_live.held_cvvs', 'vault_live.idempotency_keys',
      'vault_test.cards', 'vault_test.forward_attempts', 'vault_test.held_cvvs', 'vault_test.idempotency_keys',
    ]);
    // Each statement touches no row (WHERE false), so only the privilege decides; INSERT … SELECT
    // reads the table too.
    const statements = ({ schema, table, column }: { schema: string; table: string; column: string }) => {
      const name = `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}`;
      return {
        SELECT: `SELECT * FROM ${name} WHERE false`,
        INSERT: `INSERT INTO ${name} SELECT * FROM ${name} WHERE false`,
        UPDATE: `UPDATE ${name} SET ${pg.escapeIdentifier(column)} = ${pg.escapeIdentifier(column)} WHERE false`,
        DELETE: `DELETE FROM ${name} WHERE false`,
      };
    };
    const outcomes = (url: string) =>
      withClient(url, async (client) => {
        const byTable: Record<string, Record<string, string>> = {};
        for (const table of tables) {
          byTable[table.name] = {};
          for (const [verb, sql] of Object.entries(statements(table))) {
            byTable[table.name]![verb] = await client.query(sql).then(
              () => 'ok',
              (error: { code?: string }) => error.code ?? 'failed',
            );
          }
        }
        return byTable;
      });
    const documented = documentedGrants();
    const expected = (role: 'api' | 'worker') =>
      Object.fromEntries(
        tables.map((table) => [
          table.name,
          Object.fromEntries(['SELECT', 'INSERT', 'UPDATE', 'DELETE'].map((verb) => {
            const may = documented.get(table.name)![role];
            const needs = verb === 'INSERT' || verb === 'UPDATE' ? [verb, 'SELECT'] : [verb];
            return [verb, needs.every((privilege) => may.includes(privilege)) ? 'ok' : '42501'];
          })),
        ]),
      );
    const api = await outcomes(roleUrlOf(db.url, 'api'));
    expect(Object.values(api).flatMap((byVerb) => Object.values(byVerb))).toEqual(Array.from({ length: tables.length * 4 }, () => '42501'));
    expect(await outcomes(roleUrlOf(db.url, 'worker'))).toEqual(expected('worker'));
  });

  it('answers the migrations pending to a role that may not migrate: none on a migrated database, each one missing otherwise', async () => {
    const asApi = roleUrlOf(db.url, 'api');
    expect(await pendingMigrations(asApi)).toEqual([]);
    const last = MIGRATION_FILES[MIGRATION_FILES.length - 1]!;
    const other = await createDatabase();
    await withClient(other.url, (client) => client.query('DELETE FROM schema_migrations WHERE name = $1', [last]));
    expect(await pendingMigrations(roleUrlOf(other.url, 'worker'))).toEqual([last]);
    const empty = newDatabase();
    await ensureDatabase(empty.url);
    expect(await pendingMigrations(roleUrlOf(empty.url, 'api'))).toEqual(MIGRATION_FILES);
  });

  it('stops an API given only its role\'s URL while a migration is pending, with one line, and migrates nothing', { timeout: 60_000 }, async () => {
    const empty = newDatabase();
    await ensureDatabase(empty.url);
    const api = spawnTs('apps/api/src/main.ts', [], {
      ...testKeys(),
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      PORT: String(await freePort()),
      REDIS_URL: inject('redisUrl'),
      API_DATABASE_URL: roleUrlOf(empty.url, 'api'),
    }, { direct: true });
    expect(await api.exited).toBe(1);
    const first = MIGRATION_FILES.slice(0, 3).join(', ');
    expect(api.output()).toBe(
      `folio-vault api: database: ${MIGRATION_FILES.length} migrations pending (${first}, …): apply them with \`npm run db:migrate\` and the schema owner's DATABASE_URL, or start a process given DATABASE_URL\n`,
    );
    expect(await pendingMigrations(empty.url)).toEqual(MIGRATION_FILES);
  });

  it('leaves the roles as they are when databases migrate at once and again', async () => {
    const roles = () =>
      withClient(inject('postgresUrl'), async (client) =>
        (
          await client.query(
            `SELECT rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication, rolconnlimit, rolvaliduntil, rolbypassrls, rolpassword IS NULL AS no_password
               FROM pg_authid WHERE rolname = ANY($1::text[]) ORDER BY rolname`,
            [Object.values(DATABASE_ROLES)],
          )
        ).rows,
    );
    const before = await roles();
    expect(before.map((row) => [row.rolname, row.rolcanlogin, row.rolsuper, row.rolcreaterole])).toEqual([
      ['folio_vault_api', true, false, false],
      ['folio_vault_worker', true, false, false],
    ]);
    const dbs = [newDatabase(), newDatabase()];
    for (const each of dbs) await ensureDatabase(each.url);
    await Promise.all(dbs.flatMap((each) => [migrate(each.url), migrate(each.url), migrate(each.url)]));
    expect(await Promise.all(dbs.map((each) => migrate(each.url)))).toEqual([[], []]);
    expect(await roles()).toEqual(before);
  });

  it('migrates as an owner that may not create roles, once the roles exist', async () => {
    const owner = `${inject('databasePrefix')}owner_${Math.random().toString(36).slice(2, 8)}`;
    const mine = newDatabase();
    await admin.query(`CREATE ROLE ${pg.escapeIdentifier(owner)} LOGIN NOSUPERUSER NOCREATEROLE NOCREATEDB`);
    try {
      await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(mine.name)} OWNER ${pg.escapeIdentifier(owner)}`);
      const asOwner = new URL(mine.url);
      asOwner.username = owner;
      expect(await migrate(asOwner.toString())).toEqual(MIGRATION_FILES);
      const granted = await withClient(mine.url, async (client) =>
        (await client.query<{ worker: boolean; api: boolean }>(
          `SELECT has_table_privilege($1, 'vault_live.cards', 'SELECT') AS api, has_table_privilege($2, 'vault_live.cards', 'SELECT') AS worker`,
          [DATABASE_ROLES.api, DATABASE_ROLES.worker],
        )).rows[0],
      );
      expect(granted).toEqual({ api: false, worker: true });
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(mine.name)} WITH (FORCE)`);
      await admin.query(`DROP ROLE IF EXISTS ${pg.escapeIdentifier(owner)}`);
    }
  });
});

/**
 * The audit trail by month (migration 020_audit_monthly_partitions.sql, `npm run db:partitions`;
 * docs/production.md#the-audit-trails-monthly-partitions).
 */
describe('the audit trail\'s monthly partitions', () => {
  const PARTITIONING = MIGRATION_FILES.find((file) => file.includes('audit_monthly_partitions'))!;
  const events = (client: pg.Client) =>
    client.query<{ id: string; request_id: string; partition: string; occurred_at: Date }>(
      'SELECT id, request_id, tableoid::regclass::text AS partition, occurred_at FROM audit.vault_events ORDER BY id',
    ).then((result) => result.rows);
  const append = (client: pg.Client, occurredAt: string, requestId: string) =>
    client.query(`INSERT INTO audit.vault_events (occurred_at, action, outcome, http_status, request_id) VALUES ($1, 'token.read', 'success', 200, $2)`, [occurredAt, requestId]);
  const thisMonth = partitionName(monthsFrom(new Date(), 0)[0]!);

  it('keeps every event of the table it replaces with its id, goes on after the highest, and stays append-only and insert-only for the roles', async () => {
    const db = newDatabase();
    await ensureDatabase(db.url);
    // The schema as it was before the partitioning migration, with events of three months.
    await withClient(db.url, async (client) => {
      await client.query('CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      for (const file of MIGRATION_FILES.filter((name) => name < PARTITIONING)) {
        await client.query(readFileSync(join(MIGRATIONS_DIR, file), 'utf8'));
        await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
      }
      await append(client, '2025-03-04T10:00:00Z', 'march');
      await append(client, '2026-01-31T23:59:59.999Z', 'january');
      await append(client, new Date().toISOString(), 'now');
    });
    expect(await migrate(db.url)).toEqual(MIGRATION_FILES.filter((name) => name >= PARTITIONING));

    await withClient(db.url, async (client) => {
      expect((await events(client)).map(({ id, request_id, partition }) => [id, request_id, partition])).toEqual([
        ['1', 'march', 'audit.vault_events_2025_03'],
        ['2', 'january', 'audit.vault_events_2026_01'],
        ['3', 'now', `audit.${thisMonth}`],
      ]);
      const layout = await client.query<{ partitioned: string; months: number; indexes: number; triggers: number }>(
        `SELECT (SELECT partstrat FROM pg_partitioned_table WHERE partrelid = 'audit.vault_events'::regclass) AS partitioned,
                (SELECT count(*)::int FROM pg_inherits WHERE inhparent = 'audit.vault_events'::regclass) AS months,
                (SELECT count(*)::int FROM pg_index WHERE indrelid = 'audit.vault_events_2025_03'::regclass) AS indexes,
                (SELECT count(*)::int FROM pg_trigger WHERE tgrelid = 'audit.vault_events_2025_03'::regclass AND tgname = 'vault_events_append_only') AS triggers`,
      );
      // March 2025 (month 2 of 2025) to three months past this one, and the default partition.
      const now = new Date();
      const months = (now.getUTCFullYear() - 2025) * 12 + now.getUTCMonth() - 2 + 1 + 3;
      expect(layout.rows[0]).toEqual({ partitioned: 'r', months: months + 1, indexes: 4, triggers: 1 });
      for (const statement of ['UPDATE audit.vault_events SET subject = \'x\'', 'DELETE FROM audit.vault_events_2025_03', 'DELETE FROM audit.vault_events WHERE request_id = \'now\'']) {
        await expect(client.query(statement), statement).rejects.toThrow('audit events are append-only');
      }
    });
    // The roles insert through the parent (the identity goes on after the highest id) and read nothing, there or in a partition.
    for (const role of ['api', 'worker'] as const) {
      await withClient(roleUrlOf(db.url, role), async (client) => {
        // As the service writes: no RETURNING, which would read the row back.
        await client.query(`INSERT INTO audit.vault_events (action, outcome, http_status, request_id) VALUES ('token.read', 'success', 200, $1)`, [role]);
        for (const table of ['audit.vault_events', `audit.${thisMonth}`, 'audit.vault_events_default']) {
          await expect(client.query(`SELECT 1 FROM ${table} LIMIT 1`), `${role} reads ${table}`).rejects.toMatchObject({ code: '42501' });
        }
        await expect(client.query(`INSERT INTO audit.${thisMonth} (action, outcome, http_status, request_id) VALUES ('token.read', 'success', 200, 'direct')`)).rejects.toMatchObject({ code: '42501' });
      });
    }
    await withClient(db.url, async (client) => {
      expect((await events(client)).slice(3).map(({ id, request_id, partition }) => [id, request_id, partition])).toEqual([
        ['4', 'api', `audit.${thisMonth}`],
        ['5', 'worker', `audit.${thisMonth}`],
      ]);
    });
  });

  it('db:partitions makes the next months once, moving into each the events the default partition held for it', { timeout: 60_000 }, async () => {
    const db = await createDatabase();
    const ahead = monthsFrom(new Date(), 6);
    const farMonth = ahead[6]!;
    const far = `${farMonth.year}-${String(farMonth.month).padStart(2, '0')}-15T12:00:00Z`;
    await withClient(db.url, async (client) => {
      await append(client, far, 'early');
      expect((await events(client)).map((row) => row.partition)).toEqual(['audit.vault_events_default']);
    });
    const run = async () => {
      const spawned = spawnTs('scripts/db-partitions.ts', ['--months', '6'], { DATABASE_URL: db.url }, { direct: true });
      return { code: await spawned.exited, output: spawned.output() };
    };
    const names = ahead.map((month) => `audit.${partitionName(month)}`);
    const until = `${farMonth.year}-${String(farMonth.month).padStart(2, '0')}`;
    expect(await run()).toEqual({
      code: 0,
      output: [
        ...names.slice(0, 4).map((name) => `db:partitions: ${name} already there`),
        ...names.slice(4, 6).map((name) => `db:partitions: ${name} created`),
        `db:partitions: ${names[6]} created; 1 events moved into it from audit.vault_events_default`,
        `db:partitions: 3 created; the audit trail has its partitions until ${until}`,
        '',
      ].join('\n'),
    });
    expect(await run()).toEqual({
      code: 0,
      output: [...names.map((name) => `db:partitions: ${name} already there`), `db:partitions: 0 created; the audit trail has its partitions until ${until}`, ''].join('\n'),
    });
    await withClient(db.url, async (client) => {
      expect((await events(client)).map((row) => [row.request_id, row.partition])).toEqual([['early', names[6]]]);
      // The moved month is append-only like the others, and the default partition's trigger is on again.
      await expect(client.query(`DELETE FROM ${names[6]!}`)).rejects.toThrow('audit events are append-only');
      await append(client, '2099-01-01T00:00:00Z', 'later');
      await expect(client.query('DELETE FROM audit.vault_events_default')).rejects.toThrow('audit events are append-only');
    });
  });
});
