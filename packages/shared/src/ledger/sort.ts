// Sorting with a stable tie-break (the id), and the keyset condition that continues after a given
// row. Text sorts use the "C" collation: byte order, identical on every server.

import type { TSortField } from './schemas.js';
import type { SqlParams } from './transaction-filter.js';

export interface TSortKey {
  field: TSortField;
  direction: 'asc' | 'desc';
}

const SORT_SQL: Record<TSortField, { expr: (t: string) => string; cast: string }> = {
  transaction_datetime: { expr: (t) => `${t}.transaction_datetime`, cast: 'timestamptz' },
  service_date: { expr: (t) => `${t}.service_date`, cast: 'date' },
  id: { expr: (t) => `${t}.id`, cast: 'bigint' },
  internal_code: { expr: (t) => `(${t}.internal_transaction_code COLLATE "C")`, cast: 'text' },
  description: { expr: (t) => `(${t}.description COLLATE "C")`, cast: 'text' },
  notes: { expr: (t) => `(COALESCE(${t}.notes, '') COLLATE "C")`, cast: 'text' },
  quantity: { expr: (t) => `${t}.quantity`, cast: 'numeric' },
  amount: { expr: (t) => `${t}.amount`, cast: 'numeric' },
};

export const DEFAULT_SORT: TSortKey[] = [{ field: 'transaction_datetime', direction: 'asc' }];

/** The requested keys (or the default), always ending with the id so the order is total. */
export function withTieBreak(sort: TSortKey[]): TSortKey[] {
  const keys = sort.length > 0 ? sort : DEFAULT_SORT;
  return keys.some((key) => key.field === 'id') ? keys : [...keys, { field: 'id', direction: 'asc' }];
}

export function orderBySql(keys: TSortKey[], t = 't'): string {
  return keys.map((key) => `${SORT_SQL[key.field].expr(t)} ${key.direction === 'asc' ? 'ASC' : 'DESC'}`).join(', ');
}

/** The sort values of a row as text (exact: no float, no lost microseconds), for the page token. */
export function sortValuesSql(keys: TSortKey[], t = 't'): string {
  return keys.map((key, i) => `(${SORT_SQL[key.field].expr(t)})::text AS sort_${i}`).join(', ');
}

/**
 * Rows strictly after `values` in the order of `keys`. Keys that share one direction compare as
 * one row value, (a, b) > (x, y): the same rows as the spelled-out (a > x) OR (a = x AND b > y),
 * nulls included, but a condition a btree index in that order answers as a range, so a read in
 * keyset batches is linear in its rows rather than quadratic (an export's rows: selectTransactions
 * over transactions_by_source). Mixed directions have no such row value and are spelled out.
 */
export function afterSql(keys: TSortKey[], values: Array<string | null>, params: SqlParams, t = 't'): string {
  if (keys.every((key) => key.direction === keys[0]!.direction)) {
    const columns = keys.map((key) => SORT_SQL[key.field].expr(t)).join(', ');
    const given = keys.map((key, i) => castParam(key, values[i], params)).join(', ');
    return `((${columns}) ${keys[0]!.direction === 'asc' ? '>' : '<'} (${given}))`;
  }
  const terms: string[] = [];
  for (let i = 0; i < keys.length; i += 1) {
    const parts: string[] = [];
    for (let j = 0; j < i; j += 1) parts.push(`${SORT_SQL[keys[j]!.field].expr(t)} = ${castParam(keys[j]!, values[j], params)}`);
    parts.push(`${SORT_SQL[keys[i]!.field].expr(t)} ${keys[i]!.direction === 'asc' ? '>' : '<'} ${castParam(keys[i]!, values[i], params)}`);
    terms.push(`(${parts.join(' AND ')})`);
  }
  return `(${terms.join(' OR ')})`;
}

function castParam(key: TSortKey, value: string | null | undefined, params: SqlParams): string {
  const { cast } = SORT_SQL[key.field];
  const placeholder = params.add(value ?? '', cast);
  return cast === 'text' ? `(${placeholder} COLLATE "C")` : placeholder;
}
