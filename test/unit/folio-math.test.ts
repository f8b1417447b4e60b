import { describe, expect, it } from 'vitest';
import {
  buildFolioSections,
  compactRevenue,
  documentTotals,
  splitDebitCredit,
  sumTaxes,
  sumTotals,
  taxSummary,
  toDocumentRow,
  type TLedgerRow,
} from '@folio-vault/worker/exports/folio-math';

// Canonical form of computed amounts: big.js toFixed() — no exponent, no trailing zeros, no "-0"
// ("0.10" + "0.20" → "0.3"). Amounts that are not computed stay as stored.

let seq = 0;
function row(fields: Partial<TLedgerRow> & Pick<TLedgerRow, 'group' | 'amount'>): TLedgerRow {
  seq += 1;
  const id = fields.id ?? `t${seq}`;
  return {
    id,
    folioId: 'F1',
    transactionDatetime: '2026-03-10T14:00:00Z',
    serviceDate: '2026-03-10',
    code: fields.group,
    description: fields.group,
    quantity: '1',
    posted: true,
    isVoid: false,
    chainVoided: false,
    rootId: id,
    ...fields,
  };
}

const label = (room: string | undefined) => (room ? `Room revenue, room ${room}` : 'Room revenue');
const amounts = (rows: TLedgerRow[]) => rows.map((r) => r.amount);
const ids = (rows: TLedgerRow[]) => rows.map((r) => r.id);

const NIGHTS = ['2026-03-10', '2026-03-11', '2026-03-12'] as const;
const ROOMS = [
  { sub: '501', room: '101', rate: '100.10', vat: '10.01' },
  { sub: '502', room: '102', rate: '120.20', vat: '12.02' },
] as const;

/**
 * A 3-night, 2-room stay: per night and room a rate, its VAT (10 %) and city tax posted against it
 * (parentId and rootId = the rate), plus a minibar charge with its own tax, a city fee posted on
 * nothing, and a payment.
 */
function stay(): TLedgerRow[] {
  const rows: TLedgerRow[] = [];
  NIGHTS.forEach((night, n) => {
    for (const { sub, room, rate, vat } of ROOMS) {
      const at = `${night}T${String(14 + n).padStart(2, '0')}:00:00Z`;
      const rateId = `rate-${night}-${room}`;
      const base = { serviceDate: night, subSourceId: sub, room, transactionDatetime: at };
      rows.push(row({ ...base, id: rateId, group: 'ROOM_REVENUE_RATE', code: '1000', description: 'Rate BAR', amount: rate }));
      if (n === 0 && room === '101') {
        rows.push(row({ id: 'minibar', transactionDatetime: at, serviceDate: night, group: 'ITEM_SERVICE', code: '2000', description: 'Minibar', amount: '8.50' }));
        rows.push(row({ id: 'minibar-vat', transactionDatetime: at, serviceDate: night, group: 'TAX', code: '3000', description: 'VAT 10%', amount: '0.85', parentId: 'minibar', rootId: 'minibar' }));
      }
      rows.push(row({ ...base, id: `vat-${night}-${room}`, group: 'TAX', code: '3000', description: 'VAT 10%', amount: vat, parentId: rateId, rootId: rateId, posted: !(n === 2 && room === '102') }));
      rows.push(row({ ...base, id: `city-${night}-${room}`, group: 'FEE', code: '4000', description: 'City tax', amount: '2.20', parentId: rateId, rootId: rateId }));
    }
  });
  rows.push(row({ id: 'loose-fee', transactionDatetime: '2026-03-12T18:00:00Z', serviceDate: '2026-03-12', group: 'FEE', code: '4100', description: 'Late checkout', amount: '15.00' }));
  rows.push(row({ id: 'payment', transactionDatetime: '2026-03-13T10:00:00Z', serviceDate: '2026-03-13', group: 'PAYMENT', code: '9000', description: 'Visa', amount: '-500.00' }));
  return rows;
}

describe('exact decimals', () => {
  it('adds 0.10 and 0.20 to exactly "0.3" (canonical: no trailing zeros)', () => {
    const rows = [row({ group: 'ITEM_SERVICE', amount: '0.10' }), row({ group: 'ITEM_SERVICE', amount: '0.20' })];
    expect(documentTotals(rows)).toEqual({ charges: '0.3', payments: '0', balance: '0.3' });
    expect(splitDebitCredit(rows).debitSubtotal).toBe('0.3');
  });

  it('sums what a binary float gets wrong, at 15 significant digits', () => {
    const rows = [
      row({ group: 'ITEM_SERVICE', amount: '999999999999.99' }),
      row({ group: 'ITEM_SERVICE', amount: '0.01' }),
      row({ group: 'ITEM_SERVICE', amount: '0.000001' }),
      row({ group: 'PAYMENT', amount: '-0.3' }),
      row({ group: 'PAYMENT', amount: '-0.000001' }),
    ];
    expect(documentTotals(rows)).toEqual({ charges: '1000000000000.000001', payments: '0.300001', balance: '999999999999.7' });
  });

  it('never answers "-0" and drops trailing zeros of computed figures only', () => {
    const rows = [row({ group: 'PAYMENT', amount: '-12.00' }), row({ group: 'PAYMENT', amount: '12.00' })];
    expect(documentTotals(rows)).toEqual({ charges: '0', payments: '0', balance: '0' });
    const [line] = compactRevenue([row({ group: 'ROOM_REVENUE_RATE', amount: '100.00' })], label);
    expect(line!.amount).toBe('100');
    const untouched = row({ group: 'ITEM_SERVICE', amount: '12.50' });
    expect(compactRevenue([untouched], label)[0]!.amount).toBe('12.50');
  });
});

describe('compactRevenue', () => {
  it('collapses a 3-night, 2-room stay into one line per night and room with exact sums', () => {
    const out = compactRevenue(stay(), label);
    const lines = out.filter((r) => r.compacted);
    expect(lines).toHaveLength(6);
    expect(lines.map((l) => [l.serviceDate, l.subSourceId, l.amount])).toEqual([
      ['2026-03-10', '501', '112.31'],
      ['2026-03-10', '502', '134.42'],
      ['2026-03-11', '501', '112.31'],
      ['2026-03-11', '502', '134.42'],
      ['2026-03-12', '501', '112.31'],
      ['2026-03-12', '502', '134.42'],
    ]);
    for (const line of lines) {
      expect(line).toMatchObject({ quantity: '1', code: '1000', group: 'ROOM_REVENUE_RATE', isVoid: false, chainVoided: false, compacted: true });
      expect(line.description).toBe(`Room revenue, room ${line.room}`);
      expect(line.id).toBe(`rate-${line.serviceDate}-${line.room}`);
    }
    // Nothing attached to room revenue is left loose; everything else is untouched.
    expect(out.filter((r) => !r.compacted).map((r) => r.id)).toEqual(['minibar', 'minibar-vat', 'loose-fee', 'payment']);
    const input = stay();
    for (const kept of out.filter((r) => !r.compacted)) expect(kept).toEqual(input.find((r) => r.id === kept.id));
    // Balance is preserved.
    expect(documentTotals(out)).toEqual(documentTotals(stay()));
  });

  it('puts each line at the position of its first member and keeps the order of other rows', () => {
    expect(ids(compactRevenue(stay(), label))).toEqual([
      'rate-2026-03-10-101',
      'minibar',
      'minibar-vat',
      'rate-2026-03-10-102',
      'rate-2026-03-11-101',
      'rate-2026-03-11-102',
      'rate-2026-03-12-101',
      'rate-2026-03-12-102',
      'loose-fee',
      'payment',
    ]);
    // Newest first (a descending sort): the taxes come before their rate; the line sits where the first member was.
    const reversed = compactRevenue(stay().reverse(), label);
    expect(ids(reversed)).toEqual([
      'payment',
      'loose-fee',
      'rate-2026-03-12-102',
      'rate-2026-03-12-101',
      'rate-2026-03-11-102',
      'rate-2026-03-11-101',
      'rate-2026-03-10-102',
      // The city tax and VAT of room 101 precede the minibar rows now: the line sits where its city tax was.
      'rate-2026-03-10-101',
      'minibar-vat',
      'minibar',
    ]);
    expect(amounts(reversed.filter((r) => r.compacted))).toEqual(['134.42', '112.31', '134.42', '112.31', '134.42', '112.31']);
  });

  it('leaves taxes and fees posted on nothing, on other items or on room revenue not in the list as they are', () => {
    const rate = row({ id: 'r', group: 'ROOM_REVENUE_RATE', amount: '100', subSourceId: '501' });
    const orphanTax = row({ id: 'orphan', group: 'TAX', amount: '10', parentId: 'filtered-out', rootId: 'filtered-out', subSourceId: '501' });
    const itemTax = row({ id: 'item-tax', group: 'TAX', amount: '1', parentId: 'item', rootId: 'item', subSourceId: '501' });
    const item = row({ id: 'item', group: 'ADDON', amount: '10', subSourceId: '501' });
    // An ADDON posted against the rate is not a tax or fee: it stays.
    const addon = row({ id: 'addon', group: 'ADDON', amount: '5', parentId: 'r', rootId: 'r', subSourceId: '501' });
    const out = compactRevenue([orphanTax, rate, item, itemTax, addon], label);
    expect(ids(out)).toEqual(['orphan', 'r', 'item', 'item-tax', 'addon']);
    expect(out[0]).toEqual(orphanTax);
    expect(out[1]).toMatchObject({ compacted: true, amount: '100' });
  });

  it('is pending when any member is pending, with the earliest member’s time', () => {
    const out = compactRevenue(stay(), label);
    const pending = out.filter((r) => r.compacted && !r.posted).map((r) => r.id);
    expect(pending).toEqual(['rate-2026-03-12-102']);

    const lines = compactRevenue(
      [
        row({ id: 'r', group: 'ROOM_REVENUE_RATE', amount: '50', transactionDatetime: '2026-03-10T14:00:00Z' }),
        row({ id: 'v', group: 'TAX', amount: '5', parentId: 'r', rootId: 'r', transactionDatetime: '2026-03-10T13:59:59.500+00:00' }),
        row({ id: 'c', group: 'FEE', amount: '1', parentId: 'r', rootId: 'r', transactionDatetime: '2026-03-10T14:00:00.000Z' }),
      ],
      label,
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ posted: true, transactionDatetime: '2026-03-10T13:59:59.500+00:00', amount: '56' });
  });

  it('keeps a voided room charge inside the line: the line sums it and its void, and is not voided', () => {
    const rows = [
      row({ id: 'r1', group: 'ROOM_REVENUE_RATE', amount: '100.10', subSourceId: '501', room: '101', chainVoided: true }),
      row({ id: 'r1-vat', group: 'TAX', amount: '10.01', subSourceId: '501', parentId: 'r1', rootId: 'r1', chainVoided: true }),
      row({ id: 'r1-void', group: 'ROOM_REVENUE_RATE', amount: '-100.10', subSourceId: '501', room: '101', isVoid: true, parentId: 'r1', rootId: 'r1', chainVoided: true }),
      // The VAT's void: parent is the VAT, chain is the rate's.
      row({ id: 'r1-vat-void', group: 'TAX', amount: '-10.01', subSourceId: '501', isVoid: true, parentId: 'r1-vat', rootId: 'r1', chainVoided: true }),
      row({ id: 'r2', group: 'ROOM_REVENUE_RATE', amount: '90', subSourceId: '501', room: '101' }),
      row({ id: 'r2-vat', group: 'TAX', amount: '9', subSourceId: '501', parentId: 'r2', rootId: 'r2' }),
    ];
    const out = compactRevenue(rows, label);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ id: 'r1', amount: '99', isVoid: false, chainVoided: false, posted: true, room: '101' });
    expect(toDocumentRow(out[0]!)).toMatchObject({ voided: false, pending: false, compacted: true });
  });

  it('marks the line voided only when every member is a void or of a voided chain', () => {
    const rows = [
      row({ id: 'r', group: 'ROOM_REVENUE_RATE', amount: '100', chainVoided: true }),
      row({ id: 'vat', group: 'TAX', amount: '10', parentId: 'r', rootId: 'r', chainVoided: true }),
      row({ id: 'r-void', group: 'ROOM_REVENUE_RATE', amount: '-100', isVoid: true, parentId: 'r', rootId: 'r', chainVoided: true }),
      // A void of the VAT whose rootId names only the VAT: attached through its parent.
      row({ id: 'vat-void', group: 'TAX', amount: '-10', isVoid: true, parentId: 'vat', rootId: 'vat', chainVoided: true }),
    ];
    const out = compactRevenue(rows, label);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ amount: '0', isVoid: false, chainVoided: true });
    expect(toDocumentRow(out[0]!).voided).toBe(true);
  });

  it('never merges rows of different folios, and a tax only joins room revenue of its own folio', () => {
    const rows = [
      row({ id: 'a', folioId: 'F1', group: 'ROOM_REVENUE_RATE', amount: '100', subSourceId: '501' }),
      row({ id: 'b', folioId: 'F2', group: 'ROOM_REVENUE_RATE', amount: '80', subSourceId: '501' }),
      row({ id: 'a-vat', folioId: 'F1', group: 'TAX', amount: '10', parentId: 'a', rootId: 'a', subSourceId: '501' }),
      row({ id: 'b-vat', folioId: 'F2', group: 'TAX', amount: '8', parentId: 'b', rootId: 'b', subSourceId: '501' }),
      row({ id: 'stray', folioId: 'F2', group: 'TAX', amount: '1', parentId: 'a', rootId: 'a', subSourceId: '501' }),
    ];
    const out = compactRevenue(rows, label);
    expect(out.map((r) => [r.id, r.folioId, r.amount])).toEqual([
      ['a', 'F1', '110'],
      ['b', 'F2', '88'],
      ['stray', 'F2', '1'],
    ]);
  });

  it('groups room revenue of every ROOM_REVENUE_* group, with the first one’s code, and rows without a room', () => {
    const rows = [
      row({ id: 'noshow', group: 'ROOM_REVENUE_NO_SHOW', code: '1300', amount: '60' }),
      row({ id: 'manual', group: 'ROOM_REVENUE_MANUAL', code: '1100', amount: '15.5' }),
      row({ id: 'fee', group: 'FEE', amount: '0.5', parentId: 'manual', rootId: 'manual' }),
    ];
    const out = compactRevenue(rows, label);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ id: 'noshow', code: '1300', group: 'ROOM_REVENUE_RATE', amount: '76', description: 'Room revenue' });
    expect(out[0]!.room).toBeUndefined();
    expect(out[0]!.subSourceId).toBeUndefined();
  });

  it('attaches a tax booked on another date to the night of the rate it was posted against', () => {
    const rows = [
      row({ id: 'r', group: 'ROOM_REVENUE_RATE', amount: '100', serviceDate: '2026-03-10', subSourceId: '501' }),
      row({ id: 'late-vat', group: 'TAX', amount: '10', serviceDate: '2026-03-11', parentId: 'r', rootId: 'r' }),
    ];
    expect(compactRevenue(rows, label).map((r) => [r.serviceDate, r.subSourceId, r.amount])).toEqual([['2026-03-10', '501', '110']]);
  });

  it('answers [] for no rows and does not change its input', () => {
    expect(compactRevenue([], label)).toEqual([]);
    const input = stay();
    const copy = structuredClone(input);
    compactRevenue(input, label);
    expect(input).toEqual(copy);
  });
});

describe('splitDebitCredit', () => {
  it('puts PAYMENT and ACCOUNTS_RECEIVABLE rows in credits, all else in debits, in order, with exact subtotals', () => {
    const rows = [
      row({ id: 'rate', group: 'ROOM_REVENUE_RATE', amount: '100.10' }),
      row({ id: 'pay', group: 'PAYMENT', amount: '-50.05' }),
      row({ id: 'tax', group: 'TAX', amount: '10.01' }),
      row({ id: 'ar', group: 'ACCOUNTS_RECEIVABLE', amount: '-60.06' }),
      row({ id: 'refund', group: 'PAYMENT', amount: '0.01' }),
      row({ id: 'comm', group: 'CHANNEL_COMMISSION', amount: '0.2' }),
      row({ id: 'na', group: 'N_A', amount: '0.1' }),
    ];
    const split = splitDebitCredit(rows);
    expect(ids(split.debits)).toEqual(['rate', 'tax', 'comm', 'na']);
    expect(ids(split.credits)).toEqual(['pay', 'ar', 'refund']);
    expect(split.debitSubtotal).toBe('110.41');
    expect(split.creditSubtotal).toBe('-110.1');
  });

  it('answers empty sections with subtotal "0"', () => {
    expect(splitDebitCredit([])).toEqual({ debits: [], credits: [], debitSubtotal: '0', creditSubtotal: '0' });
  });
});

describe('documentTotals and sumTotals', () => {
  it('charges = Σ debits, payments = −Σ credits, balance = Σ amounts; a void and its original net to zero', () => {
    const rows = [
      row({ id: 'rate', group: 'ROOM_REVENUE_RATE', amount: '100.00' }),
      row({ id: 'minibar', group: 'ITEM_SERVICE', amount: '95.00', chainVoided: true }),
      row({ id: 'minibar-void', group: 'ITEM_SERVICE', amount: '-95.00', isVoid: true, parentId: 'minibar', rootId: 'minibar', chainVoided: true }),
      row({ id: 'pay', group: 'PAYMENT', amount: '-80.00', chainVoided: true }),
      row({ id: 'pay-void', group: 'PAYMENT', amount: '80.00', isVoid: true, parentId: 'pay', rootId: 'pay', chainVoided: true }),
      row({ id: 'pay2', group: 'PAYMENT', amount: '-70.50' }),
      row({ id: 'ar', group: 'ACCOUNTS_RECEIVABLE', amount: '-20' }),
    ];
    expect(documentTotals(rows)).toEqual({ charges: '100', payments: '90.5', balance: '9.5' });
    expect(documentTotals(rows.slice(1, 3))).toEqual({ charges: '0', payments: '0', balance: '0' });
    expect(documentTotals(rows.slice(3, 5))).toEqual({ charges: '0', payments: '0', balance: '0' });
  });

  it('answers zeros for no rows', () => {
    expect(documentTotals([])).toEqual({ charges: '0', payments: '0', balance: '0' });
    expect(sumTotals([])).toEqual({ charges: '0', payments: '0', balance: '0' });
  });

  it('sums the folios’ totals exactly for the all-folios block', () => {
    expect(
      sumTotals([
        { charges: '0.10', payments: '0.05', balance: '0.05' },
        { charges: '0.20', payments: '-0.05', balance: '0.25' },
        { charges: '100', payments: '100', balance: '0' },
      ]),
    ).toEqual({ charges: '100.3', payments: '100', balance: '0.3' });
  });
});

describe('taxSummary and sumTaxes', () => {
  it('gives per tax the net it was posted against, the tax and the gross; a voided tax and its void cancel', () => {
    const night1 = row({ id: 'n1', group: 'ROOM_REVENUE_RATE', amount: '96.00' });
    const night2 = row({ id: 'n2', group: 'ROOM_REVENUE_RATE', amount: '98.00' });
    const wine = row({ id: 'w1', group: 'ITEM_SERVICE', amount: '30.00' });
    const rows = [
      night1,
      row({ id: 'v1', group: 'TAX', description: 'VAT 10%', amount: '9.60', parentId: 'n1', rootId: 'n1' }),
      row({ id: 'c1', group: 'FEE', description: 'City tax', amount: '2.00', parentId: 'n1', rootId: 'n1' }),
      night2,
      row({ id: 'v2', group: 'TAX', description: 'VAT 10%', amount: '9.80', parentId: 'n2', rootId: 'n2' }),
      wine,
      row({ id: 'v3', group: 'TAX', description: 'VAT 23%', amount: '6.90', parentId: 'w1', rootId: 'w1' }),
      // The wine's VAT voided: the void's base is the opposite of the voided tax's.
      row({ id: 'v4', group: 'TAX', description: 'VAT 23%', amount: '-6.90', parentId: 'v3', rootId: 'w1', isVoid: true }),
      row({ id: 'p1', group: 'PAYMENT', amount: '-100.00' }),
    ];
    expect(taxSummary(rows)).toEqual([
      { label: 'VAT 10%', net: '194', tax: '19.4', gross: '213.4' },
      { label: 'VAT 23%', net: '0', tax: '0', gross: '0' },
    ]);
  });

  it('leaves net and gross out for a tax whose taxed row the document does not hold, and has no summary without TAX rows', () => {
    const rows = [row({ id: 'v1', group: 'TAX', description: 'VAT 10%', amount: '9.60', parentId: 'elsewhere' }), row({ id: 'v2', group: 'TAX', description: 'VAT 10%', amount: '1.20' })];
    expect(taxSummary(rows)).toEqual([{ label: 'VAT 10%', tax: '10.8' }]);
    expect(taxSummary([row({ group: 'FEE', amount: '2.00' }), row({ group: 'ROOM_REVENUE_RATE', amount: '96.00' })])).toBeUndefined();
  });

  it('sums the folios’ lines of one tax for the all-folios summary', () => {
    expect(
      sumTaxes([
        [{ label: 'VAT 10%', net: '100', tax: '10', gross: '110' }, { label: 'VAT 23%', net: '10', tax: '2.3', gross: '12.3' }],
        undefined,
        [{ label: 'VAT 10%', net: '0.1', tax: '0.01', gross: '0.11' }, { label: 'VAT 23%', tax: '1' }],
      ]),
    ).toEqual([
      { label: 'VAT 10%', net: '100.1', tax: '10.01', gross: '110.11' },
      { label: 'VAT 23%', tax: '3.3' },
    ]);
    expect(sumTaxes([undefined, undefined])).toBeUndefined();
  });
});

describe('toDocumentRow and buildFolioSections', () => {
  it('maps voided, pending, credit, compacted and room', () => {
    const base = row({ id: 'x', group: 'ITEM_SERVICE', amount: '1.50', notes: 'n', room: '101', posted: false });
    expect(toDocumentRow(base)).toEqual({
      id: 'x',
      transactionDatetime: base.transactionDatetime,
      serviceDate: base.serviceDate,
      code: base.code,
      description: base.description,
      notes: 'n',
      quantity: '1',
      amount: '1.50',
      voided: false,
      pending: true,
      credit: false,
      room: '101',
    });
    expect(toDocumentRow({ ...base, isVoid: true }).voided).toBe(true);
    // Credits are what the totals count as payments: PAYMENT and ACCOUNTS_RECEIVABLE rows.
    expect((['PAYMENT', 'ACCOUNTS_RECEIVABLE', 'TAX'] as const).map((group) => toDocumentRow({ ...base, group }).credit)).toEqual([true, true, false]);
    expect(toDocumentRow({ ...base, chainVoided: true }).voided).toBe(true);
    const plain = toDocumentRow(row({ group: 'ITEM_SERVICE', amount: '1' }));
    expect('notes' in plain || 'room' in plain || 'compacted' in plain).toBe(false);
    expect(toDocumentRow({ ...base, compacted: true }).compacted).toBe(true);
  });

  it('makes one `all` section, or debits and credits with their subtotals', () => {
    const rows = [row({ id: 'a', group: 'ADDON', amount: '10.10' }), row({ id: 'p', group: 'PAYMENT', amount: '-5.05' }), row({ id: 'b', group: 'FEE', amount: '0.20' })];
    const all = buildFolioSections(rows, false);
    expect(all).toHaveLength(1);
    expect(all[0]!.kind).toBe('all');
    expect(all[0]!.subtotal).toBeUndefined();
    expect(all[0]!.rows.map((r) => r.id)).toEqual(['a', 'p', 'b']);

    const split = buildFolioSections(rows, true);
    expect(split.map((s) => [s.kind, s.rows.map((r) => r.id), s.subtotal])).toEqual([
      ['debits', ['a', 'b'], '10.3'],
      ['credits', ['p'], '-5.05'],
    ]);
    expect(buildFolioSections([], true).map((s) => [s.kind, s.rows.length, s.subtotal])).toEqual([
      ['debits', 0, '0'],
      ['credits', 0, '0'],
    ]);
    expect(buildFolioSections([], false)).toEqual([{ kind: 'all', rows: [] }]);
  });
});
