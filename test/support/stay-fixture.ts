// A ledger with everything the listing can answer (docs/ledger.md#listing), for
// test/ledger-listing-reference.test.ts. Property 1 (EUR, Europe/Madrid):
// - RESERVATION 6001 with its stay imported (guest "Ana García", rooms 8001 "Room 201" and 8002
//   "Room 202", the latter archived), users 21 and 22, a GUEST recipient 950 named by customerId,
//   rows 6101–6111: codes with custom/GL codes, an account and an external relation, a card payment
//   with its payment object, a payment tendered in USD, a void chain, an N_A row, an adjustment
//   code "1000A", a row on a room that was never imported (8099) and two rows either side of the
//   March DST change.
// - HOUSE_ACCOUNT 6500: one row per code group (6501–6516) and two rows either side of the October
//   DST change.
// - RESERVATION 6002 (no stay imported): a USD payment and its refund, and a EUR refund.
// Property 2 (America/St_Johns, UTC−03:30 in winter) and property 3 (Europe/London) have one row each.

export const STAY_SOURCE = '6001';
export const HOUSE_SOURCE = '6500';
export const REFUND_SOURCE = '6002';

export const PROPERTY = { id: 1, name: 'Hotel Sol de Madrid', currency: 'EUR', timezone: 'Europe/Madrid', gatewayMode: 'test' } as const;

const base = { sourceKind: 'RESERVATION', sourceId: STAY_SOURCE, sourceIdentifier: 'RES-6001', folioId: '601', currency: 'EUR', posted: true, quantity: '1' };
const at = (transactionDatetime: string, serviceDate = transactionDatetime.slice(0, 10)) => ({ transactionDatetime, serviceDate });
const room201 = { subSourceId: '8001', subSourceIdentifier: 'Room 201' };

/** Each code group with the transactionType the reference gives it (N_A: this service's choice). */
export const TYPE_OF_GROUP: Array<[string, string]> = [
  ['PAYMENT', 'payment'],
  ['ITEM_SERVICE', 'product'],
  ['ADDON', 'addon'],
  ['ROOM_REVENUE_RATE', 'rate'],
  ['ROOM_REVENUE_MANUAL', 'roomRevenue_manual'],
  ['ROOM_REVENUE_CANCELLATION', 'roomRevenue_cancellation'],
  ['ROOM_REVENUE_NO_SHOW', 'roomRevenue_no_show'],
  ['TAX', 'tax'],
  ['FEE', 'fee'],
  ['CUSTOM_ITEM', 'custom_item'],
  ['ACCOUNTS_RECEIVABLE', 'accountsReceivable'],
  ['SPACE', 'space'],
  ['CHANNEL_COMMISSION', 'channel_commission'],
  ['GRATUITY', 'gratuity'],
  ['SERVICE_CHARGE', 'service_charge'],
  ['N_A', 'adjustment'],
];

export const STAY_IMPORT = {
  property: PROPERTY,
  recipients: [{ type: 'GUEST', id: '950', name: 'Zoë Łukasiewicz', email: 'zoe@example.com' }],
  reservations: [
    {
      id: STAY_SOURCE,
      identifier: 'RES-6001',
      guestName: 'Ana García',
      status: 'checked_in',
      checkinDate: '2026-03-28',
      checkoutDate: '2026-04-02',
      adults: 2,
      rooms: [
        { id: '8001', roomName: 'Room 201', roomTypeName: 'Deluxe' },
        { id: '8002', roomName: 'Room 202', archived: true },
      ],
    },
  ],
  users: [
    { id: '21', firstName: 'Lucía', lastName: 'Pérez', email: 'lucia@example.com' },
    { id: 22, firstName: 'Marc', lastName: 'Soler' },
  ],
  folios: [
    { id: '601', sourceKind: 'RESERVATION', sourceId: STAY_SOURCE, name: 'Guest folio' },
    { id: '650', sourceKind: 'HOUSE_ACCOUNT', sourceId: HOUSE_SOURCE, name: 'House folio' },
    { id: '602', sourceKind: 'RESERVATION', sourceId: REFUND_SOURCE, name: 'Walk-in folio' },
  ],
  transactions: [
    {
      ...base, ...room201, id: '6101', ...at('2026-03-29T00:30:00Z', '2026-03-28'), internalTransactionCode: 'RR', internalCodeGroup: 'ROOM_REVENUE_RATE',
      description: 'Room rate — Deluxe', notes: 'first night', amount: '100.00', userId: '21', customerId: '950', customTransactionCode: 'CUST-RR',
      generalLedgerCustomCode: 'GL-4000', externalRelationId: '7701', externalRelationKind: 'ROOM_REVENUE',
      account: { id: 3001, name: 'Room revenue', description: 'Rooms sold', chartOfAccountType: 'REVENUE' },
    },
    {
      ...base, id: '6102', subSourceId: '8002', subSourceIdentifier: 'Room 202', ...at('2026-03-29T01:30:00Z'), internalTransactionCode: 'MINI',
      internalCodeGroup: 'ITEM_SERVICE', originId: '123', description: 'Minibar', quantity: '3', amount: '9.00', userId: 22,
    },
    { ...base, ...room201, id: '6103', ...at('2026-03-30T08:00:00Z'), internalTransactionCode: 'BRK', internalCodeGroup: 'ADDON', originId: '55', description: 'Breakfast', quantity: '2', amount: '30.00', userId: '0' },
    {
      ...base, id: '6104', ...at('2026-03-30T10:00:00Z'), internalTransactionCode: 'PAY-VIS', internalCodeGroup: 'PAYMENT', paymentMethod: 'cards_visa',
      description: 'Payment Visa ****1111', amount: '-139.00', userId: '99', externalRelationId: '5501', externalRelationKind: 'PAYMENT',
      account: { id: '3100', name: 'Guest deposits', category: 'DEPOSITS', chartOfAccountType: 'LIABILITIES' },
      payment: {
        paymentId: '5501', transactionType: 'Capture', gateway: 'adyen', creditCardType: 'visa', cardTrailingDigits: '1111', amountPaid: '139.00',
        amountRefunded: 0, processingStatus: 'confirmed',
      },
    },
    {
      ...base, id: '6105', ...at('2026-03-30T11:00:00Z'), internalTransactionCode: 'PAY-CASH', internalCodeGroup: 'PAYMENT', paymentMethod: 'cash',
      description: 'Payment cash in dollars', amount: '-100.00', foreignCurrency: 'USD', foreignCurrencyAmount: '-108.50',
      payment: { paymentId: 5502, transactionType: 'Record' },
    },
    { ...base, ...room201, id: '6106', ...at('2026-03-30T20:00:00Z'), internalTransactionCode: 'MINI', internalCodeGroup: 'ITEM_SERVICE', description: 'Minibar water', amount: '4.00', userId: '21' },
    {
      ...base, ...room201, id: '6107', ...at('2026-03-30T20:30:00Z'), internalTransactionCode: 'MINI', internalCodeGroup: 'ITEM_SERVICE', description: 'Minibar water (void)',
      quantity: '-1', amount: '-4.00', userId: '21', isVoid: true, parentId: '6106',
    },
    { ...base, id: '6108', ...at('2026-03-31T09:00:00Z'), internalTransactionCode: 'MISC', internalCodeGroup: 'N_A', description: 'Rounding', amount: '0.50' },
    { ...base, ...room201, id: '6109', ...at('2026-03-31T10:00:00Z'), internalTransactionCode: '1000A', internalCodeGroup: 'ROOM_REVENUE_RATE', description: 'Rate correction', amount: '-10.00', userId: '21' },
    { ...base, id: '6110', ...at('2026-04-01T09:00:00Z'), internalTransactionCode: 'AR', internalCodeGroup: 'ACCOUNTS_RECEIVABLE', description: 'To company ledger', amount: '-20.00' },
    {
      ...base, id: '6111', subSourceId: '8099', subSourceIdentifier: 'Room 299', ...at('2026-04-01T10:00:00Z'), internalTransactionCode: 'CITY',
      internalCodeGroup: 'FEE', description: 'City tax', quantity: '2', amount: '2.00',
    },
    ...houseRows(),
    ...refundRows(),
  ],
};

/** House account 6500: rows 6501–6516, one per code group (code "C<n>"), then 6517 and 6518 around the October change. */
function houseRows() {
  const house = { ...base, sourceKind: 'HOUSE_ACCOUNT', sourceId: HOUSE_SOURCE, sourceIdentifier: 'HOUSE', folioId: '650' };
  const rows: Array<Record<string, unknown>> = TYPE_OF_GROUP.map(([group], index) => ({
    ...house,
    id: String(6501 + index),
    ...at(`2026-01-${String(index + 10).padStart(2, '0')}T12:00:00Z`),
    internalTransactionCode: `C${index + 1}`,
    internalCodeGroup: group,
    description: `House ${group}`,
    amount: group === 'PAYMENT' || group === 'ACCOUNTS_RECEIVABLE' ? '-1.00' : '1.00',
    // A house account has no stay: a sub-source id that is a booked room of a reservation names no room here.
    ...(index === 0 ? { subSourceId: '8001', paymentMethod: 'cash' } : {}),
  }));
  rows.push(
    { ...house, id: '6517', ...at('2026-10-25T00:30:00Z'), internalTransactionCode: 'TX', internalCodeGroup: 'TAX', description: 'Before the fall-back', amount: '1.00' },
    { ...house, id: '6518', ...at('2026-10-25T01:30:00Z'), internalTransactionCode: 'TX', internalCodeGroup: 'TAX', description: 'After the fall-back', amount: '1.00' },
  );
  return rows;
}

/** Reservation 6002 (no stay imported): USD 50 paid and refunded (net 0), EUR 10 refunded (net −10). */
function refundRows() {
  const walkIn = { ...base, sourceId: REFUND_SOURCE, sourceIdentifier: 'RES-6002', folioId: '602', internalCodeGroup: 'PAYMENT', paymentMethod: 'cash' };
  return [
    { ...walkIn, id: '6201', ...at('2026-03-30T09:00:00Z'), internalTransactionCode: 'PAY-CASH', description: 'Dollars', amount: '-46.00', foreignCurrency: 'USD', foreignCurrencyAmount: '-50.00' },
    { ...walkIn, id: '6202', ...at('2026-03-30T09:30:00Z'), internalTransactionCode: 'REF-CASH', description: 'Dollars back', amount: '46.00', foreignCurrency: 'USD', foreignCurrencyAmount: '50.00' },
    { ...walkIn, id: '6203', ...at('2026-03-30T10:00:00Z'), internalTransactionCode: 'REF-CASH', description: 'Euros back', amount: '10.00' },
  ];
}

/** Property 2 and 3: one row each, for the UTC offsets −03:30 and +00:00. */
export const OFFSET_IMPORTS: Array<{ propertyId: number; body: Record<string, unknown> }> = [
  { propertyId: 2, timezone: 'America/St_Johns', currency: 'CAD' },
  { propertyId: 3, timezone: 'Europe/London', currency: 'GBP' },
].map(({ propertyId, timezone, currency }) => ({
  propertyId,
  body: {
    property: { id: propertyId, name: `Property ${propertyId}`, currency, timezone, gatewayMode: 'test' },
    transactions: [
      {
        ...base, currency, sourceKind: 'HOUSE_ACCOUNT', sourceId: HOUSE_SOURCE, folioId: '650', id: '6601', ...at('2026-01-15T12:00:00Z'),
        internalTransactionCode: 'TX', internalCodeGroup: 'TAX', description: 'Winter row', amount: '1.00',
      },
    ],
  },
}));
