import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Document, Page, View, renderToStream } from '@react-pdf/renderer';
import type { TFolioDocument, TRenderedFile } from '@folio-vault/shared/export/folio-document';
import { translator, type TTranslate } from '@folio-vault/shared/i18n/catalog';
import { formatters, type TFormatters } from '@folio-vault/shared/i18n/format';
import { FiltersLine } from './filters-line.js';
import { FolioHeading, NoRows, SectionHeading, SectionSubtotal } from './folio-heading.js';
import { fontFamilyFor, registerFonts } from './fonts.js';
import { Footer } from './footer.js';
import { sourceText } from '../document-text.js';
import { Header } from './header.js';
import { paginate, type TBlock, type TPage } from './paginate.js';
import { Recipient } from './recipient.js';
import { pageStyle, styles } from './styles.js';
import { Totals } from './totals.js';
import { ColumnHeader, TransactionRows } from './transactions-table.js';

interface TContext {
  document: TFolioDocument;
  t: TTranslate;
  fmt: TFormatters;
}

function Block({ block, context }: { block: TBlock; context: TContext }) {
  const { document, t, fmt } = context;
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
      return <ColumnHeader t={t} />;
    case 'sectionHeading':
      return <SectionHeading section={block.section} continued={block.continued} t={t} />;
    case 'rows':
      return <TransactionRows rows={block.rows} t={t} fmt={fmt} />;
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

function FolioPdf({ pages, context }: { pages: TPage[]; context: TContext }) {
  const { document, t, fmt } = context;
  const style = pageStyle(fontFamilyFor(JSON.stringify(document)));
  const generated = `${fmt.dateTime(document.generatedAt)} (${document.timezone})`;
  return (
    <Document
      title={`${t('title')} — ${sourceText(document.source, t)}`}
      language={document.language}
      creator="Folio Vault"
      producer="Folio Vault"
      creationDate={new Date(document.generatedAt)}
    >
      {pages.map((page) => (
        // wrap={false}: paginate() already decided what each page holds (DESIGN.md "Known to bite").
        <Page key={page.number} size="A4" wrap={false} style={style}>
          <View style={styles.body}>
            {page.blocks.map((block, index) => (
              <Block key={index} block={block} context={context} />
            ))}
          </View>
          <Footer page={page.number} pages={pages.length} generated={generated} t={t} />
        </Page>
      ))}
    </Document>
  );
}

/** Renders a folio document to `outputPath` (A4, pre-paginated). Returns the page and row counts. */
export async function renderFolioPdf(document: TFolioDocument, outputPath: string): Promise<TRenderedFile> {
  registerFonts();
  const { pages, rows } = paginate(document);
  const context: TContext = {
    document,
    t: translator(document.language),
    fmt: formatters(document.language, document.timezone, document.currency),
  };
  await mkdir(dirname(outputPath), { recursive: true });
  const pdf = await renderToStream(<FolioPdf pages={pages} context={context} />);
  await pipeline(pdf, createWriteStream(outputPath));
  return { pages: pages.length, rows };
}
