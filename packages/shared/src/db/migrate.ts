import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
// One fixed advisory-lock key: every process that starts takes it before touching the schema,
// so two API/worker processes starting at once apply each migration exactly once.
const MIGRATION_LOCK_KEY = 7_210_455_013_905_001n;

/** The migration files, in the order they apply. */
async function migrationFiles(): Promise<string[]> {
  return (await readdir(MIGRATIONS_DIR)).filter((file) => file.endsWith('.sql')).sort();
}

/**
 * Applies the pending migrations as the schema's owner (DATABASE_URL): one transaction each, under
 * one advisory lock, so processes starting at once apply each exactly once. Resolves to the files
 * applied.
 */
export async function migrate(databaseUrl: string, log: (line: string) => void = () => undefined): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY.toString()]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set(
      (await client.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((row) => row.name),
    );
    for (const file of await migrationFiles()) {
      if (done.has(file)) continue;
      const sql = await readFile(join(MIGRATIONS_DIR, file), 'utf8');
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        // A migration's own hint says what to do (017: which role to create, and as whom).
        const hint = (error as { hint?: string }).hint;
        throw new Error(`migration ${file} failed: ${(error as Error).message}${hint ? `; ${hint}` : ''}`, { cause: error });
      }
      applied.push(file);
      log(`applied migration ${file}`);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY.toString()]).catch(() => undefined);
    await client.end();
  }
  return applied;
}

/**
 * The migrations not applied yet, asked as any role that may read schema_migrations (the API's and
 * the workers' may): what a process started without the owner's URL checks before it starts. A
 * database never migrated has every migration pending.
 */
export async function pendingMigrations(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const applied = await client.query<{ name: string }>('SELECT name FROM schema_migrations').then(
      (result) => new Set(result.rows.map((row) => row.name)),
      (error: unknown) => {
        if ((error as { code?: string }).code === '42P01') return new Set<string>(); // no schema_migrations yet
        throw error;
      },
    );
    return (await migrationFiles()).filter((file) => !applied.has(file));
  } finally {
    await client.end();
  }
}

/** CREATE DATABASE when missing (docs/operations.md#running). Safe when two processes race to create it. */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return false;
    try {
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      return true;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === '42P04' || code === '23505') return false; // created by a concurrent starter
      throw error;
    }
  } finally {
    await client.end();
  }
}
