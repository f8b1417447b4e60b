// POST /accounting/v1.0/folios/transactions (docs/ledger.md#listing): one page of a source's
// transactions, in groups, with the page's per-group totals and, on request, totals over every
// matching row and their credit by tender currency.

import type { TPgPool } from '../connections.js';
import { AppError } from '../errors.js';
import { CREDIT_GROUPS } from './enums.js';
import type { TForeignCurrencyTotals, TGroupBy, TGroupTotals, TListTransactionsRequest, TListTransactionsResponse } from './listing-schemas.js';
import { currencyScale, decimalToNumber, itemQuantityOf, totalsOf } from './money.js';
import { findPropertyProfile } from '../properties/property-store.js';
import { foreignCurrencyCredits, pageOfTransactions, sourceExists, sumTransactions } from './ledger-store.js';
import { decodePageToken, encodePageToken, queryDigest } from './page-token.js';
import { withTieBreak } from './sort.js';
import type { TTransactionFilter } from './transaction-filter.js';
import { toTransactionView, type TFiscalLocks } from './transaction-response.js';
import { lockSummaries } from '../fiscal/fiscal-store.js';
import type { TTransactionRow } from './transaction-view.js';

/** What the listing needs of the property: its currency (when it was imported) and its time zone. */
export interface TPropertyInfo {
  currency: string | undefined;
  timezone: string;
}

export async function propertyInfo(pool: TPgPool, propertyId: string): Promise<TPropertyInfo> {
  const row = await findPropertyProfile(pool, propertyId);
  return { currency: row?.currency, timezone: row?.timezone ?? 'UTC' };
}

export function filterOfListing(propertyId: string, request: TListTransactionsRequest): TTransactionFilter {
  return {
    propertyId,
    sourceKind: request.sourceKind,
    sourceId: request.sourceId,
    folioIds: request.folioId ? [request.folioId] : undefined,
    posted: request.posted,
    descriptionFilters: request.descriptionFilters,
    transactionFrom: request.transactionDateFrom,
    transactionTo: request.transactionDateTo,
    serviceDateFrom: request.serviceDateFrom,
    serviceDateTo: request.serviceDateTo,
    subSourceIds: request.subSourceIds,
    searchQuery: request.searchQuery,
    includeVoided: request.includeVoided,
  };
}

function groupKey(groupBy: TGroupBy | undefined, row: TTransactionRow): string {
  switch (groupBy) {
    case undefined:
      return 'default';
    case 'transaction_date':
      return row.property_date;
    case 'service_date':
      return row.service_date;
    case 'internal_code_group':
      return row.internal_code_group;
    case 'description':
      return row.description;
    case 'sub_source_identifier':
      return row.sub_source_identifier ?? 'none';
    case 'folio_id':
      return row.folio_id;
    case 'user_id':
      return row.user_id ?? 'none';
    case 'reservation_name':
      return row.reservation_guest_name ?? 'none';
    case 'room_name':
      return row.room_name ?? 'none';
  }
}

export type TListing = TListTransactionsResponse;

/** The page's totals of one group: count, Σ item quantities, debit and credit. */
function groupTotalsOf(rows: TTransactionRow[]): TGroupTotals {
  const totals = totalsOf(rows.map((row) => ({ amount: row.amount, internalCodeGroup: row.internal_code_group })));
  const quantity = itemQuantityOf(rows.map((row) => ({ quantity: row.quantity, internalCodeGroup: row.internal_code_group })));
  return { count: totals.count, quantity: decimalToNumber(quantity), totalDebit: decimalToNumber(totals.totalDebit), totalCredit: decimalToNumber(totals.totalCredit) };
}

export async function listTransactions(pool: TPgPool, propertyId: string, request: TListTransactionsRequest): Promise<TListing> {
  const [property, exists] = await Promise.all([
    propertyInfo(pool, propertyId),
    sourceExists(pool, propertyId, request.sourceKind, request.sourceId),
  ]);
  if (!exists) throw AppError.notFound('The source');

  const filter = filterOfListing(propertyId, request);
  const keys = withTieBreak(request.sort);
  const digest = queryDigest({ filter, keys });
  const after = request.pageToken ? decodePageToken(request.pageToken, digest, keys.length) : undefined;

  const page = await pageOfTransactions(pool, filter, property.timezone, keys, after, request.limit + 1).catch((error: unknown) => {
    // The token's sort values go into typed casts: a tampered one fails there (SQLSTATE class 22).
    if (after && /^22/.test(String((error as { code?: unknown }).code))) {
      throw AppError.invalid([{ path: 'pageToken', message: 'is not a page token of this query' }]);
    }
    throw error;
  });

  const rows = page.slice(0, request.limit);
  const last = rows[rows.length - 1];
  const nextPageToken =
    page.length > request.limit && last ? encodePageToken(digest, keys.map((_, i) => last[`sort_${i}`] ?? null)) : null;

  // Which of the page's transactions are on a live invoice: one statement for the page.
  const locks: TFiscalLocks = await lockSummaries(pool, propertyId, rows.map((row) => row.id));

  // An ordered map: groups appear in the order of their first row on the page.
  const grouped = new Map<string, TTransactionRow[]>();
  for (const row of rows) {
    const key = groupKey(request.groupBy, row);
    const list = grouped.get(key) ?? [];
    list.push(row);
    grouped.set(key, list);
  }
  // Keys are guests' and rooms' names and descriptions: a key "__proto__" must stay a key.
  const groups: TListing['groups'] = Object.create(null) as TListing['groups'];
  for (const [key, list] of grouped) groups[key] = { transactions: list.map((row) => toTransactionView(row, locks)), totals: groupTotalsOf(list) };
  if (rows.length === 0 && !request.groupBy) groups.default = { transactions: [], totals: groupTotalsOf([]) };

  const listing: TListing = { groups, nextPageToken };
  if (request.includeTotal) {
    const [totals, byCurrency] = await Promise.all([totalsOfFilter(pool, filter, property), foreignCurrencyTotalsOf(pool, filter, property)]);
    listing.totals = totals;
    if (byCurrency) listing.foreignCurrencyTotals = byCurrency;
  }
  return listing;
}

/** Totals over every row the filter matches, summed by PostgreSQL in NUMERIC. */
export async function totalsOfFilter(pool: TPgPool, filter: TTransactionFilter, property: TPropertyInfo): Promise<NonNullable<TListing['totals']>> {
  const row = await sumTransactions(pool, filter, CREDIT_GROUPS);
  const { currency } = property;
  return {
    count: Number(row.count),
    totalDebit: decimalToNumber(row.debit),
    totalCredit: decimalToNumber(row.credit),
    // The reference types currency as a string, not nullable: unknown, it is left out.
    ...(currency ? { currency } : {}),
    currencyScale: currency ? currencyScale(currency) : 2,
  };
}

/**
 * totalCredit by the currency it was tendered in, over every matching row: payments tendered in a
 * foreign currency in its units, every other credit row in the property currency; net amounts
 * (refunds are negative payments), zero entries left out. Undefined when no matching payment was
 * tendered in a foreign currency.
 */
export async function foreignCurrencyTotalsOf(pool: TPgPool, filter: TTransactionFilter, property: TPropertyInfo): Promise<TForeignCurrencyTotals | undefined> {
  const rows = await foreignCurrencyCredits(pool, filter, CREDIT_GROUPS, property.currency ?? null);
  if (!rows.some((row) => row.foreign)) return undefined;
  const credit: Record<string, number> = {};
  for (const row of rows) {
    const net = decimalToNumber(row.net);
    if (net !== 0) credit[row.currency] = net;
  }
  return { debit: {}, credit };
}
