// A fiscal document (an invoice or a credit note) as it is frozen when it is issued
// (docs/fiscal-documents.md): everything its files are rendered from, and nothing else. The API
// builds it from the ledger in the transaction that numbers it and stores it whole; a worker renders
// the CII, the UBL and the Factur-X PDF from it alone, so the same document always renders the same
// files, whatever the ledger or the property look like later.
//
// The model speaks EN 16931's language, not the ledger's: parties, lines with a VAT category and
// rate, a VAT breakdown per category and rate, document totals, payment means. Each field names the
// business term (BT-…) or group (BG-…) it becomes. Amounts are exact decimal strings in the
// document's currency, rounded to its scale (two places for EUR), never binary floats. Codes are
// language-free; `language` chooses the words of the PDF only.
//
// A credit note reverses an invoice whole: its lines and totals carry the invoice's amounts with the
// same sign (EN 16931 credit notes state positive amounts under type code 381), and
// `precedingInvoice` names the invoice it credits (BG-3).

import { z } from 'zod';
import { LANGUAGES } from '../i18n/languages.js';
import { SOURCE_KINDS } from '../ledger/enums.js';

/** A decimal amount as text: optional minus, digits, optional fraction. */
const ZDecimal = z.string().regex(/^-?\d+(\.\d+)?$/, 'must be a decimal number as text');
const ZDate = z.iso.date();

/** VAT category codes of EN 16931 (UNTDID 5305 subset): BT-118 / BT-151. */
export const VAT_CATEGORIES = ['S', 'Z', 'E', 'AE', 'K', 'G', 'O', 'L', 'M'] as const;
export type TVatCategory = (typeof VAT_CATEGORIES)[number];

/** A line's or a breakdown's VAT: category, rate in percent (decimal text, "10" or "5.5"), exemption reason for E/AE/K/G/O. */
export const ZVat = z.strictObject({
  category: z.enum(VAT_CATEGORIES),
  /** BT-119 / BT-152: percent as decimal text; "0" for E, Z, AE, K, G, O. */
  rate: ZDecimal,
  /** BT-121: e.g. "VATEX-EU-79-C" (a disbursement: the city tax the hotel collects for the city). */
  exemptionReasonCode: z.string().min(1).max(30).optional(),
  /** BT-120: the reason in words. */
  exemptionReason: z.string().min(1).max(300).optional(),
});
export type TVat = z.output<typeof ZVat>;

/** BG-5 / BG-8: a postal address. */
export const ZPostalAddress = z.strictObject({
  /** BT-35…BT-37 / BT-50…BT-52: up to three lines. */
  lines: z.array(z.string().min(1).max(200)).max(3),
  city: z.string().min(1).max(100),
  postcode: z.string().min(1).max(20).optional(),
  /** BT-40 / BT-55: ISO 3166-1 alpha-2. */
  countryCode: z.string().regex(/^[A-Z]{2}$/),
});

/** BT-34 / BT-49: an electronic address with its scheme (EAS code list, e.g. "0225" SIREN, "EM" e-mail). */
export const ZElectronicAddress = z.strictObject({ scheme: z.string().min(1).max(10), id: z.string().min(1).max(200) });

/** BG-4 seller / BG-7 buyer. */
export const ZParty = z.strictObject({
  /** The name printed on the invoice: BT-27 / BT-44 (the registered name) when `legalName` is absent, else BT-28 / BT-45 (the trading name). */
  name: z.string().min(1).max(200),
  /** BT-27 / BT-44, the name in the register of companies, when it differs from `name`. */
  legalName: z.string().min(1).max(200).optional(),
  /** BT-31 / BT-48: VAT identifier with its country prefix ("FR32123456789"). */
  vatId: z.string().min(1).max(64).optional(),
  /** BT-32: the seller's tax registration id (the property's `taxId`), when it has one besides the VAT id. */
  taxId: z.string().min(1).max(64).optional(),
  /** BT-30 / BT-47: legal registration id (SIREN/SIRET, HRB…), with its scheme when known ("0002" SIREN, "0009" SIRET). */
  companyId: z.strictObject({ id: z.string().min(1).max(64), scheme: z.string().min(1).max(10).optional() }).optional(),
  postalAddress: ZPostalAddress,
  electronicAddress: ZElectronicAddress.optional(),
  /** BG-6 / BG-9. */
  contact: z.strictObject({ phone: z.string().max(50).optional(), email: z.string().max(200).optional() }).optional(),
});
export type TParty = z.output<typeof ZParty>;

/** BG-25: one invoice line. */
export const ZDocumentLine = z.strictObject({
  /** BT-126: 1, 2, 3… in the document's order. */
  id: z.string().regex(/^[1-9]\d*$/),
  /** The ledger transactions this line stands for (a charge, or a charge with its tax rows). */
  transactionIds: z.array(z.string().regex(/^\d+$/)).min(1),
  /** BT-153: what was sold (the transaction's description). */
  name: z.string().min(1).max(500),
  /** BT-154: notes, when the ledger has them. */
  description: z.string().max(1000).optional(),
  /** The ledger's service date of the line (printed; BG-26 line period start = end = it). */
  serviceDate: ZDate,
  /** BT-129: quantity as decimal text; unit code BT-130 is C62 ("one") for every line. */
  quantity: ZDecimal,
  /** BT-146: net price of one unit (quantity × price = net amount, to the document's scale). */
  unitPrice: ZDecimal,
  /** BT-131: the line's net amount (without VAT). */
  netAmount: ZDecimal,
  /** The VAT of this line (BT-151, BT-152, and BT-120/121 through the breakdown). */
  vat: ZVat,
  /** `CHARGE`: a sale by the hotel; `DISBURSEMENT`: an amount collected for a third party (the city tax), category E. */
  kind: z.enum(['CHARGE', 'DISBURSEMENT']),
});
export type TDocumentLine = z.output<typeof ZDocumentLine>;

/** BG-23: the VAT breakdown, one per category and rate. */
export const ZVatBreakdown = ZVat.extend({
  /** BT-116: Σ net amounts of the lines of this category and rate. */
  base: ZDecimal,
  /** BT-117: base × rate / 100, rounded once per category and rate (BR-CO-17). */
  tax: ZDecimal,
});
export type TVatBreakdown = z.output<typeof ZVatBreakdown>;

/** BG-22: document totals. Every identity below holds to the cent (BR-CO-10…16). */
export const ZDocumentTotals = z.strictObject({
  /** BT-106: Σ line net amounts. */
  lineNet: ZDecimal,
  /** BT-109: total without VAT (= lineNet: no document-level allowances or charges). */
  net: ZDecimal,
  /** BT-110: Σ breakdown taxes. */
  vat: ZDecimal,
  /** BT-112: net + vat. */
  gross: ZDecimal,
  /** BT-113: paid in advance (the folio's payments up to the issue). */
  prepaid: ZDecimal,
  /** BT-114: rounding amount; "0" unless the ledger's per-line tax rounding differs from the per-rate rounding (docs/fiscal-documents.md). */
  rounding: ZDecimal,
  /** BT-115: gross − prepaid + rounding. */
  due: ZDecimal,
});
export type TDocumentTotals = z.output<typeof ZDocumentTotals>;

/** BG-16: how the invoice was or is to be paid. */
export const ZPaymentMeans = z.strictObject({
  /** BT-81, UNTDID 4461: "10" cash, "30" credit transfer, "48" bank card, "54" credit card, "55" debit card, "58" SEPA credit transfer. */
  code: z.string().regex(/^\d{1,3}$/),
  /** BT-82: the means in words ("Visa", "Cash"). */
  text: z.string().max(100).optional(),
  /** BT-87: the card's number as EN 16931 allows it: at most the first six and the last four digits ("411111******1111", or "1111"). */
  cardNumber: z.string().regex(/^(\d{6}\*+\d{4}|\d{4})$/).optional(),
  /** BT-88: the card holder's name, masked as the vault masks it. */
  cardHolder: z.string().max(100).optional(),
  /** BT-84: the account to pay into (58, 30). */
  iban: z.string().regex(/^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/).optional(),
  /** The amount paid this way before the issue (printed; the XML carries the sum as BT-113). */
  amount: ZDecimal.optional(),
});
export type TPaymentMeans = z.output<typeof ZPaymentMeans>;

/** The frozen document. Stored whole (jsonb) with the invoice; `version` is bumped when the shape changes. */
export const ZFiscalDocument = z.strictObject({
  version: z.literal(1),
  id: z.uuid(),
  kind: z.enum(['INVOICE', 'CREDIT_NOTE']),
  /** BT-3: 380 commercial invoice, 381 credit note. */
  typeCode: z.enum(['380', '381']),
  /** BT-1: `<series>-<n>`, gap-free per property and series. */
  number: z.string().min(1).max(100),
  series: z.string().min(1).max(50),
  /** BT-2. */
  issueDate: ZDate,
  /** BT-9. */
  dueDate: ZDate.optional(),
  /** BT-5: ISO 4217; every amount is in it. */
  currency: z.string().regex(/^[A-Z]{3}$/),
  /** Decimal places of the currency (2 for EUR): every amount is rounded to it. */
  currencyScale: z.number().int().min(0).max(4),
  /** The words of the PDF; the XML is language-free. */
  language: z.enum(LANGUAGES),
  /** BT-22: notes printed and carried (the issue's `note`, a credit note's reason). */
  notes: z.array(z.string().min(1).max(2000)).max(5),
  /**
   * BT-21 + BT-22: notes with a subject code (UNTDID 4451), each its own note in the XML: the
   * mentions a French seller's invoice must carry (BR-FR-05: PMT recovery indemnity, PMD late-payment
   * penalties, AAB early-payment discount), frozen with the document so that it renders the same later.
   */
  subjectNotes: z.array(z.strictObject({ subjectCode: z.string().regex(/^[A-Z]{3}$/), text: z.string().min(1).max(2000) })).max(10).optional(),
  /** BG-3, credit notes: the invoice it credits. */
  precedingInvoice: z.strictObject({ number: z.string(), issueDate: ZDate }).optional(),
  /** Where the lines come from (printed; BT-11/BT-18 are not used). */
  source: z.strictObject({
    kind: z.enum(SOURCE_KINDS),
    id: z.string().regex(/^\d+$/),
    /** The reservation's identifier or the house account's name, as the folio PDF prints it. */
    identifier: z.string().max(200).optional(),
    folioIds: z.array(z.string().regex(/^\d+$/)).min(1),
  }),
  /** BG-14: the invoicing period (a reservation's stay: arrival to departure), else the lines' service dates. */
  period: z.strictObject({ start: ZDate, end: ZDate }),
  /** The guest of the stay, printed under the buyer when the buyer is not the guest. */
  guestName: z.string().max(200).optional(),
  seller: ZParty,
  /** BG-10 payee is not used: the seller is paid. */
  buyer: ZParty,
  /** BT-10: the buyer's reference, when the recipient has one (a company's purchase order…). */
  buyerReference: z.string().max(200).optional(),
  lines: z.array(ZDocumentLine).min(1),
  vatBreakdown: z.array(ZVatBreakdown).min(1),
  totals: ZDocumentTotals,
  /** BG-16: payments before the issue (card, cash, transfer) and, when something is due, how to pay it. */
  paymentMeans: z.array(ZPaymentMeans),
  /** BT-20: payment terms in words, when something is due. */
  paymentTerms: z.string().max(500).optional(),
});
export type TFiscalDocument = z.output<typeof ZFiscalDocument>;

/** The formats a document's files come in: Factur-X (PDF/A-3b with the CII attached), CII alone, UBL alone. */
export const FISCAL_FORMATS = ['FACTURX', 'CII', 'UBL'] as const;
export type TFiscalFormat = (typeof FISCAL_FORMATS)[number];
