import { describe, expect, it } from 'vitest';
import { CARD_BRANDS, cvvLengthFor, detectBrand, validLengthsFor, type TCardBrand } from '@folio-vault/shared/vault/card/brand';
import { isLuhnValid } from '@folio-vault/shared/vault/card/luhn';
import { maskName } from '@folio-vault/shared/vault/card/mask';
import { PUBLIC_TEST_CARD_NUMBERS, isPublicTestCard } from '@folio-vault/shared/vault/card/test-cards';
import { luhnCheckDigit as checkDigit } from '@folio-vault/test-kit/cards';

/** The public test numbers allowed as literals in this repository. */
const PUBLIC_NUMBERS = [
  '4111111111111111',
  '4242424242424242',
  '5555555555554444',
  '378282246310005',
  '6011111111111117',
  '3530111333300000',
  '30569309025904',
  '6200000000000005',
  '5105105105105100',
];


/** A Luhn-valid number of the given length starting with prefix, made up at run time (zero-filled). */
function pan(prefix: string, length = 16): string {
  const body = prefix.padEnd(length - 1, '0');
  return body + checkDigit(body);
}

/** Change one digit (at index) to another digit. */
function withDigitChanged(number: string, index: number): string {
  const d = Number(number[index]);
  return number.slice(0, index) + String((d + 1) % 10) + number.slice(index + 1);
}

describe('isLuhnValid', () => {
  it.each(PUBLIC_NUMBERS)('accepts the public test number %s', (number) => {
    expect(isLuhnValid(number)).toBe(true);
  });

  it.each(PUBLIC_NUMBERS)('refuses %s with any one digit changed by one', (number) => {
    for (let i = 0; i < number.length; i += 1) {
      const changed = withDigitChanged(number, i);
      expect(isLuhnValid(changed), `digit ${i} of ${number}`).toBe(false);
    }
  });

  it('refuses a number whose check digit is off by one', () => {
    expect(isLuhnValid('4111111111111112')).toBe(false);
    expect(isLuhnValid('4111111111111110')).toBe(false);
  });

  it('agrees with the independent check-digit helper on run-time numbers', () => {
    for (const prefix of ['4', '51', '2221', '34', '6011', '3528', '62', '6759']) {
      for (const length of [12, 13, 15, 16, 19]) {
        const number = pan(prefix, length);
        expect(isLuhnValid(number), number.length.toString()).toBe(true);
        expect(isLuhnValid(withDigitChanged(number, number.length - 1))).toBe(false);
      }
    }
  });

  it('refuses input that is not only digits', () => {
    expect(isLuhnValid('')).toBe(false);
    expect(isLuhnValid('4111 1111 1111 1111')).toBe(false);
    expect(isLuhnValid('4111-1111-1111-1111')).toBe(false);
    expect(isLuhnValid('411111111111111a')).toBe(false);
    expect(isLuhnValid('-4111111111111111')).toBe(false);
  });

  it('treats all zeros as Luhn-valid (brand and length rules refuse it elsewhere)', () => {
    expect(isLuhnValid('0000000000000000')).toBe(true);
    expect(detectBrand('0000000000000000')).toBeUndefined();
  });
});

describe('detectBrand — public test numbers', () => {
  it.each<[string, TCardBrand]>([
    ['4111111111111111', 'VISA'],
    ['4242424242424242', 'VISA'],
    ['5555555555554444', 'MASTERCARD'],
    ['5105105105105100', 'MASTERCARD'],
    ['378282246310005', 'AMEX'],
    ['6011111111111117', 'DISCOVER'],
    ['3530111333300000', 'JCB'],
    ['30569309025904', 'DINERS'],
    ['6200000000000005', 'UNIONPAY'],
  ])('%s is %s', (number, brand) => {
    expect(detectBrand(number)).toBe(brand);
  });
});

describe('detectBrand — every brand and its range edges (numbers made up at run time)', () => {
  const cases: Array<[string, TCardBrand | undefined]> = [
    // VISA
    ['4', 'VISA'],
    // MASTERCARD 51–55 and 2221–2720
    ['50', 'MAESTRO'],
    ['51', 'MASTERCARD'],
    ['55', 'MASTERCARD'],
    ['56', 'MAESTRO'],
    ['2220', undefined],
    ['2221', 'MASTERCARD'],
    ['2720', 'MASTERCARD'],
    ['2721', undefined],
    // AMEX 34 and 37
    ['34', 'AMEX'],
    ['37', 'AMEX'],
    ['33', undefined],
    ['35', undefined],
    // DISCOVER 6011, 644–649, 65
    ['6011', 'DISCOVER'],
    ['6012', 'MAESTRO'],
    ['643', 'MAESTRO'],
    ['644', 'DISCOVER'],
    ['649', 'DISCOVER'],
    ['65', 'DISCOVER'],
    ['66', 'MAESTRO'],
    // DINERS 300–305, 36, 38
    ['300', 'DINERS'],
    ['305', 'DINERS'],
    ['306', undefined],
    ['36', 'DINERS'],
    ['38', 'DINERS'],
    // JCB 3528–3589
    ['3527', undefined],
    ['3528', 'JCB'],
    ['3589', 'JCB'],
    ['3590', undefined],
    // UNIONPAY 62 and 81
    ['62', 'UNIONPAY'],
    ['81', 'UNIONPAY'],
    ['80', undefined],
    // MAESTRO 50, 56–58, 6…
    ['58', 'MAESTRO'],
    ['59', undefined],
    ['6759', 'MAESTRO'],
    // No brand
    ['1', undefined],
    ['9', undefined],
  ];

  it.each(cases)('a number starting %s is %s', (prefix, brand) => {
    const number = pan(prefix, 16);
    expect(isLuhnValid(number)).toBe(true);
    expect(detectBrand(number)).toBe(brand);
  });

  it('covers every brand in CARD_BRANDS', () => {
    const detected = new Set(cases.map(([, brand]) => brand).filter(Boolean));
    expect([...detected].sort()).toEqual([...CARD_BRANDS].sort());
  });

  it('detects no brand for an empty string or a short unknown prefix', () => {
    expect(detectBrand('')).toBeUndefined();
    expect(detectBrand('2')).toBeUndefined();
    expect(detectBrand('3')).toBeUndefined();
  });
});

describe('validLengthsFor / cvvLengthFor', () => {
  it.each<[TCardBrand, number[], number]>([
    ['VISA', [13, 16, 19], 3],
    ['MASTERCARD', [16], 3],
    ['AMEX', [15], 4],
    ['DISCOVER', [16, 17, 18, 19], 3],
    ['DINERS', [14, 15, 16, 17, 18, 19], 3],
    ['JCB', [16, 17, 18, 19], 3],
    ['UNIONPAY', [16, 17, 18, 19], 3],
    ['MAESTRO', [12, 13, 14, 15, 16, 17, 18, 19], 3],
  ])('%s has lengths %j and a CVV of %i digits', (brand, lengths, cvv) => {
    expect([...validLengthsFor(brand)]).toEqual(lengths);
    expect(cvvLengthFor(brand)).toBe(cvv);
  });

  it('gives only the AMEX a 4-digit CVV', () => {
    expect(CARD_BRANDS.filter((brand) => cvvLengthFor(brand) === 4)).toEqual(['AMEX']);
  });

  it('keeps every brand within the 12–19 digits the contract allows', () => {
    for (const brand of CARD_BRANDS) {
      const lengths = validLengthsFor(brand);
      expect(lengths.length).toBeGreaterThan(0);
      expect(Math.min(...lengths)).toBeGreaterThanOrEqual(12);
      expect(Math.max(...lengths)).toBeLessThanOrEqual(19);
    }
  });

  it('has a valid length for every public test number of its brand', () => {
    for (const number of PUBLIC_NUMBERS) {
      const brand = detectBrand(number);
      expect(brand, number).toBeDefined();
      expect(validLengthsFor(brand!), number).toContain(number.length);
    }
  });
});

describe('public test card numbers', () => {
  it.each(PUBLIC_NUMBERS)('%s is a known public test card', (number) => {
    expect(isPublicTestCard(number)).toBe(true);
  });

  it('lists only Luhn-valid numbers with a known brand and a valid length', () => {
    for (const number of PUBLIC_TEST_CARD_NUMBERS) {
      expect(isLuhnValid(number), number).toBe(true);
      const brand = detectBrand(number);
      expect(brand, number).toBeDefined();
      expect(validLengthsFor(brand!), number).toContain(number.length);
    }
  });

  it('does not treat a made-up number or a spaced test number as a public test card', () => {
    expect(isPublicTestCard(pan('49', 16))).toBe(false);
    expect(isPublicTestCard('4111 1111 1111 1111')).toBe(false);
  });
});

describe('maskName', () => {
  it.each([
    ['Sara Ryder', 'S*** R****'],
    ['Zoë Łukasiewicz', 'Z** Ł**********'],
    ['Ñandú O’Brien-Smith', 'Ñ**** O************'],
    ['王小明', '王**'],
    ['Ωμέγα Αλφα', 'Ω**** Α***'],
    ['محمد بن سلمان', 'م*** ب* س****'],
    ['A B', 'A B'],
    ['Madonna', 'M******'],
  ])('%s → %s', (name, masked) => {
    expect(maskName(name)).toBe(masked);
  });

  it('counts by code point, not by UTF-16 unit (characters outside the BMP)', () => {
    // U+20BB7 (𠮷) is two UTF-16 units but one code point.
    expect(maskName('𠮷野家')).toBe('𠮷**');
    expect(maskName('野𠮷')).toBe('野*');
  });

  it('trims and collapses runs of whitespace between words', () => {
    expect(maskName('  Sara \t  Ryder  ')).toBe('S*** R****');
    expect(maskName('Sara\u3000Ryder')).toBe('S*** R****');
  });

  it('keeps only the first character of each word in clear', () => {
    const name = 'Denise Foreman-Ortega';
    const masked = maskName(name);
    expect(Array.from(masked)).toHaveLength(Array.from(name).length);
    expect(masked.replace(/[* ]/g, '')).toBe('DF');
  });
});
