import { execFileSync } from 'node:child_process';
import { ROOT } from '@folio-vault/test-kit/processes';

/**
 * The benchmarks run the API and the worker as production does (Dockerfile, docker-compose.yml):
 * `node apps/<app>/dist/main.js`, compiled by `npm run build`. From source (tsx) every process —
 * and every render process a worker starts or recycles — also runs tsx's loader thread and
 * transforms its code at start, a cost production never pays. BENCH_FROM_SOURCE=1 measures the tsx way instead. `npm start` (the
 * one-process shape) is measured as it runs: from source.
 */
export const FROM_SOURCE = process.env.BENCH_FROM_SOURCE === '1';

export const COMPILED_ENTRY = {
  api: 'apps/api/dist/main.js',
  worker: 'apps/worker/dist/main.js',
} as const;

let built = false;

/** `npm run build` once per benchmark process (tsc -b: only what changed since the last build). */
export function ensureBuilt(): void {
  if (built || FROM_SOURCE) return;
  const started = performance.now();
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  console.log(`bench: compiled service up to date (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  built = true;
}
