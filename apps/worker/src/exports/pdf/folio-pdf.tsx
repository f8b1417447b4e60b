import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Document, Page, View, renderToStream } from '@react-pdf/renderer';
import type { TFolioDocument, TRenderedFile } from '@folio-vault/shared/exports/folio-document';
import { translator, type TTranslate } from '@folio-vault/shared/i18n/catalog';
import { formatters, type TFormatters } from '@folio-vault/shared/i18n/format';
import { FiltersLine } from './filters-line.js';
import { FolioHeading, NoRows, SectionHeading, SectionSubtotal } from './folio-heading.js';
import { registerFonts } from './fonts.js';
import { Footer } from './footer.js';
import { Header } from './header.js';
import type { TBlock } from './paginate.js';
import { documentTitle, planFolioPdf, type TDocumentHead, type TPdfChunk } from './plan.js';
import { Recipient } from './recipient.js';
import { Stay } from './stay.js';
import { pageStyle, styles } from './styles.js';
import { TaxSummary, Totals } from './totals.js';
import { ColumnHeader, TransactionRows } from './table-canvas.js';
import { tableFonts, type TTableFonts } from './table-fonts.js';

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
      return <Header document={document} folioNumbers={block.folioNumbers} t={t} />;
    case 'stay':
      return document.stay ? <Stay stay={document.stay} language={document.language} t={t} fmt={fmt} /> : null;
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
    case 'taxSummary':
      return <TaxSummary lines={block.lines} all={block.all} continued={block.continued} t={t} fmt={fmt} />;
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

/** Renders a chunk of pages to `outputPath`. */
export async function renderPdfChunk(chunk: TPdfChunk, outputPath: string): Promise<void> {
  registerFonts();
  const context: TContext = {
    document: chunk.head,
    t: translator(chunk.head.language),
    fmt: formatters(chunk.head.language, chunk.head.timezone, chunk.head.currency),
    fonts: await tableFonts(),
  };
  const file = await openForWriting(outputPath);
  let pdf: NodeJS.ReadableStream;
  try {
    pdf = await renderToStream(<FolioPdf chunk={chunk} context={context} />);
  } catch (error) {
    await file.close();
    throw error;
  }
  // The stream owns the file from here: it closes it when it finishes or fails.
  await pipeline(pdf, file.createWriteStream());
}

/**
 * Opens (creates or truncates) a file to write, making its folder only when it is missing: the
 * folder of a render's temp file almost always exists, and a recursive mkdir before every piece
 * would cost a render process several system calls a document.
 */
async function openForWriting(path: string): Promise<FileHandle> {
  try {
    return await open(path, 'w');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(dirname(path), { recursive: true });
    return open(path, 'w');
  }
}

/** Renders a whole folio document to `outputPath` in this process (A4, pre-paginated). */
export async function renderFolioPdf(document: TFolioDocument, outputPath: string): Promise<TRenderedFile> {
  const plan = planFolioPdf(document);
  await renderPdfChunk({ head: plan.head, pages: plan.pages, pageCount: plan.pages.length, fontFamily: plan.fontFamily }, outputPath);
  return { pages: plan.pages.length, rows: plan.rows };
}
