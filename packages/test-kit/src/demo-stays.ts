/**
 * The stay side of the demo ledger (demo-ledger.ts): the front-desk users who post, the booked
 * rooms and their types, the reservation record of each RESERVATION source, the accounts and
 * general-ledger codes rows are booked to, the payment objects of card and cash payments, and the
 * foreign currency a guest tenders. Plain data and small builders: the generator calls them once
 * per stay or row, so they stay cheap (benchmarks generate tens of thousands of rows).
 */
type TRecord = Record<string, unknown>;

const FRONT_DESK = [
  { firstName: 'Ana', lastName: 'Ferreira', email: 'ana.ferreira' },
  { firstName: 'Lucía', lastName: 'Gómez', email: 'lucia.gomez' },
  { firstName: 'Tomasz', lastName: 'Nowak', email: 'tomasz.nowak' },
  { firstName: 'Aiko', lastName: 'Tanaka', email: 'aiko.tanaka' },
  { firstName: 'Joël', lastName: 'Martin', email: 'joel.martin' },
] as const;

/** The users of a property: 3 or 4 of the front desk, ids "1".. (the system, "0", is not a user). */
export function demoUsers(propertyId: number): TRecord[] {
  const count = 3 + (propertyId % 2);
  return Array.from({ length: count }, (_, index) => {
    const person = FRONT_DESK[(propertyId + index) % FRONT_DESK.length]!;
    return { id: String(index + 1), firstName: person.firstName, lastName: person.lastName, email: `${person.email}@frontdesk-${propertyId}.example` };
  });
}

/** Rooms of the demo hotel with their types; a stay's rooms are picked by its index. */
export const ROOMS = [
  { name: '101', type: 'Double Standard' },
  { name: '102', type: 'Twin Standard' },
  { name: '204', type: 'Double Deluxe' },
  { name: '305', type: 'Double Deluxe' },
  { name: '412', type: 'Junior Suite' },
  { name: 'Suite Atlântico', type: 'Ocean View Suite' },
] as const;

/** When a stay runs, in days from today: arrival day and nights. */
export interface TStayDates {
  arrival: number;
  nights: number;
}

/** The status the front desk would show today: before arrival, in house, or gone. */
export function stayStatus(stay: TStayDates): 'confirmed' | 'checked_in' | 'checked_out' {
  if (stay.arrival > 0) return 'confirmed';
  return stay.arrival + stay.nights <= 0 ? 'checked_out' : 'checked_in';
}

/** The booked room `room` of stay `r`: its id is the subSourceId its nightly rows carry. */
export function bookedRoom(sourceId: number, r: number, room: number): { id: string; roomName: string; roomTypeName: string } {
  const { name, type } = ROOMS[(r + room) % ROOMS.length]!;
  return { id: String(sourceId * 10 + room + 1), roomName: name, roomTypeName: type };
}

/** Accounts rows are booked to (shared objects: the generator never changes them). */
export const ACCOUNTS = {
  rooms: { id: '4000', name: 'Room revenue', chartOfAccountType: 'REVENUE' },
  vat: { id: '2310', name: 'VAT payable', chartOfAccountType: 'LIABILITIES' },
  deposits: { id: '2400', name: 'Guest deposits', description: 'Advance payments held until check-out', category: 'DEPOSITS', chartOfAccountType: 'LIABILITIES' },
  cash: { id: '1010', name: 'Front desk cash', chartOfAccountType: 'ASSETS' },
} as const;

/** The codes of a nightly rate, its VAT and city tax, and of the extras (listing columns). */
export const CODES = {
  rate: { customTransactionCode: 'BAR', generalLedgerCustomCode: '4000', account: ACCOUNTS.rooms, externalRelationKind: 'ROOM_REVENUE' },
  vat: { customTransactionCode: 'VAT10', generalLedgerCustomCode: '2310', account: ACCOUNTS.vat, externalRelationKind: 'TAX', externalRelationId: '11' },
  cityTax: { customTransactionCode: 'CITYTAX', generalLedgerCustomCode: '2320', externalRelationKind: 'FEE', externalRelationId: '21' },
  minibar: { customTransactionCode: 'MINIBAR', generalLedgerCustomCode: '4110', externalRelationKind: 'ITEM' },
  spa: { customTransactionCode: 'SPA60', generalLedgerCustomCode: '4200', externalRelationKind: 'ADDON', externalRelationId: '401' },
} as const;

/** Demo card numbers' last four: the public test cards 4111 1111 1111 1111 and 5555 5555 5555 4444. */
const LAST_FOUR: Record<string, string> = { visa: '1111', master: '4444' };

/**
 * A card payment through the demo gateway. With a vault token for the visa card, a visa payment
 * names the token and leaves the brand and last four to the import (it fills them from the token).
 */
export function cardPayment(paymentId: string, method: 'cards_visa' | 'cards_master', amountPaid: string, cardTokenId?: string): TRecord {
  const brand = method === 'cards_visa' ? 'visa' : 'master';
  const card = cardTokenId && brand === 'visa' ? { cardTokenId } : { creditCardType: brand, cardTrailingDigits: LAST_FOUR[brand] };
  return { paymentId, transactionType: 'Purchase', gateway: 'DemoGateway', processingStatus: 'confirmed', amountPaid, ...card };
}

/** Cash taken at the desk: recorded, never sent to a gateway. */
export function cashPayment(paymentId: string, amountPaid: string): TRecord {
  return { paymentId, transactionType: 'Record', processingStatus: 'confirmed', amountPaid };
}

/**
 * The currency a foreign guest pays in at a property of `currency`, its decimals, and a fixed demo
 * rate (units of it per unit of the property's currency) — always a currency other than the row's.
 */
const TENDERS: Record<string, { currency: string; scale: number; rate: number }> = {
  EUR: { currency: 'USD', scale: 2, rate: 1.082 },
  USD: { currency: 'MXN', scale: 2, rate: 17.25 },
  BRL: { currency: 'USD', scale: 2, rate: 0.18 },
  CHF: { currency: 'EUR', scale: 2, rate: 1.05 },
  JPY: { currency: 'USD', scale: 2, rate: 0.0067 },
};

/** The foreign tender of an amount (a decimal string) in the property's currency; same sign. */
export function foreignTender(currency: string, amount: string): { foreignCurrency: string; foreignCurrencyAmount: string } {
  // A currency the demo has no tender for pays in USD (USD itself has one: MXN).
  const tender = TENDERS[currency] ?? TENDERS.EUR!;
  const factor = 10 ** tender.scale;
  const value = Math.round(Number(amount) * tender.rate * factor) / factor;
  return { foreignCurrency: tender.currency, foreignCurrencyAmount: value.toFixed(tender.scale) };
}
