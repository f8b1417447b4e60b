// Shared by the command-line tools: their command line (--help, one line for a bad option), a clear
// exit on bad input, the property id, and the migrated database.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { TPgPoolHandle } from '@folio-vault/shared/connections';

/** Prints `command: message` on stderr and exits with `code` (2: bad input). */
export function fail(command: string, message: string, code = 2): never {
  console.error(`${command}: ${message}`);
  process.exit(code);
}

/** A command line's shape: its options (`--help`/`-h` is added) and whether it takes positionals. */
type TCommandLine = Pick<ParseArgsConfig, 'options' | 'allowPositionals'>;

/**
 * The command line of `command` (process.argv), parsed strictly. `--help` or `-h` prints `usage` on
 * stdout and exits 0; an option it does not know, a missing value or an unexpected argument is one
 * line on stderr, `<command>: unknown option --x (see --help)`, and exit 2. A tool calls it before
 * it loads the modules its work needs (`await import(…)` after it), so that these answers come at
 * once, without loading the service's code: this module itself loads nothing else.
 */
export function parseCommandLine<T extends TCommandLine>(command: string, usage: string, config: T): ReturnType<typeof parseArgs<T>> {
  const args = process.argv.slice(2);
  const end = args.indexOf('--');
  const options = end === -1 ? args : args.slice(0, end);
  if (options.includes('--help') || options.includes('-h')) {
    process.stdout.write(`${usage.trim()}\n`);
    process.exit(0);
  }
  try {
    return parseArgs({ ...config, args, strict: true }) as ReturnType<typeof parseArgs<T>>;
  } catch (error) {
    fail(command, `${describeParseError(error as Error & { code?: string })} (see --help)`);
  }
}

/** node:util's parseArgs error as one short clause (its messages run to several sentences). */
function describeParseError(error: Error & { code?: string }): string {
  const quoted = /'([^']*)'/.exec(error.message)?.[1] ?? '';
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${quoted}`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${quoted}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return /argument missing/.test(error.message) ? `option ${quoted.split(' ')[0]} needs a value` : `option ${quoted.split(' ')[0]} takes no value`;
    default:
      return error.message.split('. ')[0]!;
  }
}

export function parsePropertyId(command: string, value: string | undefined): string {
  if (!value || !/^\d{1,19}$/.test(value) || BigInt(value) < 1n) fail(command, `--property must be a positive integer (got ${value ?? 'nothing'})`);
  return BigInt(value).toString();
}

export async function openDatabase(): Promise<TPgPoolHandle> {
  const [{ DEFAULT_DATABASE_URL }, { createPgPool }, { ensureDatabase, migrate }] = await Promise.all([
    import('@folio-vault/shared/config'),
    import('@folio-vault/shared/connections'),
    import('@folio-vault/shared/db/migrate'),
  ]);
  const url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  await ensureDatabase(url);
  await migrate(url);
  return createPgPool(url, { max: 2 });
}
