// The XMP metadata packet of a Factur-X file (docs/fiscal-documents.md#the-factur-x-pdf): PDF/A-3
// identification (part 3, conformance B), the document properties that PDF/A requires to equal the
// Info dictionary's (facturx-pdfa.ts writes both from one TPdfProperties), the Factur-X properties
// (fx:) and the PDF/A extension schema that describes them; without that description a PDF/A
// validator rejects the fx: properties as undeclared. Pure: text in, text out, written as UTF-8.

/** What the Info dictionary and the XMP both say; PDF/A-3 requires them to agree. */
export interface TPdfProperties {
  /** Info /Title = dc:title. */
  title: string;
  /** Info /Author = dc:creator (a sequence of one). */
  author: string;
  /** Info /Subject = dc:description. */
  subject: string;
  /** Info /Creator = xmp:CreatorTool. */
  creator: string;
  /** Info /Producer = pdf:Producer. */
  producer: string;
  /** Info /CreationDate = xmp:CreateDate; /ModDate = xmp:ModifyDate (= xmp:MetadataDate). */
  created: Date;
  modified: Date;
  /** dc:language, the document's language (BCP 47). */
  language: string;
}

/** The Factur-X 1.0 XMP namespace, as the Factur-X specification spells it (trailing # included). */
export const FACTURX_NAMESPACE = 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#';
/** The embedded file's name that Factur-X readers look for. */
export const FACTURX_FILE_NAME = 'factur-x.xml';
/** The Factur-X profile of the CII this service attaches (the CII's guideline is EN 16931). */
export const FACTURX_CONFORMANCE_LEVEL = 'EN 16931';

/** Code points XML 1.0 does not allow in text (C0 controls but tab, line feed, carriage return; U+FFFE, U+FFFF). */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

/**
 * The properties without the characters XML cannot hold (a control character in a hotel's name):
 * the Info dictionary could hold them, the XMP cannot, and PDF/A requires the two to be equal, so
 * both are written from this.
 */
export function xmlSafeProperties(properties: TPdfProperties): TPdfProperties {
  const safe = (text: string) => text.replace(NOT_XML, '');
  return {
    ...properties,
    title: safe(properties.title),
    author: safe(properties.author),
    subject: safe(properties.subject),
    creator: safe(properties.creator),
    producer: safe(properties.producer),
    language: safe(properties.language),
  };
}

/** Text as XML character data: markup characters escaped, characters XML cannot hold dropped. */
export function xmlText(text: string): string {
  return text
    .replace(NOT_XML, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** An XMP date: seconds precision in UTC ("2026-11-23T00:00:00Z"), the same instant as the Info dictionary's "D:20261123000000Z". */
export function xmpDate(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** The fx: properties: each a name, its value, and the description the extension schema gives it. */
const FACTURX_PROPERTIES = [
  { name: 'DocumentFileName', value: FACTURX_FILE_NAME, description: 'The name of the embedded XML invoice file' },
  { name: 'DocumentType', value: 'INVOICE', description: 'The type of the hybrid document: INVOICE' },
  { name: 'Version', value: '1.0', description: 'The version of the Factur-X XML schema' },
  { name: 'ConformanceLevel', value: FACTURX_CONFORMANCE_LEVEL, description: 'The conformance level of the embedded Factur-X data' },
] as const;

/** The complete XMP packet (without the UTF-8 encoding: the caller writes it so). */
export function facturXXmp(properties: TPdfProperties): string {
  const schemaProperties = FACTURX_PROPERTIES.map(
    (property) => `
            <rdf:li rdf:parseType="Resource">
              <pdfaProperty:name>${property.name}</pdfaProperty:name>
              <pdfaProperty:valueType>Text</pdfaProperty:valueType>
              <pdfaProperty:category>external</pdfaProperty:category>
              <pdfaProperty:description>${xmlText(property.description)}</pdfaProperty:description>
            </rdf:li>`,
  ).join('');
  const facturX = FACTURX_PROPERTIES.map((property) => `
      <fx:${property.name}>${xmlText(property.value)}</fx:${property.name}>`).join('');
  return `<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
  <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
    <rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/">
      <pdfaid:part>3</pdfaid:part>
      <pdfaid:conformance>B</pdfaid:conformance>
    </rdf:Description>
    <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
      <dc:title><rdf:Alt><rdf:li xml:lang="x-default">${xmlText(properties.title)}</rdf:li></rdf:Alt></dc:title>
      <dc:creator><rdf:Seq><rdf:li>${xmlText(properties.author)}</rdf:li></rdf:Seq></dc:creator>
      <dc:description><rdf:Alt><rdf:li xml:lang="x-default">${xmlText(properties.subject)}</rdf:li></rdf:Alt></dc:description>
      <dc:language><rdf:Bag><rdf:li>${xmlText(properties.language)}</rdf:li></rdf:Bag></dc:language>
    </rdf:Description>
    <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/">
      <xmp:CreatorTool>${xmlText(properties.creator)}</xmp:CreatorTool>
      <xmp:CreateDate>${xmpDate(properties.created)}</xmp:CreateDate>
      <xmp:ModifyDate>${xmpDate(properties.modified)}</xmp:ModifyDate>
      <xmp:MetadataDate>${xmpDate(properties.modified)}</xmp:MetadataDate>
    </rdf:Description>
    <rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/">
      <pdf:Producer>${xmlText(properties.producer)}</pdf:Producer>
    </rdf:Description>
    <rdf:Description rdf:about=""
        xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/"
        xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#"
        xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">
      <pdfaExtension:schemas>
        <rdf:Bag>
          <rdf:li rdf:parseType="Resource">
            <pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>
            <pdfaSchema:namespaceURI>${FACTURX_NAMESPACE}</pdfaSchema:namespaceURI>
            <pdfaSchema:prefix>fx</pdfaSchema:prefix>
            <pdfaSchema:property>
              <rdf:Seq>${schemaProperties}
              </rdf:Seq>
            </pdfaSchema:property>
          </rdf:li>
        </rdf:Bag>
      </pdfaExtension:schemas>
    </rdf:Description>
    <rdf:Description rdf:about="" xmlns:fx="${FACTURX_NAMESPACE}">${facturX}
    </rdf:Description>
  </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`;
}
