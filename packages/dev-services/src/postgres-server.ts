import { existsSync, mkdirSync, chownSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { commandLine, execFileAsync, findBinary, isAlive, runDetached } from './process-utils.js';
import type { TRunningService } from './redis-server.js';

/**
 * What the PostgreSQL at `url` makes of its login: accepts it; refuses it (a wrong or missing
 * password, no pg_hba.conf entry, no such role: why, in the server's words, never the password);
 * or nothing answers there in time.
 */
export type TPostgresAnswer = { kind: 'accepts' } | { kind: 'refuses'; reason: string } | { kind: 'none' };

export async function postgresAnswer(url: string, timeoutMs = 1_500): Promise<TPostgresAnswer> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return { kind: 'accepts' };
  } catch (error) {
    const { code, message } = error as { code?: unknown; message: string };
    // SQLSTATE class 28: invalid authorization (28P01 a wrong password, 28000 no pg_hba.conf entry or no such role).
    if (typeof code === 'string' && code.startsWith('28')) return { kind: 'refuses', reason: message };
    // The server asked for a password the URL does not give (node-postgres stops before sending one).
    if (code === undefined && /password/i.test(message)) return { kind: 'refuses', reason: 'it asks for a password' };
    return { kind: 'none' };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * initdb and postgres refuse to run as root (CI runs as root), so as root they run as the
 * `postgres` user (created by Debian's package) in a folder that user owns.
 */
async function asPostgresUser(): Promise<{ wrap: (cmd: string, args: string[]) => [string, string[]]; uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return { wrap: (cmd, args) => [cmd, args] };
  const runuser = findBinary('runuser');
  if (!runuser) throw new Error('running as root needs runuser (util-linux) to start PostgreSQL as the postgres user');
  let uid: number;
  let gid: number;
  try {
    uid = Number((await execFileAsync('id', ['-u', 'postgres'])).stdout.trim());
    gid = Number((await execFileAsync('id', ['-g', 'postgres'])).stdout.trim());
  } catch {
    throw new Error('running as root needs a "postgres" system user (Debian: apt-get install postgresql)');
  }
  return { wrap: (cmd, args) => [runuser, ['-u', 'postgres', '--', cmd, ...args]], uid, gid };
}

/**
 * initdb (when `dir` holds no cluster yet) and pg_ctl start. The cluster trusts local connections,
 * unless `password` is given: then it asks every login for a password (scram-sha-256), the user
 * postgres's being that one — what Debian's `postgresql` package sets up, for the tests.
 */
export async function startPostgresServer(options: { dir: string; port: number; durable: boolean; password?: string }): Promise<TRunningService> {
  const initdb = findBinary('initdb');
  const pgCtl = findBinary('pg_ctl');
  if (!initdb || !pgCtl) throw new Error('PostgreSQL server binaries are not installed (Debian: apt-get install postgresql)');
  const user = await asPostgresUser();
  const dataDir = resolve(options.dir);
  mkdirSync(dataDir, { recursive: true });
  if (user.uid !== undefined && user.gid !== undefined) chownSync(dataDir, user.uid, user.gid);

  const run = async (cmd: string, args: string[]) => {
    const [file, argv] = user.wrap(cmd, args);
    await runDetached(file, argv, { cwd: tmpdir() });
  };
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    if (options.password === undefined) {
      await run(initdb, ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C']);
    } else {
      // initdb reads the password from a file (never the command line); beside the folder, gone after.
      const passwordFile = `${dataDir}.password`;
      writeFileSync(passwordFile, `${options.password}\n`, { mode: 0o600 });
      if (user.uid !== undefined && user.gid !== undefined) chownSync(passwordFile, user.uid, user.gid);
      try {
        await run(initdb, ['-D', dataDir, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${passwordFile}`, '--encoding=UTF8', '--locale=C']);
      } finally {
        rmSync(passwordFile, { force: true });
      }
    }
  }
  // Unix sockets have a short path limit; TCP on loopback is what the service uses anyway.
  const socketDir = dataDir.length < 80 ? dataDir : tmpdir();
  const settings = [`-p ${options.port}`, `-k ${socketDir}`, '-c listen_addresses=127.0.0.1'];
  if (!options.durable) settings.push('-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off');
  const logFile = join(dataDir, 'server.log');
  if (!existsSync(logFile)) {
    writeFileSync(logFile, '');
    if (user.uid !== undefined && user.gid !== undefined) chownSync(logFile, user.uid, user.gid);
  }
  await run(pgCtl, ['-D', dataDir, '-l', logFile, '-w', '-t', '60', '-o', settings.join(' '), 'start']);
  return postgresService(dataDir, options.port, run, pgCtl);
}

/** The server running on `dir` (pg_ctl stop stops whichever postmaster holds that folder). */
function postgresService(dataDir: string, port: number, run: (cmd: string, args: string[]) => Promise<void>, pgCtl: string): TRunningService {
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await run(pgCtl, ['-D', dataDir, '-m', 'fast', '-w', 'stop']).catch(() => undefined);
    },
  };
}

/**
 * A PostgreSQL still running on `dir` (its postmaster.pid names a live postgres process): what an
 * earlier start left when it was killed before it could stop it. Its pid and port, or undefined.
 */
export function runningPostgres(dir: string): { pid: number; port: number } | undefined {
  let lines: string[];
  try {
    lines = readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid < 1 || !isAlive(pid) || !/postgres/.test(commandLine(pid))) return undefined;
  return { pid, port };
}

/** The port the PostgreSQL of `dir` listened on when it last ran (its postmaster.opts), if it ever ran. */
export function lastPostgresPort(dir: string): number | undefined {
  try {
    const port = /"-p" "(\d+)"/.exec(readFileSync(join(dir, 'postmaster.opts'), 'utf8'))?.[1];
    return port === undefined ? undefined : Number(port);
  } catch {
    return undefined;
  }
}

/** The PostgreSQL running on `dir` (runningPostgres), to be stopped like one this process started. */
export async function adoptPostgresServer(options: { dir: string; port: number }): Promise<TRunningService> {
  const pgCtl = findBinary('pg_ctl');
  if (!pgCtl) throw new Error('PostgreSQL server binaries are not installed (Debian: apt-get install postgresql)');
  const user = await asPostgresUser();
  const run = async (cmd: string, args: string[]) => {
    const [file, argv] = user.wrap(cmd, args);
    await runDetached(file, argv, { cwd: tmpdir() });
  };
  return postgresService(resolve(options.dir), options.port, run, pgCtl);
}
