// Which transactions of one source a listing or an export covers (docs/ledger.md#listing,
// docs/export.md). The one place the rules live: `transactionFilterSql` turns a filter into SQL;
// the listing and the export both call it.

import type { TCodeGroup, TSourceKind } from './enums.js';
import { parseDescriptionFilter } from './description-filters.js';

/** What one listing or export covers: a source, and the rules that narrow its transactions. */
export interface TTransactionFilter {
  propertyId: string;
  sourceKind: TSourceKind;
  sourceId: string;
  folioIds?: string[];
  /** true = posted only, false = pending only, undefined = both. */
  posted?: boolean;
  descriptionFilters?: string[];
  /** Inclusive instants (ISO 8601) on transactionDatetime. */
  transactionFrom?: string;
  transactionTo?: string;
  /**
   * Inclusive local dates (YYYY-MM-DD) on transactionDatetime, in `timezone` (the property's):
   * from the start of the first day to the end of the last, DST included (PostgreSQL converts).
   */
  localDateFrom?: string;
  localDateTo?: string;
  timezone?: string;
  /** Inclusive dates (YYYY-MM-DD) on serviceDate. */
  serviceDateFrom?: string;
  serviceDateTo?: string;
  subSourceIds?: string[];
  /** Case-insensitive substring of the description. */
  searchQuery?: string;
  /** false leaves out every transaction of a chain that holds a void. */
  includeVoided: boolean;
}

/** Collects positional parameters for one statement. */
export class SqlParams {
  readonly values: unknown[] = [];
  add(value: unknown, cast?: string): string {
    this.values.push(value);
    return cast ? `$${this.values.length}::${cast}` : `$${this.values.length}`;
  }
}

const likeEscape = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

/** SQL conditions on `t` (the transactions table) for the filter, AND-ed. */
export function transactionFilterSql(filter: TTransactionFilter, params: SqlParams, alias = 't'): string {
  const t = alias;
  const where = [
    `${t}.property_id = ${params.add(filter.propertyId, 'bigint')}`,
    `${t}.source_kind = ${params.add(filter.sourceKind)}`,
    `${t}.source_id = ${params.add(filter.sourceId, 'bigint')}`,
  ];
  if (filter.folioIds?.length) where.push(`${t}.folio_id = ANY(${params.add(filter.folioIds, 'bigint[]')})`);
  if (filter.posted !== undefined) where.push(`${t}.posted = ${params.add(filter.posted, 'boolean')}`);
  if (filter.transactionFrom) where.push(`${t}.transaction_datetime >= ${params.add(filter.transactionFrom, 'timestamptz')}`);
  if (filter.transactionTo) where.push(`${t}.transaction_datetime <= ${params.add(filter.transactionTo, 'timestamptz')}`);
  if (filter.localDateFrom || filter.localDateTo) {
    const tz = params.add(filter.timezone ?? 'UTC');
    if (filter.localDateFrom) where.push(`${t}.transaction_datetime >= (${params.add(filter.localDateFrom, 'date')}::timestamp AT TIME ZONE ${tz})`);
    if (filter.localDateTo) where.push(`${t}.transaction_datetime < ((${params.add(filter.localDateTo, 'date')} + 1)::timestamp AT TIME ZONE ${tz})`);
  }
  if (filter.serviceDateFrom) where.push(`${t}.service_date >= ${params.add(filter.serviceDateFrom, 'date')}`);
  if (filter.serviceDateTo) where.push(`${t}.service_date <= ${params.add(filter.serviceDateTo, 'date')}`);
  if (filter.subSourceIds?.length) where.push(`${t}.sub_source_id = ANY(${params.add(filter.subSourceIds, 'bigint[]')})`);
  // ICU case rules, not the database's LC_CTYPE: under a "C" locale ILIKE folds ASCII letters only.
  if (filter.searchQuery) where.push(`(${t}.description COLLATE "und-x-icu") ILIKE ${params.add(`%${likeEscape(filter.searchQuery)}%`)}`);
  if (filter.descriptionFilters?.length) {
    const alternatives = filter.descriptionFilters.map((text) => {
      const condition = parseDescriptionFilter(text);
      if (!condition) throw new Error(`unknown description filter ${text}`); // the schemas refuse these first
      const group = `${t}.internal_code_group = ${params.add(condition.group satisfies TCodeGroup)}`;
      if ('originId' in condition) return `(${group} AND ${t}.origin_id = ${params.add(condition.originId, 'bigint')})`;
      if ('paymentMethod' in condition) return `(${group} AND ${t}.payment_method = ${params.add(condition.paymentMethod)})`;
      return `(${group})`;
    });
    where.push(`(${alternatives.join(' OR ')})`);
  }
  if (!filter.includeVoided) {
    where.push(
      `NOT EXISTS (SELECT 1 FROM transactions v WHERE v.property_id = ${t}.property_id AND v.root_id = ${t}.root_id AND v.is_void)`,
    );
  }
  return where.join(' AND ');
}
