// Shared by the command-line tools: a clear exit on bad input, the property id, and the migrated
// database.

import { DEFAULT_DATABASE_URL } from '@folio-vault/shared/config';
import { createPgPool, type TPgPool } from '@folio-vault/shared/connections';
import { ensureDatabase, migrate } from '@folio-vault/shared/db/migrate';

/** Prints `command: message` on stderr and exits with `code` (2: bad input). */
export function fail(command: string, message: string, code = 2): never {
  console.error(`${command}: ${message}`);
  process.exit(code);
}

export function parsePropertyId(command: string, value: string | undefined): string {
  if (!value || !/^\d{1,19}$/.test(value) || BigInt(value) < 1n) fail(command, `--property must be a positive integer (got ${value ?? 'nothing'})`);
  return BigInt(value).toString();
}

export async function openDatabase(): Promise<TPgPool> {
  const url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  await ensureDatabase(url);
  await migrate(url);
  return createPgPool(url, { max: 2 });
}
