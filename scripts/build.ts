// `npm run build`: what production runs with plain `node` (Dockerfile). tsc compiles each
// workspace a production process loads (tsconfig.build.json: shared, api, worker) to its dist/,
// which the workspaces' package exports name; then the files the code reads beside itself at run
// time, which tsc does not copy, are put next to the compiled code. `--clean` starts from empty
// dist/ folders (tsc -b otherwise rebuilds only what changed and keeps outputs of deleted sources).

import { execFile } from 'node:child_process';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseCommandLine } from './cli-support.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const WORKSPACES = ['packages/shared', 'apps/api', 'apps/worker'];
/** Folders whose non-TypeScript files the compiled code reads at run time (db/migrate.ts). */
const ASSET_DIRS = [{ from: 'packages/shared/src/db/migrations', to: 'packages/shared/dist/db/migrations', suffix: '.sql' }];

const { values } = parseCommandLine('build', `
usage: npm run build [-- --clean]

Compiles the API, the worker and their shared package to JavaScript (each workspace's dist/), as
production runs them with plain node; --clean starts from empty dist/ folders.`, { options: { clean: { type: 'boolean', default: false } } });
const started = performance.now();
if (values.clean) {
  for (const workspace of WORKSPACES) rmSync(join(ROOT, workspace, 'dist'), { recursive: true, force: true });
}
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
try {
  await promisify(execFile)(process.execPath, [tsc, '-b', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, maxBuffer: 16 << 20 });
} catch (error) {
  const { stdout, stderr } = error as { stdout?: string; stderr?: string };
  process.stderr.write(`${stdout ?? ''}${stderr ?? ''}build failed: tsc -b tsconfig.build.json\n`);
  process.exit(1);
}
let copied = 0;
for (const { from, to, suffix } of ASSET_DIRS) {
  rmSync(join(ROOT, to), { recursive: true, force: true });
  for (const file of readdirSync(join(ROOT, from)).filter((name) => name.endsWith(suffix))) {
    cpSync(join(ROOT, from, file), join(ROOT, to, file));
    copied += 1;
  }
}
console.log(`built ${WORKSPACES.map((w) => `${w}/dist`).join(', ')} (${copied} asset files) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
