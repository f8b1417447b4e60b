import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Document, Page, View, renderToStream } from '@react-pdf/renderer';
import type { TFolioDocument, TRenderedFile } from '@folio-vault/shared/exports/folio-document';
import { translator, type TTranslate } from '@folio-vault/shared/i18n/catalog';
import { formatters, type TFormatters } from '@folio-vault/shared/i18n/format';
import { FiltersLine } from './filters-line.js';
import { FolioHeading, NoRows, SectionHeading, SectionSubtotal } from './folio-heading.js';
import { fontFamilyOf, registerFonts } from './fonts.js';
import { Footer } from './footer.js';
import { sourceText } from '../document-text.js';
import { Header } from './header.js';
import { paginate, type TBlock, type TPage } from './paginate.js';
import { Recipient } from './recipient.js';
import { pageStyle, styles } from './styles.js';
import { Totals } from './totals.js';
import { ColumnHeader, TransactionRows } from './table-canvas.js';
import { tableFonts, type TTableFonts } from './table-fonts.js';

/**
 * What a page's blocks read of the document: everything but the folios' rows, which the pages
 * carry themselves (paginate()), so a chunk of pages travels to a render process without the rest.
 */
export type TDocumentHead = Omit<TFolioDocument, 'folios'>;

interface TContext {
  document: TDocumentHead;
  t: TTranslate;
  fmt: TFormatters;
  fonts: TTableFonts;
}

function Block({ block, context }: { block: TBlock; context: TContext }) {
  const { document, t, fmt, fonts } = context;
  switch (block.kind) {
    case 'header':
      return <Header document={document} t={t} />;
    case 'recipient':
      return document.recipient ? <Recipient recipient={document.recipient} t={t} /> : null;
    case 'filters':
      return <FiltersLine filters={document.filters} t={t} fmt={fmt} />;
    case 'folioHeading':
      return <FolioHeading folioName={block.folioName} continued={block.continued} t={t} />;
    case 'columnHeader':
      return <ColumnHeader t={t} fonts={fonts} />;
    case 'sectionHeading':
      return <SectionHeading section={block.section} continued={block.continued} t={t} />;
    case 'rows':
      return <TransactionRows rows={block.rows} t={t} fmt={fmt} fonts={fonts} />;
    case 'noRows':
      return <NoRows t={t} />;
    case 'sectionSubtotal':
      return <SectionSubtotal section={block.section} subtotal={block.subtotal} t={t} fmt={fmt} />;
    case 'folioTotals':
      return <Totals title={t('totals.folio', { name: block.folioName })} totals={block.totals} t={t} fmt={fmt} />;
    case 'grandTotals':
      return <Totals title={t('totals.all')} totals={block.totals} t={t} fmt={fmt} />;
  }
}

function FolioPdf({ chunk, context }: { chunk: TPdfChunk; context: TContext }) {
  const { document, t, fmt } = context;
  const style = pageStyle(chunk.fontFamily);
  const generated = `${fmt.dateTime(document.generatedAt)} (${document.timezone})`;
  return (
    <Document
      title={documentTitle(document, t)}
      language={document.language}
      creator="Folio Vault"
      producer="Folio Vault"
      creationDate={new Date(document.generatedAt)}
    >
      {chunk.pages.map((page) => (
        // wrap={false}: paginate() already decided what each page holds (docs/export.md#what-the-pdf-shows).
        <Page key={page.number} size="A4" wrap={false} style={style}>
          <View style={styles.body}>
            {page.blocks.map((block, index) => (
              <Block key={index} block={block} context={context} />
            ))}
          </View>
          <Footer page={page.number} pages={chunk.pageCount} generated={generated} t={t} />
        </Page>
      ))}
    </Document>
  );
}

/** The PDF's title: "Folio — Reservation RES-42". */
export function documentTitle(head: TDocumentHead, t: TTranslate = translator(head.language)): string {
  return `${t('title')} — ${sourceText(head.source, t)}`;
}

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

/** Renders a chunk of pages to `outputPath`. */
export async function renderPdfChunk(chunk: TPdfChunk, outputPath: string): Promise<void> {
  registerFonts();
  const context: TContext = {
    document: chunk.head,
    t: translator(chunk.head.language),
    fmt: formatters(chunk.head.language, chunk.head.timezone, chunk.head.currency),
    fonts: await tableFonts(),
  };
  await mkdir(dirname(outputPath), { recursive: true });
  const pdf = await renderToStream(<FolioPdf chunk={chunk} context={context} />);
  await pipeline(pdf, createWriteStream(outputPath));
}

/** Renders a whole folio document to `outputPath` in this process (A4, pre-paginated). */
export async function renderFolioPdf(document: TFolioDocument, outputPath: string): Promise<TRenderedFile> {
  const plan = planFolioPdf(document);
  await renderPdfChunk({ head: plan.head, pages: plan.pages, pageCount: plan.pages.length, fontFamily: plan.fontFamily }, outputPath);
  return { pages: plan.pages.length, rows: plan.rows };
}
