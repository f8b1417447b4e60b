// The benchmarks' raw figures (bench/results.json), which docs/benchmarks.md is rendered from
// (bench/run.ts). Kept apart from the report so the report stays prose and tables; kept at all so
// `npm run bench -- --only …` re-measures some benchmarks and keeps the others' last figures, and
// `--report-only` renders the report again. Figures are rounded to four significant digits when
// written: the noise of one run is far above that, and a diff between two runs stays readable.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { TRun } from './format.js';

const SIGNIFICANT_DIGITS = 4;

/** A number with at most four significant digits; integers below 10,000 and non-numbers as they are. */
export function rounded(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) || !Number.isFinite(value) ? value : Number(value.toPrecision(SIGNIFICANT_DIGITS));
  if (Array.isArray(value)) return value.map(rounded);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, rounded(inner)]));
  return value;
}

/** The runs stored in `file`, by benchmark name; none when it does not exist yet. */
export function readResults(file: string): Partial<Record<string, TRun>> {
  if (!existsSync(file)) return {};
  return JSON.parse(readFileSync(file, 'utf8')) as Partial<Record<string, TRun>>;
}

export function writeResults(file: string, runs: Partial<Record<string, TRun>>): void {
  writeFileSync(file, `${JSON.stringify(rounded(runs), null, 1)}\n`);
}
