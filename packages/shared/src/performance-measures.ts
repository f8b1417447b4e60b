// The performance measures the service keeps on its critical paths. Plain code is the rule; a
// measure stays only while its pair in `npm run bench` (the same run with it and with it switched
// off) shows a gain of at least 10 % in a figure a user sees: docs/benchmarks.md, "Kept
// performance measures". Each lives in the one module named below, whose header says what it buys
// and which benchmark measures it. PERFORMANCE_MEASURES_OFF switches any of them off, for that
// pair, or where one stops earning its place; the service then runs the plain code beside it.

export const PERFORMANCE_MEASURES = {
  /** The audit events of one event-loop turn written by one statement: apps/api/src/http/audit-batcher.ts. */
  'audit-batching': 'apps/api/src/http/audit-batcher.ts',
  /** HPKE of transit envelopes on node:crypto rather than @hpke/core: packages/shared/src/vault/crypto/hpke-native.ts. */
  'hpke-native': 'packages/shared/src/vault/crypto/hpke-native.ts',
  /** The table's fonts remember their shaping results (rememberLayouts): apps/worker/src/exports/pdf/react-pdf-internals.ts. */
  'react-pdf-layout-memo': 'apps/worker/src/exports/pdf/react-pdf-internals.ts',
  /** Documents start without pdfkit's default font (startWithoutDefaultFont): apps/worker/src/exports/pdf/react-pdf-internals.ts. */
  'react-pdf-no-default-font': 'apps/worker/src/exports/pdf/react-pdf-internals.ts',
} as const;

export type TPerformanceMeasure = keyof typeof PERFORMANCE_MEASURES;
export const PERFORMANCE_MEASURE_NAMES = Object.keys(PERFORMANCE_MEASURES) as TPerformanceMeasure[];

/** Whether `measure` runs, given PERFORMANCE_MEASURES_OFF. */
export function measureOn(off: readonly TPerformanceMeasure[], measure: TPerformanceMeasure): boolean {
  return !off.includes(measure);
}

/**
 * PERFORMANCE_MEASURES_OFF as a process that loads no configuration reads it (a render process,
 * which inherits the worker's environment; the worker refused an unknown name at start, so only
 * the registered names listed count).
 */
export function measuresOffIn(env: Record<string, string | undefined>): TPerformanceMeasure[] {
  const listed = (env.PERFORMANCE_MEASURES_OFF ?? '').split(',').map((name) => name.trim());
  return PERFORMANCE_MEASURE_NAMES.filter((measure) => listed.includes(measure));
}
