/**
 * Card brands the vault accepts (docs/vault.md) with their IIN ranges, PAN lengths and CVV length. Order matters:
 * the first brand whose prefix matches wins (Discover's 65 before UnionPay's 62 and Maestro's 6…).
 */
export const CARD_BRANDS = ['VISA', 'MASTERCARD', 'AMEX', 'DISCOVER', 'DINERS', 'JCB', 'UNIONPAY', 'MAESTRO'] as const;
export type TCardBrand = (typeof CARD_BRANDS)[number];

interface TBrandRule {
  brand: TCardBrand;
  /** Inclusive prefix ranges, compared on the same number of leading digits. */
  ranges: Array<[string, string]>;
  lengths: number[];
  cvvLength: number;
}

const range = (from: string, to = from): [string, string] => [from, to];
const lengthsBetween = (min: number, max: number) => Array.from({ length: max - min + 1 }, (_, i) => min + i);

const RULES: TBrandRule[] = [
  { brand: 'AMEX', ranges: [range('34'), range('37')], lengths: [15], cvvLength: 4 },
  { brand: 'VISA', ranges: [range('4')], lengths: [13, 16, 19], cvvLength: 3 },
  { brand: 'MASTERCARD', ranges: [range('51', '55'), range('2221', '2720')], lengths: [16], cvvLength: 3 },
  { brand: 'DISCOVER', ranges: [range('6011'), range('644', '649'), range('65')], lengths: lengthsBetween(16, 19), cvvLength: 3 },
  { brand: 'DINERS', ranges: [range('300', '305'), range('36'), range('38', '39')], lengths: lengthsBetween(14, 19), cvvLength: 3 },
  { brand: 'JCB', ranges: [range('3528', '3589')], lengths: lengthsBetween(16, 19), cvvLength: 3 },
  { brand: 'UNIONPAY', ranges: [range('62'), range('81')], lengths: lengthsBetween(16, 19), cvvLength: 3 },
  { brand: 'MAESTRO', ranges: [range('50'), range('56', '58'), range('6')], lengths: lengthsBetween(12, 19), cvvLength: 3 },
];

function matches(pan: string, [from, to]: [string, string]): boolean {
  const prefix = pan.slice(0, from.length);
  return prefix.length === from.length && prefix >= from && prefix <= to;
}

export function detectBrand(pan: string): TCardBrand | undefined {
  return RULES.find((rule) => rule.ranges.some((r) => matches(pan, r)))?.brand;
}

function ruleOf(brand: TCardBrand): TBrandRule {
  const rule = RULES.find((r) => r.brand === brand);
  if (!rule) throw new Error(`no rule for ${brand}`);
  return rule;
}

export function validLengthsFor(brand: TCardBrand): readonly number[] {
  return ruleOf(brand).lengths;
}

export function cvvLengthFor(brand: TCardBrand): number {
  return ruleOf(brand).cvvLength;
}

/**
 * The accounting API's creditCardType code of a vault brand (docs/ledger.md#card-payments): the one
 * mapping, used when an imported payment names a card token and leaves creditCardType out.
 */
const CREDIT_CARD_TYPES: Record<TCardBrand, string> = {
  VISA: 'visa',
  MASTERCARD: 'master',
  AMEX: 'amex',
  DISCOVER: 'discover',
  DINERS: 'diners',
  JCB: 'jcb',
  UNIONPAY: 'unionpay',
  MAESTRO: 'maestro',
};

export function creditCardTypeOf(brand: TCardBrand): string {
  return CREDIT_CARD_TYPES[brand];
}
