// Making the audit trail's next monthly partitions as a command: `npm run db:partitions` from a
// checkout (scripts/db-partitions.ts), `node packages/shared/dist/db/partitions-command.js
// [--months N]` where only the compiled code is installed (deploy/systemd/ runs it monthly). As the
// schema's owner (DATABASE_URL): the roles the API and the workers connect as may create nothing.
// Exit code 0 = every month there, 1 = a month could not be made, 2 = bad settings or options.

import { parseArgs } from 'node:util';
import { ZConfig } from '../config.js';
import { ensureAuditPartitions, monthsFrom } from './audit-partitions.js';

const COMMAND = 'db:partitions';
export const DEFAULT_MONTHS_AHEAD = 3;
const say = (line: string) => process.stdout.write(`${COMMAND}: ${line}\n`);
const refuse = (line: string): never => {
  console.error(`${COMMAND}: ${line}`);
  process.exit(2);
};

let monthsText: string | undefined;
try {
  monthsText = parseArgs({ options: { months: { type: 'string' } }, strict: true }).values.months;
} catch (error) {
  refuse((error as Error).message.split('. ')[0]!);
}
const months = monthsText === undefined ? DEFAULT_MONTHS_AHEAD : Number(monthsText);
if (!Number.isInteger(months) || months < 0 || months > 24) refuse(`--months must be a whole number 0-24 (got ${monthsText})`);
const given = process.env.DATABASE_URL?.trim() || undefined;
if (!given && process.env.NODE_ENV === 'production') refuse('setting DATABASE_URL: is required with NODE_ENV=production (the schema owner\'s URL)');
const checked = ZConfig.shape.DATABASE_URL.safeParse(given);
if (!checked.success) refuse(`setting DATABASE_URL: ${checked.error.issues[0]?.message ?? 'is not valid'}`);

try {
  const outcomes = await ensureAuditPartitions(checked.data!, monthsFrom(new Date(), months));
  for (const { partition, outcome, moved } of outcomes) {
    say(`audit.${partition} ${outcome === 'created' ? 'created' : 'already there'}${moved > 0 ? `; ${moved} events moved into it from audit.vault_events_default` : ''}`);
  }
  say(`${outcomes.filter((o) => o.outcome === 'created').length} created; the audit trail has its partitions until ${outcomes.at(-1)!.partition.slice('vault_events_'.length).replace('_', '-')}`);
} catch (error) {
  console.error(`${COMMAND}: ${(error as Error).message}`);
  process.exitCode = 1;
}
