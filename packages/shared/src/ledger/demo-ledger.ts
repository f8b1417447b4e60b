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

export function generateDemoLedger(options: TDemoOptions): TDemoLedger {
  const rand = random(options.seed ?? options.propertyId * 7919);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const profile = PROPERTIES[(options.propertyId - 1) % PROPERTIES.length]!;
  const scale = profile.currency === 'JPY' ? 0 : 2;
  const unit = profile.currency === 'JPY' ? 100 : 1;
  const now = options.now ?? new Date();
  const day = 86_400_000;
  const base = Math.floor(now.getTime() / day) * day;
  let nextId = options.propertyId * 10_000_000_000 + 1;
  const id = () => String(nextId++);

  const property = {
    id: options.propertyId,
    name: profile.name,
    address: profile.address,
    currency: profile.currency,
    timezone: profile.timezone,
    language: profile.language,
    gatewayMode: 'test',
    nightAuditTime: '03:00',
  };
  const recipients: TRecord[] = [
    { type: 'COMPANY', id: options.propertyId * 1000 + 1, name: 'Atlântica Viagens, Lda.', address: 'Av. da Liberdade 110, Lisboa', email: 'reservas@atlantica.example', taxId: 'PT509876543' },
  ];
  const folios: TRecord[] = [];
  const transactions: TRecord[] = [];

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
    transactions.push(record);
    return record;
  };
  const at = (dayOffset: number, hour: number) => new Date(base + dayOffset * day + hour * 3_600_000 + Math.floor(rand() * 3_600_000)).toISOString();
  const dateOf = (dayOffset: number) => new Date(base + dayOffset * day).toISOString().slice(0, 10);

  const reservations = Math.max(options.folios - 1, 1);
  for (let r = 0; r < reservations; r += 1) {
    const sourceId = options.propertyId * 100_000 + r + 1;
    const guest = GUESTS[r % GUESTS.length]!;
    const guestId = options.propertyId * 1000 + 100 + r;
    recipients.push({
      type: 'GUEST', id: guestId, name: guest, address: pick(['Calle Mayor 1, Madrid', '10 Downing St, London', 'Karl Johans gate 1, Oslo', '北京市朝阳区建国路88号']),
      email: `guest${guestId}@example.com`, taxId: `TX${guestId}`, documentNumber: `P${String(guestId).padStart(8, '0')}`,
    });
    const folio = { id: id(), sourceKind: 'RESERVATION', sourceId: String(sourceId), sourceIdentifier: `RES-${sourceId}`, name: `${guest} — main folio` };
    folios.push(folio);
    const nights = Math.min(1 + Math.floor(rand() * 4), options.maxNights ?? 30);
    const rooms = 1 + (rand() < 0.3 ? 1 : 0);
    const arrival = -Math.floor(rand() * 7);
    for (let room = 0; room < rooms; room += 1) {
      const subSourceId = String(sourceId * 10 + room + 1);
      const roomName = ROOMS[(r + room) % ROOMS.length]!;
      for (let night = 0; night < nights; night += 1) {
        const rate = (90 + Math.floor(rand() * 120)) * unit;
        const stay = { subSourceId, subSourceIdentifier: roomName, serviceDate: dateOf(arrival + night) };
        // Future nights are pending: charged at night audit of that date.
        const posted = arrival + night <= 0;
        const roomCharge = tx(folio, { ...stay, posted, transactionDatetime: at(arrival + night, 23), internalTransactionCode: '1000', internalCodeGroup: 'ROOM_REVENUE_RATE', description: `Room ${roomName} — nightly rate`, amount: money(rate, scale) });
        tx(folio, { ...stay, posted, transactionDatetime: roomCharge.transactionDatetime, internalTransactionCode: '3000', internalCodeGroup: 'TAX', originId: '11', description: 'VAT 10%', amount: money(rate * 0.1, scale), parentId: roomCharge.id, rootId: roomCharge.id });
        tx(folio, { ...stay, posted, transactionDatetime: roomCharge.transactionDatetime, internalTransactionCode: '4000', internalCodeGroup: 'FEE', originId: '21', description: 'City tax', amount: money(2 * unit, scale), parentId: roomCharge.id, rootId: roomCharge.id });
      }
    }
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
    const charged = transactions
      .filter((t) => t.folioId === folio.id && t.internalCodeGroup !== 'PAYMENT')
      .reduce((sum, t) => sum + Number(t.amount), 0);
    const deposit = Math.round(charged * 0.3 * 10 ** scale) / 10 ** scale;
    tx(folio, { transactionDatetime: at(arrival, 15), serviceDate: dateOf(arrival), internalTransactionCode: '9000', internalCodeGroup: 'PAYMENT', paymentMethod: pick(['cards_visa', 'cards_master']), description: 'Card payment — deposit', amount: money(-deposit, scale) });
    if (rand() < 0.5) {
      tx(folio, { transactionDatetime: at(arrival + nights - 1, 11), serviceDate: dateOf(arrival + nights - 1), internalTransactionCode: '9001', internalCodeGroup: 'PAYMENT', paymentMethod: 'cash', description: 'Cash payment', amount: money(-Math.round(charged * 0.2), scale) });
    }
  }

  const house = { id: id(), sourceKind: 'HOUSE_ACCOUNT', sourceId: String(options.propertyId * 100_000 + 99_999), sourceIdentifier: 'HA-LOBBY', name: 'Lobby bar house account' };
  folios.push(house);
  for (let d = -6; d <= 0; d += 1) {
    for (let k = 0; k < 3; k += 1) {
      tx(house, { transactionDatetime: at(d, 18 + k), serviceDate: dateOf(d), internalTransactionCode: '2300', internalCodeGroup: 'ITEM_SERVICE', originId: String(600 + k), description: pick(['Café — espresso', 'Bar — caipirinha', 'Bar — vinho do Porto', 'Snack — pastel de nata']), quantity: String(1 + k), amount: money((3 + k * 4) * unit, scale) });
    }
    tx(house, { transactionDatetime: at(d, 23), serviceDate: dateOf(d), internalTransactionCode: '9001', internalCodeGroup: 'PAYMENT', paymentMethod: 'cash', description: 'Cash — end of shift', amount: money(-(3 + 7 + 11) * unit, scale) });
  }
  return { property, recipients, folios, transactions };
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
