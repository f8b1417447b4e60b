// `npm run db:partitions [-- --months 3]`: makes the audit trail's partitions for this month and
// the next ones, as the schema's owner (packages/shared/src/db/partitions-command.ts, which a
// production host runs compiled).

import { parseCommandLine } from './cli-support.js';

parseCommandLine('db:partitions', `
usage: npm run db:partitions [-- --months N]

Makes the monthly partitions of the audit trail (audit.vault_events_YYYY_MM, months in UTC) for this
month and the N next ones (default 3, at most 24) where they are missing, as the schema's owner:
DATABASE_URL (default postgres://postgres@127.0.0.1:5432/folio_vault; required with
NODE_ENV=production). Events written while their month had no partition went to
audit.vault_events_default: they are moved into the month's partition as it is made. Run it monthly
(deploy/systemd/folio-vault-partitions.timer); running it again makes nothing twice.
Exit code 0 = every month there, 1 = a month could not be made, 2 = bad settings or options.`, {
  options: { months: { type: 'string' } },
});

await import('@folio-vault/shared/db/partitions-command');
