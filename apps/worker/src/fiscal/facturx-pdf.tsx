// The Factur-X file of a fiscal document (docs/fiscal-documents.md#the-factur-x-pdf): the invoice
// or credit note as the folio PDF looks, in the document's language, as PDF/A-3b with every font
// embedded and the CII attached as factur-x.xml. React-PDF renders the pages with the folio's
// embedded Noto Sans faces (conformance "PDF/A-3b"), and facturx-pdfa.ts completes the file (XMP,
// Info, attachment, /ID). Runs in a render process (render-child.ts, kind "facturx") or anywhere.
//
// Deterministic: every date in the file is the document's issue date (never the clock), and the
// /ID its UUID, so the same document and CII render the same bytes again.

import { renderToBuffer } from '@react-pdf/renderer';
import type { TFiscalDocument } from '@folio-vault/shared/fiscal/document-model';
import { fontFamilyOf } from '../exports/pdf/font-stack.js';
import { tableFonts } from '../exports/pdf/table-fonts.js';
import { glyphCoverage, mapStrings, printable } from './facturx-glyphs.js';
import { completeFacturX } from './facturx-pdfa.js';
import { invoiceTexts, type TInvoiceTexts } from './facturx-text.js';
import { expectedPages, InvoicePdf, type TPageCount } from './facturx-view.js';
import type { TPdfProperties } from './facturx-xmp.js';

/** Every text the document prints, for choosing the font stack (a CJK or Arabic name brings its fallback face). */
function* printed(texts: TInvoiceTexts): Generator<string> {
  yield texts.seller.name;
  yield* texts.seller.lines;
  yield texts.buyer.name;
  yield* texts.buyer.lines;
  yield* texts.stay;
  for (const line of texts.lines) {
    yield line.name;
    if (line.description) yield line.description;
  }
  for (const entry of texts.breakdown) if (entry.exemption) yield entry.exemption;
  yield* texts.payment;
  yield* texts.notes;
}

/** What the Info dictionary and the XMP say: the title, the seller as author, the issue date as both dates. */
export function pdfProperties(document: TFiscalDocument, texts: TInvoiceTexts): TPdfProperties {
  // The issue date is a calendar date; midnight UTC stands for it.
  const issued = new Date(`${document.issueDate}T00:00:00Z`);
  return {
    title: texts.documentTitle,
    author: document.seller.name,
    subject: `${texts.documentTitle} · ${document.seller.name} · ${document.buyer.name}`,
    creator: 'Folio Vault',
    producer: 'Folio Vault',
    created: issued,
    modified: issued,
    language: document.language,
  };
}

/** The file; `ciiXml` is needed only once the pages are drawn, so it may still be on its way. */
export async function renderFacturX(document: TFiscalDocument, ciiXml: string | Promise<string>): Promise<Buffer> {
  // The Noto Sans faces loaded once per process; documents then start without pdfkit's default Helvetica (never embedded).
  await tableFonts();
  const texts = invoiceTexts(document);
  const properties = pdfProperties(document, texts);
  const fontFamily = fontFamilyOf(printed(texts));
  const covers = await glyphCoverage(fontFamily);
  const shown = mapStrings(texts, (text) => printable(text, covers));
  const draw = (pages: number, count: TPageCount) =>
    renderToBuffer(<InvoicePdf texts={shown} language={document.language} fontFamily={fontFamily} created={properties.created} pages={pages} count={count} />);
  const expected = expectedPages(shown);
  const count = { drawn: 0 };
  let rendered = await draw(expected, count);
  // The footers said `expected` pages: when the flow made another count, again with that one (drawn is 0 when the labels were render callbacks, which count themselves).
  if (count.drawn && count.drawn !== expected) rendered = await draw(count.drawn, { drawn: 0 });
  return completeFacturX(rendered, { properties, cii: await ciiXml, documentId: document.id });
}
