import { readFile, writeFile } from 'node:fs/promises';
import { PDFDocument } from 'pdf-lib';

export interface TPdfInfo {
  title: string;
  language: string;
  creationDate: Date;
}

/**
 * Joins the PDFs of consecutive page chunks into one file, pages in order, with the document's
 * title, language and dates. Page content is copied as is (no re-rendering, no recompression);
 * each chunk brings its own subset of the fonts, so a chunked file is a little larger than one
 * rendered whole.
 */
export async function mergePdfs(parts: readonly string[], outputPath: string, info: TPdfInfo): Promise<void> {
  const merged = await PDFDocument.create({ updateMetadata: false });
  for (const part of parts) {
    const source = await PDFDocument.load(await readFile(part), { updateMetadata: false });
    for (const page of await merged.copyPages(source, source.getPageIndices())) merged.addPage(page);
  }
  merged.setTitle(info.title);
  merged.setLanguage(info.language);
  merged.setCreator('Folio Vault');
  merged.setProducer('Folio Vault');
  merged.setCreationDate(info.creationDate);
  merged.setModificationDate(info.creationDate);
  await writeFile(outputPath, await merged.save({ useObjectStreams: true }));
}
