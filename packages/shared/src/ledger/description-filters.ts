// descriptionFilters (docs/ledger.md#listing) → conditions on the transaction's code group, origin
// id or payment method. Several filters are OR-ed; the export uses the same mapping.

import type { TCodeGroup } from './enums.js';

/** What one description filter selects: a code group, with an origin id or a payment method. */
export type TDescriptionCondition =
  | { group: TCodeGroup; originId: string }
  | { group: TCodeGroup }
  | { group: 'PAYMENT'; paymentMethod: string };

const WITH_ORIGIN: Record<string, TCodeGroup> = {
  product: 'ITEM_SERVICE',
  tax: 'TAX',
  addon: 'ADDON',
  fee: 'FEE',
  custom_item: 'CUSTOM_ITEM',
  bookable_resource: 'SPACE',
};

const LITERAL: Record<string, TCodeGroup> = {
  rate: 'ROOM_REVENUE_RATE',
  roomRevenue_manual: 'ROOM_REVENUE_MANUAL',
  roomRevenue_cancellation: 'ROOM_REVENUE_CANCELLATION',
  roomRevenue_no_show: 'ROOM_REVENUE_NO_SHOW',
  accountsReceivable: 'ACCOUNTS_RECEIVABLE',
};

const PAYMENT_METHODS = new Set(['cash', 'ebanking', 'cards_visa', 'cards_master', 'pay_pal']);

export function parseDescriptionFilter(filter: string): TDescriptionCondition | undefined {
  if (Object.hasOwn(LITERAL, filter)) return { group: LITERAL[filter]! };
  if (PAYMENT_METHODS.has(filter)) return { group: 'PAYMENT', paymentMethod: filter };
  const match = /^([a-z_]+)_(\d{1,19})$/.exec(filter);
  if (match && Object.hasOwn(WITH_ORIGIN, match[1]!)) {
    const originId = BigInt(match[2]!);
    if (originId >= 1n && originId <= 9223372036854775807n) return { group: WITH_ORIGIN[match[1]!]!, originId: originId.toString() };
  }
  return undefined;
}
