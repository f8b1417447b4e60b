import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ExcelJS from 'exceljs';
import { PDFDocument, PDFName } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderFolioPdf } from '../apps/worker/src/exports/pdf/folio-pdf.js';
import { planFolioPdf } from '../apps/worker/src/exports/pdf/plan.js';
import { createMetrics, type TMetrics } from '@folio-vault/shared/metrics';
import { sliceDocument } from '@folio-vault/worker/exports/document-slices';
import { BATCH_NICE, RenderPool } from '@folio-vault/worker/exports/render-pool';
import { writeFolioXlsx } from '@folio-vault/worker/exports/xlsx/folio-xlsx';
import { renderFacturX } from '../apps/worker/src/fiscal/facturx-pdf.js';
import { hotelStayInvoice } from '@folio-vault/test-kit/fiscal-documents';
import { documentFolio, documentRow, documentRows, folioDocument, sampleDocument, totals } from '@folio-vault/test-kit/folio-document';
import { childProcesses } from '@folio-vault/test-kit/processes';

/**
 * The render pool cuts a PDF into chunks of pages, renders them in parallel processes and joins
 * them: a reader of the file must not be able to tell. Chunks of 3 pages here so a few hundred
 * rows make several chunks.
 */
const run = promisify(execFile);
let dir: string;
let pool: RenderPool;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fv-pool-'));
  pool = new RenderPool(2, { pagesPerChunk: 3, rowsPerSlice: 4 });
});
afterAll(async () => {
  await pool.close();
  await rm(dir, { recursive: true, force: true });
});

async function pdfText(file: string): Promise<string> {
  const { stdout } = await run('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { maxBuffer: 64 << 20 });
  return stdout;
}

async function pdfInfo(file: string): Promise<{ pages: number; sizes: string[]; title?: string }> {
  const { stdout } = await run('pdfinfo', ['-f', '1', '-l', '9999', file]);
  return {
    pages: Number(/^Pages:\s+(\d+)/m.exec(stdout)?.[1]),
    sizes: [...stdout.matchAll(/^Page\s+\d+ size:\s+(.+)$/gm)].map((match) => match[1]!.trim()),
    title: /^Title:\s+(.+)$/m.exec(stdout)?.[1]?.trim(),
  };
}

/** Four three-row batch documents, then an on-demand one, given to `target` at once: the order they finished in. */
async function batchThenOnDemand(target: RenderPool): Promise<string[]> {
  const finished: string[] = [];
  const render = (name: string, priority: 'on-demand' | 'batch') =>
    target.render('PDF', folioDocument({ rows: 3 }), join(dir, `${name}.pdf`), priority).then(() => finished.push(name));
  const batch = ['batch-1', 'batch-2', 'batch-3', 'batch-4'].map((name) => render(name, 'batch'));
  await Promise.all([...batch, render('on-demand', 'on-demand')]);
  return finished;
}

describe('render pool', () => {
  it('renders a PDF in chunks that read exactly like the same PDF rendered whole', async () => {
    const document = folioDocument({ rows: 500, language: 'de' });
    const planned = planFolioPdf(document).pages.length;
    expect(planned).toBeGreaterThan(6); // at least three chunks

    const chunked = join(dir, 'chunked.pdf');
    const whole = join(dir, 'whole.pdf');
    const rendered = await pool.render('PDF', document, chunked);
    await renderFolioPdf(document, whole);

    expect(rendered).toEqual({ pages: planned, rows: 500 });
    const info = await pdfInfo(chunked);
    expect(info.pages).toBe(planned);
    expect(new Set(info.sizes)).toEqual(new Set(['595.28 x 841.89 pts (A4)']));
    expect(info.title).toBe((await pdfInfo(whole)).title);
    const text = await pdfText(chunked);
    expect(text).toBe(await pdfText(whole));
    expect(text.match(/Seite \d+ von \d+/g)).toEqual(Array.from({ length: planned }, (_, i) => `Seite ${i + 1} von ${planned}`));
    const catalog = (await PDFDocument.load(await readFile(chunked))).catalog;
    expect(String(catalog.get(PDFName.of('Lang')))).toContain('de');
    // No chunk file is left beside the result.
    expect((await readdir(dir)).filter((name) => name.includes('.part'))).toEqual([]);
  });

  it('renders the same bytes with the shaping cache switched off (PERFORMANCE_MEASURES_OFF=shaping-cache), document after document', async () => {
    // Two new processes given the same documents in the same order: nothing either drew before differs.
    const cached = new RenderPool(1, { pagesPerChunk: 3 });
    const plain = new RenderPool(1, { pagesPerChunk: 3, shapingCache: false });
    try {
      // Notes, void and pending rows, a recipient, accents, two languages; each document rendered twice, the second time from the cache.
      const documents = [{ ...sampleDocument(40), language: 'fr' as const }, folioDocument({ rows: 12, language: 'de' })];
      // The file's creation date and ID differ from one render to the next; every other byte is compared.
      const bytes = async (file: string) => (await readFile(file, 'latin1')).replace(/\/CreationDate \([^)]*\)/g, '').replace(/\/ID \[[^\]]*\]/g, '');
      for (const [index, document] of [...documents, ...documents].entries()) {
        await cached.render('PDF', document, join(dir, `cached-${index}.pdf`));
        await plain.render('PDF', document, join(dir, `plain-${index}.pdf`));
        expect(await bytes(join(dir, `cached-${index}.pdf`)), `document ${index}`).toBe(await bytes(join(dir, `plain-${index}.pdf`)));
      }
      const renderArgs = childProcesses(process.pid).filter((child) => child.args.some((arg) => arg.includes('render-child'))).map((child) => child.args);
      expect(renderArgs.filter((args) => args.includes('--no-shaping-cache'))).toHaveLength(1);
    } finally {
      await Promise.all([cached.close(), plain.close()]);
    }
  });

  it('reads back every character of a document whatever the process drew before: ".", accents and ligatures keep their meaning', async () => {
    const fresh = new RenderPool(1);
    try {
      // German dates are written with periods (22.11.2026). The French document has accented
      // letters and texts cut with "…", whose glyphs are built from a period, accents and a dotless i.
      await fresh.render('PDF', { ...sampleDocument(40), language: 'fr' }, join(dir, 'french.pdf'));
      await fresh.render('PDF', folioDocument({ rows: 12, language: 'de' }), join(dir, 'german.pdf'));
      // Each row's time and service date, and the footer's generation date: 12 × 2 + 1.
      expect((await pdfText(join(dir, 'german.pdf'))).match(/\b\d\d\.\d\d\.2026\b/g)).toHaveLength(25);
      expect(await pdfText(join(dir, 'french.pdf'))).toContain('…');
      // Ligatures (ff, ffi) read back as their letters, not as the presentation forms the face also maps to those glyphs.
      const ligatures = folioDocument({ folios: [documentFolio('1', [documentRow(0, { description: 'Office coffee, Breakfast buffet' })], { name: 'Main' })] });
      await fresh.render('PDF', ligatures, join(dir, 'ligatures.pdf'));
      expect(await pdfText(join(dir, 'ligatures.pdf'))).toContain('Office coffee, Breakfast buffet');
    } finally {
      await fresh.close();
    }
  });

  it('writes an XLSX in a render process, its rows sent in slices, cell for cell as written here', async () => {
    // 10 and 5 rows: five slices of the pool's 4 rows or fewer, across two folios.
    const document = folioDocument({
      language: 'es',
      folios: [documentFolio('1', documentRows(10), { name: 'Main' }), documentFolio('2', documentRows(5, 5_000), { name: 'Company' })],
      grandTotals: totals(),
    });
    expect(sliceDocument(document, 4).slices.map((slice) => slice.rows.length)).toEqual([4, 4, 2, 4, 1]);
    const viaPool = join(dir, 'pool.xlsx');
    const here = join(dir, 'here.xlsx');
    expect(await pool.render('XLSX', document, viaPool)).toEqual({ pages: 1, rows: 15 });
    await writeFolioXlsx(document, here);
    const cells = async (file: string) => {
      const book = new ExcelJS.Workbook();
      await book.xlsx.readFile(file);
      const values: unknown[][] = [];
      book.worksheets[0]!.eachRow({ includeEmpty: true }, (row) => values.push(row.values as unknown[]));
      return values;
    };
    const written = await cells(viaPool);
    expect(written.length).toBeGreaterThan(15);
    expect(written).toEqual(await cells(here));
    expect(written.flat().filter((value) => typeof value === 'string' && /^Row \d{5} charge$/.test(value))).toEqual(
      [...documentRows(10), ...documentRows(5, 5_000)].map((row) => row.description),
    );
  });

  it('serves documents in turn: a one-page folio does not wait for every chunk of a large one', async () => {
    const finished: string[] = [];
    const large = pool.render('PDF', folioDocument({ rows: 1500 }), join(dir, 'large.pdf')).then(() => finished.push('large'));
    // Let the large document's chunks reach the queue first.
    await new Promise((resolve) => setImmediate(resolve));
    const small = pool.render('PDF', folioDocument({ rows: 3 }), join(dir, 'small.pdf')).then(() => finished.push('small'));
    await Promise.all([large, small]);
    expect(finished).toEqual(['small', 'large']);
  });

  it('serves an on-demand document before every waiting piece of a batch: it waits only for the piece rendering', async () => {
    const single = new RenderPool(1);
    try {
      // Four batch documents: the first goes to the one process, the other three wait; then the front desk's.
      const finished = await batchThenOnDemand(single);
      expect(finished).toEqual(['batch-1', 'on-demand', 'batch-2', 'batch-3', 'batch-4']);
    } finally {
      await single.close();
    }
  });

  it('front desk: keeps its first process for on-demand pieces, renders batch pieces on the others ten nice steps lower', async () => {
    const renderChildren = () => childProcesses(process.pid).filter((child) => child.args.some((arg) => arg.includes('render-child')));
    const before = new Set(renderChildren().map((child) => child.pid));
    const front = new RenderPool(2, { frontDesk: true });
    try {
      // Four batch documents take the second process one at a time; the front desk's goes to the first at once.
      const finished = await batchThenOnDemand(front);
      expect(finished.filter((name) => name.startsWith('batch'))).toEqual(['batch-1', 'batch-2', 'batch-3', 'batch-4']);
      expect(finished.indexOf('on-demand')).toBeLessThan(finished.indexOf('batch-2'));
      // Its render processes: the front desk's at this process's nice value, the other 10 above.
      const own = getPriority();
      const nices = renderChildren().filter((child) => !before.has(child.pid)).map((child) => getPriority(child.pid));
      expect(nices.sort((a, b) => a - b)).toEqual([own, Math.min(own + BATCH_NICE, 19)]);
    } finally {
      await front.close();
    }
    // One process only: it is the batch's too, at the worker's priority.
    const alone = new RenderPool(1, { frontDesk: true });
    try {
      await expect(alone.render('PDF', folioDocument({ rows: 3 }), join(dir, 'alone.pdf'), 'batch')).resolves.toEqual({ pages: 1, rows: 3 });
    } finally {
      await alone.close();
    }
  });

  it('renders an invoice\'s Factur-X file in a render process beside an export: the same bytes as rendered in this process', async () => {
    const cii = '<?xml version="1.0" encoding="UTF-8"?>\n<rsm:CrossIndustryInvoice>Hôtel</rsm:CrossIndustryInvoice>\n';
    const invoice = join(dir, 'invoice.pdf');
    const [, exported] = await Promise.all([
      pool.renderInvoice(hotelStayInvoice(), cii, invoice),
      pool.render('PDF', folioDocument({ rows: 3 }), join(dir, 'beside-invoice.pdf')),
    ]);
    expect(exported).toEqual({ pages: 1, rows: 3 });
    expect((await readFile(invoice)).equals(await renderFacturX(hotelStayInvoice(), cii))).toBe(true);
    expect((await pdfText(invoice)).trim().split(/\s+/).slice(0, 4)).toEqual(['Hôtel', 'Miramar', 'Lyon', 'Facture']);
  });

  it('fails the document with the reason when a chunk cannot be written, and leaves no chunk file', async () => {
    const blocker = join(dir, 'not-a-directory');
    await writeFile(blocker, 'x');
    await expect(pool.render('PDF', folioDocument({ rows: 400 }), join(blocker, 'folio.pdf'))).rejects.toThrow(/render failed: .*(ENOTDIR|EEXIST)/);
    expect((await readdir(dir)).filter((name) => name.includes('.part'))).toEqual([]);
    // The pool keeps working after the failure.
    await expect(pool.render('PDF', folioDocument({ rows: 3 }), join(dir, 'after.pdf'))).resolves.toEqual({ pages: 1, rows: 3 });
  });

  it('fails an XLSX whose rows cannot be sent with the reason, and keeps working', async () => {
    // A row slice that cannot be serialized (a BigInt), after the head and the first slice have gone.
    const rows = documentRows(10);
    const broken = folioDocument({ rows: 0, folios: [documentFolio('1', rows.map((row, index) => (index === 9 ? { ...row, amount: 1n as never } : row)))] });
    await expect(pool.render('XLSX', broken, join(dir, 'broken.xlsx'))).rejects.toThrow(/BigInt/);
    await expect(pool.render('XLSX', folioDocument({ rows: 3 }), join(dir, 'after.xlsx'))).resolves.toEqual({ pages: 1, rows: 3 });
  });
});

describe('the process that holds the pool', () => {
  it('loads none of a render process\'s own code: no React-PDF work, no IPC listener that would end it', async () => {
    const pool = fileURLToPath(new URL('../apps/worker/src/exports/render-pool.ts', import.meta.url));
    const script = `await import(${JSON.stringify(pool)}); console.log(JSON.stringify({ message: process.listenerCount('message'), disconnect: process.listenerCount('disconnect') }));`;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
    expect(JSON.parse(stdout)).toEqual({ message: 0, disconnect: 0 });
  });

  it('a render process loads no zod, and no exceljs before its first XLSX piece', async () => {
    // Run without a pool (no IPC channel), a render process loads its code and fonts and exits; zod
    // marks globalThis when it loads, exceljs (CommonJS) shows in the module cache. The schemas
    // brought zod and the import's validation into every render process, about a sixth of its
    // start-up CPU together with a second pdfkit copy; the folio texts take their lists from
    // ledger/enums.ts instead. exceljs is about a third of a start-up: only an XLSX piece, or the
    // warm-up, loads it.
    const child = fileURLToPath(new URL('../apps/worker/src/exports/render-child.ts', import.meta.url));
    const onExit =
      "import { createRequire } from 'node:module'; const cache = createRequire('/').cache; " +
      "process.on('exit', () => console.log(JSON.stringify({ zod: '__zod_globalConfig' in globalThis, exceljs: Object.keys(cache).some((file) => file.includes('/node_modules/exceljs/')) })));";
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--import', `data:text/javascript,${encodeURIComponent(onExit)}`, child]);
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({ zod: false, exceljs: false });
  });

  it('one pdfkit is installed: React-PDF\'s packages and the benchmark baseline share it, so a render process loads it once', async () => {
    // A root devDependency on another pdfkit version once nested a copy under each React-PDF package
    // that pins its own, and every render process loaded both.
    const root = fileURLToPath(new URL('..', import.meta.url));
    const found: string[] = [];
    // Every package folder under a node_modules, scoped ones (@types/pdfkit is not pdfkit) included.
    const walk = async (modules: string, scoped = false): Promise<void> => {
      const entries = await readdir(modules, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        if (!entry.isDirectory()) continue;
        const at = join(modules, entry.name);
        if (!scoped && entry.name.startsWith('@')) await walk(at, true);
        else {
          if (!scoped && entry.name === 'pdfkit') found.push(at);
          await walk(join(at, 'node_modules'));
        }
      }
    };
    for (const start of ['node_modules', 'apps/worker/node_modules', 'packages/shared/node_modules']) await walk(join(root, start));
    expect(found.map((at) => at.slice(root.length))).toEqual(['node_modules/pdfkit']);
  });
});

describe('render process replacement', () => {
  async function replacements(metrics: TMetrics): Promise<Record<string, number>> {
    const { values } = await metrics.exportRenderProcessReplacements.get();
    return Object.fromEntries(values.map(({ labels, value }) => [String(labels.reason), value]));
  }

  it('collects the garbage of a process past its RSS limit first, and replaces it only when it is still past the limit after', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    // Every process is past a 1-byte limit, even right after a collection.
    const small = new RenderPool(1, { maxRssBytes: 1, metrics });
    try {
      const render = (name: string) => small.render('PDF', folioDocument({ rows: 3 }), join(dir, name));
      await render('m1.pdf');
      expect(await replacements(metrics)).toEqual({}); // past the limit: it collects, and stays
      await render('m2.pdf');
      expect(await replacements(metrics)).toEqual({ memory: 1 }); // still past it after collecting
      await render('m3.pdf');
      expect(await replacements(metrics)).toEqual({ memory: 1 }); // the new process collects first too
      await expect(render('m4.pdf')).resolves.toEqual({ pages: 1, rows: 3 });
      expect(await replacements(metrics)).toEqual({ memory: 2 });
    } finally {
      await small.close();
    }
  });

  it('forgets a process that ended between pieces, counted as a failure: the next document goes to a new one', async () => {
    const renderChildren = () => childProcesses(process.pid).filter((child) => child.args.some((arg) => arg.includes('render-child'))).map((child) => child.pid);
    const before = new Set(renderChildren());
    const metrics = createMetrics({ defaultMetrics: false });
    const small = new RenderPool(1, { metrics });
    try {
      const render = (name: string) => small.render('PDF', folioDocument({ rows: 3 }), join(dir, name));
      await render('k1.pdf');
      const own = renderChildren().filter((pid) => !before.has(pid));
      expect(own).toHaveLength(1);
      process.kill(own[0]!, 'SIGKILL');
      // Its exit reaches the pool: no process of its own is left for a moment.
      for (let waited = 0; renderChildren().includes(own[0]!) && waited < 5_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await replacements(metrics)).toEqual({ failure: 1 });
      await expect(render('k2.pdf')).resolves.toEqual({ pages: 1, rows: 3 });
      expect(renderChildren().filter((pid) => !before.has(pid))).toHaveLength(1);
    } finally {
      await small.close();
    }
  });

  it('replaces a process under its RSS limit only after its most pieces, or after a failed piece', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const small = new RenderPool(1, { maxRenders: 2, metrics });
    try {
      const render = (path: string) => small.render('PDF', folioDocument({ rows: 3 }), path);
      await render(join(dir, 'p1.pdf'));
      expect(await replacements(metrics)).toEqual({});
      await render(join(dir, 'p2.pdf'));
      expect(await replacements(metrics)).toEqual({ pieces: 1 });
      await expect(render(join(dir, 'p2.pdf', 'under-a-file.pdf'))).rejects.toThrow(/render failed/);
      expect(await replacements(metrics)).toEqual({ pieces: 1, failure: 1 });
    } finally {
      await small.close();
    }
  });
});
