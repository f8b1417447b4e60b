import type { TFolioDocument, TRenderedFile } from '@folio-vault/shared/export/folio-document';
import { renderFolioPdf } from './pdf/folio-pdf.js';
import { writeFolioXlsx } from './xlsx/folio-xlsx.js';

/**
 * The render process (forked by render-pool.ts): renders one document at a time off the worker's
 * event loop, so a long render never blocks BullMQ's lock renewal, and its memory goes when the
 * pool recycles it.
 */
export interface TRenderRequest {
  id: number;
  format: 'PDF' | 'XLSX';
  document: TFolioDocument;
  outputPath: string;
}
export type TRenderReply = { id: number; rss: number } & ({ ok: true; file: TRenderedFile } | { ok: false; error: string });

process.on('message', (message: TRenderRequest) => {
  void (async () => {
    let reply: TRenderReply;
    try {
      const file = message.format === 'XLSX'
        ? await writeFolioXlsx(message.document, message.outputPath)
        : await renderFolioPdf(message.document, message.outputPath);
      reply = { id: message.id, ok: true, file, rss: process.memoryUsage().rss };
    } catch (error) {
      reply = { id: message.id, ok: false, error: (error as Error).message, rss: process.memoryUsage().rss };
    }
    process.send?.(reply);
  })();
});
process.on('disconnect', () => process.exit(0));
