// Loops over a large import's records (reading, validating, checking) give the event loop back
// every slice of work, so one import never holds the other requests of the process for longer than
// about a slice (docs/ledger.md#import).

import { setImmediate as nextTurn } from 'node:timers/promises';

/** The longest stretch of work between two turns of the event loop. */
export const SLICE_MS = 3;

/**
 * A pause to await between records: it resolves at once until `sliceMs` of work has gone by since
 * the last turn, then after one turn of the event loop (I/O of other requests runs there).
 */
export function pacer(sliceMs = SLICE_MS): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await nextTurn();
    since = performance.now();
  };
}
