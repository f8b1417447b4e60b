import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root: this file is packages/test-kit/src/processes.ts. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const TSX = join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist', 'cli.mjs');

export interface TSpawned {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or signal name) once the process has ended and its output is read (watchChild). */
  exited: Promise<number | string>;
  /**
   * Sends a signal to the script. tsx runs the script in a child process of its own and relays
   * SIGTERM/SIGINT to it, but a SIGKILL to tsx alone would leave the script running, orphaned; with
   * `group`, the signal goes to the whole process group (tsx, the script and what it started), as
   * when a machine or container dies.
   */
  kill(signal: NodeJS.Signals): void;
}

/**
 * Runs one of the project's TypeScript entry points the way its npm script does (tsx). With
 * `direct`, in one process (`node --import tsx`): a SIGTERM reaches the script itself. Through the
 * tsx CLI, tsx relays it and SIGKILLs the script when the script has not acknowledged it within
 * 30 ms — on a loaded machine that cuts a graceful shutdown short, which a shutdown test must not
 * mistake for the service's own doing.
 */
export function spawnTs(script: string, args: string[], env: Record<string, string>, options: { group?: boolean; direct?: boolean } = {}): TSpawned {
  return spawnNode(options.direct ? ['--import', 'tsx', script, ...args] : [TSX, script, ...args], env, options);
}

/** `node <argv>` (a compiled entry point, with node flags first), with spawnTs's output and signals. */
export function spawnNode(argv: string[], env: Record<string, string>, options: { group?: boolean } = {}): TSpawned {
  const child = spawn(process.execPath, argv, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group (the child leads it), so kill() can reach every process in it.
    detached: options.group ?? false,
  });
  const kill = (signal: NodeJS.Signals) => {
    if (!options.group || child.pid === undefined) {
      child.kill(signal);
      return;
    }
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group is gone already.
    }
  };
  return watchChild(child, kill);
}

/** How long `exited` waits, after the process ended, for its pipes to close (see watchChild). */
const DRAIN_MS = 2_000;

/**
 * The output and the end of a child spawned with piped stdout and stderr. `exited` resolves once the
 * process has ended and what it wrote has been read: Node may emit 'exit' before the last chunks
 * of a pipe are read ('close' follows them), and a test that reads the output at exit must see all
 * of it. A process the child started may have inherited the pipes and hold them open past the
 * child's end, so that wait is bounded.
 */
export function watchChild(child: ChildProcess, kill: (signal: NodeJS.Signals) => void): TSpawned {
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const ended = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const exited = ended.then(async (code) => {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([closed, new Promise((resolve) => (timer = setTimeout(resolve, DRAIN_MS)))]);
    clearTimeout(timer);
    return code;
  });
  return { child, output: () => output, exited, kill };
}

export async function waitForOutput(spawned: TSpawned, pattern: RegExp, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(spawned.output())) {
    if (Date.now() > deadline) throw new Error(`no ${pattern} in output:\n${spawned.output()}`);
    if (spawned.child.exitCode !== null) throw new Error(`process exited (${spawned.child.exitCode}):\n${spawned.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The running children of process `pid` (Linux /proc): each one's pid and command line. */
export function childProcesses(pid: number): Array<{ pid: number; args: string[] }> {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        // The fields after the command's name (in parentheses, which may hold spaces): state, then the parent's pid.
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return parent === pid ? [{ pid: Number(entry), args: readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean) }] : [];
      } catch {
        // Ended meanwhile.
        return [];
      }
    });
}
