import type { TPgPool } from '../connections.js';
import { AppError } from '../errors.js';
import { CREDIT_GROUPS, type TGroupBy, type TListTransactionsRequest, type TSourceKind } from './schemas.js';
import { currencyScale, decimalToNumber, totalsOf } from './money.js';
import { decodePageToken, encodePageToken, queryDigest } from './page-token.js';
import { afterSql, orderBySql, sortValuesSql, withTieBreak } from './sort.js';
import { SqlParams, transactionFilterSql, type TTransactionFilter } from './transaction-filter.js';
import { toTransactionView, transactionColumnsSql, type TTransactionRow, type TTransactionView } from './transaction-view.js';

/**
 * POST /accounting/v1.0/folios/transactions (docs/ledger.md#listing): one page of a source's transactions,
 * in groups, with the page's per-group totals and, on request, totals over every matching row.
 */
export interface TPropertyInfo {
  currency: string | undefined;
  timezone: string;
}

export async function propertyInfo(pool: TPgPool, propertyId: string): Promise<TPropertyInfo> {
  const result = await pool.query<{ currency: string; timezone: string }>('SELECT currency, timezone FROM properties WHERE id = $1', [propertyId]);
  const row = result.rows[0];
  return { currency: row?.currency.trim(), timezone: row?.timezone ?? 'UTC' };
}

/** A source exists when the property has a folio or a transaction of it. */
export async function sourceExists(pool: TPgPool, propertyId: string, sourceKind: TSourceKind, sourceId: string): Promise<boolean> {
  const result = await pool.query(
    `SELECT 1 FROM folios WHERE property_id = $1 AND source_kind = $2 AND source_id = $3
     UNION ALL
     SELECT 1 FROM transactions WHERE property_id = $1 AND source_kind = $2 AND source_id = $3
     LIMIT 1`,
    [propertyId, sourceKind, sourceId],
  );
  return (result.rowCount ?? 0) > 0;
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
  }
}

export interface TListing {
  groups: Record<string, { transactions: TTransactionView[]; totals: { count: number; totalDebit: number; totalCredit: number } }>;
  nextPageToken: string | null;
  totals?: { count: number; totalDebit: number; totalCredit: number; currency: string | null; currencyScale: number };
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

  const params = new SqlParams();
  const tz = params.add(property.timezone);
  const where = transactionFilterSql(filter, params);
  const keyset = after ? ` AND ${afterSql(keys, after, params)}` : '';
  const limit = params.add(request.limit + 1, 'int');
  const page = await pool.query<TTransactionRow & Record<`sort_${number}`, string | null>>(
    `SELECT ${transactionColumnsSql(tz)}, ${sortValuesSql(keys)}
       FROM transactions t WHERE ${where}${keyset}
      ORDER BY ${orderBySql(keys)} LIMIT ${limit}`,
    params.values,
  ).catch((error: unknown) => {
    // The token's sort values go into typed casts: a tampered one fails there (SQLSTATE class 22).
    if (after && /^22/.test(String((error as { code?: unknown }).code))) {
      throw AppError.invalid([{ path: 'pageToken', message: 'is not a page token of this query' }]);
    }
    throw error;
  });

  const rows = page.rows.slice(0, request.limit);
  const last = rows[rows.length - 1];
  const nextPageToken =
    page.rows.length > request.limit && last ? encodePageToken(digest, keys.map((_, i) => last[`sort_${i}`] ?? null)) : null;

  // An ordered map: groups appear in the order of their first row on the page.
  const grouped = new Map<string, TTransactionRow[]>();
  for (const row of rows) {
    const key = groupKey(request.groupBy, row);
    const list = grouped.get(key) ?? [];
    list.push(row);
    grouped.set(key, list);
  }
  const groups: TListing['groups'] = {};
  for (const [key, list] of grouped) {
    const totals = totalsOf(list.map((row) => ({ amount: row.amount, internalCodeGroup: row.internal_code_group })));
    groups[key] = {
      transactions: list.map(toTransactionView),
      totals: { count: totals.count, totalDebit: decimalToNumber(totals.totalDebit), totalCredit: decimalToNumber(totals.totalCredit) },
    };
  }
  if (rows.length === 0 && !request.groupBy) groups.default = { transactions: [], totals: { count: 0, totalDebit: 0, totalCredit: 0 } };

  const listing: TListing = { groups, nextPageToken };
  if (request.includeTotal) listing.totals = await totalsOfFilter(pool, filter, property);
  return listing;
}

/** Totals over every row the filter matches, summed by PostgreSQL in NUMERIC. */
export async function totalsOfFilter(pool: TPgPool, filter: TTransactionFilter, property: TPropertyInfo): Promise<NonNullable<TListing['totals']>> {
  const params = new SqlParams();
  const where = transactionFilterSql(filter, params);
  const credits = params.add([...CREDIT_GROUPS], 'text[]');
  const result = await pool.query<{ count: string; debit: string; credit: string }>(
    `SELECT count(*)::text AS count,
            COALESCE(sum(t.amount) FILTER (WHERE NOT t.internal_code_group = ANY(${credits})), 0)::text AS debit,
            COALESCE(-sum(t.amount) FILTER (WHERE t.internal_code_group = ANY(${credits})), 0)::text AS credit
       FROM transactions t WHERE ${where}`,
    params.values,
  );
  const row = result.rows[0]!;
  const currency = property.currency ?? null;
  return {
    count: Number(row.count),
    totalDebit: decimalToNumber(row.debit),
    totalCredit: decimalToNumber(row.credit),
    currency,
    currencyScale: currency ? currencyScale(currency) : 2,
  };
}
