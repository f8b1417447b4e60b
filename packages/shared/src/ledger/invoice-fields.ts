// The import's fields for invoices (docs/ledger.md#invoice-data): the seller's and the buyer's
// identity as EN 16931 names it (legal name, VAT id, company id, postal address, IBAN, electronic
// address), the property's taxes, and the VAT of a charge. Every field is optional on import: what
// an invoice lacks is answered by the issue as 422 INVOICE_DATA_INCOMPLETE, item by item
// (docs/fiscal-documents.md#errors). What is present must be well formed, so an invoice never
// carries a country code, VAT category or rate an e-invoice validator would refuse.

import { ZInt64Id } from '../schemas/common.js';
import { z } from '../schemas/zod.js';
import { VAT_CATEGORIES } from '../fiscal/document-model.js';
import { COUNTRY_CODES } from './country-codes.js';
import { optionalText, text } from './field-schemas.js';

export { VAT_CATEGORIES } from '../fiscal/document-model.js';

/** ISO 3166-1 alpha-2 (BT-40, BT-55): an assigned code, upper case. */
export const ZCountryCode = z.string().refine((v) => COUNTRY_CODES.has(v), 'must be an ISO 3166-1 alpha-2 country code such as "FR"');

/** BG-5 / BG-8: up to three lines, a city, a postcode when the country has them, a country. */
export const ZPostalAddress = z
  .strictObject({
    lines: z.array(text(200)).min(1, 'must hold at least one line').max(3, 'must hold at most three lines'),
    city: text(100),
    postcode: optionalText(20),
    countryCode: ZCountryCode,
  })
  .openapi('PostalAddress');

/** BT-34 / BT-49: an address an e-invoice is delivered to, with its EAS scheme ("0225", "0088", "EM"). */
export const ZElectronicAddress = z
  .strictObject({
    scheme: z.string().regex(/^(\d{4}|[A-Z]{2})$/, 'must be an EAS scheme code such as "0225" or "EM"'),
    id: text(200),
  })
  .openapi('ElectronicAddress');

/**
 * BT-31 / BT-48: a VAT identifier with its country prefix ("FR32123456789", "EL123456789",
 * "DE123456789"); spaces and dots a client types are taken out.
 */
export const ZVatId = z
  .string()
  .transform((v) => v.replace(/[\s.]/g, '').toUpperCase())
  .refine((v) => /^[A-Z]{2}[A-Z0-9+*]{2,13}$/.test(v), 'must be a VAT identifier with its country prefix, such as "FR32123456789"');

/** BT-30 / BT-47: the legal registration id (SIREN, SIRET, HRB…). */
export const ZCompanyId = z.string().trim().regex(/^[A-Za-z0-9 ./-]{1,64}$/, 'must be a company registration id such as "123456789" (letters, digits, spaces, dots, slashes, hyphens)');

/** 97 mod of the IBAN's digits with its first four characters moved to the end (ISO 13616). */
function ibanChecksumHolds(iban: string): boolean {
  const moved = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const char of moved) {
    const value = /\d/.test(char) ? char : String(char.charCodeAt(0) - 55);
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

/** BT-84: the hotel's account (payment means 58); written with or without spaces, kept without. */
export const ZIban = z
  .string()
  .transform((v) => v.replace(/\s/g, '').toUpperCase())
  .refine((v) => /^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/.test(v) && ibanChecksumHolds(v), 'must be an IBAN with a valid check digits, such as "FR7630006000011234567890189"');

/** A VAT rate in percent as decimal text ("10", "5.5", "0"): 0 to 99.99, at most two places. */
const ZRate = z
  .union([z.number().finite(), z.string()], { error: 'must be a percentage such as 10 or "5.5"' })
  .transform((value, ctx) => {
    const text = typeof value === 'number' ? String(value) : value.trim();
    if (!/^\d{1,2}(\.\d{1,2})?$/.test(text)) {
      ctx.addIssue({ code: 'custom', message: 'must be a percentage from 0 to 99.99 with at most two decimals, such as 10 or "5.5"' });
      return z.NEVER;
    }
    // "10.50" and "10.5" are one rate: the canonical form has no trailing zeros.
    return text.includes('.') ? text.replace(/\.?0+$/, '') : text.replace(/^0+(?=\d)/, '');
  })
  .openapi({ type: 'string', example: '10' });

/** VATEX code list (BT-121): "VATEX-EU-79-C", "VATEX-EU-AE", "VATEX-FR-FRANCHISE"… */
const ZExemptionReasonCode = z.string().regex(/^VATEX-[A-Z]{2}(-[A-Z0-9]+)+$/, 'must be a VATEX code such as "VATEX-EU-79-C"');

/** Categories whose rate is 0 and which need an exemption reason (EN 16931 BR-E-5/10, BR-AE-5/10, BR-IC-5/10, BR-G-5/10, BR-O-5/10). */
export const EXEMPT_CATEGORIES: ReadonlySet<string> = new Set(['E', 'AE', 'K', 'G', 'O']);

type TVatFields = { category: string; rate: string; exemptionReasonCode?: string; exemptionReason?: string };

/** The category rules EN 16931 states for a line's VAT (BR-S-5, BR-Z-5, BR-E-5…, BR-S-10…), as field problems. */
function checkVatCategory(vat: TVatFields, ctx: z.RefinementCtx, reasonText: boolean): void {
  const problem = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (vat.category === 'S' && Number(vat.rate) === 0) problem('rate', 'must be above 0 for category S (standard rate)');
  if ((vat.category === 'Z' || EXEMPT_CATEGORIES.has(vat.category)) && Number(vat.rate) !== 0) problem('rate', `must be 0 for category ${vat.category}`);
  const reason = vat.exemptionReasonCode !== undefined || vat.exemptionReason !== undefined;
  if (EXEMPT_CATEGORIES.has(vat.category) && !reason) {
    problem('exemptionReasonCode', `is required for category ${vat.category}${reasonText ? ' (or exemptionReason)' : ''}: an exempt line states why`);
  }
  if (!EXEMPT_CATEGORIES.has(vat.category) && reason) {
    problem(vat.exemptionReasonCode !== undefined ? 'exemptionReasonCode' : 'exemptionReason', `must be absent for category ${vat.category} (only exempt categories E, AE, K, G, O carry a reason)`);
  }
}

export const TAX_KINDS = ['VAT', 'CITY_TAX', 'OTHER'] as const;

/**
 * One of the property's taxes (docs/ledger.md#invoice-data). TAX rows name it by their originId.
 * `rate` and `category` are the VAT a row of this tax is (VAT) or carries (CITY_TAX: exempt, E;
 * OTHER: the VAT of a tax the hotel passes on as a line of its own).
 */
export const ZPropertyTax = z
  .strictObject({
    id: ZInt64Id,
    name: text(200),
    kind: z.enum(TAX_KINDS),
    rate: ZRate,
    category: z.enum(VAT_CATEGORIES),
    exemptionReasonCode: ZExemptionReasonCode.nullish().transform((v) => v ?? undefined),
    exemptionReason: optionalText(300),
    includedInPrice: z.boolean().nullish().transform((v) => v ?? false),
  })
  .superRefine((tax, ctx) => {
    if (tax.kind === 'CITY_TAX' && tax.category !== 'E') {
      ctx.addIssue({ code: 'custom', path: ['category'], message: 'must be E for a CITY_TAX: the guest owes it to the city and the hotel collects it (a disbursement, exempt)' });
      return;
    }
    // A city tax's reason defaults to the disbursement code (VATEX-EU-79-C) when the invoice is built.
    if (tax.kind === 'CITY_TAX') return;
    checkVatCategory(tax, ctx, true);
  })
  .openapi('LedgerPropertyTax');

/** A tax of the property as stored and read (the schema's output, its absent fields optional). */
export interface TPropertyTax {
  id: string;
  name: string;
  kind: (typeof TAX_KINDS)[number];
  rate: string;
  category: (typeof VAT_CATEGORIES)[number];
  exemptionReasonCode?: string;
  exemptionReason?: string;
  includedInPrice: boolean;
}

export const ZPropertyTaxes = z
  .array(ZPropertyTax)
  .max(100, 'must hold at most 100 taxes')
  .superRefine((taxes, ctx) => {
    const seen = new Set<string>();
    taxes.forEach((tax, index) => {
      if (seen.has(tax.id)) ctx.addIssue({ code: 'custom', path: [index, 'id'], message: 'appears twice in taxes' });
      seen.add(tax.id);
    });
  });

/**
 * A charge's own VAT, for a charge no TAX row carries the VAT of (a breakfast sold VAT-inclusive, a
 * city tax posted as a fee): its amount then holds the VAT (docs/fiscal-documents.md#vat-from-the-ledger).
 */
export const ZTransactionVat = z
  .strictObject({
    category: z.enum(VAT_CATEGORIES),
    rate: ZRate,
    exemptionReasonCode: ZExemptionReasonCode.nullish().transform((v) => v ?? undefined),
  })
  .superRefine((vat, ctx) => checkVatCategory(vat, ctx, false))
  .openapi('LedgerTransactionVat');

/** A charge's own VAT as stored and read. */
export interface TTransactionVat {
  category: (typeof VAT_CATEGORIES)[number];
  rate: string;
  exemptionReasonCode?: string;
}

/** The property's and the recipients' invoice identity, each optional. */
export const partyFields = {
  vatId: ZVatId.nullish().transform((v) => v ?? undefined),
  companyId: ZCompanyId.nullish().transform((v) => v || undefined),
  postalAddress: ZPostalAddress.nullish().transform((v) => v ?? undefined),
  electronicAddress: ZElectronicAddress.nullish().transform((v) => v ?? undefined),
};

export type TPostalAddress = z.output<typeof ZPostalAddress>;
export type TElectronicAddress = z.output<typeof ZElectronicAddress>;
