import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleDocument } from '@folio-vault/test-kit/folio-document';
import { renderBaselinePdf } from '@folio-vault/test-kit/raw-pdfkit-folio';

/**
 * The benchmarks' raw-pdfkit baseline (packages/test-kit/src/raw-pdfkit-folio.ts) draws voided rows
 * struck through. pdfkit's own `strike` option throws on a line drawn without line breaks (pdfkit 0.20.1, the copy
 * React-PDF pins), which stopped the render and export benchmarks; the baseline draws the line itself.
 */
describe('the raw pdfkit baseline', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fv-baseline-test-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('draws a folio whose voided rows are struck through', async () => {
    const document = sampleDocument(60);
    const rows = document.folios.flatMap((folio) => folio.sections.flatMap((section) => section.rows));
    expect(rows.filter((row) => row.voided)).toHaveLength(3);
    const file = join(dir, 'folio.pdf');
    expect(await renderBaselinePdf(document, file)).toEqual({ pages: 2, rows: 60 });
    expect((await readFile(file)).subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });
});
