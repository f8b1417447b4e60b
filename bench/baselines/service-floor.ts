import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT } from '@folio-vault/test-kit/processes';

/**
 * The floor of the tokenize and forward benchmarks (bench/scenarios/tokenize-load.ts,
 * bench/scenarios/forward-overhead.ts): what an intake API of this service's shape — Express, one
 * BullMQ job a request, a worker in another process — costs when neither side does any work of the
 * service's (bench/baselines/service-floor-child.ts). Measured the same way as the service, in the
 * same run, so the service's figures can be read against the least its own shape costs, beside the
 * plainer baselines (a bare BullMQ round trip, a direct call to the gateway); the goals of both
 * benchmarks are set against it (bench/report/goals.ts).
 *
 * - `express`: Express and its JSON parser alone, no queue;
 * - `express-queue`: Express, one job a request, a no-op worker process (the service's shape);
 * - `express-queue-one-process`: the same with the no-op worker in the API's process (`npm start`'s shape);
 * - `express-batch`: Express, requests gathered into shared jobs, a no-op worker process.
 */
export type TFloorKind = 'express' | 'express-queue' | 'express-queue-one-process' | 'express-batch';
export const FLOOR_KINDS: TFloorKind[] = ['express', 'express-queue', 'express-queue-one-process', 'express-batch'];
/** How the benchmarks' output and the report name each floor. */
export const FLOOR_NAMES: Record<TFloorKind, string> = {
  express: 'floor: Express alone, no-op handler',
  'express-queue': 'floor: Express + one job a request, no-op worker process',
  'express-queue-one-process': 'floor: Express + one job a request, no-op worker in the same process',
  'express-batch': 'floor: Express + requests gathered into shared jobs, no-op worker process',
};

export interface TFloorProcess {
  pid: number;
  stop(): Promise<void>;
}

function startChild(args: string[], env: Record<string, string>): Promise<TFloorProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'bench/baselines/service-floor-child.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await exited;
  };
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('ready')) resolve({ pid: child.pid!, stop });
    });
    child.once('exit', (code) => reject(new Error(`service floor ${args.join(' ')} exited with ${code} before it was ready`)));
  });
}

/** The floor's processes, started in order (the worker first); stop them in reverse. */
export async function startFloor(kind: TFloorKind, env: Record<string, string>): Promise<TFloorProcess[]> {
  const started: TFloorProcess[] = [];
  try {
    if (kind === 'express-queue-one-process') {
      started.push(await startChild(['intake', 'express-queue', '--with-worker'], env));
      return started;
    }
    if (kind !== 'express') started.push(await startChild(['worker'], env));
    started.push(await startChild(['intake', kind], env));
    return started;
  } catch (error) {
    for (const child of started.reverse()) await child.stop();
    throw error;
  }
}
