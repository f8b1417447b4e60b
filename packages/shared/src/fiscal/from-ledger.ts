// A folio's ledger rows as an invoice (docs/fiscal-documents.md#vat-from-the-ledger): which rows
// become lines, the VAT of each line as the ledger states it (never guessed), the VAT breakdown,
// totals, prepaid amount and payment means; or every item the ledger lacks for it, each at its
// path. A pure function of what the issue read: the issue numbers and stores its answer, and a
// credit note is made from the invoice alone (creditNoteOf).
//
// How the ledger's rows map to the invoice:
// - A charge is a posted row of any group but TAX, PAYMENT and ACCOUNTS_RECEIVABLE, in no voided
//   chain. Each charge is one line; its VAT comes from the TAX rows that name it (parentId) and a
//   VAT tax of the property (originId), or else from its own `vat`.
// - A TAX row of a tax not included in the price (includedInPrice false) sits beside its charge on
//   the folio: the charge's amount is the line's net, the row is VAT on it, and both are on the
//   folio's balance. A TAX row of an included tax states the tax inside its charge's amount: the
//   line's net is the charge's amount less the row, and the row adds nothing to the balance of the
//   invoiced lines (it is part of the charge). A charge with only its own `vat` holds its VAT in
//   its amount (nothing else on the folio carries it): tax = amount × rate / (100 + rate).
// - A CITY_TAX row (not included in the price) is a line of its own: collected for the city, exempt
//   (category E, rate 0, VATEX-EU-79-C), kind DISBURSEMENT; so is a charge whose own `vat` is E with
//   VATEX-EU-79-C. An OTHER tax's row is a line of its own with that tax's VAT, held in its amount.
// - PAYMENT rows posted up to the issue are the prepaid amount (BT-113) and the payment means.
//   ACCOUNTS_RECEIVABLE rows move the balance to the city ledger: they are not payments.
// - The VAT breakdown rounds once per category and rate (BR-CO-17). The ledger rounded each line's
//   tax on its own; the cents between the two are the rounding amount (BT-114), so the amount due is
//   what the folio says: gross + rounding = the invoiced lines' charges, due = that − prepaid.

import Big from 'big.js';
import type { TFieldError } from '../errors.js';
import type { TLanguage } from '../i18n/languages.js';
import type { TCodeGroup, TSourceKind } from '../ledger/enums.js';
import type { TElectronicAddress, TPostalAddress, TPropertyTax, TTransactionVat } from '../ledger/invoice-fields.js';
import { EXEMPT_CATEGORIES } from '../ledger/invoice-fields.js';
import { currencyScale } from '../ledger/money.js';
import { FRENCH_PAYMENT_MENTIONS } from './french-mentions.js';
import { ZFiscalDocument, type TDocumentLine, type TFiscalDocument, type TParty, type TPaymentMeans, type TVat, type TVatBreakdown } from './document-model.js';

/** The disbursement exemption: an amount the hotel collects for a third party (the city tax). */
export const DISBURSEMENT_CODE = 'VATEX-EU-79-C';

/** What an invoice reads of the property: the seller, its currency and its taxes. */
export interface TInvoiceSeller {
  name: string;
  legalName?: string;
  vatId?: string;
  taxId?: string;
  companyId?: string;
  postalAddress?: TPostalAddress;
  iban?: string;
  electronicAddress?: TElectronicAddress;
  phone?: string;
  email?: string;
  currency: string;
  taxes: TPropertyTax[];
}

/** What an invoice reads of the recipient it is made out to. */
export interface TInvoiceBuyer {
  name: string;
  vatId?: string;
  companyId?: string;
  postalAddress?: TPostalAddress;
  electronicAddress?: TElectronicAddress;
  email?: string;
}

/** A ledger row as the invoice reads it. */
export interface TInvoiceLedgerRow {
  id: string;
  folioId: string;
  /** UTC instant (ISO 8601). */
  transactionDatetime: string;
  serviceDate: string;
  group: TCodeGroup;
  description: string;
  notes?: string;
  quantity: string;
  amount: string;
  currency: string;
  posted: boolean;
  /** The row's chain holds a void (the row is voided, or is the void). */
  chainVoided: boolean;
  parentId?: string;
  originId?: string;
  paymentMethod?: string;
  vat?: TTransactionVat;
  payment?: { creditCardType?: string; cardTrailingDigits?: string; cardTokenId?: string };
}

/** A card the vault knows (card-token-labels): at most its first six and last four digits. */
export interface TCardDigits {
  first6?: string;
  last4: string;
}

export interface TInvoiceFacts {
  id: string;
  series: string;
  number: string;
  issueDate: string;
  dueDate?: string;
  language: TLanguage;
  note?: string;
  /** Payments posted up to this instant are prepaid. */
  issuedAt: Date;
  source: { kind: TSourceKind; id: string; identifier?: string; folioIds: string[] };
  /** A reservation's stay, when one was imported. */
  stay?: { checkinDate?: string; checkoutDate?: string; guestName?: string };
}

export interface TInvoiceInput {
  facts: TInvoiceFacts;
  seller: TInvoiceSeller;
  buyer: TInvoiceBuyer;
  /** Every row of the invoiced folios, voided and pending included, in the folios' order. */
  rows: TInvoiceLedgerRow[];
  /** The vault's digits of the payments' card tokens, by token id. */
  cards: ReadonlyMap<string, TCardDigits>;
}

/** The invoice and the ledger rows it holds (its lines' and its payments'); or what is missing, by path. */
export type TInvoiceDerivation = { document: TFiscalDocument; transactionIds: string[] } | { problems: TFieldError[] };

/** VAT rates a French seller may state (BR-FR-16). */
const FRENCH_RATES: ReadonlySet<string> = new Set(['0', '0.9', '1.05', '1.75', '2.1', '5.5', '7', '8.5', '9.2', '9.6', '10', '13', '19.6', '20', '20.6']);

const NON_CHARGE_GROUPS: ReadonlySet<TCodeGroup> = new Set(['TAX', 'PAYMENT', 'ACCOUNTS_RECEIVABLE']);

/** A line in the making: its VAT, net, and the VAT the ledger's rows state for it (per-line rounded). */
interface TDraftLine {
  row: TInvoiceLedgerRow;
  transactionIds: string[];
  vat: TVat;
  net: Big;
  ledgerTax: Big;
  kind: TDocumentLine['kind'];
}

const rowPath = (row: { id: string }, field?: string) => `transactions[${row.id}]${field ? `.${field}` : ''}`;
const vatKey = (vat: TVat) => `${vat.category}|${vat.rate}`;
const sameVat = (a: TVat, b: TVat) => vatKey(a) === vatKey(b) && (a.exemptionReasonCode ?? '') === (b.exemptionReasonCode ?? '');
const describeVat = (vat: TVat) => `${vat.category} ${vat.rate} %${vat.exemptionReasonCode ? ` (${vat.exemptionReasonCode})` : ''}`;

/** The VAT a tax of the property gives its rows: a city tax is exempt as a disbursement unless it names its own reason. */
function vatOfTax(tax: TPropertyTax): TVat {
  if (tax.kind === 'CITY_TAX') {
    return { category: 'E', rate: '0', exemptionReasonCode: tax.exemptionReasonCode ?? DISBURSEMENT_CODE, ...(tax.exemptionReason ? { exemptionReason: tax.exemptionReason } : {}) };
  }
  return {
    category: tax.category,
    rate: tax.rate,
    ...(tax.exemptionReasonCode ? { exemptionReasonCode: tax.exemptionReasonCode } : {}),
    ...(tax.exemptionReason ? { exemptionReason: tax.exemptionReason } : {}),
  };
}

const vatOfCharge = (vat: TTransactionVat): TVat => ({ category: vat.category, rate: vat.rate, ...(vat.exemptionReasonCode ? { exemptionReasonCode: vat.exemptionReasonCode } : {}) });

const kindOf = (vat: TVat): TDocumentLine['kind'] => (vat.category === 'E' && vat.exemptionReasonCode === DISBURSEMENT_CODE ? 'DISBURSEMENT' : 'CHARGE');

/** The VAT inside a gross amount at `rate` percent, rounded to the currency's scale (half away from zero). */
const taxInside = (gross: Big, rate: string, scale: number) => gross.times(rate).div(new Big(100).plus(rate)).round(scale, Big.roundHalfUp);

/** An amount as the document writes it: the currency's scale, never "-0.00". */
function money(value: Big, scale: number): string {
  const text = value.round(scale, Big.roundHalfUp).toFixed(scale);
  return /^-0(\.0+)?$/.test(text) ? text.slice(1) : text;
}

/** The card number EN 16931 allows (BR-51): first six and last four, or the last four alone. */
function cardNumberOf(digits: TCardDigits | undefined, trailing: string | undefined): string | undefined {
  const last4 = digits?.last4 ?? trailing;
  if (!last4) return undefined;
  return digits?.first6 ? `${digits.first6}******${last4}` : last4;
}

const BRANDS: Record<string, string> = { visa: 'Visa', master: 'Mastercard', mastercard: 'Mastercard', amex: 'American Express', diners: 'Diners Club', discover: 'Discover', jcb: 'JCB', maestro: 'Maestro', unionpay: 'UnionPay' };

/**
 * A payment's means (UNTDID 4461): a card 54 (the ledger does not say credit or debit), cash 10, a
 * bank transfer 58 (into the property's IBAN), an online payment service 68, anything else 1
 * ("instrument not defined", with the ledger's method as its text).
 */
function meansOf(row: TInvoiceLedgerRow, cards: ReadonlyMap<string, TCardDigits>, iban: string | undefined): Omit<TPaymentMeans, 'amount'> {
  const method = row.paymentMethod ?? '';
  const payment = row.payment;
  const cardType = payment?.creditCardType ?? (method.startsWith('cards_') ? method.slice('cards_'.length) : undefined);
  if (method.startsWith('cards_') || payment?.cardTokenId || payment?.cardTrailingDigits) {
    const cardNumber = cardNumberOf(payment?.cardTokenId ? cards.get(payment.cardTokenId) : undefined, payment?.cardTrailingDigits);
    return { code: '54', ...(cardType ? { text: BRANDS[cardType] ?? cardType } : {}), ...(cardNumber ? { cardNumber } : {}) };
  }
  if (method === 'cash') return { code: '10' };
  if (method === 'ebanking' || method === 'bank_transfer') return { code: '58', ...(iban ? { iban } : {}) };
  if (method === 'pay_pal') return { code: '68', text: 'PayPal' };
  return { code: '1', ...(method ? { text: method } : {}) };
}

/** BT-30 with its scheme: a French SIREN (9 digits, 0002), or a SIRET's SIREN (its first 9 of 14). */
function companyIdOf(id: string | undefined, countryCode: string | undefined): TParty['companyId'] {
  if (!id) return undefined;
  if (countryCode === 'FR' && /^\d{9}$/.test(id)) return { id, scheme: '0002' };
  if (countryCode === 'FR' && /^\d{14}$/.test(id)) return { id: id.slice(0, 9), scheme: '0002' };
  return { id };
}

const minDate = (dates: string[]) => dates.reduce((a, b) => (b < a ? b : a));
const maxDate = (dates: string[]) => dates.reduce((a, b) => (b > a ? b : a));

/**
 * The invoice of `input`'s ledger rows, or every item the ledger lacks for it (each by its path,
 * a transaction by its id): an integrator fixes the import once.
 */
export function invoiceFromLedger(input: TInvoiceInput): TInvoiceDerivation {
  const { facts, seller, buyer, cards } = input;
  const problems: TFieldError[] = [];
  const problem = (path: string, message: string) => problems.push({ path, message });
  const scale = currencyScale(seller.currency);
  const unit = new Big(1).div(new Big(10).pow(scale));
  const taxes = new Map(seller.taxes.map((tax) => [tax.id, tax]));

  // Posted rows of chains without a void; pending rows are not charged yet.
  const live = input.rows.filter((row) => row.posted && !row.chainVoided);
  for (const row of live) if (row.currency.trim() !== seller.currency) problem(rowPath(row, 'currency'), `is ${row.currency.trim()}, not the property's currency ${seller.currency}`);
  const issuedAt = facts.issuedAt.getTime();
  const payments = live.filter((row) => row.group === 'PAYMENT' && Date.parse(row.transactionDatetime) <= issuedAt);
  const charges = live.filter((row) => !NON_CHARGE_GROUPS.has(row.group));
  const chargeById = new Map(charges.map((row) => [row.id, row]));

  // The TAX rows each charge has (excluded beside it, included inside it), and the lines of their own.
  const excluded = new Map<string, Array<{ row: TInvoiceLedgerRow; vat: TVat }>>();
  const included = new Map<string, Array<{ row: TInvoiceLedgerRow; vat?: TVat }>>();
  const ownLines: TDraftLine[] = [];
  const attach = (map: Map<string, Array<{ row: TInvoiceLedgerRow; vat?: TVat }>>, row: TInvoiceLedgerRow, vat: TVat | undefined) => {
    const parent = row.parentId === undefined ? undefined : chargeById.get(row.parentId);
    if (!parent) {
      problem(rowPath(row, 'parentId'), row.parentId === undefined ? 'is required: a VAT row names the charge it taxes' : `names no posted, unvoided charge of the invoiced folios (${row.parentId})`);
      return;
    }
    map.set(parent.id, [...(map.get(parent.id) ?? []), { row, vat }]);
  };
  for (const row of live.filter((candidate) => candidate.group === 'TAX')) {
    const tax = row.originId === undefined ? undefined : taxes.get(row.originId);
    if (!tax) {
      problem(rowPath(row, 'originId'), row.originId === undefined ? 'is required: a TAX row names its tax (property.taxes)' : `names no tax of property.taxes (${row.originId})`);
      continue;
    }
    if (tax.includedInPrice) attach(included, row, tax.kind === 'VAT' ? vatOfTax(tax) : undefined);
    else if (tax.kind === 'VAT') attach(excluded as Map<string, Array<{ row: TInvoiceLedgerRow; vat?: TVat }>>, row, vatOfTax(tax));
    else {
      // A city tax the guest owes, or another tax passed on: a line of its own, its VAT in its amount.
      const vat = vatOfTax(tax);
      const amount = new Big(row.amount);
      const tax_ = vat.category === 'E' || Number(vat.rate) === 0 ? new Big(0) : taxInside(amount, vat.rate, scale);
      ownLines.push({ row, transactionIds: [row.id], vat, net: amount.minus(tax_), ledgerTax: tax_, kind: tax.kind === 'CITY_TAX' ? 'DISBURSEMENT' : kindOf(vat) });
    }
  }

  const lines: TDraftLine[] = [...ownLines];
  for (const charge of charges) {
    const outside = (excluded.get(charge.id) ?? []) as Array<{ row: TInvoiceLedgerRow; vat: TVat }>;
    const inside = included.get(charge.id) ?? [];
    const insideVat = inside.filter((entry): entry is { row: TInvoiceLedgerRow; vat: TVat } => entry.vat !== undefined);
    const stated = [...outside, ...insideVat];
    const transactionIds = [charge.id, ...outside.map((entry) => entry.row.id), ...inside.map((entry) => entry.row.id)];
    const amount = new Big(charge.amount);
    let vat: TVat;
    let net: Big;
    let ledgerTax: Big;
    if (stated.length > 0) {
      vat = stated[0]!.vat;
      const other = stated.find((entry) => !sameVat(entry.vat, vat));
      if (other) {
        problem(rowPath(charge), `has TAX rows of two VAT rates (${describeVat(vat)} and ${describeVat(other.vat)}): an invoice line has one`);
        continue;
      }
      if (charge.vat && !sameVat(vatOfCharge(charge.vat), vat)) {
        problem(rowPath(charge, 'vat'), `is ${describeVat(vatOfCharge(charge.vat))}, but its TAX rows are ${describeVat(vat)}`);
        continue;
      }
      const insideTax = insideVat.reduce((sum, entry) => sum.plus(entry.row.amount), new Big(0));
      net = amount.minus(insideTax);
      ledgerTax = stated.reduce((sum, entry) => sum.plus(entry.row.amount), new Big(0));
      // The rows' VAT is the line's at its rate, to a unit of per-line rounding; more is a wrong rate or a wrong row.
      const expected = net.times(vat.rate).div(100);
      if (ledgerTax.minus(expected).abs().gt(unit)) {
        problem(rowPath(stated[0]!.row, 'amount'), `is ${money(ledgerTax, scale)} of VAT on its charge ${charge.id}, but ${vat.rate} % of its net ${money(net, scale)} is ${money(expected, scale)}`);
        continue;
      }
    } else if (charge.vat) {
      vat = vatOfCharge(charge.vat);
      ledgerTax = Number(vat.rate) === 0 ? new Big(0) : taxInside(amount, vat.rate, scale);
      net = amount.minus(ledgerTax);
    } else {
      problem(rowPath(charge, 'vat'), 'is required: no TAX row names this charge (parentId) and it has no vat of its own');
      continue;
    }
    lines.push({ row: charge, transactionIds, vat, net, ledgerTax, kind: kindOf(vat) });
  }
  if (charges.length === 0 && ownLines.length === 0) problem('transactions', 'hold no posted charge on the invoiced folios: there is nothing to invoice');

  // The ledger's order: folio by folio as requested, then by time and id.
  const folioOrder = new Map(facts.source.folioIds.map((id, index) => [id, index]));
  lines.sort((a, b) =>
    (folioOrder.get(a.row.folioId) ?? 0) - (folioOrder.get(b.row.folioId) ?? 0) ||
    Date.parse(a.row.transactionDatetime) - Date.parse(b.row.transactionDatetime) ||
    (BigInt(a.row.id) < BigInt(b.row.id) ? -1 : BigInt(a.row.id) > BigInt(b.row.id) ? 1 : 0),
  );

  // One exemption reason per exempt category (BR-E-08: one breakdown holds every line of the category).
  const reasons = new Map<string, TDraftLine>();
  for (const line of lines) {
    if (!EXEMPT_CATEGORIES.has(line.vat.category)) continue;
    const first = reasons.get(line.vat.category);
    if (first && (first.vat.exemptionReasonCode ?? '') !== (line.vat.exemptionReasonCode ?? '')) {
      problem(rowPath(line.row), `is exempt (${line.vat.category}) for ${line.vat.exemptionReasonCode ?? 'another reason'}, beside ${first.row.id} exempt for ${first.vat.exemptionReasonCode ?? 'another reason'}: one invoice states one reason per category`);
    } else if (!first) reasons.set(line.vat.category, line);
  }
  const notSubject = lines.filter((line) => line.vat.category === 'O');
  if (notSubject.length > 0 && notSubject.length < lines.length) {
    problem(rowPath(notSubject[0]!.row), 'is not subject to VAT (category O), which cannot sit beside taxed lines on one invoice (BR-O-11): invoice it apart');
  }
  const allNotSubject = notSubject.length > 0 && notSubject.length === lines.length;

  // The parties.
  const sellerCountry = seller.postalAddress?.countryCode;
  const french = sellerCountry === 'FR';
  if (!seller.postalAddress) {
    problem('property.postalAddress.city', "is required: the seller's address (BG-5)");
    problem('property.postalAddress.countryCode', "is required: the seller's country (BT-40)");
  }
  if (!seller.vatId && !allNotSubject) problem('property.vatId', "is required: the seller's VAT identifier (BT-31)");
  if (!buyer.postalAddress) {
    problem('recipient.postalAddress.city', "is required: the buyer's address (BG-8)");
    problem('recipient.postalAddress.countryCode', "is required: the buyer's country (BT-55)");
  }
  const reverse = lines.find((line) => line.vat.category === 'AE' || line.vat.category === 'K');
  if (reverse && !buyer.vatId) problem('recipient.vatId', `is required: ${rowPath(reverse.row)} is of category ${reverse.vat.category}, which names the buyer's VAT identifier (BT-48)`);
  if (french) {
    // The French rules (BR-FR-10, -12, -13, -15, -16).
    if (!seller.companyId || !/^(\d{9}|\d{14})$/.test(seller.companyId)) problem('property.companyId', "is required of a French seller: its SIREN (9 digits) or SIRET (14)");
    if (!seller.electronicAddress) problem('property.electronicAddress', "is required of a French seller: the address its e-invoices come from (BT-34)");
    if (!buyer.electronicAddress) problem('recipient.electronicAddress', 'is required on an invoice of a French seller: the address it is delivered to (BT-49)');
    for (const line of lines) {
      if (line.vat.category === 'L' || line.vat.category === 'M') problem(rowPath(line.row), `is of category ${line.vat.category}, which a French seller cannot state`);
      else if (!FRENCH_RATES.has(line.vat.rate)) problem(rowPath(line.row), `has VAT rate ${line.vat.rate} %, which is not a French rate`);
    }
  }

  // Payment means, by means (a card's payments together).
  const means = new Map<string, { means: Omit<TPaymentMeans, 'amount'>; amount: Big }>();
  for (const row of payments) {
    const found = meansOf(row, cards, seller.iban);
    if (found.code === '58' && !seller.iban) problem('property.iban', `is required: ${rowPath(row)} is a bank transfer, whose means names the account paid into (BT-84)`);
    const key = JSON.stringify(found);
    const entry = means.get(key) ?? { means: found, amount: new Big(0) };
    means.set(key, { means: found, amount: entry.amount.minus(row.amount) });
  }

  if (problems.length > 0) return { problems };

  // The breakdown, rounded once per category and rate; the ledger's per-line rounding as BT-114.
  const breakdown = new Map<string, { vat: TVat; base: Big }>();
  for (const line of lines) {
    const key = vatKey(line.vat);
    breakdown.set(key, { vat: breakdown.get(key)?.vat ?? line.vat, base: (breakdown.get(key)?.base ?? new Big(0)).plus(line.net) });
  }
  const vatBreakdown: TVatBreakdown[] = [...breakdown.values()].map(({ vat, base }) => ({
    ...vat,
    base: money(base, scale),
    tax: money(base.times(vat.rate).div(100), scale),
  }));
  const lineNet = lines.reduce((sum, line) => sum.plus(line.net), new Big(0));
  const vatTotal = vatBreakdown.reduce((sum, entry) => sum.plus(entry.tax), new Big(0));
  const ledgerTax = lines.reduce((sum, line) => sum.plus(line.ledgerTax), new Big(0));
  const gross = lineNet.plus(vatTotal);
  const rounding = ledgerTax.minus(vatTotal);
  const prepaid = payments.reduce((sum, row) => sum.minus(row.amount), new Big(0));
  const due = gross.minus(prepaid).plus(rounding);

  const paymentMeans: TPaymentMeans[] = [...means.values()].map(({ means: found, amount }) => ({ ...found, amount: money(amount, scale) }));
  if (due.gt(0) && seller.iban && !paymentMeans.some((entry) => entry.code === '58')) paymentMeans.push({ code: '58', iban: seller.iban });

  const serviceDates = lines.map((line) => line.row.serviceDate);
  const stayDates = [facts.stay?.checkinDate, facts.stay?.checkoutDate].filter((date): date is string => Boolean(date));
  const guestName = facts.stay?.guestName && facts.stay.guestName !== buyer.name ? facts.stay.guestName : undefined;
  const dueDate = facts.dueDate ?? (due.gt(0) ? facts.issueDate : undefined);
  const vatIdOf = (vatId: string | undefined) => (allNotSubject ? undefined : vatId);
  const sellerVatId = vatIdOf(seller.vatId);

  const document: TFiscalDocument = {
    version: 1,
    id: facts.id,
    kind: 'INVOICE',
    typeCode: '380',
    number: facts.number,
    series: facts.series,
    issueDate: facts.issueDate,
    ...(dueDate ? { dueDate } : {}),
    currency: seller.currency,
    currencyScale: scale,
    language: facts.language,
    notes: facts.note ? [facts.note] : [],
    // A French seller's invoice carries the statutory payment mentions (BR-FR-05).
    ...(french ? { subjectNotes: FRENCH_PAYMENT_MENTIONS.map((mention) => ({ ...mention })) } : {}),
    source: { kind: facts.source.kind, id: facts.source.id, ...(facts.source.identifier ? { identifier: facts.source.identifier } : {}), folioIds: facts.source.folioIds },
    period: { start: minDate([...serviceDates, ...stayDates]), end: maxDate([...serviceDates, ...stayDates]) },
    ...(guestName ? { guestName } : {}),
    seller: {
      name: seller.name,
      ...(seller.legalName && seller.legalName !== seller.name ? { legalName: seller.legalName } : {}),
      ...(sellerVatId ? { vatId: sellerVatId } : {}),
      ...(seller.taxId && seller.taxId.replace(/[\s.]/g, '').toUpperCase() !== sellerVatId ? { taxId: seller.taxId } : {}),
      ...(seller.companyId ? { companyId: companyIdOf(seller.companyId, sellerCountry) } : {}),
      postalAddress: seller.postalAddress!,
      ...(seller.electronicAddress ? { electronicAddress: seller.electronicAddress } : {}),
      ...(seller.phone || seller.email ? { contact: { ...(seller.phone ? { phone: seller.phone } : {}), ...(seller.email ? { email: seller.email } : {}) } } : {}),
    },
    buyer: {
      name: buyer.name,
      ...(vatIdOf(buyer.vatId) ? { vatId: buyer.vatId } : {}),
      ...(buyer.companyId ? { companyId: companyIdOf(buyer.companyId, buyer.postalAddress?.countryCode) } : {}),
      postalAddress: buyer.postalAddress!,
      ...(buyer.electronicAddress ? { electronicAddress: buyer.electronicAddress } : {}),
      ...(buyer.email ? { contact: { email: buyer.email } } : {}),
    },
    lines: lines.map((line, index) => documentLine(line, index, scale)),
    vatBreakdown,
    totals: {
      lineNet: money(lineNet, scale),
      net: money(lineNet, scale),
      vat: money(vatTotal, scale),
      gross: money(gross, scale),
      prepaid: money(prepaid, scale),
      rounding: money(rounding, scale),
      due: money(due, scale),
    },
    paymentMeans,
  };
  const transactionIds = [...lines.flatMap((line) => line.transactionIds), ...payments.map((row) => row.id)];
  return { document: ZFiscalDocument.parse(document), transactionIds };
}

/**
 * BG-25 of a draft line. Quantity and unit price state the net: the price is never negative
 * (BR-27), so a negative line (an allowance, a correction) has a negative quantity.
 */
function documentLine(line: TDraftLine, index: number, scale: number): TDocumentLine {
  const ledgerQuantity = new Big(/^-?\d+(\.\d+)?$/.test(line.row.quantity) ? line.row.quantity : '1');
  const magnitude = ledgerQuantity.eq(0) ? new Big(1) : ledgerQuantity.abs();
  const quantity = line.net.lt(0) ? magnitude.times(-1) : magnitude;
  const price = line.net.abs().div(magnitude);
  // As many places as the price needs, up to six, and at least the currency's.
  const exact = price.round(6, Big.roundHalfUp);
  const places = Math.max(scale, (exact.toFixed().split('.')[1] ?? '').length);
  return {
    id: String(index + 1),
    transactionIds: line.transactionIds,
    name: line.row.description,
    ...(line.row.notes ? { description: line.row.notes } : {}),
    serviceDate: line.row.serviceDate,
    quantity: quantity.toFixed(),
    unitPrice: exact.toFixed(places),
    netAmount: money(line.net, scale),
    vat: line.vat,
    kind: line.kind,
  };
}

export interface TCreditNoteFacts {
  id: string;
  series: string;
  number: string;
  issueDate: string;
  /** Why the invoice is credited (BT-22). */
  reason: string;
}

/**
 * The credit note of an invoice: the invoice whole under type code 381, with the same lines and
 * amounts (EN 16931 states a credit note's amounts positive), naming the invoice (BG-3). Nothing
 * was paid against it: its prepaid amount is 0 and all of it is due (to the buyer), on its issue
 * date (BR-CO-25). The only means kept is a transfer's account.
 */
export function creditNoteOf(invoice: TFiscalDocument, facts: TCreditNoteFacts): TFiscalDocument {
  const scale = invoice.currencyScale;
  const due = new Big(invoice.totals.gross).plus(invoice.totals.rounding);
  const transfer = invoice.paymentMeans.find((means) => means.code === '58' && means.iban);
  const { dueDate: _dueDate, paymentTerms: _paymentTerms, precedingInvoice: _preceding, ...kept } = invoice;
  return ZFiscalDocument.parse({
    ...kept,
    id: facts.id,
    kind: 'CREDIT_NOTE',
    typeCode: '381',
    number: facts.number,
    series: facts.series,
    issueDate: facts.issueDate,
    dueDate: facts.issueDate,
    notes: [facts.reason],
    precedingInvoice: { number: invoice.number, issueDate: invoice.issueDate },
    totals: { ...invoice.totals, prepaid: money(new Big(0), scale), due: money(due, scale) },
    paymentMeans: transfer ? [{ code: '58', ...(transfer.text ? { text: transfer.text } : {}), iban: transfer.iban }] : [],
  });
}
