import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

export const execFileAsync = promisify(execFile);

/** A port nothing listens on (127.0.0.1): `preferred` when it is free, else one the system picks. */
export async function freePort(preferred?: number): Promise<number> {
  if (preferred !== undefined) {
    const free = await listenOnce(preferred).then(() => true, () => false);
    if (free) return preferred;
  }
  return listenOnce(0);
}

function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A binary from PATH, or from Debian's versioned PostgreSQL folder (not on PATH by default). */
export function findBinary(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  const pgRoot = '/usr/lib/postgresql';
  if (existsSync(pgRoot)) {
    const versions = readdirSync(pgRoot).sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const candidate = join(pgRoot, version, 'bin', name);
      if (existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 25; Date.now() < deadline; delay = Math.min(delay * 2, 250)) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
  throw new Error(`${what} did not become ready within ${timeoutMs} ms`);
}

/**
 * A server process in a session of its own (setsid): a terminal's Ctrl-C goes to the foreground
 * process group, and a local server must not get it — the service that started it stops it, after
 * its own work (scripts/start.ts).
 */
export function spawnQuiet(command: string, args: string[]): ChildProcess {
  return spawn(command, args, { stdio: 'ignore', detached: true });
}

/**
 * Runs a command to its end in a session of its own (see spawnQuiet): what it starts in the
 * background (pg_ctl's postmaster) stays out of the terminal's process group. Rejects with its
 * stderr when it fails. (execFile does not pass `detached` on to spawn.)
 */
export function runDetached(command: string, args: string[], options: { cwd?: string } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')} failed (${code ?? signal}): ${stderr.trim()}`));
    });
  });
}

/**
 * Whether a process with this pid is running: it exists (signal 0 checks without sending anything)
 * and is not a zombie — one that has exited and whose parent (PID 1 for an orphan) has not yet
 * collected its exit status.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists and belongs to another user (PostgreSQL runs as `postgres` when we are root).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    // No /proc (not Linux): signal 0 is all there is to go by.
    return existsSync('/proc') ? false : true;
  }
}

/** A live process's command line (Linux /proc), '' when it is gone or unreadable. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

/** SIGTERM to a process that is not our child, then its end, polled; SIGKILL after `timeoutMs`. */
export async function stopPid(pid: number, timeoutMs = 5_000): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        return;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function stopChild(child: ChildProcess, timeoutMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
