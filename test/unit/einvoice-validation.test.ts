import { createHash } from 'node:crypto';
import { appendFileSync, copyFileSync, cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSefFiles, readManifest } from '@folio-vault/einvoice-validation/sef';
import { validate, validatorsFor } from '@folio-vault/einvoice-validation/validate';
import { ARTEFACTS, SCHEMATRONS, SEF_DIR, VALIDATOR_NAMES } from '@folio-vault/einvoice-validation/validators';
import { spawnTs } from '@folio-vault/test-kit/processes';
import { germanHotelInvoice, hotelStayInvoice } from '@folio-vault/test-kit/fiscal-documents';
import { buildCii } from '@folio-vault/worker/fiscal/cii';
import { buildUbl } from '@folio-vault/worker/fiscal/ubl';

/**
 * The validation workspace (packages/einvoice-validation) is honest about what it runs: the vendored
 * artefacts are the files as published (artefacts/SHA256SUMS), each committed SEF was compiled from
 * the XSLT beside it (sef/manifest.json), a document that does not parse is a failure rather than a
 * crash, and npm run einvoice:validate reports CII, UBL and a Factur-X PDF's attachment.
 */

const scratch = mkdtempSync(join(tmpdir(), 'einvoice-validation-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [join(dir, name)]));
}

describe('the vendored validators', () => {
  it('are the artefacts as published, each file with the SHA-256 it was copied with, licences included', () => {
    const listed = readFileSync(join(ARTEFACTS, 'SHA256SUMS'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => /^([0-9a-f]{64}) {2}\.\/(.+)$/.exec(line)!)
      .map(([, hash, path]) => ({ path: path!, hash: hash! }));
    const present = filesUnder(ARTEFACTS).map((path) => relative(ARTEFACTS, path)).filter((path) => path !== 'SHA256SUMS' && path !== 'README.md').sort();
    expect(listed.map((entry) => entry.path).sort()).toEqual(present);
    expect(listed.filter((entry) => sha256(join(ARTEFACTS, entry.path)) !== entry.hash)).toEqual([]);
    expect(present).toEqual(expect.arrayContaining(['en16931/LICENSE.txt', 'facturx/LICENSE.txt']));
  });

  it('run SEF files compiled from the XSLT beside them; a changed XSLT or a swapped SEF is named', () => {
    expect(checkSefFiles()).toEqual([]);
    expect(Object.keys(readManifest().stylesheets).sort()).toEqual(Object.keys(SCHEMATRONS).sort());

    const copy = { artefacts: join(scratch, 'artefacts'), sefDir: join(scratch, 'sef') };
    cpSync(ARTEFACTS, copy.artefacts, { recursive: true });
    cpSync(SEF_DIR, copy.sefDir, { recursive: true });
    appendFileSync(join(copy.artefacts, SCHEMATRONS['br-fr-cii-schematron']), '\n');
    copyFileSync(join(SEF_DIR, 'en16931-ubl-schematron.sef.json.gz'), join(copy.sefDir, 'en16931-cii-schematron.sef.json.gz'));
    expect(checkSefFiles(copy)).toEqual([
      'en16931-cii-schematron: en16931-cii-schematron.sef.json.gz is not the SEF the manifest names',
      `br-fr-cii-schematron: ${SCHEMATRONS['br-fr-cii-schematron']} changed since its SEF was compiled`,
    ]);
  });

  it('answer a document that is not well-formed with a failure, from every validator', () => {
    for (const which of VALIDATOR_NAMES) {
      const result = validate('<rsm:CrossIndustryInvoice>', which);
      expect({ which, failures: result.failures.length, location: result.failures[0]?.location }).toEqual({ which, failures: 1, location: 'line 1' });
      expect(result.failures[0]?.text).toMatch(/^not well-formed XML: /);
    }
  });

  it('apply to a document by its syntax and seller: BR-FR for a French seller’s CII only', () => {
    expect(validatorsFor(buildCii(hotelStayInvoice()))).toEqual(['cii-d16b-xsd', 'facturx-en16931-xsd', 'facturx-en16931-schematron', 'en16931-cii-schematron', 'br-fr-cii-schematron']);
    expect(validatorsFor(buildCii(germanHotelInvoice()))).toEqual(['cii-d16b-xsd', 'facturx-en16931-xsd', 'facturx-en16931-schematron', 'en16931-cii-schematron']);
    expect(validatorsFor(buildUbl(hotelStayInvoice()))).toEqual(['en16931-ubl-schematron']);
  });
});

describe('npm run einvoice:validate', () => {
  async function run(args: string[]): Promise<{ code: number | string; stdout: string; stderr: string }> {
    const spawned = spawnTs('scripts/einvoice-validate.ts', args, {}, { direct: true });
    let stdout = '';
    let stderr = '';
    spawned.child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    spawned.child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    return { code: await spawned.exited, stdout, stderr };
  }

  it('validates CII, UBL and a Factur-X PDF’s factur-x.xml, names each failed rule, and exits 1 when one fails', async () => {
    const cii = join(scratch, 'invoice.xml');
    writeFileSync(cii, buildCii(germanHotelInvoice()));
    const ubl = join(scratch, 'broken.xml');
    writeFileSync(ubl, buildUbl(germanHotelInvoice()).replace('<cbc:PayableAmount currencyID="EUR">0.00<', '<cbc:PayableAmount currencyID="EUR">1.00<'));
    const pdf = await PDFDocument.create();
    pdf.addPage();
    await pdf.attach(Buffer.from(buildCii(hotelStayInvoice())), 'factur-x.xml', { mimeType: 'text/xml' });
    const facturx = join(scratch, 'facturx.pdf');
    writeFileSync(facturx, await pdf.save());

    const plain = await PDFDocument.create();
    plain.addPage();
    const noAttachment = join(scratch, 'plain.pdf');
    writeFileSync(noAttachment, await plain.save());

    const [answer, refused] = await Promise.all([run([cii, ubl, facturx]), run([noAttachment])]);
    expect(answer).toEqual({
      code: 1,
      stderr: '',
      stdout: [
        cii,
        '  pass  cii-d16b-xsd',
        '  pass  facturx-en16931-xsd',
        '  pass  facturx-en16931-schematron',
        '  pass  en16931-cii-schematron',
        ubl,
        '  FAIL  en16931-ubl-schematron',
        '        BR-CO-16  /Invoice[1]/LegalMonetaryTotal[1]  [BR-CO-16]-Amount due for payment (BT-115) = Invoice total amount with VAT (BT-112) -Paid amount (BT-113) +Rounding amount (BT-114).',
        facturx,
        '  pass  cii-d16b-xsd',
        '  pass  facturx-en16931-xsd',
        '  pass  facturx-en16931-schematron',
        '  pass  en16931-cii-schematron',
        '  pass  br-fr-cii-schematron',
        '',
      ].join('\n'),
    });
    expect(refused).toEqual({ code: 2, stdout: '', stderr: `einvoice:validate: ${noAttachment}: a PDF with no factur-x.xml attached\n` });
  });
});
