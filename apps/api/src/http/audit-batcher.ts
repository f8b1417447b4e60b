// A kept performance measure (packages/shared/src/performance-measures.ts: `audit-batching`): the
// audit events of the requests answered in one turn of the API's event loop are written by one
// INSERT: one round trip and one commit for all of them. Under load many answers finish in the
// same turn, and each statement is CPU of the API and of PostgreSQL that every request pays; a
// turn with one event writes it as the plain code does. What it buys is measured by `npm run bench -- --only
// tokenize`, the service against itself with PERFORMANCE_MEASURES_OFF=audit-batching in the same
// run (docs/benchmarks.md). Every event is still written once, or its failure logged by its writer.

import type { AuditLog, TAuditEvent } from '@folio-vault/shared/vault/audit-log';

/** Writes one request's audit event; resolves once it is stored. */
export type TAuditWrite = (event: TAuditEvent) => Promise<void>;

/** One statement per event (the plain code, and what the measure is compared with). */
export const writeEach = (log: AuditLog): TAuditWrite => (event) => log.record([event]);

/** The events written in the same turn go in one statement; each caller waits for its own. */
export function writeBatched(log: AuditLog): TAuditWrite {
  let pending: { events: TAuditEvent[]; written: Promise<void> } | undefined;
  return (event) => {
    if (!pending) {
      const batch = { events: [] as TAuditEvent[], written: Promise.resolve() };
      batch.written = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        pending = undefined;
        return log.record(batch.events);
      });
      pending = batch;
    }
    pending.events.push(event);
    return pending.written;
  };
}
