// `npm run einvoice:validate -- FILE…`
// Validates e-invoices with the official validators the tests use (packages/einvoice-validation): a
// CII or UBL XML file, or a Factur-X PDF, whose attached factur-x.xml is extracted with poppler's
// pdfdetach and validated as CII.

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fail, parseCommandLine } from './cli-support.js';

const COMMAND = 'einvoice:validate';
const USAGE = `
usage: npm run einvoice:validate -- FILE…

Validates each FILE, a CII or UBL invoice or credit note (XML) or a Factur-X PDF (its attached
factur-x.xml, extracted with pdfdetach), with the validators that apply to it: for CII the
UN/CEFACT D16B XSD, Factur-X 1.09's EN 16931 XSD and schematron, CEN's EN 16931 CII schematron,
and for a French seller the BR-FR rules; for UBL CEN's EN 16931 UBL schematron. Prints each
validator's verdict, every failed rule (id, where, what) and, apart, the warnings.
Exit code 0 = every file passes, 1 = a file fails, 2 = bad arguments or a file that cannot be read.`;
const { positionals } = parseCommandLine(COMMAND, USAGE, { options: {}, allowPositionals: true });
if (positionals.length === 0) fail(COMMAND, 'name at least one file (see --help)');
// What the work needs loads once the command line is read (cli-support.ts).
const { validate, validatorsFor } = await import('@folio-vault/einvoice-validation/validate');

let failed = false;
for (const file of positionals) {
  const xml = await readInvoice(file);
  let validators;
  try {
    validators = validatorsFor(xml);
  } catch (error) {
    fail(COMMAND, `${file}: ${(error as Error).message}`);
  }
  console.log(file);
  for (const which of validators) {
    const result = validate(xml, which);
    if (result.failures.length > 0) failed = true;
    console.log(`  ${result.failures.length === 0 ? 'pass' : 'FAIL'}  ${which}${result.warnings.length > 0 ? ` (${result.warnings.length} warning${result.warnings.length === 1 ? '' : 's'})` : ''}`);
    for (const finding of result.failures) console.log(`        ${finding.rule ?? 'error'}  ${finding.location}  ${finding.text}`);
    for (const finding of result.warnings) console.log(`        warning ${finding.rule ?? ''}  ${finding.location}  ${finding.text}`);
  }
}
if (failed) process.exitCode = 1;

/** The file's XML: the file itself, or a PDF's attached factur-x.xml. */
async function readInvoice(file: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    fail(COMMAND, `${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-') return bytes.toString('utf8');
  const pdfdetach = (args: string[]) =>
    promisify(execFile)('pdfdetach', args).catch((error: NodeJS.ErrnoException & { stderr?: string }) => {
      if (error.code === 'ENOENT') fail(COMMAND, `${file}: reading a PDF needs pdfdetach (Debian's poppler-utils)`);
      fail(COMMAND, `${file}: pdfdetach: ${(error.stderr || error.message).trim()}`);
    });
  // pdfdetach -savefile does not find a name written as UTF-16 (as pdf-lib writes it): find its number.
  const listed = await pdfdetach(['-list', file]);
  const number = /^(\d+): factur-x\.xml$/m.exec(listed.stdout)?.[1];
  if (!number) fail(COMMAND, `${file}: a PDF with no factur-x.xml attached`);
  const dir = mkdtempSync(join(tmpdir(), 'einvoice-validate-'));
  try {
    const out = join(dir, 'factur-x.xml');
    await pdfdetach(['-save', number, '-o', out, file]);
    return readFileSync(out, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
