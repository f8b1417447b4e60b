// The render process (forked by render-pool.ts): does one piece of rendering at a time off the
// worker's event loop, so a long render never blocks BullMQ's lock renewal, and its memory goes
// when the pool recycles it. A PDF arrives as chunks of pages (rendered by any of the pool's
// processes, in parallel) and one merge of the chunks' files; an XLSX as its document's head, then
// its rows in slices (document-slices.ts) that are put back together here; an invoice's Factur-X
// file is one piece (fiscal/facturx-pdf.tsx). With tracing on, a piece that comes with its document's trace
// context is a span of this process under the worker's render span (render-pool.ts).

import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TFolioDocument, TRenderedFile } from '@folio-vault/shared/exports/folio-document';
import type { TFiscalDocument } from '@folio-vault/shared/fiscal/document-model';
import { startTracing } from '@folio-vault/shared/tracing/start';
import { contextOf, inSpan } from '@folio-vault/shared/tracing/spans';
import { renderFacturX } from '../fiscal/facturx-pdf.js';
import { renderPdfChunk } from './pdf/folio-pdf.js';
import { mergePdfs } from './pdf/merge-pdf.js';
import { SHAPING_CACHE_OFF_FLAG, useShapingCache } from './pdf/shaping-cache.js';
import { tableFonts } from './pdf/table-fonts.js';
import { chunkPlan, documentTitle, planFolioPdf, type TDocumentHead, type TPdfChunk } from './pdf/plan.js';
import { joinDocument, type TRowSlice } from './document-slices.js';
import type * as XlsxWriter from './xlsx/folio-xlsx.js';
import { RSS_LIMIT_FLAG, WARM_UP_FLAG, warmUpDocument } from './render-warm-up.js';

/** One piece of rendering: a chunk of a PDF's pages, the merge of a PDF's chunks, a whole XLSX, or an invoice's Factur-X file. */
export type TRenderWork =
  | { kind: 'pdf-chunk'; chunk: TPdfChunk; outputPath: string }
  | { kind: 'pdf-merge'; head: TDocumentHead; parts: string[]; outputPath: string }
  | { kind: 'xlsx'; document: TFolioDocument; outputPath: string }
  | { kind: 'facturx'; document: TFiscalDocument; outputPath: string };

/**
 * A piece as it is sent: an XLSX's document comes as its head (no rows) and its rows follow in
 * `slices` messages (TSliceMessage, document-slices.ts), so no message holds the whole document.
 */
export type TPieceMessage = Exclude<TRenderWork, { kind: 'xlsx' }> | { kind: 'xlsx'; head: TFolioDocument; slices: number; outputPath: string };

/** A Factur-X piece's CII, sent after the piece (render-pool.ts, renderInvoice), or why it could not be built. */
export type TAttachmentMessage = { id: number; attachment: string } | { id: number; attachmentError: string };

/** Rows of an XLSX piece's document, sent after the piece, in document order. */
export type TSliceMessage = { id: number; slice: TRowSlice };

/** `trace`: the W3C traceparent of the document's span in the worker, when it is recorded. */
export type TRenderRequest = TPieceMessage & { id: number; trace?: string };

/**
 * `rss`: the process's resident memory after the piece. `collected`: a full garbage collection
 * ran after the previous piece (its RSS was over the limit), so this RSS is what the process
 * really holds, not V8's heap waiting for its next major collection (see settleMemory).
 */
export type TRenderReply = { id: number; rss: number; collected: boolean } & ({ ok: true; file?: TRenderedFile } | { ok: false; error: string });

/** Sent once, when the process has warmed up (warmUp below) and renders at full speed. */
export type TReadyMessage = { ready: true };

/** What a piece's span says of it: its kind, and a chunk's pages or a merge's parts. */
function pieceAttributes(work: TPieceMessage): Record<string, string | number> {
  const kind = { 'folio.render.piece': work.kind };
  if (work.kind === 'pdf-chunk') return { ...kind, 'folio.render.pages': work.chunk.pages.length };
  if (work.kind === 'pdf-merge') return { ...kind, 'folio.render.parts': work.parts.length };
  return kind;
}

/** The CII of each Factur-X piece, by the piece's id: its message may come before or after the piece starts. */
const attachments = new Map<number, { promise: Promise<string>; resolve(xml: string): void; reject(error: Error): void }>();

function attachmentOf(id: number) {
  let entry = attachments.get(id);
  if (!entry) {
    let resolve!: (xml: string) => void;
    let reject!: (error: Error) => void;
    const promise = new Promise<string>((yes, no) => ([resolve, reject] = [yes, no]));
    promise.catch(() => undefined);
    attachments.set(id, (entry = { promise, resolve, reject }));
  }
  return entry;
}

/** The row slices of each XLSX piece, by the piece's id: they may come before the piece starts (it waits for the warm-up). */
const sliceInboxes = new Map<number, { slices: TRowSlice[]; wanted?: { count: number; resolve(slices: TRowSlice[]): void } }>();

function inboxOf(id: number) {
  let inbox = sliceInboxes.get(id);
  if (!inbox) sliceInboxes.set(id, (inbox = { slices: [] }));
  return inbox;
}

function deliverIfComplete(id: number): void {
  const inbox = sliceInboxes.get(id);
  if (!inbox?.wanted || inbox.slices.length < inbox.wanted.count) return;
  sliceInboxes.delete(id);
  inbox.wanted.resolve(inbox.slices);
}

/** Resolves with piece `id`'s `count` row slices once they have all come. */
function slicesOf(id: number, count: number): Promise<TRowSlice[]> {
  return new Promise((resolve) => {
    inboxOf(id).wanted = { count, resolve };
    deliverIfComplete(id);
  });
}

/**
 * The XLSX writer (exceljs, with its zip and CSV code): loaded by the first XLSX piece, or by the
 * warm-up, not at start. It is about a third of a render process's start-up, and most processes
 * draw only PDFs: a replacement, or a pool started on first use, is ready that much sooner.
 */
let xlsxWriter: Promise<typeof XlsxWriter> | undefined;
const loadXlsxWriter = () => (xlsxWriter ??= import('./xlsx/folio-xlsx.js'));

async function perform(work: TPieceMessage, id: number): Promise<TRenderedFile | undefined> {
  switch (work.kind) {
    case 'pdf-chunk':
      await renderPdfChunk(work.chunk, work.outputPath);
      return undefined;
    case 'pdf-merge':
      await mergePdfs(work.parts, work.outputPath, {
        title: documentTitle(work.head),
        language: work.head.language,
        creationDate: new Date(work.head.generatedAt),
      });
      return undefined;
    case 'xlsx':
      return (await loadXlsxWriter()).writeFolioXlsx(joinDocument(work.head, await slicesOf(id, work.slices)), work.outputPath);
    case 'facturx':
      try {
        await writeFile(work.outputPath, await renderFacturX(work.document, attachmentOf(id).promise));
      } finally {
        attachments.delete(id);
      }
      return undefined;
  }
}

/**
 * Three passes, each setting texts none before it set (warmUpDocument(pass)). V8 compiles the
 * table and shaping code to its fastest form only once it has seen it run for a while, and shaping
 * runs only for texts the process has not shaped yet: passes that repeated one document's texts
 * would shape nothing after the first, and the first real export would still be compiling fontkit's
 * lookups while it rendered (bench/scenarios/export-small.ts measures the first export against a warm one).
 */
const WARM_UP_PASSES = 3;

/**
 * Loads the fonts, draws the warm-up document as two chunks and their join WARM_UP_PASSES times,
 * and loads the XLSX writer, so the code of every step is loaded and compiled and the fonts shaped
 * before the first real piece. A failure here is not fatal: the real pieces then pay the cost (and
 * report their own errors).
 */
async function warmUp(): Promise<void> {
  const base = join(tmpdir(), `folio-vault-warm-up-${process.pid}`);
  const parts = [`${base}.part0.pdf`, `${base}.part1.pdf`];
  try {
    for (let pass = 0; pass < WARM_UP_PASSES; pass += 1) {
      const plan = planFolioPdf(warmUpDocument(pass));
      const chunks = chunkPlan(plan, Math.ceil(plan.pages.length / 2));
      for (const [index, chunk] of chunks.entries()) await perform({ kind: 'pdf-chunk', chunk, outputPath: parts[index]! }, 0);
      await perform({ kind: 'pdf-merge', head: plan.head, parts: parts.slice(0, chunks.length), outputPath: `${base}.pdf` }, 0);
    }
    await loadXlsxWriter();
  } catch {
    // Rendering will try again for real.
  } finally {
    await Promise.all([...parts, `${base}.pdf`].map((file) => rm(file, { force: true }).catch(() => undefined)));
  }
}

// Before the render code is at work: the process sends its spans only when tracing is on.
const tracing = await startTracing('render');

// Before the fonts load: the performance measure `shaping-cache` unless the pool turned it off.
useShapingCache(!process.argv.includes(SHAPING_CACHE_OFF_FLAG));

// Only the processes a worker starts with (RenderPool.warm) draw the warm-up document; the others
// (replacements, pools started on first use) load their fonts now, while they wait for a piece.
if (!process.argv.includes(WARM_UP_FLAG)) void tableFonts().catch(() => undefined);
/** A message to the pool, unless the pool has already let this process go (its channel closed: it is exiting). */
function tell(message: TReadyMessage | TRenderReply): void {
  if (process.connected) process.send?.(message);
}

const warmed = (process.argv.includes(WARM_UP_FLAG) ? warmUp() : Promise.resolve()).then(() => tell({ ready: true }));

const rssLimit = Number(process.argv.find((arg) => arg.startsWith(RSS_LIMIT_FLAG))?.slice(RSS_LIMIT_FLAG.length) ?? Infinity);
/** Set by the pool's fork (--expose-gc); absent when the file runs some other way. */
const collectGarbage = (globalThis as { gc?: () => void }).gc;
let collected = false;

/**
 * After a piece's reply: past the RSS limit, one full garbage collection now, while the pool hands
 * the next piece out. V8 lets the heap grow to a few times what it holds before a major collection,
 * so RSS alone would replace a process that holds nothing more. The next reply says `collected`,
 * and only an RSS still past the limit then replaces the process. V8 hands the freed pages back to
 * the system from a background thread, before the next piece's RSS is read.
 */
function settleMemory(rss: number): void {
  collected = false;
  if (rss <= rssLimit || !collectGarbage) return;
  collectGarbage();
  collected = true;
}

process.on('message', (message: TRenderRequest | TAttachmentMessage | TSliceMessage) => {
  if ('slice' in message) {
    inboxOf(message.id).slices.push(message.slice);
    return deliverIfComplete(message.id);
  }
  if ('attachment' in message) return attachmentOf(message.id).resolve(message.attachment);
  if ('attachmentError' in message) return attachmentOf(message.id).reject(new Error(`the CII could not be built: ${message.attachmentError}`));
  void (async () => {
    let reply: TRenderReply;
    try {
      // One piece at a time, the warm-up included.
      await warmed;
      const file = message.trace
        ? await inSpan(`render ${message.kind}`, pieceAttributes(message), () => perform(message, message.id), { parent: contextOf(message.trace) })
        : await perform(message, message.id);
      reply = { id: message.id, ok: true, ...(file ? { file } : {}), rss: process.memoryUsage.rss(), collected };
    } catch (error) {
      reply = { id: message.id, ok: false, error: (error as Error).message, rss: process.memoryUsage.rss(), collected };
    }
    tell(reply);
    settleMemory(reply.rss);
  })();
});
// Its last spans are sent first, within a bound shorter than the pool's wait (RENDER_EXIT_MS).
process.on('disconnect', () => void tracing.shutdown(1_000).finally(() => process.exit(0)));
// The worker ends this process (the disconnect above) once its exports are done or handed back. A
// terminal's Ctrl-C reaches the whole foreground process group, this process too, and a process
// manager may signal every process of the service: such a signal must not cut a render short.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => undefined);
