// The performance measures the service keeps on its critical paths. Plain code is the rule; a
// measure stays only while its alternated pair in `npm run bench` (runs with it and with it
// switched off, taken in turn in the same run) shows a median gain of at least 10 % in a figure a
// user sees, with the two sides' ranges apart: docs/benchmarks.md, "Kept performance measures".
// Each lives in the one module named below, whose header says what it buys and which benchmark
// measures it. PERFORMANCE_MEASURES_OFF switches any of them off, for that pair, or where one stops
// earning its place; the service then runs the plain code beside it.

export const PERFORMANCE_MEASURES = {
  /** HPKE of transit envelopes on node:crypto rather than @hpke/core: packages/shared/src/vault/crypto/hpke-native.ts. */
  'hpke-native': 'packages/shared/src/vault/crypto/hpke-native.ts',
  /** A render process's text shaping kept across documents: apps/worker/src/exports/pdf/shaping-cache.ts. */
  'shaping-cache': 'apps/worker/src/exports/pdf/shaping-cache.ts',
} as const;

export type TPerformanceMeasure = keyof typeof PERFORMANCE_MEASURES;
export const PERFORMANCE_MEASURE_NAMES = Object.keys(PERFORMANCE_MEASURES) as TPerformanceMeasure[];

/** Whether `measure` runs, given PERFORMANCE_MEASURES_OFF. */
export function measureOn(off: readonly TPerformanceMeasure[], measure: TPerformanceMeasure): boolean {
  return !off.includes(measure);
}
