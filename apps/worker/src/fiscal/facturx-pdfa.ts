// Completes React-PDF's PDF/A-3b file into a Factur-X file (docs/fiscal-documents.md#the-factur-x-pdf).
// React-PDF (pdfkit underneath) writes the PDF/A-3 parts it knows: version 1.7, the binary header
// comment, embedded font subsets, the sRGB OutputIntent (pdfkit's own ICC profile, /N 3) and an XMP
// packet with pdfaid. It cannot attach a file to a React-PDF document, its XMP has neither the
// Factur-X properties nor their extension schema, and its Info dictionary does not match that XMP
// (a /ModificationDate key where PDF says /ModDate, no xmp:ModifyDate). So the file is read back
// with pdf-lib (public API only) and, in one rewrite:
// - the XMP packet is replaced by facturx-xmp.ts's, written uncompressed in UTF-8;
// - the Info dictionary is replaced by one made from the same TPdfProperties (xmlSafeProperties);
// - the CII is attached as factur-x.xml (text/xml, /AFRelationship /Alternative, /Params with
//   /Size, /CreationDate, /ModDate and /CheckSum), named in the catalog's /AF and /Names /EmbeddedFiles;
// - the trailer's /ID is the document's own UUID (both halves: the file is an original, never an
//   update), so the same document gets the same /ID;
// - the objects replaced are deleted, so no stale XMP or Info stays in the file.
// Every value comes from the frozen document: the same document and CII give the same bytes.

import { createHash } from 'node:crypto';
import { ParseSpeeds, PDFDict, PDFDocument, PDFHexString, PDFName, PDFRef, PDFString, type PDFContext } from 'pdf-lib';
import { FACTURX_FILE_NAME, facturXXmp, xmlSafeProperties, type TPdfProperties } from './facturx-xmp.js';

export interface TFacturXParts {
  properties: TPdfProperties;
  /** The CII XML, attached byte for byte as UTF-8. */
  cii: string;
  /** The fiscal document's UUID: the trailer's /ID. */
  documentId: string;
}

/** Deletes an indirect object and the indirect values of its dictionary (pdfkit writes each Info value as an object of its own). */
function deleteWithValues(context: PDFContext, ref: unknown): void {
  if (!(ref instanceof PDFRef)) return;
  const object = context.lookup(ref);
  if (object instanceof PDFDict) for (const value of object.values()) if (value instanceof PDFRef) context.delete(value);
  context.delete(ref);
}

export async function completeFacturX(rendered: Uint8Array, parts: TFacturXParts): Promise<Buffer> {
  // Read and written in one go: a render process has nothing else to do meanwhile, and pdf-lib's
  // default pauses (a timer turn every 100 objects read, every 50 written) only make the file later.
  const pdf = await PDFDocument.load(rendered, { updateMetadata: false, parseSpeed: ParseSpeeds.Fastest });
  const { context, catalog } = pdf;
  if (pdf.isEncrypted) throw new Error('a Factur-X file must not be encrypted');
  if (!catalog.has(PDFName.of('OutputIntents'))) throw new Error('the rendered PDF has no OutputIntent: it was not rendered as PDF/A-3b');
  const properties = xmlSafeProperties(parts.properties);

  deleteWithValues(context, catalog.get(PDFName.of('Metadata')));
  const xmp = context.register(context.stream(new TextEncoder().encode(facturXXmp(properties)), { Type: 'Metadata', Subtype: 'XML' }));
  catalog.set(PDFName.of('Metadata'), xmp);

  deleteWithValues(context, context.trailerInfo.Info);
  context.trailerInfo.Info = context.register(
    context.obj({
      Title: PDFHexString.fromText(properties.title),
      Author: PDFHexString.fromText(properties.author),
      Subject: PDFHexString.fromText(properties.subject),
      Creator: PDFHexString.fromText(properties.creator),
      Producer: PDFHexString.fromText(properties.producer),
      CreationDate: PDFString.fromDate(properties.created),
      ModDate: PDFString.fromDate(properties.modified),
    }),
  );

  const id = PDFHexString.of(parts.documentId.replace(/-/g, '').toUpperCase());
  context.trailerInfo.ID = context.obj([id, id]);

  const cii = new TextEncoder().encode(parts.cii);
  const embedded = context.register(
    context.flateStream(cii, {
      Type: 'EmbeddedFile',
      Subtype: 'text/xml',
      Params: {
        Size: cii.length,
        CreationDate: PDFString.fromDate(properties.created),
        ModDate: PDFString.fromDate(properties.modified),
        CheckSum: PDFHexString.of(createHash('md5').update(cii).digest('hex').toUpperCase()),
      },
    }),
  );
  const fileSpec = context.register(
    context.obj({
      Type: 'Filespec',
      F: PDFString.of(FACTURX_FILE_NAME),
      UF: PDFHexString.fromText(FACTURX_FILE_NAME),
      Desc: PDFString.of('Factur-X invoice (CII, EN 16931)'),
      AFRelationship: 'Alternative',
      EF: { F: embedded, UF: embedded },
    }),
  );
  catalog.set(PDFName.of('AF'), context.obj([fileSpec]));
  let names = catalog.lookupMaybe(PDFName.of('Names'), PDFDict);
  if (!names) catalog.set(PDFName.of('Names'), (names = context.obj({})));
  names.set(PDFName.of('EmbeddedFiles'), context.obj({ Names: [PDFString.of(FACTURX_FILE_NAME), fileSpec] }));

  // A classic cross-reference table: every PDF reader and checker takes it.
  return Buffer.from(await pdf.save({ useObjectStreams: false, objectsPerTick: Infinity }));
}
