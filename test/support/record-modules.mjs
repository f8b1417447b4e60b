// Preloaded into a service process (NODE_OPTIONS=--import=<this file>) by the tests that check what
// a process loads: at exit, the files of every CommonJS module it loaded (require's cache, where
// a package imported as an ES module but published as CommonJS is too) go to
// $LOADED_MODULES_DIR/<pid>.txt, one a line. Plain JavaScript: compiled processes run without tsx.

import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const cache = createRequire(import.meta.url).cache;
const dir = process.env.LOADED_MODULES_DIR;
if (dir) process.on('exit', () => writeFileSync(join(dir, `${process.pid}.txt`), Object.keys(cache).join('\n')));
