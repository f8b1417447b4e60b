import type { TFolioDocument, TRenderedFile } from '@folio-vault/shared/exports/folio-document';
import { renderPdfChunk } from './pdf/folio-pdf.js';
import { mergePdfs } from './pdf/merge-pdf.js';
import { documentTitle, type TDocumentHead, type TPdfChunk } from './pdf/plan.js';
import { tableFonts } from './pdf/table-fonts.js';
import { writeFolioXlsx } from './xlsx/folio-xlsx.js';

/**
 * The render process (forked by render-pool.ts): does one piece of rendering at a time off the
 * worker's event loop, so a long render never blocks BullMQ's lock renewal, and its memory goes
 * when the pool recycles it. A PDF arrives as chunks of pages (rendered by any of the pool's
 * processes, in parallel) and one merge of the chunks' files.
 */
export type TRenderWork =
  | { kind: 'pdf-chunk'; chunk: TPdfChunk; outputPath: string }
  | { kind: 'pdf-merge'; head: TDocumentHead; parts: string[]; outputPath: string }
  | { kind: 'xlsx'; document: TFolioDocument; outputPath: string };

export type TRenderRequest = TRenderWork & { id: number };

export type TRenderReply = { id: number; rss: number } & ({ ok: true; file?: TRenderedFile } | { ok: false; error: string });

async function perform(work: TRenderWork): Promise<TRenderedFile | undefined> {
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
      return writeFolioXlsx(work.document, work.outputPath);
  }
}

process.on('message', (message: TRenderRequest) => {
  void (async () => {
    let reply: TRenderReply;
    try {
      const file = await perform(message);
      reply = { id: message.id, ok: true, ...(file ? { file } : {}), rss: process.memoryUsage().rss };
    } catch (error) {
      reply = { id: message.id, ok: false, error: (error as Error).message, rss: process.memoryUsage().rss };
    }
    process.send?.(reply);
  })();
});
process.on('disconnect', () => process.exit(0));
// Fonts load now, while the process waits for its first piece (RenderPool.warm).
void tableFonts().catch(() => undefined);
