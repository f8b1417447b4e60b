// docs/ledger.md#import: the stay behind a reservation, the people who post, and the objects a
// transaction may carry (its account and, on a PAYMENT row, its payment). Enums are the reference
// accounting API's, spelled as it spells them.

import { ZInt64Id } from '../schemas/common.js';
import { z } from '../schemas/zod.js';
import { RESERVATION_STATUSES } from './enums.js';
import { optionalFreeText, optionalId, optionalText, text, ZDecimal, ZIsoDate, ZStringId } from './field-schemas.js';

export const EXTERNAL_RELATION_KINDS = [
  'ROOM', 'PAYMENT', 'ITEM', 'ITEM_POS', 'ADDON', 'RESERVATION', 'ACCOUNTS_RECEIVABLE', 'ROOM_REVENUE', 'TAX', 'FEE',
  'ADJUSTMENT', 'PAYMENT_FEE', 'BOOKABLE_RESOURCE', 'CHANNEL_COMMISSION', 'CITY_LEDGER', 'GRATUITY', 'CHECK_ITEM',
  'CHECK_SERVICE_CHARGE', 'CHECK_DISCOUNT', 'CHANNEL_COMMISSION_MANUAL',
] as const;
export const ACCOUNT_CATEGORIES = ['DEPOSITS'] as const;
export const CHART_OF_ACCOUNT_TYPES = ['LIABILITIES', 'REVENUE', 'ASSETS', 'EQUITY', 'EXPENSES'] as const;
export const PAYMENT_TRANSACTION_TYPES = ['Purchase', 'Capture', 'Refund', 'Authorize', 'Void', 'Record'] as const;
export const PROCESSING_STATUSES = ['unconfirmed', 'confirmed'] as const;

/** A user id: "0" (or absent) is the system. */
const NOT_A_USER_ID = 'must be a user id (digits)';
export const ZUserId = z
  .union([z.number(NOT_A_USER_ID).int(NOT_A_USER_ID).min(0, NOT_A_USER_ID).max(Number.MAX_SAFE_INTEGER, NOT_A_USER_ID), z.string(NOT_A_USER_ID).regex(/^\d{1,19}$/, NOT_A_USER_ID)], { error: (issue) => (issue.input === undefined ? 'is required' : NOT_A_USER_ID) })
  // "007" and 7 name the same user; "00" is the system like "0".
  .transform((v) => BigInt(v).toString());

const guestCount = z.int('must be a whole number').min(0, 'must be 0-99').max(99, 'must be 0-99').nullish().transform((v) => v ?? undefined);

export const ZReservationRoom = z
  .strictObject({
    id: ZInt64Id.openapi({ description: 'The booked room: the subSourceId of the transactions posted to it' }),
    roomName: text(100),
    roomTypeName: optionalText(100),
    archived: z.boolean().nullish().transform((v) => v ?? false),
  })
  .openapi('LedgerReservationRoom');

export const ZReservation = z
  .strictObject({
    id: ZInt64Id.openapi({ description: 'The RESERVATION source id' }),
    identifier: optionalText(100),
    guestName: text(200),
    status: z.enum(RESERVATION_STATUSES),
    checkinDate: ZIsoDate,
    checkoutDate: ZIsoDate,
    adults: guestCount,
    children: guestCount,
    // Absent: the rooms already stored are kept; a list (also empty) replaces them.
    rooms: z.array(ZReservationRoom).max(100).nullish().transform((v) => v ?? undefined),
    propertyId: optionalId,
  })
  .superRefine((reservation, ctx) => {
    // zod runs this even when a date failed its own check: compare only two real dates.
    const bothDates = ZIsoDate.safeParse(reservation.checkinDate).success && ZIsoDate.safeParse(reservation.checkoutDate).success;
    if (bothDates && reservation.checkoutDate < reservation.checkinDate) {
      ctx.addIssue({ code: 'custom', path: ['checkoutDate'], message: 'must not be before checkinDate' });
    }
    const seen = new Set<string>();
    reservation.rooms?.forEach((room, index) => {
      if (seen.has(room.id)) ctx.addIssue({ code: 'custom', path: ['rooms', index, 'id'], message: 'appears twice in this reservation' });
      seen.add(room.id);
    });
  })
  .openapi('LedgerReservation');

export const ZUser = z
  .strictObject({
    id: ZUserId.refine((id) => id !== '0', 'must not be 0 (that is the system user)'),
    firstName: text(100),
    lastName: text(100),
    email: z.email('must be an e-mail address').max(254).nullish().transform((v) => v ?? undefined),
    propertyId: optionalId,
  })
  .openapi('LedgerUser');

export const ZAccount = z
  .strictObject({
    id: ZStringId,
    name: text(200),
    description: optionalFreeText(500),
    category: z.enum(ACCOUNT_CATEGORIES).nullish().transform((v) => v ?? undefined),
    chartOfAccountType: z.enum(CHART_OF_ACCOUNT_TYPES).nullish().transform((v) => v ?? undefined),
  })
  .openapi('LedgerAccount');

export const ZPayment = z
  .strictObject({
    paymentId: ZStringId.openapi({ description: 'The payment service\'s own id of the payment (e.g. "pay_3NqABC"), answered exactly as given' }),
    transactionType: z.enum(PAYMENT_TRANSACTION_TYPES),
    gateway: optionalText(100),
    creditCardType: z
      .string()
      .regex(/^[a-z][a-z_]{0,29}$/, 'must be a card brand code such as "visa", "master" or "amex"')
      .nullish()
      .transform((v) => v ?? undefined),
    cardTrailingDigits: z.string().regex(/^\d{4}$/, 'must be the last four digits of the card').nullish().transform((v) => v ?? undefined),
    amountPaid: ZDecimal.nullish().transform((v) => v ?? undefined),
    amountRefunded: ZDecimal.nullish().transform((v) => v ?? undefined),
    processingStatus: z.enum(PROCESSING_STATUSES).nullish().transform((v) => v ?? undefined),
    cardTokenId: z
      .uuid({ error: 'must be a card token id (UUID)' })
      .nullish()
      // The vault answers ids in lower case; a client may write them in upper case.
      .transform((v) => v?.toLowerCase() ?? undefined)
      .openapi({ description: 'A vault token of the property (test or live); its brand and last four fill creditCardType and cardTrailingDigits when absent' }),
  })
  .openapi('LedgerPayment');

export type TReservation = z.output<typeof ZReservation>;
export type TUser = z.output<typeof ZUser>;
export type TPayment = z.output<typeof ZPayment>;
export type TAccount = z.output<typeof ZAccount>;
