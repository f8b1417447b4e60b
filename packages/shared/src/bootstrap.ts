// Start-up shared by `npm start`, `start:api` and `start:worker`: settings (with development keys
// when not in production), services started for the process when asked (`npm start`'s local mode),
// the database and its migrations, and an orderly shutdown on SIGTERM/SIGINT.

import { ConfigError, loadConfig, ownDatabaseUrl, type TConfigOf, type TProcessRole } from './config.js';
import { withDevKeys } from './dev-keys.js';
import { ensureDatabase, migrate, pendingMigrations } from './db/migrate.js';
import { checkConnectionBudget, checkRedisAtStart, sharedFolderWarning } from './deployment-checks.js';
import { createLogger, type Logger } from './logger.js';
import { KeySetupError } from './vault/keys/key-provider.js';

/**
 * The exit code of a start refused for its settings or its keys (a bad value, a missing key, a PIN
 * file that is not a file, a component that does not check): the operator's to fix, as a command's
 * bad option is. Any other failure to start exits 1.
 */
export const SETTINGS_REFUSED_EXIT_CODE = 2;

/** A started process's settings, its logger and its shutdown steps. */
export interface TBootstrapped<R extends TProcessRole = TProcessRole> {
  /** The settings of the role: the API's hold no key-encryption key, the worker's no JWT setting. */
  config: TConfigOf<R>;
  logger: Logger;
  /** Registered steps run in reverse order on SIGTERM/SIGINT (the first; repeats are ignored), then the process exits. */
  onShutdown(step: () => Promise<void>): void;
}

export interface TStartedServices {
  /** Settings merged over the environment (REDIS_URL, DATABASE_URL, …). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export interface TBootstrapOptions {
  /**
   * Starts what the process needs before its settings are read. The starter is passed in rather
   * than imported here: local servers come from the development-only @folio-vault/dev-services
   * (scripts/start.ts), which production processes neither install nor load. It is stopped last.
   */
  services?: (env: NodeJS.ProcessEnv, log: (line: string) => void) => Promise<TStartedServices>;
  /** Lines a person reads (pino-pretty) wherever stdout goes (`npm run demo`); by default only at a terminal (logger.ts). */
  prettyLogs?: boolean;
}

export async function bootstrap<R extends TProcessRole>(role: R, options: TBootstrapOptions = {}): Promise<TBootstrapped<R>> {
  const startupLog = (line: string) => process.stderr.write(`folio-vault ${role}: ${line}\n`);
  // The services' lines go to stderr until the logger exists, then through it (their "stopped" lines
  // then follow the API's and the worker's in the same log).
  let serviceLog: (line: string) => void = startupLog;
  let env = withDevKeys(process.env, { log: startupLog, role });
  const steps: Array<() => Promise<void>> = [];

  // Listening from the first moment: a signal during start-up (while initdb or migrations run) is
  // held until what has started can be stopped, not the default action that would end the process
  // and leave the local servers running. `on`, not `once`: Ctrl-C under `npm start` delivers SIGINT
  // twice (the terminal to the process group, then npm forwarding its own), and a repeat is ignored.
  let signalled: string | undefined;
  let stopping = false;
  const running: { shutdown?: (signal: string) => Promise<void> } = {};
  const onSignal = (signal: string) => {
    if (running.shutdown) void running.shutdown(signal);
    else signalled ??= signal;
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  if (options.services) {
    // The servers started for this process must not outlive it: an error nobody caught (a port in
    // use when the API starts listening, say) stops it as a signal does, with exit code 1; keys that
    // do not open, with their one line and exit code 2.
    process.on('uncaughtException', (error) => {
      // While stopping, such errors are expected and logged by the shutdown itself.
      if (stopping) return;
      if (error instanceof KeySetupError) {
        startupLog(error.message);
        process.exitCode = SETTINGS_REFUSED_EXIT_CODE;
      } else {
        startupLog(`stopping after an uncaught error: ${error.stack ?? error.message}`);
        process.exitCode = 1;
      }
      onSignal('uncaught error');
    });
  }
  const stopStartedServices = async (code: number): Promise<never> => {
    for (const step of steps.reverse()) await step().catch(() => undefined);
    process.exit(code);
  };

  if (options.services) {
    try {
      const services = await options.services(env, (line) => serviceLog(line));
      env = { ...env, ...services.env };
      steps.push(services.stop);
    } catch (error) {
      // A setting the services cannot work with (a login the server refuses) stops the start as a
      // bad setting does; anything else (nothing to start a server with) as a failure.
      if (error instanceof ConfigError) {
        for (const problem of error.problems) startupLog(`setting ${problem}`);
        process.exit(SETTINGS_REFUSED_EXIT_CODE);
      }
      startupLog((error as Error).message);
      process.exit(1);
    }
    if (signalled) {
      startupLog(`${signalled} during start-up: stopping`);
      return stopStartedServices(0);
    }
  }

  let config: TConfigOf<R>;
  try {
    config = loadConfig(env, role);
  } catch (error) {
    if (error instanceof ConfigError) {
      for (const problem of error.problems) startupLog(`setting ${problem}`);
      return stopStartedServices(SETTINGS_REFUSED_EXIT_CODE);
    }
    throw error;
  }
  const logger = createLogger({ level: config.LOG_LEVEL, name: `folio-vault-${role}`, ...(options.prettyLogs ? { pretty: true } : {}) });
  serviceLog = (line) => {
    logger.info(line);
  };

  // Migrations run only as the schema's owner (DATABASE_URL); a process given only its role's URL
  // checks that none is pending and does not start on a schema older than its code.
  try {
    if (config.DATABASE_URL) {
      if (await ensureDatabase(config.DATABASE_URL)) logger.info('database created');
      await migrate(config.DATABASE_URL, (line) => logger.info(line));
    } else {
      const pending = await pendingMigrations(ownDatabaseUrl(config as TConfigOf<TProcessRole>));
      if (pending.length > 0) {
        startupLog(
          `database: ${pending.length} migration${pending.length === 1 ? '' : 's'} pending (${pending.slice(0, 3).join(', ')}${pending.length > 3 ? ', …' : ''}): ` +
            'apply them with `npm run db:migrate` and the schema owner\'s DATABASE_URL, or start a process given DATABASE_URL',
        );
        return stopStartedServices(1);
      }
    }
  } catch (error) {
    logger.fatal({ err: { message: (error as Error).message } }, 'database is not usable');
    return stopStartedServices(1);
  }

  // The machines around the process (deployment-checks.ts, docs/production.md): a Redis that may
  // evict stops the start; the rest is said once, in the log.
  const [redisCheck, budgetCheck] = await Promise.all([
    checkRedisAtStart(config),
    checkConnectionBudget(ownDatabaseUrl(config as TConfigOf<TProcessRole>), config.connectionBudget),
  ]);
  for (const line of redisCheck.info) logger.debug(line);
  for (const line of budgetCheck.info) logger.info(line);
  const folder = sharedFolderWarning(config);
  for (const line of [...redisCheck.warnings, ...(folder ? [folder] : []), ...budgetCheck.warnings]) logger.warn(line);
  if (redisCheck.refusal) {
    startupLog(redisCheck.refusal);
    return stopStartedServices(SETTINGS_REFUSED_EXIT_CODE);
  }

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Once stopping, a store that is gone may still surface as an error nobody awaits (a query or
    // a reconnect that the closing connection cuts short). The process is ending anyway: it is
    // logged and the steps go on, so a stop stays a clean exit (code 0, "stopped") and not a crash.
    const duringShutdown = (error: unknown) =>
      logger.warn({ err: { message: error instanceof Error ? error.message : String(error) } }, 'error while shutting down, ignored');
    process.on('uncaughtException', duringShutdown);
    process.on('unhandledRejection', duringShutdown);
    for (const step of [...steps].reverse()) {
      try {
        await step();
      } catch (error) {
        logger.error({ err: { message: (error as Error).message } }, 'shutdown step failed');
      }
    }
    // stdout is written asynchronously (logger.ts): the steps' lines are out before the last one,
    // and the last one before the exit (a write still pending at exit has landed after a later one).
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    logger.info('stopped');
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    process.exit(process.exitCode ?? 0);
  };
  running.shutdown = shutdown;
  // A signal during the migrations: the steps registered so far (the services) run, then the exit.
  if (signalled) await shutdown(signalled);

  return { config, logger, onShutdown: (step) => steps.push(step) };
}
