// `npm run einvoice:compile -- [--check] [NAME…]`
// Compiles the vendored schematrons (packages/einvoice-validation/artefacts) to the SaxonJS SEF files
// the validators load (packages/einvoice-validation/sef), or with --check recompiles them and says
// whether the committed ones are what xslt3 makes of today's XSLT.

import { SCHEMATRONS, type TSchematronName } from '@folio-vault/einvoice-validation/validators';
import { comparableSef, committedSef, compileSchematron, readManifest, writeManifest, writeSef, type TSefManifest } from '@folio-vault/einvoice-validation/sef';
import { fail, parseCommandLine } from './cli-support.js';

const COMMAND = 'einvoice:compile';
const NAMES = Object.keys(SCHEMATRONS) as TSchematronName[];
const USAGE = `
usage: npm run einvoice:compile -- [--check] [NAME…]

Compiles the vendored e-invoice schematrons (XSLT) to the SEF files SaxonJS runs, gzipped in
packages/einvoice-validation/sef/ with manifest.json (each XSLT's and SEF's SHA-256). Run it after
replacing a vendored XSLT, and commit what it writes. Each takes 10 to 20 seconds.
  --check   recompile into memory and compare with the committed SEF (build time and checksum
            aside); writes nothing; exit 1 when one differs
  NAME      only these: ${NAMES.join(', ')}
Exit code 0 = done (or all match), 1 = a compilation failed (or differs), 2 = bad arguments.`;
const { values, positionals } = parseCommandLine(COMMAND, USAGE, { options: { check: { type: 'boolean', default: false } }, allowPositionals: true });
for (const name of positionals) if (!(NAMES as string[]).includes(name)) fail(COMMAND, `unknown schematron ${name} (one of ${NAMES.join(', ')})`);
const chosen = positionals.length > 0 ? (positionals as TSchematronName[]) : NAMES;

let manifest: TSefManifest;
try {
  manifest = readManifest();
} catch {
  manifest = { compiler: '', stylesheets: {} as TSefManifest['stylesheets'] };
}
let differs = false;
for (const which of chosen) {
  const started = Date.now();
  const sef = await compileSchematron(which).catch((error: Error) => fail(COMMAND, `${which}: ${error.message.trim()}`, 1));
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (values.check) {
    const same = comparableSef(sef) === comparableSef(committedSef(which));
    if (!same) differs = true;
    console.log(`${which}: ${same ? 'matches the committed SEF' : 'DIFFERS from the committed SEF'} (${seconds} s)`);
  } else {
    manifest = writeSef(which, sef, manifest);
    console.log(`${which}: compiled (${seconds} s)`);
  }
}
if (!values.check) writeManifest(manifest);
if (differs) process.exitCode = 1;
