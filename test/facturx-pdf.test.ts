import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TFiscalDocument } from '@folio-vault/shared/fiscal/document-model';
import type { TLanguage } from '@folio-vault/shared/i18n/languages';
import { hotelStayCreditNote, hotelStayInvoice } from '@folio-vault/test-kit/fiscal-documents';
import { renderFacturX } from '../apps/worker/src/fiscal/facturx-pdf.js';

/**
 * The Factur-X file checked with the tools a PDF/A and Factur-X reader relies on, short of veraPDF
 * (not installable here): qpdf (syntax, the object graph as JSON), poppler (fonts, text, the
 * attachment) and exiftool (the XMP). The CII is an opaque text to the PDF: a small one with
 * non-ASCII characters shows it is attached byte for byte as UTF-8.
 */
const run = promisify(execFile);
const CII = `<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100">
  <rsm:ExchangedDocument><ram:ID>INV-1</ram:ID><ram:TypeCode>380</ram:TypeCode></rsm:ExchangedDocument>
  <rsm:SupplyChainTradeTransaction><ram:ApplicableHeaderTradeAgreement><ram:SellerTradeParty><ram:Name>Hôtel Miramar Lyon</ram:Name></ram:SellerTradeParty></ram:ApplicableHeaderTradeAgreement></rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>
`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fv-facturx-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function rendered(name: string, document: TFiscalDocument): Promise<{ file: string; bytes: Buffer }> {
  const bytes = await renderFacturX(document, CII);
  const file = join(dir, `${name}.pdf`);
  await writeFile(file, bytes);
  return { file, bytes };
}

/** qpdf's JSON (v2) of every object, stream data left out: an independent reading of the file's object graph. */
async function objects(file: string): Promise<{ trailer: Record<string, unknown>; get(ref: unknown): Record<string, unknown> }> {
  const { stdout } = await run('qpdf', ['--json=2', '--json-key=qpdf', file], { maxBuffer: 64 << 20 });
  const all = (JSON.parse(stdout) as { qpdf: [unknown, Record<string, { value?: Record<string, unknown>; stream?: { dict: Record<string, unknown> } }>] }).qpdf[1];
  const get = (ref: unknown) => {
    const object = all[`obj:${String(ref)}`];
    if (!object) throw new Error(`no object ${String(ref)}`);
    return object.value ?? object.stream!.dict;
  };
  return { trailer: all.trailer!.value!, get };
}

/** The page's words in reading order (pdftotext -bbox): a phrase is found when its words follow each other. */
async function words(file: string): Promise<string[]> {
  const { stdout } = await run('pdftotext', ['-bbox', '-enc', 'UTF-8', file, '-'], { maxBuffer: 16 << 20 });
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return [...stdout.matchAll(/<word [^>]*>([^<]*)<\/word>/g)].map((match) => match[1]!.replace(/&(\w+);/g, (_, name: string) => entities[name]!));
}

/** The phrases of `expected` missing from the words (each split on white space: Intl's no-break spaces too). */
function missing(text: string[], expected: readonly string[]): string[] {
  const joined = `\u0000${text.join('\u0000')}\u0000`;
  return expected.filter((phrase) => !joined.includes(`\u0000${phrase.split(/\s+/u).join('\u0000')}\u0000`));
}

describe('the Factur-X file: PDF/A-3b structure', () => {
  let file: string;
  let bytes: Buffer;
  beforeAll(async () => {
    ({ file, bytes } = await rendered('structure', hotelStayInvoice()));
  });

  it('is a PDF 1.7 file with a binary comment that qpdf reads without an error or a warning, unencrypted', async () => {
    expect(bytes.subarray(0, 10).toString('latin1')).toBe('%PDF-1.7\n%');
    expect([...bytes.subarray(10, 14)].every((byte) => byte > 127)).toBe(true);
    const { stdout } = await run('qpdf', ['--check', file]); // exits non-zero on an error or a warning
    expect(stdout).toContain('File is not encrypted');
    expect(stdout).toContain('No syntax or stream encoding errors found');
    const { trailer } = await objects(file);
    expect(trailer['/Encrypt']).toBeUndefined();
  });

  it('embeds every font it uses (Noto Sans; never the unembedded Helvetica)', async () => {
    const { stdout } = await run('pdffonts', [file]);
    const fonts = stdout.trim().split('\n').slice(2).map((line) => ({ name: line.split(/\s+/)[0]!, emb: /\s(yes|no)\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+$/.exec(line)?.[1] }));
    expect(fonts.map((font) => font.name.replace(/^[A-Z]{6}\+/, '')).sort()).toEqual(['NotoSans-Bold', 'NotoSans-Regular']);
    expect(fonts.map((font) => font.emb)).toEqual(['yes', 'yes']);
  });

  it('has an sRGB OutputIntent whose ICC profile declares 3 components (/N 3) and is an RGB profile', async () => {
    const { get } = await objects(file);
    const catalog = get((await objects(file)).trailer['/Root']);
    const intents = catalog['/OutputIntents'] as string[];
    expect(intents).toHaveLength(1);
    const intent = get(intents[0]);
    expect(intent['/S']).toBe('/GTS_PDFA1');
    expect(intent['/OutputConditionIdentifier']).toBe('u:sRGB IEC61966-2.1');
    expect(get(intent['/DestOutputProfile'])['/N']).toBe(3);
    const ref = String(intent['/DestOutputProfile']).split(' ')[0]!;
    const { stdout: profile } = await run('qpdf', [`--show-object=${ref}`, '--filtered-stream-data', file], { encoding: 'buffer', maxBuffer: 1 << 20 });
    expect(profile.subarray(16, 20).toString('latin1')).toBe('RGB ');
    expect(profile.subarray(36, 40).toString('latin1')).toBe('acsp');
  });

  it('attaches the CII as factur-x.xml: in /AF with /AFRelationship /Alternative, text/xml, /ModDate and /Size, in the EmbeddedFiles tree, extracted byte for byte', async () => {
    const { trailer, get } = await objects(file);
    const catalog = get(trailer['/Root']);
    const af = catalog['/AF'] as string[];
    expect(af).toHaveLength(1);
    const spec = get(af[0]);
    expect(spec).toMatchObject({ '/Type': '/Filespec', '/F': 'u:factur-x.xml', '/UF': 'u:factur-x.xml', '/AFRelationship': '/Alternative' });
    const embedded = get((spec['/EF'] as Record<string, string>)['/F']);
    const size = Buffer.byteLength(CII, 'utf8');
    expect(embedded).toMatchObject({ '/Type': '/EmbeddedFile', '/Subtype': '/text/xml', '/Params': { '/Size': size, '/ModDate': 'u:D:20261123000000Z' } });
    expect((get(catalog['/Names'])['/EmbeddedFiles'] as Record<string, unknown>)['/Names']).toEqual(['u:factur-x.xml', af[0]]);

    const { stdout: list } = await run('pdfdetach', ['-list', file]);
    expect(list.trim().split('\n')).toEqual(['1 embedded files', '1: factur-x.xml']);
    const extracted = join(dir, 'extracted.xml');
    await run('pdfdetach', ['-save', '1', '-o', extracted, file]);
    expect((await readFile(extracted)).equals(Buffer.from(CII, 'utf8'))).toBe(true);
  });

  it('declares PDF/A-3b and the Factur-X properties in its XMP, with the fx: extension schema', async () => {
    const { stdout } = await run('exiftool', ['-j', '-struct', '-XMP-pdfaid:all', '-XMP-fx:all', '-XMP-pdfaExtension:all', file]);
    const [xmp] = JSON.parse(stdout) as [Record<string, unknown>];
    expect(xmp).toMatchObject({ Part: 3, Conformance: 'B', DocumentType: 'INVOICE', DocumentFileName: 'factur-x.xml', ConformanceLevel: 'EN 16931' });
    expect(xmp.Schemas).toEqual([
      {
        Schema: 'Factur-X PDFA Extension Schema',
        NamespaceURI: 'urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#',
        Prefix: 'fx',
        Property: ['DocumentFileName', 'DocumentType', 'Version', 'ConformanceLevel'].map((name) => ({ Name: name, ValueType: 'Text', Category: 'external', Description: expect.any(String) })),
      },
    ]);
    // JSON makes "1.0" a number: the value as written.
    expect((await run('exiftool', ['-s3', '-XMP-fx:Version', file])).stdout.trim()).toBe('1.0');
  });

  it('writes the XMP packet uncompressed, in UTF-8, as the catalog\'s only metadata stream', async () => {
    const { trailer, get } = await objects(file);
    const ref = String(get(trailer['/Root'])['/Metadata']);
    expect(get(ref)).toMatchObject({ '/Type': '/Metadata', '/Subtype': '/XML' });
    expect(get(ref)['/Filter']).toBeUndefined();
    const { stdout: raw } = await run('qpdf', [`--show-object=${ref.split(' ')[0]}`, '--raw-stream-data', file], { encoding: 'buffer' });
    const xml = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    expect(raw.subarray(0, 25).toString('latin1')).toBe('<?xpacket begin="\u00ef\u00bb\u00bf" id=');
    expect(xml).toContain('<rdf:li xml:lang="x-default">Facture INV-1</rdf:li>');
    expect(xml).toContain('<rdf:li>Hôtel Miramar Lyon</rdf:li>');
    expect(bytes.toString('latin1').match(/<pdfaid:part>/g)).toHaveLength(1);
  });

  it('has an Info dictionary equal to the XMP, with the issue date as creation and modification date', async () => {
    const { stdout } = await run('exiftool', ['-j', '-G1', '-PDF:all', '-XMP-dc:all', '-XMP-xmp:all', '-XMP-pdf:all', file]);
    const [meta] = JSON.parse(stdout) as [Record<string, string>];
    const pairs = [
      ['PDF:Title', 'XMP-dc:Title', 'Facture INV-1'],
      ['PDF:Author', 'XMP-dc:Creator', 'Hôtel Miramar Lyon'],
      ['PDF:Subject', 'XMP-dc:Description', 'Facture INV-1 · Hôtel Miramar Lyon · ACME Conseil SAS'],
      ['PDF:Creator', 'XMP-xmp:CreatorTool', 'Folio Vault'],
      ['PDF:Producer', 'XMP-pdf:Producer', 'Folio Vault'],
      ['PDF:CreateDate', 'XMP-xmp:CreateDate', '2026:11:23 00:00:00Z'],
      ['PDF:ModifyDate', 'XMP-xmp:ModifyDate', '2026:11:23 00:00:00Z'],
    ];
    expect(pairs.map(([info, xmp]) => [meta[info!], meta[xmp!]])).toEqual(pairs.map(([, , value]) => [value, value]));
  });

  it('a seller\'s name with XML\'s markup, a control character and letters no face has: Info equal to the XMP, U+FFFD printed for what no face draws (PDF/A forbids .notdef)', async () => {
    const invoice = hotelStayInvoice();
    const name = 'Hôtel <Lumière> & "Spa"\u0007 שלום 😀';
    const { file: odd } = await rendered('odd-seller', { ...invoice, seller: { ...invoice.seller, name } });
    // exiftool decodes a UTF-16 Info string's surrogate pairs (the emoji) as "?": qpdf reads the Info, exiftool the XMP.
    const { trailer, get } = await objects(odd);
    const { stdout } = await run('exiftool', ['-s3', '-XMP-dc:Creator', odd]);
    expect([get(trailer['/Info'])['/Author'], stdout.trim()]).toEqual(['u:Hôtel <Lumière> & "Spa" שלום 😀', 'Hôtel <Lumière> & "Spa" שלום 😀']);
    expect(missing(await words(odd), ['Hôtel <Lumière> & "Spa" \ufffd\ufffd\ufffd\ufffd \ufffd'])).toEqual([]);
  });

  it('names the document by its UUID in the trailer /ID, and has no JavaScript, transparency group, LZW or encryption anywhere', async () => {
    const { trailer } = await objects(file);
    expect(trailer['/ID']).toEqual(['b:0193a5f27c1e7d3a9b4e2f6a8c0d1e2f', 'b:0193a5f27c1e7d3a9b4e2f6a8c0d1e2f']);
    const { stdout } = await run('qpdf', ['--json=2', '--json-key=qpdf', file], { maxBuffer: 64 << 20 });
    for (const forbidden of ['"/JavaScript"', '"/JS"', '"/OpenAction"', '"/AA"', '"/Transparency"', '"/Group"', '"/LZWDecode"', '"/Encrypt"', '"/SMask"']) {
      expect(stdout, forbidden).not.toContain(forbidden);
    }
  });
});

describe('the Factur-X file: determinism', () => {
  it('renders the same bytes again for the same document; another document gets another /ID', async () => {
    const [first, second] = [await renderFacturX(hotelStayInvoice(), CII), await renderFacturX(hotelStayInvoice(), CII)];
    expect(first.equals(second)).toBe(true);
    const note = await renderFacturX(hotelStayCreditNote(), CII);
    expect(note.toString('latin1')).toContain('/ID [ <0193A5F29A4B7C218E3D5B7F9A1C2D3E> <0193A5F29A4B7C218E3D5B7F9A1C2D3E> ]');
  });
});

/** What each language prints for the fixtures (the ledger's own texts stay French). Literal: nothing here is computed by the code under test. */
const PRINTED: Record<TLanguage, { invoice: string[]; creditNote: string[]; both: string[] }> = {
  en: {
    invoice: [
      'Invoice', 'Number: INV-1', 'Issue date: 23/11/2026', 'Due date: 23/12/2026',
      'Paid in advance €100.00', 'Amount due €248.00', 'Visa 411111******1111 (Z** R****) · paid €100.00', 'Invoice INV-1',
    ],
    creditNote: ['Credit note', 'Number: INV-CN-1', 'Issue date: 25/11/2026', 'Credits invoice INV-1 of 23/11/2026', 'Paid in advance €0.00', 'Amount credited €348.00', 'Credit note INV-CN-1'],
    both: [
      'Hôtel Miramar Lyon', 'Miramar Hôtellerie SAS', '12 rue de la République, 69002 Lyon, France', 'VAT ID: FR32123456789 · SIREN: 123456789',
      'Tel. +33 4 72 00 00 00 · reception@miramar-lyon.example',
      'Bill to', 'ACME Conseil SAS', '8 avenue de l’Opéra, 75001 Paris, France', 'VAT ID: FR61987654321 · SIREN: 987654321',
      'Reservation RES-500', 'Guest: Zoë Ryder', 'Period: 20/11/2026 – 23/11/2026',
      'Service date Description Qty Unit price Net amount VAT',
      '20/11/2026 Chambre Supérieure 3 €100.00 €300.00 10%', '21/11/2026 Minibar 2 €5.00 €10.00 20%', '20/11/2026 Taxe de séjour 3 €2.00 €6.00 0% (E)',
      'VAT breakdown', 'VAT category Rate Taxable amount VAT amount',
      'Standard rated 10% €300.00 €30.00', 'Standard rated 20% €10.00 €2.00', 'Exempt 0% €6.00 €0.00',
      'VATEX-EU-79-C: Taxe de séjour perçue pour le compte de la commune (débours)',
      'Total without VAT €316.00', 'Total VAT €32.00', 'Total with VAT €348.00',
      'Virement SEPA · IBAN FR76 3000 6000 0112 3456 7890 189', 'Page 1 of 1',
    ],
  },
  es: {
    invoice: [
      'Factura', 'Número: INV-1', 'Fecha de expedición: 23/11/2026', 'Fecha de vencimiento: 23/12/2026',
      'Pagado por anticipado 100,00 €', 'Importe a pagar 248,00 €', 'Visa 411111******1111 (Z** R****) · pagado 100,00 €', 'Factura INV-1',
    ],
    creditNote: [
      'Factura rectificativa', 'Número: INV-CN-1', 'Fecha de expedición: 25/11/2026', 'Rectifica la factura INV-1 del 23/11/2026',
      'Pagado por anticipado 0,00 €', 'Importe a abonar 348,00 €', 'Factura rectificativa INV-CN-1',
    ],
    both: [
      'Hôtel Miramar Lyon', 'Miramar Hôtellerie SAS', '12 rue de la République, 69002 Lyon, Francia', 'NIF-IVA: FR32123456789 · SIREN: 123456789',
      'Tel. +33 4 72 00 00 00 · reception@miramar-lyon.example',
      'Facturar a', 'ACME Conseil SAS', '8 avenue de l’Opéra, 75001 Paris, Francia', 'NIF-IVA: FR61987654321 · SIREN: 987654321',
      'Reserva RES-500', 'Huésped: Zoë Ryder', 'Periodo: 20/11/2026 – 23/11/2026',
      'Fecha de servicio Descripción Cant. Precio unitario Importe neto IVA',
      '20/11/2026 Chambre Supérieure 3 100,00 € 300,00 € 10 %', '21/11/2026 Minibar 2 5,00 € 10,00 € 20 %', '20/11/2026 Taxe de séjour 3 2,00 € 6,00 € 0 % (E)',
      'Desglose del IVA', 'Categoría de IVA Tipo Base imponible Cuota de IVA',
      'Sujeto a IVA 10 % 300,00 € 30,00 €', 'Sujeto a IVA 20 % 10,00 € 2,00 €', 'Exento 0 % 6,00 € 0,00 €',
      'VATEX-EU-79-C: Taxe de séjour perçue pour le compte de la commune (débours)',
      'Total sin IVA 316,00 €', 'Total IVA 32,00 €', 'Total con IVA 348,00 €',
      'Virement SEPA · IBAN FR76 3000 6000 0112 3456 7890 189', 'Página 1 de 1',
    ],
  },
  pt: {
    invoice: [
      'Fatura', 'Número: INV-1', 'Data de emissão: 23/11/2026', 'Data de vencimento: 23/12/2026',
      'Pago antecipadamente 100,00 €', 'Valor a pagar 248,00 €', 'Visa 411111******1111 (Z** R****) · pago 100,00 €', 'Fatura INV-1',
    ],
    creditNote: [
      'Nota de crédito', 'Número: INV-CN-1', 'Data de emissão: 25/11/2026', 'Anula a fatura INV-1 de 23/11/2026',
      'Pago antecipadamente 0,00 €', 'Valor a creditar 348,00 €', 'Nota de crédito INV-CN-1',
    ],
    both: [
      'Hôtel Miramar Lyon', 'Miramar Hôtellerie SAS', '12 rue de la République, 69002 Lyon, França', 'N.º de IVA: FR32123456789 · SIREN: 123456789',
      'Tel. +33 4 72 00 00 00 · reception@miramar-lyon.example',
      'Faturar a', 'ACME Conseil SAS', '8 avenue de l’Opéra, 75001 Paris, França', 'N.º de IVA: FR61987654321 · SIREN: 987654321',
      'Reserva RES-500', 'Hóspede: Zoë Ryder', 'Período: 20/11/2026 – 23/11/2026',
      'Data do serviço Descrição Qtd. Preço unitário Valor líquido IVA',
      '20/11/2026 Chambre Supérieure 3 100,00 € 300,00 € 10%', '21/11/2026 Minibar 2 5,00 € 10,00 € 20%', '20/11/2026 Taxe de séjour 3 2,00 € 6,00 € 0% (E)',
      'Resumo do IVA', 'Categoria de IVA Taxa Base tributável Valor do IVA',
      'Sujeito a IVA 10% 300,00 € 30,00 €', 'Sujeito a IVA 20% 10,00 € 2,00 €', 'Isento 0% 6,00 € 0,00 €',
      'VATEX-EU-79-C: Taxe de séjour perçue pour le compte de la commune (débours)',
      'Total sem IVA 316,00 €', 'Total do IVA 32,00 €', 'Total com IVA 348,00 €',
      'Virement SEPA · IBAN FR76 3000 6000 0112 3456 7890 189', 'Página 1 de 1',
    ],
  },
  fr: {
    invoice: [
      'Facture', 'Numéro : INV-1', 'Date d’émission : 23/11/2026', 'Date d’échéance : 23/12/2026',
      'Acomptes versés 100,00 €', 'Net à payer 248,00 €', 'Visa 411111******1111 (Z** R****) · payé 100,00 €', 'Facture INV-1',
    ],
    creditNote: [
      'Avoir', 'Numéro : INV-CN-1', 'Date d’émission : 25/11/2026', 'Avoir sur la facture INV-1 du 23/11/2026',
      'Acomptes versés 0,00 €', 'Montant de l’avoir 348,00 €', 'Avoir INV-CN-1',
    ],
    both: [
      'Hôtel Miramar Lyon', 'Miramar Hôtellerie SAS', '12 rue de la République, 69002 Lyon, France', 'N° TVA intracommunautaire : FR32123456789 · SIREN : 123456789',
      'Tél. +33 4 72 00 00 00 · reception@miramar-lyon.example',
      'Facturer à', 'ACME Conseil SAS', '8 avenue de l’Opéra, 75001 Paris, France', 'N° TVA intracommunautaire : FR61987654321 · SIREN : 987654321',
      'Réservation RES-500', 'Client : Zoë Ryder', 'Période : 20/11/2026 – 23/11/2026',
      'Date de service Description Qté Prix unitaire HT Montant HT TVA',
      '20/11/2026 Chambre Supérieure 3 100,00 € 300,00 € 10 %', '21/11/2026 Minibar 2 5,00 € 10,00 € 20 %', '20/11/2026 Taxe de séjour 3 2,00 € 6,00 € 0 % (E)',
      'Récapitulatif de la TVA', 'Catégorie de TVA Taux Base HT Montant TVA',
      'Soumis à TVA 10 % 300,00 € 30,00 €', 'Soumis à TVA 20 % 10,00 € 2,00 €', 'Exonéré 0 % 6,00 € 0,00 €',
      'VATEX-EU-79-C : Taxe de séjour perçue pour le compte de la commune (débours)',
      'Total HT 316,00 €', 'Total TVA 32,00 €', 'Total TTC 348,00 €',
      'Virement SEPA · IBAN FR76 3000 6000 0112 3456 7890 189', 'Page 1 sur 1',
    ],
  },
  de: {
    invoice: [
      'Rechnung', 'Nummer: INV-1', 'Ausstellungsdatum: 23.11.2026', 'Fälligkeitsdatum: 23.12.2026',
      'Bereits gezahlt 100,00 €', 'Zahlbetrag 248,00 €', 'Visa 411111******1111 (Z** R****) · bezahlt 100,00 €', 'Rechnung INV-1',
    ],
    creditNote: [
      'Stornorechnung', 'Nummer: INV-CN-1', 'Ausstellungsdatum: 25.11.2026', 'Storno der Rechnung INV-1 vom 23.11.2026',
      'Bereits gezahlt 0,00 €', 'Erstattungsbetrag 348,00 €', 'Stornorechnung INV-CN-1',
    ],
    both: [
      'Hôtel Miramar Lyon', 'Miramar Hôtellerie SAS', '12 rue de la République, 69002 Lyon, Frankreich', 'USt-IdNr.: FR32123456789 · SIREN: 123456789',
      'Tel. +33 4 72 00 00 00 · reception@miramar-lyon.example',
      'Rechnung an', 'ACME Conseil SAS', '8 avenue de l’Opéra, 75001 Paris, Frankreich', 'USt-IdNr.: FR61987654321 · SIREN: 987654321',
      'Reservierung RES-500', 'Gast: Zoë Ryder', 'Leistungszeitraum: 20.11.2026 – 23.11.2026',
      'Leistungsdatum Beschreibung Menge Einzelpreis netto Nettobetrag USt.',
      '20.11.2026 Chambre Supérieure 3 100,00 € 300,00 € 10 %', '21.11.2026 Minibar 2 5,00 € 10,00 € 20 %', '20.11.2026 Taxe de séjour 3 2,00 € 6,00 € 0 % (E)',
      'Umsatzsteuer nach Steuersätzen', 'Steuerkategorie Steuersatz Bemessungsgrundlage Steuerbetrag',
      'Steuerpflichtig 10 % 300,00 € 30,00 €', 'Steuerpflichtig 20 % 10,00 € 2,00 €', 'Steuerbefreit 0 % 6,00 € 0,00 €',
      'VATEX-EU-79-C: Taxe de séjour perçue pour le compte de la commune (débours)',
      'Gesamtbetrag netto 316,00 €', 'Umsatzsteuer gesamt 32,00 €', 'Gesamtbetrag brutto 348,00 €',
      'Virement SEPA · IBAN FR76 3000 6000 0112 3456 7890 189', 'Seite 1 von 1',
    ],
  },
};

describe('the Factur-X file: what it shows, in the document\'s language', () => {
  for (const language of Object.keys(PRINTED) as TLanguage[]) {
    it(`${language}: the invoice and its credit note show title, number, dates, parties, lines, VAT breakdown, totals, prepaid and due`, async () => {
      const expected = PRINTED[language];
      const invoice = await words((await rendered(`invoice-${language}`, hotelStayInvoice({ language }))).file);
      const creditNote = await words((await rendered(`credit-note-${language}`, hotelStayCreditNote({ language }))).file);
      expect(missing(invoice, [...expected.invoice, ...expected.both])).toEqual([]);
      expect(missing(creditNote, [...expected.creditNote, ...expected.both])).toEqual([]);
      // Each document shows only its own kind's words: a credit note has no due date, an invoice credits nothing.
      expect(missing(creditNote, [expected.invoice[3]!])).toEqual([expected.invoice[3]]);
      expect(missing(invoice, [expected.creditNote[3]!])).toEqual([expected.creditNote[3]]);
    });
  }

  it('shows a rounding amount only when it is not zero, and continues a long invoice on further pages under the column header', async () => {
    const base = hotelStayInvoice({ language: 'en' });
    const lines = Array.from({ length: 45 }, (_, index) => ({ ...base.lines[index % 3]!, id: String(index + 1) }));
    const text = await words((await rendered('long', { ...base, lines, totals: { ...base.totals, rounding: '0.01', due: '248.01' } })).file);
    expect(missing(text, ['Rounding €0.01', 'Amount due €248.01', 'Page 1 of 2', 'Page 2 of 2'])).toEqual([]);
    const header = 'Service date Description Qty Unit price Net amount VAT'.split(' ');
    const headers = text.filter((word, index) => header.every((part, offset) => text[index + offset] === part));
    expect(headers).toHaveLength(2);
    expect(missing(await words((await rendered('no-rounding', base)).file), ['Rounding'])).toEqual(['Rounding']);
  });

  it('wraps a long description and its note within the column, and numbers every page of its own count, however the lines fill them', async () => {
    const base = hotelStayInvoice({ language: 'en' });
    const note = 'A note long enough to wrap within the description column, twice over, so that the lines are of uneven heights';
    for (const count of [20, 23, 26, 60]) {
      const lines = Array.from({ length: count }, (_, index) => ({
        ...base.lines[index % 3]!,
        id: String(index + 1),
        ...(index % 3 === 0 ? { name: 'Chambre Supérieure avec vue sur le Rhône et petit-déjeuner continental servi en chambre', description: note } : {}),
      }));
      const { file } = await rendered(`wrapped-${count}`, { ...base, lines });
      const { stdout } = await run('pdfinfo', [file]);
      const pages = Number(/Pages:\s+(\d+)/.exec(stdout)![1]);
      const text = await words(file);
      expect(missing(text, Array.from({ length: pages }, (_, index) => `Page ${index + 1} of ${pages}`)), `${count} lines`).toEqual([]);
      expect(text.filter((word) => word === 'Page'), `${count} lines`).toHaveLength(pages);
      expect(missing(text, ['Chambre Supérieure avec vue sur le Rhône et petit-déjeuner continental servi en chambre', note])).toEqual([]);
    }
  });

  it('sets a text the canvases cannot (Arabic, right to left) with React-PDF\'s own text layout, its fallback face embedded', async () => {
    const invoice = hotelStayInvoice({ language: 'en' });
    const { file } = await rendered('arabic-buyer', { ...invoice, buyer: { ...invoice.buyer, name: 'شركة الفندق' } });
    await run('qpdf', ['--check', file]);
    const { stdout } = await run('pdffonts', [file]);
    expect(stdout).toContain('NotoNaskhArabic');
    expect(missing(await words(file), ['Bill to', 'Page 1 of 1'])).toEqual([]);
  });
});
