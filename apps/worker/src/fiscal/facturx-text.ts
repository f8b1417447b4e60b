// Every text the invoice PDF prints, made from the frozen document alone in its language: labels
// from the i18n catalog, amounts, quantities and dates in the language's formats (i18n/format.ts),
// rates as the language writes a percentage. Pure, so the PDF's words can be read without
// rendering; facturx-view.tsx only places them.

import Big from 'big.js';
import type { TFiscalDocument, TParty, TPaymentMeans, TVat } from '@folio-vault/shared/fiscal/document-model';
import { translator, type TTranslate } from '@folio-vault/shared/i18n/catalog';
import { formatters, LOCALES, type TFormatters } from '@folio-vault/shared/i18n/format';
import { sourceText } from '../exports/document-text.js';

export interface TLineTexts {
  date: string;
  name: string;
  description?: string;
  quantity: string;
  unitPrice: string;
  net: string;
  vat: string;
}

export interface TBreakdownTexts {
  category: string;
  rate: string;
  base: string;
  tax: string;
  /** "VATEX-EU-79-C: Taxe de séjour …" for an exempt category, when the document gives a reason. */
  exemption?: string;
}

export interface TInvoiceTexts {
  /** "Facture", "Credit note"… */
  title: string;
  /** The PDF's title (Info and XMP): "Facture INV-1". */
  documentTitle: string;
  /** Number, issue date, due date, each "label: value". */
  references: string[];
  /** "Avoir sur la facture INV-1 du 23/11/2026", credit notes only. */
  precedingInvoice?: string;
  seller: { name: string; lines: string[] };
  buyerLabel: string;
  buyer: { name: string; lines: string[] };
  /** The source, the guest and the period (the stay). */
  stay: string[];
  columns: { date: string; description: string; quantity: string; unitPrice: string; net: string; vat: string };
  lines: TLineTexts[];
  breakdownTitle: string;
  breakdownColumns: { category: string; rate: string; base: string; tax: string };
  breakdown: TBreakdownTexts[];
  /** Net, VAT, gross, prepaid, rounding (when not zero) and the amount due (or credited), last. */
  totals: { label: string; amount: string }[];
  paymentTitle: string;
  /** One line per payment means, then the payment terms. */
  payment: string[];
  notesTitle: string;
  notes: string[];
  /** "Facture INV-1", left in every page's footer. */
  footer: string;
  /** The footer's page label for page `page` of `pages`. */
  page(page: number, pages: number): string;
}

/** Intl percentage formatters per language: "10 %" in French and German, "10%" in English and Portuguese. */
const percentFormats = new Map<string, Intl.NumberFormat>();

/** A rate in percent (decimal text "5.5") as the language writes it ("5,5 %"); the division is exact (Big), Intl formats the decimal string. */
export function percentText(rate: string, locale: string): string {
  let format = percentFormats.get(locale);
  if (!format) percentFormats.set(locale, (format = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 4 })));
  return format.format(new Big(rate).div(100).toFixed() as unknown as number);
}

/** An IBAN in groups of four, as it is printed for people ("FR76 3000 6000 …"). */
export function ibanText(iban: string): string {
  return iban.replace(/(.{4})(?=.)/g, '$1 ');
}

/** The country's name in the document's language ("France", "Frankreich"), the code when Intl has no name. */
function countryName(code: string, locale: string): string {
  try {
    return new Intl.DisplayNames([locale], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** "12 rue de la République, 69002 Lyon, France": the address on one line. */
export function addressText(address: TParty['postalAddress'], locale: string): string {
  const city = [address.postcode, address.city].filter(Boolean).join(' ');
  return [...address.lines, city, countryName(address.countryCode, locale)].join(', ');
}

/** The company id's label: SIREN and SIRET by their French names (schemes 0002, 0009), else the generic label. */
function companyIdLabel(scheme: string | undefined, t: TTranslate): string {
  if (scheme === '0002') return 'SIREN';
  if (scheme === '0009') return 'SIRET';
  return t('invoice.companyId');
}

/** The lines under a party's name: legal name, address, VAT id, tax registration and company id, contact. */
export function partyLines(party: TParty, t: TTranslate, locale: string): string[] {
  const label = (name: string, value: string) => t('labelValue', { label: name, value });
  const ids = [
    party.vatId ? label(t('invoice.vatId'), party.vatId) : undefined,
    party.taxId ? label(t('invoice.taxRegistration'), party.taxId) : undefined,
    party.companyId ? label(companyIdLabel(party.companyId.scheme, t), party.companyId.id) : undefined,
  ].filter((part): part is string => !!part);
  const contact = [party.contact?.phone ? `${t('phone')} ${party.contact.phone}` : undefined, party.contact?.email].filter((part): part is string => !!part);
  return [
    party.legalName && party.legalName !== party.name ? party.legalName : undefined,
    addressText(party.postalAddress, locale),
    ids.length ? ids.join(' · ') : undefined,
    contact.length ? contact.join(' · ') : undefined,
  ].filter((line): line is string => !!line);
}

/** A line's VAT: the rate, with the category when it is not S ("0 % (E)"). */
function lineVat(vat: TVat, locale: string): string {
  const rate = percentText(vat.rate, locale);
  return vat.category === 'S' ? rate : `${rate} (${vat.category})`;
}

/** "Visa 411111******1111 (Z** R****) · payé 100,00 €", "Virement SEPA · IBAN FR76 3000 …". */
export function paymentMeansText(means: TPaymentMeans, t: TTranslate, fmt: TFormatters): string {
  const card = ['48', '54', '55'].includes(means.code);
  const transfer = ['30', '31', '58'].includes(means.code);
  const name =
    means.text ?? (card ? t('invoice.means.card') : transfer ? t('invoice.means.transfer') : means.code === '10' ? t('invoice.means.cash') : t('invoice.means.other', { code: means.code }));
  const parts = [
    [name, means.cardNumber, means.cardHolder ? `(${means.cardHolder})` : undefined].filter(Boolean).join(' '),
    means.iban ? `IBAN ${ibanText(means.iban)}` : undefined,
    means.amount ? t('invoice.paid', { amount: fmt.money(means.amount) }) : undefined,
  ];
  return parts.filter(Boolean).join(' · ');
}

export function invoiceTexts(document: TFiscalDocument): TInvoiceTexts {
  const t = translator(document.language);
  // Only calendar dates are printed: the time zone never applies.
  const fmt = formatters(document.language, 'UTC', document.currency);
  const locale = LOCALES[document.language];
  const label = (name: string, value: string) => t('labelValue', { label: name, value });
  const title = t(document.kind === 'INVOICE' ? 'invoice.title.INVOICE' : 'invoice.title.CREDIT_NOTE');
  const isZero = (amount: string) => new Big(amount).eq(0);
  const { totals } = document;
  return {
    title,
    documentTitle: `${title} ${document.number}`,
    references: [
      label(t('invoice.number'), document.number),
      label(t('invoice.issueDate'), fmt.date(document.issueDate)),
      ...(document.dueDate ? [label(t('invoice.dueDate'), fmt.date(document.dueDate))] : []),
    ],
    precedingInvoice: document.precedingInvoice
      ? t('invoice.creditsInvoice', { number: document.precedingInvoice.number, date: fmt.date(document.precedingInvoice.issueDate) })
      : undefined,
    seller: { name: document.seller.name, lines: partyLines(document.seller, t, locale) },
    buyerLabel: t('recipient'),
    buyer: {
      name: document.buyer.name,
      lines: [...partyLines(document.buyer, t, locale), ...(document.buyerReference ? [label(t('invoice.buyerReference'), document.buyerReference)] : [])],
    },
    stay: [
      sourceText(document.source, t),
      ...(document.guestName ? [label(t('stay.guest'), document.guestName)] : []),
      label(t('invoice.period'), t('invoice.periodRange', { start: fmt.date(document.period.start), end: fmt.date(document.period.end) })),
    ],
    columns: {
      date: t('column.serviceDate'),
      description: t('column.description'),
      quantity: t('column.quantity'),
      unitPrice: t('invoice.column.unitPrice'),
      net: t('invoice.column.net'),
      vat: t('invoice.column.vat'),
    },
    lines: document.lines.map((line) => ({
      date: fmt.date(line.serviceDate),
      name: line.name,
      description: line.description,
      quantity: fmt.number(line.quantity),
      unitPrice: fmt.money(line.unitPrice),
      net: fmt.money(line.netAmount),
      vat: lineVat(line.vat, locale),
    })),
    breakdownTitle: t('invoice.vatBreakdown'),
    breakdownColumns: {
      category: t('invoice.vatBreakdown.category'),
      rate: t('taxSummary.rate'),
      base: t('invoice.vatBreakdown.base'),
      tax: t('invoice.vatBreakdown.tax'),
    },
    breakdown: document.vatBreakdown.map((entry) => {
      const reason = [entry.exemptionReasonCode, entry.exemptionReason].filter(Boolean);
      return {
        category: t(`invoice.vatCategory.${entry.category}`),
        rate: percentText(entry.rate, locale),
        base: fmt.money(entry.base),
        tax: fmt.money(entry.tax),
        exemption: reason.length === 2 ? label(reason[0]!, reason[1]!) : reason[0],
      };
    }),
    totals: [
      { label: t('invoice.totals.net'), amount: fmt.money(totals.net) },
      { label: t('invoice.totals.vat'), amount: fmt.money(totals.vat) },
      { label: t('invoice.totals.gross'), amount: fmt.money(totals.gross) },
      { label: t('invoice.totals.prepaid'), amount: fmt.money(totals.prepaid) },
      ...(isZero(totals.rounding) ? [] : [{ label: t('invoice.totals.rounding'), amount: fmt.money(totals.rounding) }]),
      { label: t(document.kind === 'INVOICE' ? 'invoice.totals.due' : 'invoice.totals.credited'), amount: fmt.money(totals.due) },
    ],
    paymentTitle: t('invoice.payment'),
    payment: [...document.paymentMeans.map((means) => paymentMeansText(means, t, fmt)), ...(document.paymentTerms ? [document.paymentTerms] : [])],
    notesTitle: t('column.notes'),
    notes: document.notes,
    footer: `${title} ${document.number}`,
    page: (page, pages) => t('page', { page, pages }),
  };
}
