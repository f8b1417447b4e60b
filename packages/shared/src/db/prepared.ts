import { createHash } from 'node:crypto';
import type { QueryConfig } from 'pg';

/**
 * A statement PostgreSQL prepares once per connection and plans from then on as the server
 * chooses (a generic plan after five custom ones when it costs no more): node-postgres sends a
 * named statement's text and parses it only on a connection's first use. Its name is derived from
 * the text, so statements built from parts (filters, sort keys) get one name per distinct text and
 * never two texts under one name (node-postgres refuses that).
 *
 * For the statements that run on every export or night-audit folio: planning the ledger's page
 * query took longer than running it for a 30-row folio (bench/changes.md, ninth round).
 */
const names = new Map<string, string>();

/** Distinct texts remembered; past it the memo starts over (names are recomputed, never changed). */
const REMEMBERED = 1_000;

export function prepared(prefix: string, text: string, values: unknown[]): QueryConfig<unknown[]> {
  let name = names.get(text);
  if (!name) {
    name = `${prefix}-${createHash('sha256').update(text).digest('base64url').slice(0, 16)}`;
    if (names.size >= REMEMBERED) names.clear();
    names.set(text, name);
  }
  return { name, text, values };
}
