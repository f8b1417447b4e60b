// Applying the migrations as a command: `npm run db:migrate` (scripts/db-migrate.ts) from a
// checkout, and `node packages/shared/dist/db/migrate-command.js` where only the compiled code is
// installed (docker-compose.yml's migrate service). It runs as the schema's owner (DATABASE_URL):
// an API or a worker started without that URL applies nothing and refuses to start while a
// migration is pending (docs/operations.md#database-roles). Exit code 0 = nothing left pending,
// 1 = a migration failed (nothing of it applied), 2 = bad settings.

import { ZConfig } from '../config.js';
import { ensureDatabase, migrate } from './migrate.js';

const COMMAND = 'db:migrate';
/** What it did, on stdout, one line each. */
const say = (line: string) => process.stdout.write(`${COMMAND}: ${line}\n`);
const given = process.env.DATABASE_URL?.trim() || undefined;
if (!given && process.env.NODE_ENV === 'production') {
  console.error(`${COMMAND}: setting DATABASE_URL: is required with NODE_ENV=production (the schema owner's URL)`);
  process.exit(2);
}
// Unset outside production: the setting's default.
const checked = ZConfig.shape.DATABASE_URL.safeParse(given);
if (!checked.success) {
  console.error(`${COMMAND}: setting DATABASE_URL: ${checked.error.issues[0]?.message ?? 'is not valid'}`);
  process.exit(2);
}
const url = checked.data;
try {
  if (await ensureDatabase(url)) say(`database ${decodeURIComponent(new URL(url).pathname.slice(1))} created`);
  const applied = await migrate(url, say);
  say(`${applied.length === 0 ? 'nothing to apply' : `${applied.length} applied`}; no migration pending`);
} catch (error) {
  console.error(`${COMMAND}: ${(error as Error).message}`);
  process.exitCode = 1;
}
