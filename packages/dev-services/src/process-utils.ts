import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

export const execFileAsync = promisify(execFile);

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
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

export function spawnQuiet(command: string, args: string[]): ChildProcess {
  return spawn(command, args, { stdio: 'ignore' });
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
