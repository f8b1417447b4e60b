// The arithmetic of a folio export (docs/export.md): revenue compaction, the debit/credit split,
// totals. Pure functions on exact decimals (big.js, never binary floats).
//
// Canonical form of a computed amount: big.js `toFixed()` without arguments — plain notation, no
// exponent, no trailing zeros, never "-0" ("0.10" + "0.20" → "0.3"; "100.00" + "0" → "100";
// "12.00" − "12.00" → "0"), the same form as the listing's totals (`totalsOf`). Rows that are not
// computed keep their amount string exactly as stored ("12.00" stays "12.00"); currency scale is
// applied only when the amount is displayed.

import Big from 'big.js';
import type { TDocumentCard, TDocumentRow, TDocumentSection, TDocumentTotals, TForeignAmount, TTaxLine } from '@folio-vault/shared/exports/folio-document';
import { isCredit } from '@folio-vault/shared/ledger/money';
import type { TCodeGroup } from '@folio-vault/shared/ledger/enums';

/** A transaction as the export's arithmetic reads it: its ledger form (build-document.ts). */
export interface TLedgerRow {
  id: string;
  folioId: string;
  /** UTC instant (ISO 8601). */
  transactionDatetime: string;
  serviceDate: string;
  code: string;
  group: TCodeGroup;
  description: string;
  notes?: string;
  quantity: string;
  amount: string;
  posted: boolean;
  /** The row is a void (it reverses its parentId). */
  isVoid: boolean;
  /** The row belongs to a chain that holds a void. */
  chainVoided: boolean;
  rootId: string;
  parentId?: string;
  subSourceId?: string;
  /** Room (sub-source identifier), when known. */
  room?: string;
  /** A line made by compactRevenue out of room revenue and the taxes and fees posted against it. */
  compacted?: boolean;
  /** A payment's card, when the ledger knows its brand. */
  card?: TDocumentCard;
  /** A payment tendered in another currency. */
  foreign?: TForeignAmount;
}

/** A canonical decimal string (see the module comment); normalises a "-0" away. */
function canonical(value: Big): string {
  return value.eq(0) ? '0' : value.toFixed();
}

function sum(rows: Iterable<{ amount: string }>): Big {
  let total = new Big(0);
  for (const row of rows) total = total.plus(row.amount);
  return total;
}

export function isRoomRevenue(group: string): boolean {
  return group.startsWith('ROOM_REVENUE_');
}

function instant(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? Number.POSITIVE_INFINITY : ms;
}

/**
 * The room-revenue row a TAX or FEE row was posted against, when it is in `byId` and of the same
 * folio: its parentId when that is a room-revenue row, else (a tax posted against a tax, e.g. the
 * void of a tax) whatever its parent is attached to, else its rootId when that is a room-revenue row.
 */
function attachedRoomRow(row: TLedgerRow, byId: Map<string, TLedgerRow>, seen = new Set<string>()): TLedgerRow | undefined {
  if (seen.has(row.id)) return undefined;
  seen.add(row.id);
  const sameFolio = (candidate: TLedgerRow | undefined) => (candidate && candidate.folioId === row.folioId ? candidate : undefined);
  const parent = sameFolio(row.parentId === undefined ? undefined : byId.get(row.parentId));
  if (parent && isRoomRevenue(parent.group)) return parent;
  if (parent && (parent.group === 'TAX' || parent.group === 'FEE')) {
    const viaParent = attachedRoomRow(parent, byId, seen);
    if (viaParent) return viaParent;
  }
  const root = sameFolio(byId.get(row.rootId));
  if (root && root.id !== row.id && isRoomRevenue(root.group)) return root;
  return undefined;
}

function compactKey(row: TLedgerRow): string {
  return JSON.stringify([row.folioId, row.serviceDate, row.subSourceId ?? null]);
}

/**
 * revenueCompact (docs/export.md): every ROOM_REVENUE_* row and the TAX and FEE rows posted against
 * one (their parentId or rootId is a room-revenue row of the list, same folio) collapse into one
 * line per (folio, service date, sub-source/room). A room-revenue row is keyed by its own service
 * date and sub-source; an attached tax or fee joins the line of the room-revenue row it was posted
 * against (so a tax booked on another date or without a sub-source still lands with its night).
 *
 * The line: amount = exact sum; quantity "1"; description = label(room); code = the first
 * room-revenue member's code; group ROOM_REVENUE_RATE; id, rootId and room from the first
 * room-revenue member; transactionDatetime = the earliest member's; pending when any member is;
 * isVoid false; chainVoided only when every member is a void or of a voided chain; compacted true.
 * It takes the position of its first member (in list order); every other row keeps its relative
 * order. Taxes and fees attached to no room-revenue row of the list stay as they are.
 */
export function compactRevenue(rows: TLedgerRow[], label: (room: string | undefined) => string): TLedgerRow[] {
  const byId = new Map<string, TLedgerRow>();
  for (const row of rows) if (!byId.has(row.id)) byId.set(row.id, row);

  const keyOf = (row: TLedgerRow): string | undefined => {
    if (isRoomRevenue(row.group)) return compactKey(row);
    if (row.group === 'TAX' || row.group === 'FEE') {
      const room = attachedRoomRow(row, byId);
      return room ? compactKey(room) : undefined;
    }
    return undefined;
  };

  const groups = new Map<string, TLedgerRow[]>();
  const layout: Array<TLedgerRow | string> = [];
  for (const row of rows) {
    const key = keyOf(row);
    if (key === undefined) {
      layout.push(row);
      continue;
    }
    const members = groups.get(key);
    if (members) members.push(row);
    else {
      groups.set(key, [row]);
      layout.push(key);
    }
  }

  return layout.map((entry) => (typeof entry === 'string' ? compactLine(groups.get(entry)!, label) : entry));
}

function compactLine(members: TLedgerRow[], label: (room: string | undefined) => string): TLedgerRow {
  // Every group holds a room-revenue row: a tax or fee only joins the key of one.
  const lead = members.find((m) => isRoomRevenue(m.group)) ?? members[0]!;
  const room = lead.room ?? members.find((m) => m.room !== undefined)?.room;
  let earliest = members[0]!;
  for (const member of members) if (instant(member.transactionDatetime) < instant(earliest.transactionDatetime)) earliest = member;
  return {
    id: lead.id,
    folioId: lead.folioId,
    transactionDatetime: earliest.transactionDatetime,
    serviceDate: lead.serviceDate,
    code: lead.code,
    group: 'ROOM_REVENUE_RATE',
    description: label(room),
    quantity: '1',
    amount: canonical(sum(members)),
    posted: members.every((m) => m.posted),
    isVoid: false,
    chainVoided: members.every((m) => m.isVoid || m.chainVoided),
    rootId: lead.rootId,
    ...(lead.subSourceId !== undefined ? { subSourceId: lead.subSourceId } : {}),
    ...(room !== undefined ? { room } : {}),
    compacted: true,
  };
}

export interface TDebitCreditSplit {
  debits: TLedgerRow[];
  credits: TLedgerRow[];
  /** Σ amounts of the debits. */
  debitSubtotal: string;
  /** Σ amounts of the credits, signed as stored (payments are negative, so usually ≤ 0). */
  creditSubtotal: string;
}

/** creditDebitView: credits are PAYMENT and ACCOUNTS_RECEIVABLE rows, all else debits; order kept. */
export function splitDebitCredit(rows: TLedgerRow[]): TDebitCreditSplit {
  const debits: TLedgerRow[] = [];
  const credits: TLedgerRow[] = [];
  for (const row of rows) (isCredit(row.group) ? credits : debits).push(row);
  return { debits, credits, debitSubtotal: canonical(sum(debits)), creditSubtotal: canonical(sum(credits)) };
}

/** charges = Σ debit amounts; payments = −Σ credit amounts; balance = Σ amounts (voids included). */
export function documentTotals(rows: Iterable<{ amount: string; group: string }>): TDocumentTotals {
  let debit = new Big(0);
  let credit = new Big(0);
  for (const row of rows) {
    if (isCredit(row.group)) credit = credit.plus(row.amount);
    else debit = debit.plus(row.amount);
  }
  return { charges: canonical(debit), payments: canonical(new Big(0).minus(credit)), balance: canonical(debit.plus(credit)) };
}

/** The all-folios block: each figure summed exactly. */
export function sumTotals(list: TDocumentTotals[]): TDocumentTotals {
  let charges = new Big(0);
  let payments = new Big(0);
  let balance = new Big(0);
  for (const totals of list) {
    charges = charges.plus(totals.charges);
    payments = payments.plus(totals.payments);
    balance = balance.plus(totals.balance);
  }
  return { charges: canonical(charges), payments: canonical(payments), balance: canonical(balance) };
}

/**
 * What a TAX row was charged on: the amount of the row it was posted against (its parentId, in the
 * same folio's rows); for the void of a tax, the opposite of the voided tax's base, so a voided tax
 * and its void cancel in net as in tax. Undefined when that row is not among `byId`.
 */
function taxBase(row: TLedgerRow, byId: Map<string, TLedgerRow>, seen = new Set<string>()): Big | undefined {
  if (seen.has(row.id)) return undefined;
  seen.add(row.id);
  const parent = row.parentId === undefined ? undefined : byId.get(row.parentId);
  if (!parent) return undefined;
  if (row.isVoid && parent.group === 'TAX') return taxBase(parent, byId, seen)?.neg();
  return new Big(parent.amount);
}

/**
 * The tax summary of a folio's rows (docs/export.md): one line per tax — TAX rows of the same
 * description ("VAT 10%"), in the order first met — with the exact sums of their bases (net), of
 * their amounts (tax) and of both (gross). Voids count, as in the totals. Undefined without TAX rows.
 */
export function taxSummary(rows: TLedgerRow[]): TTaxLine[] | undefined {
  const byId = new Map<string, TLedgerRow>();
  for (const row of rows) if (!byId.has(row.id)) byId.set(row.id, row);
  const lines = new Map<string, { net: Big | undefined; tax: Big }>();
  for (const row of rows) {
    if (row.group !== 'TAX') continue;
    const label = row.description.trim();
    const line = lines.get(label) ?? { net: new Big(0), tax: new Big(0) };
    const base = taxBase(row, byId);
    lines.set(label, { net: base === undefined || line.net === undefined ? undefined : line.net.plus(base), tax: line.tax.plus(row.amount) });
  }
  if (!lines.size) return undefined;
  return [...lines].map(([label, { net, tax }]) => taxLine(label, net, tax));
}

function taxLine(label: string, net: Big | undefined, tax: Big): TTaxLine {
  return { label, ...(net === undefined ? {} : { net: canonical(net), gross: canonical(net.plus(tax)) }), tax: canonical(tax) };
}

/** The all-folios tax summary: the folios' lines of one label summed exactly (net unknown if it is in any folio). */
export function sumTaxes(lists: Array<TTaxLine[] | undefined>): TTaxLine[] | undefined {
  const lines = new Map<string, { net: Big | undefined; tax: Big }>();
  for (const list of lists) {
    for (const line of list ?? []) {
      const sum = lines.get(line.label) ?? { net: new Big(0), tax: new Big(0) };
      lines.set(line.label, { net: sum.net === undefined || line.net === undefined ? undefined : sum.net.plus(line.net), tax: sum.tax.plus(line.tax) });
    }
  }
  if (!lines.size) return undefined;
  return [...lines].map(([label, { net, tax }]) => taxLine(label, net, tax));
}

export function toDocumentRow(row: TLedgerRow): TDocumentRow {
  return {
    id: row.id,
    transactionDatetime: row.transactionDatetime,
    serviceDate: row.serviceDate,
    code: row.code,
    description: row.description,
    ...(row.notes !== undefined ? { notes: row.notes } : {}),
    quantity: row.quantity,
    amount: row.amount,
    voided: row.isVoid || row.chainVoided,
    pending: !row.posted,
    credit: isCredit(row.group),
    ...(row.compacted ? { compacted: true } : {}),
    ...(row.room !== undefined ? { room: row.room } : {}),
    ...(row.card ? { card: row.card } : {}),
    ...(row.foreign ? { foreign: row.foreign } : {}),
  };
}

/**
 * The sections of one folio: a single `all` section, or with creditDebitView a `debits` and a
 * `credits` section (both always present, possibly empty), each with its subtotal.
 */
export function buildFolioSections(rows: TLedgerRow[], creditDebitView: boolean): TDocumentSection[] {
  if (!creditDebitView) return [{ kind: 'all', rows: rows.map(toDocumentRow) }];
  const split = splitDebitCredit(rows);
  return [
    { kind: 'debits', rows: split.debits.map(toDocumentRow), subtotal: split.debitSubtotal },
    { kind: 'credits', rows: split.credits.map(toDocumentRow), subtotal: split.creditSubtotal },
  ];
}
