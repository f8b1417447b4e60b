import type { TDemoLedger } from './demo-ledger.js';

/**
 * Benchmark-sized data (bench/scenarios/ledger-listing.ts, folio-document.ts): one source with as many
 * rows as asked, built in a single cheap loop. Re-exported by demo-ledger.ts.
 */
type TRecord = Record<string, unknown>;

/**
 * One source with `rows` transactions (a long stay or a busy house account), for benchmarks and
 * render tests: nightly room revenue with its taxes, items, payments, a void every 50 rows. With
 * `rich`, every field the import takes: the stay and its room, the users who posted, the guest
 * named by customerId, codes, accounts, a payment object on every payment and every fourth payment
 * tendered in USD (the listing benchmark compares both shapes in one run).
 */
export function generateLargeSource(options: {
  propertyId: number;
  sourceId: number;
  rows: number;
  sourceKind?: 'RESERVATION' | 'HOUSE_ACCOUNT';
  start?: Date;
  rich?: boolean;
}): TDemoLedger {
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
      ...(options.rich ? richFields(group, isVoid, i, options.sourceId) : {}),
    });
  }
  const rich = options.rich && sourceKind === 'RESERVATION';
  const days = Math.ceil(options.rows / groups.length / 4) + 1;
  const checkout = new Date(start + days * 86_400_000).toISOString().slice(0, 10);
  return {
    property: { id: options.propertyId, name: 'Benchmark Hotel', currency: 'EUR', timezone: 'Europe/Madrid', gatewayMode: 'test' },
    recipients: rich ? [{ type: 'GUEST', id: String(options.sourceId), name: 'Maria Gómez' }] : [],
    reservations: rich
      ? [{
          id: String(options.sourceId), identifier: folio.sourceIdentifier, guestName: 'Maria Gómez', status: 'checked_in',
          checkinDate: new Date(start).toISOString().slice(0, 10), checkoutDate: checkout, adults: 2, children: 1,
          rooms: [{ id: String(options.sourceId * 10 + 1), roomName: '204', roomTypeName: 'Double Deluxe' }],
        }]
      : [],
    users: options.rich ? [1, 2, 3, 4, 5].map((n) => ({ id: String(n), firstName: `Clerk ${n}`, lastName: 'Front Desk', email: `clerk${n}@example.com` })) : [],
    folios: [folio],
    transactions,
  };
}

/** The optional fields of one benchmark row (see generateLargeSource). */
function richFields(group: string, isVoid: boolean, i: number, sourceId: number): TRecord {
  const fields: TRecord = { customTransactionCode: `C-${group.slice(0, 4)}`, generalLedgerCustomCode: `GL-${4000 + (i % 6)}`, customerId: String(sourceId) };
  if (group !== 'PAYMENT' || isVoid) return { ...fields, externalRelationId: String(i + 1), externalRelationKind: 'ITEM' };
  const foreign = i % 24 === 5;
  return {
    ...fields,
    externalRelationId: String(i + 1),
    externalRelationKind: 'PAYMENT',
    account: { id: '10', name: 'Guest deposits', category: 'DEPOSITS', chartOfAccountType: 'LIABILITIES' },
    payment: { paymentId: String(i + 1), transactionType: 'Purchase', gateway: 'DemoGateway', creditCardType: 'visa', cardTrailingDigits: '1111', amountPaid: '150.00', processingStatus: 'confirmed' },
    ...(foreign ? { foreignCurrency: 'USD', foreignCurrencyAmount: '-162.30' } : {}),
  };
}
