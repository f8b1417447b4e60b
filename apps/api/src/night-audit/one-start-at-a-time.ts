// A property's night-audit starts run one at a time in an API process. A start's dispatch waits on
// the property's advisory lock while it holds a pool connection (packages/shared/src/night-audit/
// batches.ts, dispatchWaiting): concurrent starts of one property would each hold a connection
// while they wait, and a burst of them took the whole pool from every other property. Queued here,
// they wait without one: a property holds at most one of this process's connections for its starts.

/** `run(key, work)`: `work` once every earlier work of the same key has settled. */
export function oneAtATimePerKey(): <T>(key: string, work: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return async (key, work) => {
    const result = (tails.get(key) ?? Promise.resolve()).then(work);
    const tail = result.catch(() => undefined);
    tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}
