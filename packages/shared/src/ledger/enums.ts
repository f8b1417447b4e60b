// The ledger's closed lists: source kinds, internal code groups (and which are credits),
// reservation statuses. Their one home, free of zod and the import's schemas (schemas.ts and
// stay-schemas.ts build their enums from these): a render process needs the lists to write a folio
// and should load nothing more (apps/worker/src/exports/render-child.ts).

export const SOURCE_KINDS = ['RESERVATION', 'HOUSE_ACCOUNT', 'GROUP_PROFILE', 'ACCOUNTS_RECEIVABLE_LEDGER'] as const;
export type TSourceKind = (typeof SOURCE_KINDS)[number];

export const CODE_GROUPS = [
  'ROOM_REVENUE_RATE', 'ROOM_REVENUE_MANUAL', 'ROOM_REVENUE_CANCELLATION', 'ROOM_REVENUE_NO_SHOW',
  'ITEM_SERVICE', 'ADDON', 'CUSTOM_ITEM', 'FEE', 'TAX', 'PAYMENT', 'ACCOUNTS_RECEIVABLE', 'SPACE',
  'CHANNEL_COMMISSION', 'GRATUITY', 'SERVICE_CHARGE', 'N_A',
] as const;
export type TCodeGroup = (typeof CODE_GROUPS)[number];

/** Credits are payments and accounts-receivable transfers; every other row is a debit. */
export const CREDIT_GROUPS: ReadonlySet<TCodeGroup> = new Set(['PAYMENT', 'ACCOUNTS_RECEIVABLE']);

export const RESERVATION_STATUSES = ['checked_out', 'checked_in', 'confirmed', 'canceled', 'not_confirmed', 'inquiry', 'deleted', 'no_show'] as const;
export type TReservationStatus = (typeof RESERVATION_STATUSES)[number];
