// A realistic ledger of 30-row folios, shared by the benchmarks that need many typical folios
// (bench/scenarios/night-audit.ts, bench/scenarios/export-small.ts).

/** The date every typical folio ends on (its last night and its checkout payments). */
export const TYPICAL_BUSINESS_DATE = '2026-11-21';

type TRecord = Record<string, unknown>;
const GUESTS = ['Anna Petrova', 'José Ramírez', 'Émilie Dubois', 'Jürgen Müller', 'Søren Kierkegaard', 'Ólafur Jónsson', 'Maria Rossi', 'John Smith', 'Ana Souza', '王小明'];

/**
 * `folios` sources in Madrid, every one with rows on the business date: reservations of three
 * nights ending on it (room, VAT and city tax a night, breakfasts, minibar, dinners with VAT, spa,
 * phone, laundry, parking, a voided charge, deposit and payments: 30 rows), and one house account
 * of 30 rows that day.
 */
export function typicalLedger(propertyId: number, folios: number, businessDate = TYPICAL_BUSINESS_DATE) {
  const folioRecords: TRecord[] = [];
  const transactions: TRecord[] = [];
  let nextId = propertyId * 10_000_000 + 1;
  const day = (offset: number) => {
    const date = new Date(`${businessDate}T00:00:00Z`);
    date.setUTCDate(date.getUTCDate() + offset);
    return date.toISOString().slice(0, 10);
  };
  const tx = (folio: TRecord, offset: number, hour: number, code: string, group: string, description: string, amount: string, extra: TRecord = {}) => {
    const id = String(nextId++);
    const when = `${day(offset)}T${String(hour).padStart(2, '0')}:${String(nextId % 60).padStart(2, '0')}:00Z`;
    transactions.push({
      id, folioId: folio.id, sourceKind: folio.sourceKind, sourceId: folio.sourceId, sourceIdentifier: folio.sourceIdentifier,
      transactionDatetime: when, serviceDate: when.slice(0, 10), internalTransactionCode: code, internalCodeGroup: group,
      description, quantity: '1', amount, currency: 'EUR', posted: true, userId: String(1 + (nextId % 4)), ...extra,
    });
    return id;
  };
  for (let r = 1; r < folios; r += 1) {
    const sourceId = propertyId * 100_000 + r;
    const folio = { id: String(propertyId * 1_000_000 + r), sourceKind: 'RESERVATION', sourceId: String(sourceId), sourceIdentifier: `RES-${sourceId}`, name: `${GUESTS[r % GUESTS.length]} — main folio` };
    folioRecords.push(folio);
    const room = { subSourceId: String(sourceId * 10 + 1), subSourceIdentifier: String(100 + (r % 300)) };
    tx(folio, -2, 15, '9000', 'PAYMENT', 'Card payment — deposit', '-150.00', { paymentMethod: 'cards_visa' });
    for (let night = -2; night <= 0; night += 1) {
      const charge = tx(folio, night, 21, '1000', 'ROOM_REVENUE_RATE', 'Room — nightly rate', '120.00', room);
      tx(folio, night, 21, '3000', 'TAX', 'VAT 10%', '12.00', { ...room, originId: '11', parentId: charge, rootId: charge });
      tx(folio, night, 21, '4000', 'FEE', 'City tax', '2.00', { ...room, originId: '21', parentId: charge, rootId: charge });
      tx(folio, night, 7, '2100', 'ADDON', 'Breakfast buffet', '18.00', { originId: '401' });
      tx(folio, night, 16, '2000', 'ITEM_SERVICE', 'Minibar — sparkling water', '3.50', { originId: '301' });
      const dinner = tx(folio, night, 19, '2000', 'ITEM_SERVICE', 'Restaurant — dinner for two', '64.00', { originId: '310' });
      tx(folio, night, 19, '3000', 'TAX', 'VAT 10%', '6.40', { originId: '11', parentId: dinner, rootId: dinner });
    }
    tx(folio, -1, 17, '2100', 'ADDON', 'Spa — massage 60 min', '85.00', { originId: '401' });
    tx(folio, -1, 10, '2200', 'CUSTOM_ITEM', 'Phone call', '4.20', { originId: '501' });
    tx(folio, 0, 9, '2200', 'CUSTOM_ITEM', 'Laundry', '12.00', { originId: '502' });
    tx(folio, 0, 8, '2200', 'CUSTOM_ITEM', 'Parking', '20.00', { originId: '503' });
    const wrong = tx(folio, -1, 20, '2000', 'ITEM_SERVICE', 'Minibar — champagne', '95.00', { originId: '302' });
    tx(folio, -1, 22, '2000', 'ITEM_SERVICE', 'Minibar — champagne (void)', '-95.00', { originId: '302', isVoid: true, parentId: wrong, rootId: wrong, notes: 'Posted to the wrong room' });
    tx(folio, 0, 10, '9000', 'PAYMENT', 'Card payment', '-400.00', { paymentMethod: 'cards_master' });
    tx(folio, 0, 11, '9001', 'PAYMENT', 'Cash payment', '-50.00', { paymentMethod: 'cash' });
  }
  const house = { id: String(propertyId * 1_000_000 + 999_999), sourceKind: 'HOUSE_ACCOUNT', sourceId: String(propertyId * 100_000 + 99_999), sourceIdentifier: 'HA-LOBBY', name: 'Lobby bar house account' };
  folioRecords.push(house);
  for (let k = 0; k < 30; k += 1) tx(house, 0, 8 + (k % 13), '2300', 'ITEM_SERVICE', k % 2 ? 'Bar — caipirinha' : 'Café — espresso', k % 2 ? '9.00' : '2.50', { originId: '600' });
  return {
    property: { id: propertyId, name: `Benchmark Hotel ${propertyId}`, currency: 'EUR', timezone: 'Europe/Madrid', gatewayMode: 'test', language: 'en' },
    folios: folioRecords,
    transactions,
  };
}
