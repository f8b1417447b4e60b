// The card vault's requests and answers (docs/vault.md). Messages never quote the value: a card
// number must not come back in an error.

import { CARD_BRANDS, cvvLengthFor, detectBrand, validLengthsFor } from './card/brand.js';
import { isLuhnValid } from './card/luhn.js';
import { codePointLength, PRINTABLE, ZPropertyHeaders } from '../schemas/common.js';
import { z } from '../schemas/zod.js';

const MAX_YEARS_AHEAD = 20;
/**
 * The documented card's expiry year, a few years from whenever the document is built, so the
 * example ("Try it out" on /docs) never describes an expired card.
 */
const EXAMPLE_EXPIRY_YEAR = String(new Date().getUTCFullYear() + 4);

function printableText(max: number) {
  return z
    .string()
    .transform((value) => value.trim())
    .pipe(
      z
        .string()
        .min(1, 'must not be empty')
        .refine((value) => codePointLength(value) <= max, `must be at most ${max} characters`)
        .refine((value) => PRINTABLE.test(value), 'must contain printable characters only'),
    );
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });
const isCountryCode = (code: string) => /^[A-Z]{2}$/.test(code) && regionNames.of(code) !== code;

export const ZCardNumber = z
  .string()
  .transform((value) => value.replace(/[\s-]/g, ''))
  .pipe(
    z
      .string()
      .regex(/^\d{12,19}$/, 'must be 12 to 19 digits (spaces and dashes are ignored)')
      .refine(isLuhnValid, 'is not a valid card number (Luhn check failed)'),
  )
  .openapi({ type: 'string', example: '4111 1111 1111 1111' });

export const ZExpiration = z
  .strictObject({
    month: z.string().regex(/^(0[1-9]|1[0-2])$/, 'must be "01" to "12"').openapi({ example: '08' }),
    year: z.string().regex(/^\d{4}$/, 'must be four digits (YYYY)').openapi({ example: EXAMPLE_EXPIRY_YEAR }),
  })
  .superRefine((exp, ctx) => {
    if (typeof exp.month !== 'string' || typeof exp.year !== 'string') return;
    if (!/^(0[1-9]|1[0-2])$/.test(exp.month) || !/^\d{4}$/.test(exp.year)) return;
    const now = new Date();
    const year = Number(exp.year);
    const month = Number(exp.month);
    const thisYear = now.getUTCFullYear();
    if (year > thisYear + MAX_YEARS_AHEAD) {
      ctx.addIssue({ code: 'custom', path: ['year'], message: `must be at most ${MAX_YEARS_AHEAD} years ahead` });
    } else if (year < thisYear || (year === thisYear && month < now.getUTCMonth() + 1)) {
      // A card is valid through the last day of its expiry month.
      ctx.addIssue({ code: 'custom', path: ['year'], message: 'the card has expired' });
    }
  })
  .openapi('Expiration');

export const ZBillingDetails = z
  .strictObject({
    address1: printableText(200).optional(),
    address2: printableText(200).optional(),
    city: printableText(100).optional(),
    country: z
      .string()
      .refine(isCountryCode, 'must be an ISO 3166-1 alpha-2 country code such as "US"')
      .optional()
      .openapi({ example: 'US' }),
    document_number: printableText(64).optional(),
    name: printableText(100).optional(),
    postal_code: printableText(20).optional(),
    phone: z
      .string()
      .regex(/^\+?[0-9 ().-]{3,32}$/, 'must be a phone number of 3 to 32 digits, spaces and + ( ) . -')
      .optional(),
    state: printableText(64).optional(),
  })
  .openapi('BillingDetails');

export const ZTokenizeCardRequest = z
  .strictObject({
    card_number: ZCardNumber,
    cvv: z.string().regex(/^\d{3,4}$/, 'must be 3 digits (4 for AMEX)').openapi({ example: '123' }),
    card_brand: z.enum(CARD_BRANDS).optional(),
    cardholder_name: printableText(100).openapi({ example: 'Zoë Łukasiewicz' }),
    expiration: ZExpiration,
    billing_details: ZBillingDetails.optional(),
    expires_at: z.iso
      .datetime({ offset: true, error: 'must be an ISO-8601 date-time with a time zone, such as 2027-01-31T00:00:00Z' })
      // Zod runs the refinement even when the format failed: judge only a value that is a date-time.
      .refine((value) => Number.isNaN(Date.parse(value)) || Date.parse(value) > Date.now(), 'must be in the future')
      .optional()
      .openapi({ description: "When the token is shredded; at most VAULT_SHRED_AFTER_EXPIRY_DAYS after the end of the card's expiry month (the default and the latest)." }),
  })
  .superRefine((card, ctx) => {
    // Zod runs object refinements even when a field failed: only judge fields that are valid.
    if (typeof card.card_number !== 'string' || !/^\d{12,19}$/.test(card.card_number) || !isLuhnValid(card.card_number)) return;
    const detected = detectBrand(card.card_number);
    if (!detected) {
      ctx.addIssue({ code: 'custom', path: ['card_number'], message: 'is not a number of a supported card brand' });
      return;
    }
    if (card.card_brand && (CARD_BRANDS as readonly string[]).includes(card.card_brand) && card.card_brand !== detected) {
      ctx.addIssue({ code: 'custom', path: ['card_brand'], message: `does not match the card number (${detected})` });
      return;
    }
    if (!validLengthsFor(detected).includes(card.card_number.length)) {
      ctx.addIssue({ code: 'custom', path: ['card_number'], message: `has a length that is not valid for ${detected}` });
    }
    const cvvLength = cvvLengthFor(detected);
    if (typeof card.cvv === 'string' && /^\d{3,4}$/.test(card.cvv) && card.cvv.length !== cvvLength) {
      ctx.addIssue({ code: 'custom', path: ['cvv'], message: `must be ${cvvLength} digits for ${detected}` });
    }
  })
  .transform((card) => ({ ...card, card_brand: card.card_brand ?? detectBrand(card.card_number)! }))
  .openapi('TokenizeCardRequest', {
    // A public test number. No expires_at: the token then ends at the latest its card allows, and
    // a fixed date in an example would soon be in the past.
    example: {
      card_number: '4111 1111 1111 1111',
      cvv: '123',
      cardholder_name: 'Zoë Łukasiewicz',
      expiration: { month: '08', year: EXAMPLE_EXPIRY_YEAR },
      billing_details: {
        name: 'Zoë Łukasiewicz',
        address1: 'Rua Augusta 100',
        address2: '3.º esquerdo',
        city: 'Lisboa',
        postal_code: '1100-053',
        country: 'PT',
        phone: '+351 21 000 0000',
      },
    },
  });

export type TTokenizeCardRequest = z.output<typeof ZTokenizeCardRequest>;

export const ZTokenizationMode = z.enum(['test', 'live']);
export type TTokenizationMode = z.output<typeof ZTokenizationMode>;

export const ZVaultHeaders = ZPropertyHeaders.extend({
  // The documented value is `test`: the examples' card is a public test number, refused in live mode.
  'svc-tokenization-mode': z.literal('test', { error: 'must be "test" or absent (absent means live)' }).optional().openapi({ example: 'test' }),
});

export const ZTokenizeHeaders = ZVaultHeaders.extend({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255, 'must be at most 255 characters')
    .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII characters')
    .optional()
    ,
});

export const ZTokenSearchQuery = z.strictObject({
  fingerprint: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be a token fingerprint (43 base64url characters)'),
});

export const ZTokenIdParams = z.object({
  id: z.uuid({ error: 'must be a token id (UUID)' }),
});

export const ZCardExpirationOut = z.object({ month: z.string(), year: z.string() });

export const ZTokenizeCardResponse = z
  .object({
    id: z.string().openapi({ example: '019c4d7e-4feb-73af-99f2-34c2771042f6' }),
    card_brand: z.enum(CARD_BRANDS),
    last4: z.string(),
    expiration: ZCardExpirationOut,
    test_mode: z.boolean(),
  })
  .openapi('TokenizeCardResponse');
export type TTokenizeCardResponse = z.output<typeof ZTokenizeCardResponse>;

export const ZCardTokenMetadata = z
  .object({
    id: z.string(),
    card_brand: z.enum(CARD_BRANDS),
    first6: z.string(),
    last4: z.string(),
    expiration: ZCardExpirationOut,
    cardholder_name_masked: z.string().optional(),
    test_mode: z.boolean(),
    created_at: z.string(),
    fingerprint: z.string().openapi({ description: 'HMAC-SHA256 of the card number keyed per property: equal within a property for the same card, unrelated across properties' }),
    expires_at: z.string().openapi({ description: 'When the token is crypto-shredded by the vault sweep' }),
    cvv_held_until: z.string().optional().openapi({ description: 'Present while a CVV is held for a first forward' }),
    last_used_at: z.string().optional().openapi({ description: 'The last forward of this token' }),
  })
  .openapi('CardTokenMetadata');
export type TCardTokenMetadata = z.output<typeof ZCardTokenMetadata>;

/** GET /vault/v1/tokens?fingerprint=: the property's current tokens in the mode, newest first, at most 100. */
export const ZTokenSearchResponse = z.object({ tokens: z.array(ZCardTokenMetadata) }).openapi('CardTokenSearchResponse');
