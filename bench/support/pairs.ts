// Alternated pairs: what a performance measure buys (packages/shared/src/performance-measures.ts),
// measured as runs with it and without it taken in turn, with, without, with, without…, so that a
// change in the machine's load over the pair (the machine may be shared) falls on both sides alike
// instead of on one. bench/report/goals.ts judges the runs (keptMeasuresTable).

/** One side of a pair: the measure on (`with`) or switched off by PERFORMANCE_MEASURES_OFF (`without`). */
export type TPairSide = 'with' | 'without';

/** Runs `measure` for each side in turn, `runs` times each, starting with the measure on; the figures in the order taken. */
export async function alternated<T>(runs: number, measure: (side: TPairSide) => Promise<T>): Promise<Array<T & { side: TPairSide }>> {
  const taken: Array<T & { side: TPairSide }> = [];
  for (let i = 0; i < runs; i += 1) {
    for (const side of ['with', 'without'] as const) taken.push({ ...(await measure(side)), side });
  }
  return taken;
}

/** A second queue prefix for a service started beside the bench's own: its workers take none of the other's jobs. */
export function otherQueuePrefix(prefix: string, name: string): string {
  return prefix.replace(/^\{([^}]*)\}/, (_, tag: string) => `{${tag}-${name}}`);
}
