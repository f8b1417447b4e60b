// `npm run db:migrate`: creates the database when missing and applies the pending migrations as the
// schema's owner (packages/shared/src/db/migrate-command.ts, which a production image runs compiled).

import { parseCommandLine } from './cli-support.js';

parseCommandLine('db:migrate', `
usage: npm run db:migrate

Creates the database when it is missing and applies the pending migrations (one transaction each,
under an advisory lock: safe while the service runs and next to other starts), as the schema's
owner: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/folio_vault; required with
NODE_ENV=production). The migrations create the API's and the workers' database roles when missing.
An API or a worker given only its role's URL applies nothing and does not start while one is pending.
Exit code 0 = nothing left pending, 1 = a migration failed (nothing of it applied), 2 = bad settings.`, { options: {} });

await import('@folio-vault/shared/db/migrate-command');
