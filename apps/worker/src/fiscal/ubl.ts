// A frozen fiscal document as a UBL 2.1 Invoice or CreditNote under EN 16931 (CustomizationID
// urn:cen.eu:en16931:2017): the same content as the CII (cii.ts), through EN 16931's UBL binding
// (the BT numbers in the comments). The same document always gives the same bytes: nothing here reads
// a clock, a random source or the environment.
//
// Element order follows the UBL 2.1 schema's sequences. CEN's EN 16931 UBL schematron, vendored in
// packages/einvoice-validation and run by the tests, decides whether the result is valid; the UBL
// 2.1 XSD is not vendored there.

import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import type { TDocumentLine, TFiscalDocument, TParty, TPaymentMeans, TVat, TVatBreakdown } from '@folio-vault/shared/fiscal/document-model';
import { EN16931, businessProcess, cardNumberForXml, hasRounding, partyNames, paymentInstruction, xmlText } from './einvoice-terms.js';

const INVOICE = 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2';
const CREDIT_NOTE = 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2';
const CAC = 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2';
const CBC = 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2';

/** The document as UBL XML text (UTF-8, with its XML declaration): an Invoice (380) or a CreditNote (381). */
export function buildUbl(document: TFiscalDocument): string {
  const credit = document.typeCode === '381';
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele(credit ? CREDIT_NOTE : INVOICE, credit ? 'CreditNote' : 'Invoice', { 'xmlns:cac': CAC, 'xmlns:cbc': CBC });
  const currency = document.currency;
  const amount = (parent: XMLBuilder, name: string, value: string) => parent.ele(CBC, name, { currencyID: currency }).txt(value);

  text(root, 'cbc:CustomizationID', EN16931); // BT-24
  const process = businessProcess(document);
  if (process) text(root, 'cbc:ProfileID', process); // BT-23
  text(root, 'cbc:ID', document.number); // BT-1
  text(root, 'cbc:IssueDate', document.issueDate); // BT-2
  // A UBL CreditNote has no DueDate of its own: its BT-9 is the payment means' PaymentDueDate.
  if (!credit && document.dueDate) text(root, 'cbc:DueDate', document.dueDate); // BT-9
  text(root, credit ? 'cbc:CreditNoteTypeCode' : 'cbc:InvoiceTypeCode', document.typeCode); // BT-3
  // BT-22, one Note each; a subject code (BT-21) is written before the text as #CODE# (EN 16931's UBL binding).
  for (const note of document.notes) text(root, 'cbc:Note', note);
  for (const note of document.subjectNotes ?? []) text(root, 'cbc:Note', `#${note.subjectCode}#${note.text}`);
  text(root, 'cbc:DocumentCurrencyCode', currency); // BT-5
  if (document.buyerReference) text(root, 'cbc:BuyerReference', document.buyerReference); // BT-10
  const period = root.ele(CAC, 'cac:InvoicePeriod'); // BG-14
  text(period, 'cbc:StartDate', document.period.start); // BT-73
  text(period, 'cbc:EndDate', document.period.end); // BT-74
  if (document.precedingInvoice) {
    const preceding = root.ele(CAC, 'cac:BillingReference').ele(CAC, 'cac:InvoiceDocumentReference'); // BG-3
    text(preceding, 'cbc:ID', document.precedingInvoice.number); // BT-25
    text(preceding, 'cbc:IssueDate', document.precedingInvoice.issueDate); // BT-26
  }
  addParty(root.ele(CAC, 'cac:AccountingSupplierParty').ele(CAC, 'cac:Party'), document.seller, 'seller'); // BG-4
  addParty(root.ele(CAC, 'cac:AccountingCustomerParty').ele(CAC, 'cac:Party'), document.buyer, 'buyer'); // BG-7
  // BT-72: the services were completed on the period's last day (the departure).
  text(root.ele(CAC, 'cac:Delivery'), 'cbc:ActualDeliveryDate', document.period.end);
  const instruction = paymentInstruction(document);
  if (instruction) addPaymentMeans(root, instruction, credit ? document.dueDate : undefined); // BG-16
  if (document.paymentTerms) text(root.ele(CAC, 'cac:PaymentTerms'), 'cbc:Note', document.paymentTerms); // BT-20

  const taxTotal = root.ele(CAC, 'cac:TaxTotal');
  amount(taxTotal, 'cbc:TaxAmount', document.totals.vat); // BT-110
  for (const vat of document.vatBreakdown) addVatBreakdown(taxTotal, vat, amount); // BG-23

  const totals = root.ele(CAC, 'cac:LegalMonetaryTotal'); // BG-22
  amount(totals, 'cbc:LineExtensionAmount', document.totals.lineNet); // BT-106
  amount(totals, 'cbc:TaxExclusiveAmount', document.totals.net); // BT-109
  amount(totals, 'cbc:TaxInclusiveAmount', document.totals.gross); // BT-112
  amount(totals, 'cbc:PrepaidAmount', document.totals.prepaid); // BT-113
  if (hasRounding(document)) amount(totals, 'cbc:PayableRoundingAmount', document.totals.rounding); // BT-114
  amount(totals, 'cbc:PayableAmount', document.totals.due); // BT-115

  for (const line of document.lines) addLine(root, line, credit, amount);
  return root.end({ prettyPrint: true, wellFormed: true });
}

type TAmount = (parent: XMLBuilder, name: string, value: string) => void;

/** BG-25: an InvoiceLine, or a CreditNoteLine. */
function addLine(root: XMLBuilder, line: TDocumentLine, credit: boolean, amount: TAmount): void {
  const element = root.ele(CAC, credit ? 'cac:CreditNoteLine' : 'cac:InvoiceLine');
  text(element, 'cbc:ID', line.id); // BT-126
  element.ele(CBC, credit ? 'cbc:CreditedQuantity' : 'cbc:InvoicedQuantity', { unitCode: 'C62' }).txt(line.quantity); // BT-129, BT-130
  amount(element, 'cbc:LineExtensionAmount', line.netAmount); // BT-131
  const period = element.ele(CAC, 'cac:InvoicePeriod'); // BG-26: the line's service date
  text(period, 'cbc:StartDate', line.serviceDate); // BT-134
  text(period, 'cbc:EndDate', line.serviceDate); // BT-135
  const item = element.ele(CAC, 'cac:Item');
  if (line.description) text(item, 'cbc:Description', line.description); // BT-154
  text(item, 'cbc:Name', line.name); // BT-153
  addTaxCategory(item.ele(CAC, 'cac:ClassifiedTaxCategory'), line.vat, false); // BT-151, BT-152
  amount(element.ele(CAC, 'cac:Price'), 'cbc:PriceAmount', line.unitPrice); // BT-146
}

/** BG-4 / BG-7 with their addresses (BG-5 / BG-8), contact (BG-6 / BG-9) and identifiers. */
function addParty(element: XMLBuilder, party: TParty, role: 'seller' | 'buyer'): void {
  const names = partyNames(party);
  if (party.electronicAddress) element.ele(CBC, 'cbc:EndpointID', { schemeID: party.electronicAddress.scheme }).txt(xmlText(party.electronicAddress.id)); // BT-34 / BT-49
  if (names.trading) text(element.ele(CAC, 'cac:PartyName'), 'cbc:Name', names.trading); // BT-28 / BT-45
  const address = element.ele(CAC, 'cac:PostalAddress');
  const [one, two, three] = party.postalAddress.lines;
  if (one) text(address, 'cbc:StreetName', one); // BT-35 / BT-50
  if (two) text(address, 'cbc:AdditionalStreetName', two); // BT-36 / BT-51
  text(address, 'cbc:CityName', party.postalAddress.city); // BT-37 / BT-52
  if (party.postalAddress.postcode) text(address, 'cbc:PostalZone', party.postalAddress.postcode); // BT-38 / BT-53
  if (three) text(address.ele(CAC, 'cac:AddressLine'), 'cbc:Line', three); // BT-162 / BT-163
  text(address.ele(CAC, 'cac:Country'), 'cbc:IdentificationCode', party.postalAddress.countryCode); // BT-40 / BT-55
  if (party.vatId) taxScheme(element, party.vatId, 'VAT'); // BT-31 / BT-48
  if (role === 'seller' && party.taxId) taxScheme(element, party.taxId, 'FC'); // BT-32: any scheme but VAT
  const legal = element.ele(CAC, 'cac:PartyLegalEntity');
  text(legal, 'cbc:RegistrationName', names.registered); // BT-27 / BT-44
  if (party.companyId) legal.ele(CBC, 'cbc:CompanyID', party.companyId.scheme ? { schemeID: party.companyId.scheme } : {}).txt(xmlText(party.companyId.id)); // BT-30 / BT-47
  if (party.contact?.phone || party.contact?.email) {
    const contact = element.ele(CAC, 'cac:Contact');
    if (party.contact.phone) text(contact, 'cbc:Telephone', party.contact.phone); // BT-42 / BT-57
    if (party.contact.email) text(contact, 'cbc:ElectronicMail', party.contact.email); // BT-43 / BT-58
  }
}

function taxScheme(party: XMLBuilder, companyId: string, scheme: string): void {
  const element = party.ele(CAC, 'cac:PartyTaxScheme');
  text(element, 'cbc:CompanyID', companyId);
  text(element.ele(CAC, 'cac:TaxScheme'), 'cbc:ID', scheme);
}

/** BG-16: a payment means: a card (BG-18), an account to pay into (BG-17), or cash. */
function addPaymentMeans(root: XMLBuilder, means: TPaymentMeans, creditNoteDueDate: string | undefined): void {
  const element = root.ele(CAC, 'cac:PaymentMeans');
  element.ele(CBC, 'cbc:PaymentMeansCode', means.text ? { name: xmlText(means.text) } : {}).txt(means.code); // BT-81, BT-82
  if (creditNoteDueDate) text(element, 'cbc:PaymentDueDate', creditNoteDueDate); // BT-9 of a credit note
  if (means.cardNumber) {
    const card = element.ele(CAC, 'cac:CardAccount');
    text(card, 'cbc:PrimaryAccountNumberID', cardNumberForXml(means.cardNumber)); // BT-87
    // UBL requires the card's network; the document does not name it ("NA", not applicable).
    text(card, 'cbc:NetworkID', 'NA');
    if (means.cardHolder) text(card, 'cbc:HolderName', means.cardHolder); // BT-88
  }
  if (means.iban) text(element.ele(CAC, 'cac:PayeeFinancialAccount'), 'cbc:ID', means.iban); // BT-84
}

/** BG-23: the VAT of one category and rate. */
function addVatBreakdown(taxTotal: XMLBuilder, vat: TVatBreakdown, amount: TAmount): void {
  const subtotal = taxTotal.ele(CAC, 'cac:TaxSubtotal');
  amount(subtotal, 'cbc:TaxableAmount', vat.base); // BT-116
  amount(subtotal, 'cbc:TaxAmount', vat.tax); // BT-117
  addTaxCategory(subtotal.ele(CAC, 'cac:TaxCategory'), vat, true); // BT-118…BT-121
}

/** A VAT category and rate, and for the breakdown its exemption reason (BT-121, BT-120). */
function addTaxCategory(category: XMLBuilder, vat: TVat, withReason: boolean): void {
  text(category, 'cbc:ID', vat.category);
  text(category, 'cbc:Percent', vat.rate);
  if (withReason && vat.exemptionReasonCode) text(category, 'cbc:TaxExemptionReasonCode', vat.exemptionReasonCode);
  if (withReason && vat.exemptionReason) text(category, 'cbc:TaxExemptionReason', vat.exemptionReason);
  text(category.ele(CAC, 'cac:TaxScheme'), 'cbc:ID', 'VAT');
}

function text(parent: XMLBuilder, name: string, value: string): void {
  parent.ele(name.startsWith('cac:') ? CAC : CBC, name).txt(xmlText(value));
}
