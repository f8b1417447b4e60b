// A kept performance measure (packages/shared/src/performance-measures.ts: `prepared-statements`):
// the statements of the hot paths (tokenize, forward, the audit trail, every export and
// night-audit folio) are named, so PostgreSQL parses and plans each once per connection and from
// then on only binds and executes it (node-postgres sends a named statement's text on a
// connection's first use only). For a small folio or one card, planning a statement of a few joins
// is a large part of running it, so the measure buys PostgreSQL CPU on every request. What it buys is
// measured by `npm run bench` (tokenize and small exports) against the service with
// PERFORMANCE_MEASURES_OFF=prepared-statements in the same run (docs/benchmarks.md).
//
// A statement's name is derived from its text, so statements built from parts (filters, sort keys)
// get one name per distinct text and never two texts under one name (node-postgres refuses that).
// A connection keeps every statement it prepared until it closes, so the texts named are bounded:
// the first NAMED_TEXTS distinct texts of a process get names, later ones run unnamed.

import { createHash } from 'node:crypto';
import type { QueryConfig } from 'pg';

export const NAMED_TEXTS = 200;

const names = new Map<string, string>();
let naming = true;

/** Switches the measure for this process (from PERFORMANCE_MEASURES_OFF, at start). */
export function namePreparedStatements(on: boolean): void {
  naming = on;
}

/** The statement as node-postgres runs it: named (prepared once per connection) while the measure is on. */
export function prepared(prefix: string, text: string, values: unknown[]): QueryConfig<unknown[]> {
  if (!naming) return { text, values };
  let name = names.get(text);
  if (!name) {
    if (names.size >= NAMED_TEXTS) return { text, values };
    name = `${prefix}-${createHash('sha256').update(text).digest('base64url').slice(0, 16)}`;
    names.set(text, name);
  }
  return { name, text, values };
}
