// A frozen fiscal document as a UN/CEFACT Cross Industry Invoice (CII D16B) under EN 16931, in the
// shape of Factur-X 1.0's EN 16931 profile: the XML the Factur-X PDF attaches as factur-x.xml and the
// CII file served alone. Each element is where EN 16931's CII binding puts its business term (the
// BT numbers in the comments). The same document always gives the same bytes: nothing here reads a
// clock, a random source or the environment.
//
// Element order follows the D16B schema's sequences; the XSDs and schematrons that decide whether
// the result is valid are vendored in packages/einvoice-validation and run by the tests.

import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';
import type { TDocumentLine, TFiscalDocument, TParty, TPaymentMeans, TVatBreakdown } from '@folio-vault/shared/fiscal/document-model';
import { EN16931, businessProcess, cardNumberForXml, compactDate, hasRounding, partyNames, paymentInstruction, xmlText } from './einvoice-terms.js';

const RSM = 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100';
const RAM = 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100';
const QDT = 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100';
const UDT = 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100';

/** The document as CII XML text (UTF-8, with its XML declaration). */
export function buildCii(document: TFiscalDocument): string {
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele(RSM, 'rsm:CrossIndustryInvoice', { 'xmlns:qdt': QDT, 'xmlns:ram': RAM, 'xmlns:udt': UDT });

  const context = root.ele(RSM, 'rsm:ExchangedDocumentContext');
  const process = businessProcess(document);
  if (process) context.ele(RAM, 'ram:BusinessProcessSpecifiedDocumentContextParameter').ele(RAM, 'ram:ID').txt(process); // BT-23
  context.ele(RAM, 'ram:GuidelineSpecifiedDocumentContextParameter').ele(RAM, 'ram:ID').txt(EN16931); // BT-24

  const header = root.ele(RSM, 'rsm:ExchangedDocument');
  text(header, 'ram:ID', document.number); // BT-1
  text(header, 'ram:TypeCode', document.typeCode); // BT-3
  dateTime(header, 'ram:IssueDateTime', document.issueDate); // BT-2
  // BG-1: one IncludedNote per note (BT-22), with its subject code (BT-21) when it has one.
  for (const note of document.notes) header.ele(RAM, 'ram:IncludedNote').ele(RAM, 'ram:Content').txt(xmlText(note));
  for (const note of document.subjectNotes ?? []) {
    const included = header.ele(RAM, 'ram:IncludedNote');
    text(included, 'ram:Content', note.text);
    text(included, 'ram:SubjectCode', note.subjectCode);
  }

  const transaction = root.ele(RSM, 'rsm:SupplyChainTradeTransaction');
  for (const line of document.lines) addLine(transaction, line);

  const agreement = transaction.ele(RAM, 'ram:ApplicableHeaderTradeAgreement');
  if (document.buyerReference) text(agreement, 'ram:BuyerReference', document.buyerReference); // BT-10
  addParty(agreement.ele(RAM, 'ram:SellerTradeParty'), document.seller, 'seller'); // BG-4
  addParty(agreement.ele(RAM, 'ram:BuyerTradeParty'), document.buyer, 'buyer'); // BG-7

  // BT-72: the services were completed on the period's last day (the departure); the period itself is BG-14 below.
  const delivery = transaction.ele(RAM, 'ram:ApplicableHeaderTradeDelivery');
  dateTime(delivery.ele(RAM, 'ram:ActualDeliverySupplyChainEvent'), 'ram:OccurrenceDateTime', document.period.end);

  const settlement = transaction.ele(RAM, 'ram:ApplicableHeaderTradeSettlement');
  text(settlement, 'ram:InvoiceCurrencyCode', document.currency); // BT-5
  const instruction = paymentInstruction(document);
  if (instruction) addPaymentMeans(settlement, instruction); // BG-16
  for (const vat of document.vatBreakdown) addVatBreakdown(settlement, vat); // BG-23
  const period = settlement.ele(RAM, 'ram:BillingSpecifiedPeriod'); // BG-14
  dateTime(period, 'ram:StartDateTime', document.period.start); // BT-73
  dateTime(period, 'ram:EndDateTime', document.period.end); // BT-74
  if (document.paymentTerms || document.dueDate) {
    const terms = settlement.ele(RAM, 'ram:SpecifiedTradePaymentTerms');
    if (document.paymentTerms) text(terms, 'ram:Description', document.paymentTerms); // BT-20
    if (document.dueDate) dateTime(terms, 'ram:DueDateDateTime', document.dueDate); // BT-9
  }
  const totals = settlement.ele(RAM, 'ram:SpecifiedTradeSettlementHeaderMonetarySummation'); // BG-22
  text(totals, 'ram:LineTotalAmount', document.totals.lineNet); // BT-106
  text(totals, 'ram:TaxBasisTotalAmount', document.totals.net); // BT-109
  totals.ele(RAM, 'ram:TaxTotalAmount', { currencyID: document.currency }).txt(document.totals.vat); // BT-110
  if (hasRounding(document)) text(totals, 'ram:RoundingAmount', document.totals.rounding); // BT-114
  text(totals, 'ram:GrandTotalAmount', document.totals.gross); // BT-112
  text(totals, 'ram:TotalPrepaidAmount', document.totals.prepaid); // BT-113
  text(totals, 'ram:DuePayableAmount', document.totals.due); // BT-115
  if (document.precedingInvoice) {
    const preceding = settlement.ele(RAM, 'ram:InvoiceReferencedDocument'); // BG-3
    text(preceding, 'ram:IssuerAssignedID', document.precedingInvoice.number); // BT-25
    preceding.ele(RAM, 'ram:FormattedIssueDateTime').ele(QDT, 'qdt:DateTimeString', { format: '102' }).txt(compactDate(document.precedingInvoice.issueDate)); // BT-26
  }

  return root.end({ prettyPrint: true, wellFormed: true });
}

/** BG-25: one invoice line. */
function addLine(transaction: XMLBuilder, line: TDocumentLine): void {
  const item = transaction.ele(RAM, 'ram:IncludedSupplyChainTradeLineItem');
  item.ele(RAM, 'ram:AssociatedDocumentLineDocument').ele(RAM, 'ram:LineID').txt(line.id); // BT-126
  const product = item.ele(RAM, 'ram:SpecifiedTradeProduct');
  text(product, 'ram:Name', line.name); // BT-153
  if (line.description) text(product, 'ram:Description', line.description); // BT-154
  item.ele(RAM, 'ram:SpecifiedLineTradeAgreement').ele(RAM, 'ram:NetPriceProductTradePrice').ele(RAM, 'ram:ChargeAmount').txt(line.unitPrice); // BT-146
  item.ele(RAM, 'ram:SpecifiedLineTradeDelivery').ele(RAM, 'ram:BilledQuantity', { unitCode: 'C62' }).txt(line.quantity); // BT-129, BT-130
  const settlement = item.ele(RAM, 'ram:SpecifiedLineTradeSettlement');
  const tax = settlement.ele(RAM, 'ram:ApplicableTradeTax');
  text(tax, 'ram:TypeCode', 'VAT');
  text(tax, 'ram:CategoryCode', line.vat.category); // BT-151
  text(tax, 'ram:RateApplicablePercent', line.vat.rate); // BT-152
  const period = settlement.ele(RAM, 'ram:BillingSpecifiedPeriod'); // BG-26: the line's service date
  dateTime(period, 'ram:StartDateTime', line.serviceDate); // BT-134
  dateTime(period, 'ram:EndDateTime', line.serviceDate); // BT-135
  settlement.ele(RAM, 'ram:SpecifiedTradeSettlementLineMonetarySummation').ele(RAM, 'ram:LineTotalAmount').txt(line.netAmount); // BT-131
}

/** BG-4 / BG-7 with their addresses (BG-5 / BG-8), contact (BG-6 / BG-9) and identifiers. */
function addParty(element: XMLBuilder, party: TParty, role: 'seller' | 'buyer'): void {
  const names = partyNames(party);
  text(element, 'ram:Name', names.registered); // BT-27 / BT-44
  if (party.companyId || names.trading) {
    const legal = element.ele(RAM, 'ram:SpecifiedLegalOrganization');
    if (party.companyId) legal.ele(RAM, 'ram:ID', party.companyId.scheme ? { schemeID: party.companyId.scheme } : {}).txt(xmlText(party.companyId.id)); // BT-30 / BT-47
    if (names.trading) text(legal, 'ram:TradingBusinessName', names.trading); // BT-28 / BT-45
  }
  if (party.contact?.phone || party.contact?.email) {
    const contact = element.ele(RAM, 'ram:DefinedTradeContact');
    if (party.contact.phone) contact.ele(RAM, 'ram:TelephoneUniversalCommunication').ele(RAM, 'ram:CompleteNumber').txt(xmlText(party.contact.phone)); // BT-42 / BT-57
    if (party.contact.email) contact.ele(RAM, 'ram:EmailURIUniversalCommunication').ele(RAM, 'ram:URIID').txt(xmlText(party.contact.email)); // BT-43 / BT-58
  }
  const address = element.ele(RAM, 'ram:PostalTradeAddress');
  if (party.postalAddress.postcode) text(address, 'ram:PostcodeCode', party.postalAddress.postcode); // BT-38 / BT-53
  const [one, two, three] = party.postalAddress.lines;
  if (one) text(address, 'ram:LineOne', one); // BT-35 / BT-50
  if (two) text(address, 'ram:LineTwo', two); // BT-36 / BT-51
  if (three) text(address, 'ram:LineThree', three); // BT-162 / BT-163
  text(address, 'ram:CityName', party.postalAddress.city); // BT-37 / BT-52
  text(address, 'ram:CountryID', party.postalAddress.countryCode); // BT-40 / BT-55
  if (party.electronicAddress) {
    element.ele(RAM, 'ram:URIUniversalCommunication').ele(RAM, 'ram:URIID', { schemeID: party.electronicAddress.scheme }).txt(xmlText(party.electronicAddress.id)); // BT-34 / BT-49
  }
  if (party.vatId) element.ele(RAM, 'ram:SpecifiedTaxRegistration').ele(RAM, 'ram:ID', { schemeID: 'VA' }).txt(xmlText(party.vatId)); // BT-31 / BT-48
  if (role === 'seller' && party.taxId) element.ele(RAM, 'ram:SpecifiedTaxRegistration').ele(RAM, 'ram:ID', { schemeID: 'FC' }).txt(xmlText(party.taxId)); // BT-32
}

/** BG-16: a payment means: a card (BG-18), an account to pay into (BG-17), or cash. */
function addPaymentMeans(settlement: XMLBuilder, means: TPaymentMeans): void {
  const element = settlement.ele(RAM, 'ram:SpecifiedTradeSettlementPaymentMeans');
  text(element, 'ram:TypeCode', means.code); // BT-81
  if (means.text) text(element, 'ram:Information', means.text); // BT-82
  if (means.cardNumber) {
    const card = element.ele(RAM, 'ram:ApplicableTradeSettlementFinancialCard');
    text(card, 'ram:ID', cardNumberForXml(means.cardNumber)); // BT-87
    if (means.cardHolder) text(card, 'ram:CardholderName', means.cardHolder); // BT-88
  }
  if (means.iban) element.ele(RAM, 'ram:PayeePartyCreditorFinancialAccount').ele(RAM, 'ram:IBANID').txt(means.iban); // BT-84
}

/** BG-23: the VAT of one category and rate. */
function addVatBreakdown(settlement: XMLBuilder, vat: TVatBreakdown): void {
  const tax = settlement.ele(RAM, 'ram:ApplicableTradeTax');
  text(tax, 'ram:CalculatedAmount', vat.tax); // BT-117
  text(tax, 'ram:TypeCode', 'VAT');
  if (vat.exemptionReason) text(tax, 'ram:ExemptionReason', vat.exemptionReason); // BT-120
  text(tax, 'ram:BasisAmount', vat.base); // BT-116
  text(tax, 'ram:CategoryCode', vat.category); // BT-118
  if (vat.exemptionReasonCode) text(tax, 'ram:ExemptionReasonCode', vat.exemptionReasonCode); // BT-121
  text(tax, 'ram:RateApplicablePercent', vat.rate); // BT-119
}

function text(parent: XMLBuilder, name: string, value: string): void {
  parent.ele(RAM, name).txt(xmlText(value));
}

/** A date as CII writes it: udt:DateTimeString in format 102 (YYYYMMDD). */
function dateTime(parent: XMLBuilder, name: string, date: string): void {
  parent.ele(RAM, name).ele(UDT, 'udt:DateTimeString', { format: '102' }).txt(compactDate(date));
}
