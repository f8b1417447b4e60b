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
 *
 * A connection keeps every statement it prepared until it closes, so the texts named are bounded:
 * the first NAMED_TEXTS distinct texts of a process get names, later ones run unnamed (parsed and
 * planned each time, as every statement did before). The exports' statements are a handful of
 * texts; the listing's filters and sorts could make many more.
 */
const names = new Map<string, string>();

export const NAMED_TEXTS = 200;

export function prepared(prefix: string, text: string, values: unknown[]): QueryConfig<unknown[]> {
  let name = names.get(text);
  if (!name) {
    if (names.size >= NAMED_TEXTS) return { text, values };
    name = `${prefix}-${createHash('sha256').update(text).digest('base64url').slice(0, 16)}`;
    names.set(text, name);
  }
  return { name, text, values };
}
