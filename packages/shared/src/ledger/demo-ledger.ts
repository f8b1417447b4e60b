/**
 * Realistic demo data for one property (`npm run ledger:demo`, `npm run demo`, tests, benchmarks):
 * reservations with room revenue, VAT and city tax per night and room, minibar and spa items, a
 * voided charge, pending charges, card and cash payments, several rooms, and a house account.
 * Deterministic for a given property and seed. Raw import records (the API's input shape).
 */
export interface TDemoOptions {
  propertyId: number;
  folios: number;
  seed?: number;
  /** "Today" for the data: stays run from a week before to a few days after. */
  now?: Date;
  /** Rows per reservation folio are ~10 per night; this caps nights for very large demos. */
  maxNights?: number;
}

type TRecord = Record<string, unknown>;
export interface TDemoLedger {
  property: TRecord;
  recipients: TRecord[];
  folios: TRecord[];
  transactions: TRecord[];
}

const PROPERTIES = [
  { name: 'Hotel Miramar Lisboa', address: 'Rua da Prata 12, 1100-419 Lisboa, Portugal', currency: 'EUR', timezone: 'Europe/Lisbon', language: 'pt' },
  { name: 'Hostal Sol de Sevilla', address: 'Calle Sierpes 48, 41004 Sevilla, España', currency: 'EUR', timezone: 'Europe/Madrid', language: 'es' },
  { name: 'The Harbour Inn', address: '77 Pier Street, San Diego, CA 92101, USA', currency: 'USD', timezone: 'America/Los_Angeles', language: 'en' },
  { name: 'Pousada Ipanema', address: 'Rua Visconde de Pirajá 300, Rio de Janeiro, Brasil', currency: 'BRL', timezone: 'America/Sao_Paulo', language: 'pt' },
  { name: 'Hôtel du Lac', address: '5 Quai du Mont-Blanc, 1201 Genève, Suisse', currency: 'CHF', timezone: 'Europe/Zurich', language: 'fr' },
  { name: 'Ryokan Hanami', address: '京都市東山区祇園町南側570', currency: 'JPY', timezone: 'Asia/Tokyo', language: 'en' },
] as const;

const GUESTS = [
  'Zoë Łukasiewicz', '王小明', 'Анна Петрова', 'محمد علي', 'Ólafur Jónsson', 'Søren Kierkegaard',
  'José Ramírez', '佐藤 花子', 'Γιώργος Παπαδόπουλος', 'Nguyễn Thị Lan', 'Émilie Dubois', 'Jürgen Müller',
];

const ROOMS = ['101', '102', '204', '305', '412', 'Suite Atlântico'];

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

/** What the builders of one demo share: its PRNG, money, clock, id sequence and the lists they fill. */
interface TDemo {
  options: TDemoOptions;
  rand: () => number;
  pick: <T>(list: readonly T[]) => T;
  /** Decimals of the currency, and the unit prices are multiplied by (100 for JPY). */
  scale: number;
  unit: number;
  id: () => string;
  /** An instant within the hour `hour` of the day `dayOffset` days from today. */
  at: (dayOffset: number, hour: number) => string;
  dateOf: (dayOffset: number) => string;
  /** Adds a transaction to `folio`: the folio's source, one unit, posted, by a random user. */
  tx: (folio: TRecord, fields: TRecord) => TRecord;
  ledger: TDemoLedger;
}

function startDemo(options: TDemoOptions): TDemo {
  const rand = random(options.seed ?? options.propertyId * 7919);
  const profile = PROPERTIES[(options.propertyId - 1) % PROPERTIES.length]!;
  const now = options.now ?? new Date();
  const day = 86_400_000;
  const base = Math.floor(now.getTime() / day) * day;
  let nextId = options.propertyId * 10_000_000_000 + 1;
  const ledger: TDemoLedger = {
    property: {
      id: options.propertyId,
      name: profile.name,
      address: profile.address,
      currency: profile.currency,
      timezone: profile.timezone,
      language: profile.language,
      gatewayMode: 'test',
      nightAuditTime: '03:00',
    },
    recipients: [
      { type: 'COMPANY', id: options.propertyId * 1000 + 1, name: 'Atlântica Viagens, Lda.', address: 'Av. da Liberdade 110, Lisboa', email: 'reservas@atlantica.example', taxId: 'PT509876543' },
    ],
    folios: [],
    transactions: [],
  };
  const id = () => String(nextId++);
  const tx = (folio: TRecord, fields: TRecord) => {
    const record: TRecord = {
      id: id(),
      folioId: folio.id,
      sourceKind: folio.sourceKind,
      sourceId: folio.sourceId,
      sourceIdentifier: folio.sourceIdentifier,
      quantity: '1',
      currency: profile.currency,
      posted: true,
      userId: String(1 + Math.floor(rand() * 4)),
      ...fields,
    };
    ledger.transactions.push(record);
    return record;
  };
  return {
    options,
    rand,
    pick: <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!,
    scale: profile.currency === 'JPY' ? 0 : 2,
    unit: profile.currency === 'JPY' ? 100 : 1,
    id,
    at: (dayOffset, hour) => new Date(base + dayOffset * day + hour * 3_600_000 + Math.floor(rand() * 3_600_000)).toISOString(),
    dateOf: (dayOffset) => new Date(base + dayOffset * day).toISOString().slice(0, 10),
    tx,
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

/** Reservation `r`: its guest, main folio, stay, extras and payments. */
function addReservation(demo: TDemo, r: number): void {
  const { options, rand, pick } = demo;
  const sourceId = options.propertyId * 100_000 + r + 1;
  const guest = GUESTS[r % GUESTS.length]!;
  const guestId = options.propertyId * 1000 + 100 + r;
  demo.ledger.recipients.push({
    type: 'GUEST', id: guestId, name: guest, address: pick(['Calle Mayor 1, Madrid', '10 Downing St, London', 'Karl Johans gate 1, Oslo', '北京市朝阳区建国路88号']),
    email: `guest${guestId}@example.com`, taxId: `TX${guestId}`, documentNumber: `P${String(guestId).padStart(8, '0')}`,
  });
  const folio = { id: demo.id(), sourceKind: 'RESERVATION', sourceId: String(sourceId), sourceIdentifier: `RES-${sourceId}`, name: `${guest} — main folio` };
  demo.ledger.folios.push(folio);
  const nights = Math.min(1 + Math.floor(rand() * 4), options.maxNights ?? 30);
  const rooms = 1 + (rand() < 0.3 ? 1 : 0);
  const arrival = -Math.floor(rand() * 7);
  for (let room = 0; room < rooms; room += 1) addRoomNights(demo, folio, { r, room, sourceId, arrival, nights });
  addExtras(demo, folio, r, arrival, nights);
  addPayments(demo, folio, arrival, nights);
}

/** Each night of one room: the rate with its VAT and city tax. */
function addRoomNights(demo: TDemo, folio: TRecord, stay: { r: number; room: number; sourceId: number; arrival: number; nights: number }): void {
  const { rand, tx, at, dateOf, scale, unit } = demo;
  const subSourceId = String(stay.sourceId * 10 + stay.room + 1);
  const roomName = ROOMS[(stay.r + stay.room) % ROOMS.length]!;
  for (let night = 0; night < stay.nights; night += 1) {
    const rate = (90 + Math.floor(rand() * 120)) * unit;
    const day = stay.arrival + night;
    const where = { subSourceId, subSourceIdentifier: roomName, serviceDate: dateOf(day) };
    // Future nights are pending: charged at night audit of that date.
    const posted = day <= 0;
    const roomCharge = tx(folio, { ...where, posted, transactionDatetime: at(day, 23), internalTransactionCode: '1000', internalCodeGroup: 'ROOM_REVENUE_RATE', description: `Room ${roomName} — nightly rate`, amount: money(rate, scale) });
    tx(folio, { ...where, posted, transactionDatetime: roomCharge.transactionDatetime, internalTransactionCode: '3000', internalCodeGroup: 'TAX', originId: '11', description: 'VAT 10%', amount: money(rate * 0.1, scale), parentId: roomCharge.id, rootId: roomCharge.id });
    tx(folio, { ...where, posted, transactionDatetime: roomCharge.transactionDatetime, internalTransactionCode: '4000', internalCodeGroup: 'FEE', originId: '21', description: 'City tax', amount: money(2 * unit, scale), parentId: roomCharge.id, rootId: roomCharge.id });
  }
}

/** Minibar and spa now and then, a voided charge every 4th stay, a pending late check-out every 3rd. */
function addExtras(demo: TDemo, folio: TRecord, r: number, arrival: number, nights: number): void {
  const { rand, tx, at, dateOf, scale, unit } = demo;
  if (rand() < 0.7) {
    tx(folio, { transactionDatetime: at(arrival, 21), serviceDate: dateOf(arrival), internalTransactionCode: '2000', internalCodeGroup: 'ITEM_SERVICE', originId: '301', description: 'Minibar — sparkling water', quantity: '2', amount: money(6 * unit, scale) });
  }
  if (rand() < 0.4) {
    tx(folio, { transactionDatetime: at(arrival, 17), serviceDate: dateOf(arrival), internalTransactionCode: '2100', internalCodeGroup: 'ADDON', originId: '401', description: 'Spa — massage 60 min', amount: money(85 * unit, scale) });
  }
  if (r % 4 === 0) {
    // A charge posted by mistake and voided: the void carries the opposite amount.
    const wrong = tx(folio, { transactionDatetime: at(arrival, 20), serviceDate: dateOf(arrival), internalTransactionCode: '2000', internalCodeGroup: 'ITEM_SERVICE', originId: '302', description: 'Minibar — champagne', amount: money(95 * unit, scale) });
    tx(folio, { transactionDatetime: at(arrival, 22), serviceDate: dateOf(arrival), internalTransactionCode: '2000', internalCodeGroup: 'ITEM_SERVICE', originId: '302', description: 'Minibar — champagne (void)', notes: 'Posted to the wrong room', amount: money(-95 * unit, scale), isVoid: true, parentId: wrong.id, rootId: wrong.id });
  }
  if (r % 3 === 1) {
    tx(folio, { transactionDatetime: at(arrival + nights - 1, 10), serviceDate: dateOf(arrival + nights - 1), internalTransactionCode: '2200', internalCodeGroup: 'CUSTOM_ITEM', originId: '501', description: 'Late check-out', posted: false, amount: money(30 * unit, scale) });
  }
}

/** A card deposit of 30% of the folio's charges, and half the time a cash payment of 20%. */
function addPayments(demo: TDemo, folio: TRecord, arrival: number, nights: number): void {
  const { rand, pick, tx, at, dateOf, scale } = demo;
  const charged = demo.ledger.transactions
    .filter((t) => t.folioId === folio.id && t.internalCodeGroup !== 'PAYMENT')
    .reduce((sum, t) => sum + Number(t.amount), 0);
  const deposit = Math.round(charged * 0.3 * 10 ** scale) / 10 ** scale;
  tx(folio, { transactionDatetime: at(arrival, 15), serviceDate: dateOf(arrival), internalTransactionCode: '9000', internalCodeGroup: 'PAYMENT', paymentMethod: pick(['cards_visa', 'cards_master']), description: 'Card payment — deposit', amount: money(-deposit, scale) });
  if (rand() < 0.5) {
    tx(folio, { transactionDatetime: at(arrival + nights - 1, 11), serviceDate: dateOf(arrival + nights - 1), internalTransactionCode: '9001', internalCodeGroup: 'PAYMENT', paymentMethod: 'cash', description: 'Cash payment', amount: money(-Math.round(charged * 0.2), scale) });
  }
}

/** The lobby bar's house account: three sales and the shift's cash each of the last seven days. */
function addHouseAccount(demo: TDemo): void {
  const { options, pick, tx, at, dateOf, scale, unit } = demo;
  const house = { id: demo.id(), sourceKind: 'HOUSE_ACCOUNT', sourceId: String(options.propertyId * 100_000 + 99_999), sourceIdentifier: 'HA-LOBBY', name: 'Lobby bar house account' };
  demo.ledger.folios.push(house);
  for (let d = -6; d <= 0; d += 1) {
    for (let k = 0; k < 3; k += 1) {
      tx(house, { transactionDatetime: at(d, 18 + k), serviceDate: dateOf(d), internalTransactionCode: '2300', internalCodeGroup: 'ITEM_SERVICE', originId: String(600 + k), description: pick(['Café — espresso', 'Bar — caipirinha', 'Bar — vinho do Porto', 'Snack — pastel de nata']), quantity: String(1 + k), amount: money((3 + k * 4) * unit, scale) });
    }
    tx(house, { transactionDatetime: at(d, 23), serviceDate: dateOf(d), internalTransactionCode: '9001', internalCodeGroup: 'PAYMENT', paymentMethod: 'cash', description: 'Cash — end of shift', amount: money(-(3 + 7 + 11) * unit, scale) });
  }
}

/**
 * One source with `rows` transactions (a long stay or a busy house account), for benchmarks and
 * render tests: nightly room revenue with its taxes, items, payments, a void every 50 rows.
 */
export function generateLargeSource(options: { propertyId: number; sourceId: number; rows: number; sourceKind?: 'RESERVATION' | 'HOUSE_ACCOUNT'; start?: Date }): TDemoLedger {
  const sourceKind = options.sourceKind ?? 'RESERVATION';
  const folioId = String(options.sourceId * 10 + 1);
  const folio = { id: folioId, sourceKind, sourceId: String(options.sourceId), sourceIdentifier: `${sourceKind === 'RESERVATION' ? 'RES' : 'HA'}-${options.sourceId}`, name: 'Main folio' };
  const start = (options.start ?? new Date(Date.UTC(2026, 0, 1))).getTime();
  const transactions: TRecord[] = [];
  const groups = [
    ['1000', 'ROOM_REVENUE_RATE', 'Room 204 — nightly rate', '120.00'],
    ['3000', 'TAX', 'VAT 10%', '12.00'],
    ['4000', 'FEE', 'City tax', '2.00'],
    ['2000', 'ITEM_SERVICE', 'Minibar — sparkling water', '3.50'],
    ['2100', 'ADDON', 'Breakfast buffet', '18.00'],
    ['9000', 'PAYMENT', 'Card payment', '-150.00'],
  ] as const;
  const base = BigInt(options.sourceId) * 1_000_000n;
  for (let i = 0; i < options.rows; i += 1) {
    const [code, group, description, amount] = groups[i % groups.length]!;
    const when = new Date(start + Math.floor(i / groups.length) * 3_600_000 * 6 + (i % groups.length) * 60_000);
    const id = String(base + BigInt(i + 1));
    const isVoid = i % 50 === 49;
    transactions.push({
      id, folioId, sourceKind, sourceId: String(options.sourceId), sourceIdentifier: folio.sourceIdentifier,
      subSourceId: String(options.sourceId * 10 + 1), subSourceIdentifier: '204',
      transactionDatetime: when.toISOString(), serviceDate: when.toISOString().slice(0, 10),
      internalTransactionCode: code, internalCodeGroup: isVoid ? 'ITEM_SERVICE' : group,
      ...(group === 'TAX' || group === 'FEE' || group === 'ITEM_SERVICE' ? { originId: '7' } : {}),
      ...(group === 'PAYMENT' && !isVoid ? { paymentMethod: 'cards_visa' } : {}),
      description: isVoid ? 'Minibar — void' : description,
      quantity: '1',
      amount: isVoid ? '-3.50' : amount,
      currency: 'EUR',
      posted: i % 17 !== 0,
      ...(isVoid ? { isVoid: true, parentId: String(base + BigInt(i - 2)) } : {}),
      userId: String(1 + (i % 5)),
    });
  }
  return {
    property: { id: options.propertyId, name: 'Benchmark Hotel', currency: 'EUR', timezone: 'Europe/Madrid', gatewayMode: 'test' },
    recipients: [],
    folios: [folio],
    transactions,
  };
}
