export { generateLargeSource } from './demo-large-source.js';
import { ACCOUNTS, bookedRoom, cardPayment, cashPayment, CODES, demoUsers, foreignTender, stayStatus, type TStayDates } from './demo-stays.js';

/**
 * Realistic demo data for one property (`npm run ledger:demo`, `npm run demo`, tests, benchmarks):
 * reservations (the stay: guest, status, dates, booked rooms and their types) with room revenue,
 * VAT and city tax per night and room posted by the system, minibar and spa items, a voided charge,
 * pending charges, card payments through a demo gateway (optionally naming a vault card token),
 * cash payments, one of them tendered in a foreign currency, the front-desk users who posted, and
 * a house account. Deterministic for a given property and seed. Raw import records (the API's
 * input shape); the stay's builders are in demo-stays.ts.
 */
export interface TDemoOptions {
  propertyId: number;
  folios: number;
  seed?: number;
  /** "Today" for the data: stays run from a week before to a few days after. */
  now?: Date;
  /** Rows per reservation folio are ~10 per night; this caps nights for very large demos. */
  maxNights?: number;
  /** A vault card token (a visa) of the property: the visa payments name it instead of the card. */
  cardTokenId?: string;
}

type TRecord = Record<string, unknown>;
export interface TDemoLedger {
  property: TRecord;
  recipients: TRecord[];
  reservations: TRecord[];
  users: TRecord[];
  folios: TRecord[];
  transactions: TRecord[];
}

const PROPERTIES = [
  { name: 'Hotel Miramar Lisboa', address: 'Rua da Prata 12, 1100-419 Lisboa, Portugal', taxId: 'PT509123456', phone: '+351 21 000 0000', email: 'reservas@miramar-lisboa.example', website: 'https://miramar-lisboa.example', currency: 'EUR', timezone: 'Europe/Lisbon', language: 'pt' },
  { name: 'Hostal Sol de Sevilla', address: 'Calle Sierpes 48, 41004 Sevilla, España', taxId: 'ESB41234567', phone: '+34 954 000 000', email: 'reservas@solsevilla.example', website: 'https://solsevilla.example', currency: 'EUR', timezone: 'Europe/Madrid', language: 'es' },
  { name: 'The Harbour Inn', address: '77 Pier Street, San Diego, CA 92101, USA', taxId: '12-3456789', phone: '+1 619 555 0100', email: 'frontdesk@harbourinn.example', website: 'https://harbourinn.example', currency: 'USD', timezone: 'America/Los_Angeles', language: 'en' },
  { name: 'Pousada Ipanema', address: 'Rua Visconde de Pirajá 300, Rio de Janeiro, Brasil', taxId: '12.345.678/0001-95', phone: '+55 21 0000 0000', email: 'reservas@pousadaipanema.example', website: 'https://pousadaipanema.example', currency: 'BRL', timezone: 'America/Sao_Paulo', language: 'pt' },
  { name: 'Hôtel du Lac', address: '5 Quai du Mont-Blanc, 1201 Genève, Suisse', taxId: 'CHE-123.456.789 TVA', phone: '+41 22 000 00 00', email: 'reception@hoteldulac.example', website: 'https://hoteldulac.example', currency: 'CHF', timezone: 'Europe/Zurich', language: 'fr' },
  { name: 'Ryokan Hanami', address: '京都市東山区祇園町南側570', taxId: 'T1234567890123', phone: '+81 75 000 0000', email: 'stay@ryokanhanami.example', website: 'https://ryokanhanami.example', currency: 'JPY', timezone: 'Asia/Tokyo', language: 'en' },
] as const;

/**
 * What an invoice needs (docs/ledger.md#invoice-data): the property's taxes (TAX rows name the VAT
 * by originId 11), the VAT of charges no TAX row carries (the items, sold VAT-inclusive), and the
 * city tax, posted as a fee, as an exempt disbursement.
 */
const DEMO_TAXES = [{ id: 11, name: 'VAT 10%', kind: 'VAT', rate: '10', category: 'S' }];
const ITEM_VAT = { category: 'S', rate: '23' };
const CITY_TAX_VAT = { category: 'E', rate: '0', exemptionReasonCode: 'VATEX-EU-79-C' };
/** The Lisbon hotel's identity as a seller, and its company customer's as a buyer. */
const LISBON_SELLER = {
  vatId: 'PT509123456',
  postalAddress: { lines: ['Rua da Prata 12'], city: 'Lisboa', postcode: '1100-419', countryCode: 'PT' },
  iban: 'PT50000201231234567890154',
};
const LISBON_BUYER = { vatId: 'PT509876543', postalAddress: { lines: ['Av. da Liberdade 110'], city: 'Lisboa', postcode: '1250-146', countryCode: 'PT' } };

const GUESTS = [
  'Zoë Łukasiewicz', '王小明', 'Анна Петрова', 'محمد علي', 'Ólafur Jónsson', 'Søren Kierkegaard',
  'José Ramírez', '佐藤 花子', 'Γιώργος Παπαδόπουλος', 'Nguyễn Thị Lan', 'Émilie Dubois', 'Jürgen Müller',
];

/** mulberry32: a tiny deterministic PRNG. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const money = (value: number, scale: number) => value.toFixed(scale);

/** What the builders of one demo share: its PRNG, money, clock, id sequences and the lists they fill. */
interface TDemo {
  options: TDemoOptions;
  rand: () => number;
  pick: <T>(list: readonly T[]) => T;
  /** The property's currency, its decimals, and the unit prices are multiplied by (100 for JPY). */
  currency: string;
  scale: number;
  unit: number;
  id: () => string;
  paymentId: () => string;
  /** An instant within the hour `hour` of the day `dayOffset` days from today. */
  at: (dayOffset: number, hour: number) => string;
  dateOf: (dayOffset: number) => string;
  /**
   * Adds a transaction to `folio`: the folio's source, one unit, posted, by a random front-desk
   * user, naming the folio's guest (customerId) when it has one.
   */
  tx: (folio: TRecord, fields: TRecord) => TRecord;
  /** The guest (recipient id) of each reservation folio, by folio id. */
  guests: Map<unknown, string>;
  /** The sum of each folio's charges so far, by folio id: payments are shares of it. */
  charged: Map<unknown, number>;
  ledger: TDemoLedger;
}

function startDemo(options: TDemoOptions): TDemo {
  const rand = random(options.seed ?? options.propertyId * 7919);
  const profile = PROPERTIES[(options.propertyId - 1) % PROPERTIES.length]!;
  const now = options.now ?? new Date();
  const day = 86_400_000;
  const base = Math.floor(now.getTime() / day) * day;
  let nextId = options.propertyId * 10_000_000_000 + 1;
  // Payments have ids of their own (payment.paymentId), far from the transactions' ids.
  let nextPaymentId = options.propertyId * 10_000_000_000 + 9_000_000_001;
  const ledger: TDemoLedger = {
    property: {
      id: options.propertyId,
      name: profile.name,
      address: profile.address,
      taxId: profile.taxId,
      phone: profile.phone,
      email: profile.email,
      website: profile.website,
      currency: profile.currency,
      timezone: profile.timezone,
      language: profile.language,
      gatewayMode: 'test',
      nightAuditTime: '03:00',
      taxes: DEMO_TAXES,
      ...(profile.currency === 'EUR' && profile.timezone === 'Europe/Lisbon' ? LISBON_SELLER : {}),
    },
    recipients: [
      { type: 'COMPANY', id: options.propertyId * 1000 + 1, name: 'Atlântica Viagens, Lda.', address: 'Av. da Liberdade 110, Lisboa', email: 'reservas@atlantica.example', taxId: 'PT509876543', ...LISBON_BUYER },
    ],
    reservations: [],
    users: demoUsers(options.propertyId),
    folios: [],
    transactions: [],
  };
  const users = ledger.users.length;
  const guests = new Map<unknown, string>();
  const charged = new Map<unknown, number>();
  const id = () => String(nextId++);
  const tx = (folio: TRecord, fields: TRecord) => {
    const guest = guests.get(folio.id);
    const record: TRecord = {
      id: id(),
      folioId: folio.id,
      sourceKind: folio.sourceKind,
      sourceId: folio.sourceId,
      sourceIdentifier: folio.sourceIdentifier,
      quantity: '1',
      currency: profile.currency,
      posted: true,
      userId: String(1 + Math.floor(rand() * users)),
    };
    if (guest) record.customerId = guest;
    // Object.assign rather than a spread into a new literal: one object per row (tens of thousands).
    Object.assign(record, fields);
    if (record.internalCodeGroup !== 'PAYMENT') charged.set(folio.id, (charged.get(folio.id) ?? 0) + Number(record.amount));
    ledger.transactions.push(record);
    return record;
  };
  return {
    options,
    rand,
    pick: <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!,
    currency: profile.currency,
    scale: profile.currency === 'JPY' ? 0 : 2,
    unit: profile.currency === 'JPY' ? 100 : 1,
    id,
    paymentId: () => String(nextPaymentId++),
    at: (dayOffset, hour) => new Date(base + dayOffset * day + hour * 3_600_000 + Math.floor(rand() * 3_600_000)).toISOString(),
    dateOf: (dayOffset) => new Date(base + dayOffset * day).toISOString().slice(0, 10),
    tx,
    guests,
    charged,
    ledger,
  };
}

export function generateDemoLedger(options: TDemoOptions): TDemoLedger {
  const demo = startDemo(options);
  const reservations = Math.max(options.folios - 1, 1);
  for (let r = 0; r < reservations; r += 1) addReservation(demo, r);
  addHouseAccount(demo);
  return demo.ledger;
}

/** Reservation `r`: its guest, main folio, stay (status, dates, rooms), extras and payments. */
function addReservation(demo: TDemo, r: number): void {
  const { options, rand, pick, dateOf } = demo;
  const sourceId = options.propertyId * 100_000 + r + 1;
  const guest = GUESTS[r % GUESTS.length]!;
  const guestId = options.propertyId * 1000 + 100 + r;
  demo.ledger.recipients.push({
    type: 'GUEST', id: guestId, name: guest, address: pick(['Calle Mayor 1, Madrid', '10 Downing St, London', 'Karl Johans gate 1, Oslo', '北京市朝阳区建国路88号']),
    email: `guest${guestId}@example.com`, taxId: `TX${guestId}`, documentNumber: `P${String(guestId).padStart(8, '0')}`,
  });
  const folio = { id: demo.id(), sourceKind: 'RESERVATION', sourceId: String(sourceId), sourceIdentifier: `RES-${sourceId}`, name: `${guest} — main folio` };
  demo.ledger.folios.push(folio);
  demo.guests.set(folio.id, String(guestId));
  const nights = Math.min(1 + Math.floor(rand() * 4), options.maxNights ?? 30);
  const rooms = Array.from({ length: 1 + (rand() < 0.3 ? 1 : 0) }, (_, room) => bookedRoom(sourceId, r, room));
  // Every 7th stay (from the 4th on) is still to come: booked, its nights pending, a deposit paid.
  const arrival = r % 7 === 3 ? 1 + Math.floor(rand() * 5) : -Math.floor(rand() * 7);
  const stay: TStayDates = { arrival, nights };
  demo.ledger.reservations.push({
    id: folio.sourceId, identifier: folio.sourceIdentifier, guestName: guest, status: stayStatus(stay),
    checkinDate: dateOf(arrival), checkoutDate: dateOf(arrival + nights),
    adults: 1 + Math.floor(rand() * 3), children: Math.floor(rand() * 3), rooms,
  });
  for (const room of rooms) addRoomNights(demo, folio, room, stay);
  if (arrival <= 0) addExtras(demo, folio, r, stay);
  addPayments(demo, folio, r, stay);
}

/** Each night of one room: the rate with its VAT and city tax, posted by the night audit (user "0"). */
function addRoomNights(demo: TDemo, folio: TRecord, room: { id: string; roomName: string }, stay: TStayDates): void {
  const { rand, tx, at, dateOf, scale, unit } = demo;
  for (let night = 0; night < stay.nights; night += 1) {
    const rate = (90 + Math.floor(rand() * 120)) * unit;
    const day = stay.arrival + night;
    const where = { subSourceId: room.id, subSourceIdentifier: room.roomName, serviceDate: dateOf(day), userId: '0' };
    // Future nights are pending: charged at night audit of that date.
    const posted = day <= 0;
    const roomCharge = tx(folio, { ...where, ...CODES.rate, externalRelationId: room.id, posted, transactionDatetime: at(day, 23), internalTransactionCode: '1000', internalCodeGroup: 'ROOM_REVENUE_RATE', description: `Room ${room.roomName} — nightly rate`, amount: money(rate, scale) });
    tx(folio, { ...where, ...CODES.vat, posted, transactionDatetime: roomCharge.transactionDatetime, internalTransactionCode: '3000', internalCodeGroup: 'TAX', originId: '11', description: 'VAT 10%', amount: money(rate * 0.1, scale), parentId: roomCharge.id, rootId: roomCharge.id });
    tx(folio, { ...where, ...CODES.cityTax, posted, transactionDatetime: roomCharge.transactionDatetime, internalTransactionCode: '4000', internalCodeGroup: 'FEE', originId: '21', description: 'City tax', amount: money(2 * unit, scale), parentId: roomCharge.id, rootId: roomCharge.id, vat: CITY_TAX_VAT });
  }
}

/** Minibar and spa now and then, a voided charge every 4th stay, a pending late check-out every 3rd. */
function addExtras(demo: TDemo, folio: TRecord, r: number, { arrival, nights }: TStayDates): void {
  const { rand, tx, at, dateOf, scale, unit } = demo;
  if (rand() < 0.7) {
    tx(folio, { ...CODES.minibar, externalRelationId: '301', transactionDatetime: at(arrival, 21), serviceDate: dateOf(arrival), internalTransactionCode: '2000', internalCodeGroup: 'ITEM_SERVICE', originId: '301', description: 'Minibar — sparkling water', quantity: '2', amount: money(6 * unit, scale), vat: ITEM_VAT });
  }
  if (rand() < 0.4) {
    tx(folio, { ...CODES.spa, transactionDatetime: at(arrival, 17), serviceDate: dateOf(arrival), internalTransactionCode: '2100', internalCodeGroup: 'ADDON', originId: '401', description: 'Spa — massage 60 min', amount: money(85 * unit, scale), vat: ITEM_VAT });
  }
  if (r % 4 === 0) {
    // A charge posted by mistake and voided: the void carries the opposite amount.
    const wrong = tx(folio, { transactionDatetime: at(arrival, 20), serviceDate: dateOf(arrival), internalTransactionCode: '2000', internalCodeGroup: 'ITEM_SERVICE', originId: '302', description: 'Minibar — champagne', amount: money(95 * unit, scale), vat: ITEM_VAT });
    tx(folio, { transactionDatetime: at(arrival, 22), serviceDate: dateOf(arrival), internalTransactionCode: '2000', internalCodeGroup: 'ITEM_SERVICE', originId: '302', description: 'Minibar — champagne (void)', notes: 'Posted to the wrong room', amount: money(-95 * unit, scale), isVoid: true, parentId: wrong.id, rootId: wrong.id });
  }
  if (r % 3 === 1) {
    tx(folio, { transactionDatetime: at(arrival + nights - 1, 10), serviceDate: dateOf(arrival + nights - 1), internalTransactionCode: '2200', internalCodeGroup: 'CUSTOM_ITEM', originId: '501', description: 'Late check-out', posted: false, amount: money(30 * unit, scale), vat: ITEM_VAT });
  }
}

/**
 * A card deposit of 30% of the folio's charges (when booking, for a stay still to come); for stays
 * begun, half the time a cash payment of 20% — every 5th stay's in a foreign currency, so every
 * demo has one (the first stay is one).
 */
function addPayments(demo: TDemo, folio: TRecord, r: number, { arrival, nights }: TStayDates): void {
  const { rand, pick, tx, at, dateOf, scale, currency } = demo;
  const charged = demo.charged.get(folio.id) ?? 0;
  const deposit = money(Math.round(charged * 0.3 * 10 ** scale) / 10 ** scale, scale);
  // The first stay's folio is the one `npm run demo` exports: its deposit is the visa (the vault's card).
  const drawn = pick(['cards_visa', 'cards_master'] as const);
  const method = r === 0 ? 'cards_visa' : drawn;
  const paidOn = arrival > 0 ? -1 : arrival;
  const card = demo.paymentId();
  tx(folio, {
    transactionDatetime: at(paidOn, 15), serviceDate: dateOf(paidOn), internalTransactionCode: '9000', internalCodeGroup: 'PAYMENT', paymentMethod: method,
    description: 'Card payment — deposit', amount: `-${deposit}`, customTransactionCode: 'DEPOSIT', generalLedgerCustomCode: '2400', account: ACCOUNTS.deposits,
    externalRelationKind: 'PAYMENT', externalRelationId: card, payment: cardPayment(card, method, deposit, demo.options.cardTokenId),
  });
  if (arrival > 0) return;
  const foreign = r % 5 === 0;
  if (foreign || rand() < 0.5) {
    const cash = money(Math.round(charged * 0.2), scale);
    const tender = foreign ? foreignTender(currency, `-${cash}`) : undefined;
    const paymentId = demo.paymentId();
    tx(folio, {
      transactionDatetime: at(arrival + nights - 1, 11), serviceDate: dateOf(arrival + nights - 1), internalTransactionCode: '9001', internalCodeGroup: 'PAYMENT', paymentMethod: 'cash',
      description: tender ? `Cash payment in ${tender.foreignCurrency}` : 'Cash payment', amount: `-${cash}`, ...tender, account: ACCOUNTS.cash,
      externalRelationKind: 'PAYMENT', externalRelationId: paymentId, payment: cashPayment(paymentId, cash),
    });
  }
}

/** The lobby bar's house account: three sales and the shift's cash each of the last seven days. */
function addHouseAccount(demo: TDemo): void {
  const { options, pick, tx, at, dateOf, scale, unit } = demo;
  const house = { id: demo.id(), sourceKind: 'HOUSE_ACCOUNT', sourceId: String(options.propertyId * 100_000 + 99_999), sourceIdentifier: 'HA-LOBBY', name: 'Lobby bar house account' };
  demo.ledger.folios.push(house);
  for (let d = -6; d <= 0; d += 1) {
    for (let k = 0; k < 3; k += 1) {
      tx(house, { transactionDatetime: at(d, 18 + k), serviceDate: dateOf(d), internalTransactionCode: '2300', internalCodeGroup: 'ITEM_SERVICE', originId: String(600 + k), description: pick(['Café — espresso', 'Bar — caipirinha', 'Bar — vinho do Porto', 'Snack — pastel de nata']), quantity: String(1 + k), amount: money((3 + k * 4) * unit, scale), vat: ITEM_VAT });
    }
    tx(house, { transactionDatetime: at(d, 23), serviceDate: dateOf(d), internalTransactionCode: '9001', internalCodeGroup: 'PAYMENT', paymentMethod: 'cash', description: 'Cash — end of shift', amount: money(-(3 + 7 + 11) * unit, scale) });
  }
}
