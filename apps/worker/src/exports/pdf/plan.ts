// A PDF's plan — its pages, rows and font stack — and its cut into chunks of pages. Pure, and free
// of React-PDF on purpose: the render pool plans in the worker's main process (render-pool.ts),
// which so never loads the renderer, its fonts or its layout engine; only the render processes do
// (folio-pdf.tsx).

import type { TFolioDocument } from '@folio-vault/shared/exports/folio-document';
import { translator, type TTranslate } from '@folio-vault/shared/i18n/catalog';
import { sourceText } from '../document-text.js';
import { fontFamilyOf } from './font-stack.js';
import { paginate, type TPage } from './paginate.js';

/**
 * What a page's blocks read of the document: everything but the folios' rows, which the pages
 * carry themselves (paginate()), so a chunk of pages travels to a render process without the rest.
 */
export type TDocumentHead = Omit<TFolioDocument, 'folios'>;

/**
 * Some consecutive pages of a planned PDF: rendered on their own (in any render process) they make
 * a PDF of just those pages, numbered as in the whole ("Page 41 of 1,002"), in the whole's fonts.
 */
export interface TPdfChunk {
  head: TDocumentHead;
  pages: TPage[];
  /** Pages of the whole document. */
  pageCount: number;
  /** The whole document's font stack (fontFamilyOf), so every chunk sets text alike. */
  fontFamily: string[];
}

export interface TPdfPlan {
  head: TDocumentHead;
  pages: TPage[];
  rows: number;
  fontFamily: string[];
}

/** The PDF's title: "Folio — Reservation RES-42". */
export function documentTitle(head: TDocumentHead, t: TTranslate = translator(head.language)): string {
  return `${t('title')} — ${sourceText(head.source, t)}`;
}

function* documentTexts(document: TFolioDocument): Generator<string> {
  const { folios, ...head } = document;
  yield JSON.stringify(head);
  for (const folio of folios) {
    yield folio.name;
    for (const section of folio.sections) {
      for (const row of section.rows) {
        yield row.code;
        yield row.description;
        if (row.notes) yield row.notes;
        if (row.room) yield row.room;
      }
    }
  }
}

/** Pages, rows and fonts of a document: cheap and pure, done once before any page is rendered. */
export function planFolioPdf(document: TFolioDocument): TPdfPlan {
  const { pages, rows } = paginate(document);
  const { folios: _folios, ...head } = document;
  return { head, pages, rows, fontFamily: fontFamilyOf(documentTexts(document)) };
}

/** Splits a plan into chunks of at most `pagesPerChunk` consecutive pages. */
export function chunkPlan(plan: TPdfPlan, pagesPerChunk: number): TPdfChunk[] {
  const chunks: TPdfChunk[] = [];
  for (let from = 0; from < plan.pages.length; from += pagesPerChunk) {
    chunks.push({ head: plan.head, pages: plan.pages.slice(from, from + pagesPerChunk), pageCount: plan.pages.length, fontFamily: plan.fontFamily });
  }
  return chunks;
}
