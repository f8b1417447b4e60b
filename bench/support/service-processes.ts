import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import jwt from 'jsonwebtoken';
import { ZConfig, type TApiConfig } from '@folio-vault/shared/config';
import { ROOT } from '@folio-vault/test-kit/processes';
import { COMPILED_ENTRY, ensureBuilt, FROM_SOURCE } from './compiled.js';

/**
 * The service as deployed, for the end-to-end benchmarks: the API and the worker compiled, as the
 * Dockerfile runs them (bench/support/compiled.ts; from source with BENCH_FROM_SOURCE=1), and `npm start`
 * through tsx as the npm script runs it, spawned as separate processes with NODE_ENV=production. Their JSON logs go to a file, not to a pipe the bench process
 * would have to read: logging costs the service what it costs in production, and nothing here.
 */
export type TServiceKind = 'api' | 'worker' | 'all';

const TSX = join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist', 'cli.mjs');
const ENTRY: Record<TServiceKind, string> = {
  api: 'apps/api/src/main.ts',
  worker: 'apps/worker/src/main.ts',
  all: 'scripts/start.ts',
};
const READY: Record<TServiceKind, RegExp[]> = {
  api: [/"msg":"api listening"/],
  worker: [/"msg":"worker ready"/],
  all: [/"msg":"worker ready"/, /"msg":"api listening"/],
};

export interface TServiceProcess {
  kind: TServiceKind;
  child: ChildProcess;
  pid: number;
  logFile: string;
  log(): string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * BENCH_CPU_PROF_DIR=<dir>: the service's process (and its render processes, which inherit its
 * node flags) writes a V8 CPU profile there when it exits; `npx tsx bench/support/profile-summary.ts <dir>`
 * tells where the time went, per process. Node refuses --cpu-prof in NODE_OPTIONS, so the entry is
 * run by node itself with tsx's loader (what the tsx command does in a child of its own).
 */
function nodeArgs(kind: TServiceKind): string[] {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  const profile = dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
  if (kind !== 'all' && !FROM_SOURCE) return [...profile, COMPILED_ENTRY[kind]];
  return dir ? [...profile, '--import', 'tsx', ENTRY[kind]] : [TSX, ENTRY[kind]];
}

/** Starts one service process and waits until it says it is ready. */
export async function startService(kind: TServiceKind, env: Record<string, string>, timeoutMs = 90_000): Promise<TServiceProcess> {
  if (kind !== 'all') ensureBuilt();
  const logFile = `/tmp/fv-bench-${kind}-${process.pid}-${Date.now()}.log`;
  const fd = openSync(logFile, 'w');
  // An API process alone signs with a component set of its own (environment.ts): under production
  // it refuses a provider that also holds vault keys.
  const apiKeys = kind === 'api' && env.BENCH_API_KEY_COMPONENTS ? { VAULT_KEY_PROVIDER: 'components', VAULT_KEY_COMPONENTS: env.BENCH_API_KEY_COMPONENTS } : {};
  const child = spawn(process.execPath, nodeArgs(kind), {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_ENV: 'production', LOG_LEVEL: 'info', ...env, ...apiKeys },
    stdio: ['ignore', fd, fd],
    // Its own process group, so a straggler (tsx's child, a render process) can be stopped with it.
    detached: true,
  });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = () => readFileSync(logFile, 'utf8');
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    // The log is kept only when the process stopped on its own (printed by the caller then).
    const removeLog = () => rmSync(logFile, { force: true });
    // tsx relays SIGTERM to the service, which shuts down in order (render processes included).
    child.kill('SIGTERM');
    const killed = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, 20_000);
    await exited;
    clearTimeout(killed);
    removeLog();
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = log();
    if (READY[kind].every((pattern) => pattern.test(text))) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      rmSync(logFile, { force: true });
      throw new Error(`${kind} did not start:\n${text.slice(-4000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { kind, child, pid: child.pid!, logFile, log, stop };
}

/**
 * The service in one of the tokenize benchmarks' shapes: `split`, a worker process then an API
 * process (start:worker + start:api); `single`, both in one process as `npm start` runs them.
 * Answered in start order; stop them in reverse.
 */
export async function startShape(shape: 'split' | 'single', env: Record<string, string>): Promise<TServiceProcess[]> {
  if (shape === 'single') return [await startService('all', env)];
  const worker = await startService('worker', env);
  try {
    return [worker, await startService('api', env)];
  } catch (error) {
    await worker.stop();
    throw error;
  }
}

/** A development JWT the service accepts, signed with the bench's secret. */
export function benchToken(config: TApiConfig, scope: string, propertyIds: number[] = [1]): string {
  return jwt.sign({ scope, property_ids: propertyIds }, config.JWT_SECRET!, {
    algorithm: 'HS256',
    expiresIn: 3600,
    subject: 'bench',
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
  });
}

/**
 * Every TOKENIZE_RATE_LIMIT_* count setting the service knows, at its maximum (1,000,000 a window,
 * far above what a benchmark sends): a load test measures the service, not its limiter. Read from
 * the settings schema so a limit added later is lifted too; durations are left at their defaults.
 */
export function liftedRateLimits(): Record<string, string> {
  return Object.fromEntries(
    Object.keys(ZConfig.shape)
      .filter((name) => /^TOKENIZE_RATE_LIMIT_/.test(name) && !/_MS$|WINDOW|SECONDS/.test(name))
      .map((name) => [name, '1000000']),
  );
}
