import { describe, expect, it } from 'vitest';
import { failures } from '../../bench/report/goals.js';
import type { TRun } from '../../bench/report/format.js';
import { rounded } from '../../bench/report/results.js';

/**
 * The benchmark report's bookkeeping (bench/report/results.ts, bench/report/goals.ts): the figures
 * kept in bench/results.json are rounded, and every ✘ the report would show is a line that makes
 * `npm run bench` exit non-zero.
 */
const run = (result: unknown): TRun => ({ command: 'npx tsx bench/scenarios/x.ts', quick: false, seconds: 1, result });

describe('rounded figures', () => {
  it('keeps four significant digits of every fraction, at any depth, and integers and texts as they are', () => {
    expect(rounded({ ms: 25.51437, ratio: 0.784921, rows: 50_000, tiny: 0.000123456, name: 'p50', list: [1234.5678, 3] })).toEqual({
      ms: 25.51,
      ratio: 0.7849,
      rows: 50_000,
      tiny: 0.0001235,
      name: 'p50',
      list: [1235, 3],
    });
  });
});

describe('what makes npm run bench fail', () => {
  const invoice = (invoiceP50: number) =>
    run({ lines: 30, ratio: invoiceP50 / 25, invoice: { p50: invoiceP50 }, export: { p50: 25 } });

  it('a goal measured and not met is a failure line naming it and its figures', () => {
    expect(failures({ invoice: invoice(140) })).toEqual([
      'goal not met: invoice issue to its three files, 30 lines — 5.60×: 140.0 ms against 25.0 ms (goal ≤ 2× the same folio\'s plain PDF export, p50)',
    ]);
  });

  it('a goal met, or not measured in the run, is none', () => {
    expect(failures({ invoice: invoice(50) })).toEqual([]);
    expect(failures({})).toEqual([]);
  });

  it('a kept measure none of whose pairs gains 10 % is a failure; one pair at 10 % or more keeps it', () => {
    const small = (withPrepared: number, withoutPrepared: number) =>
      run({
        sequential: { e2e: { p50: 30 } },
        withoutPrepared: { sequential: { p50: 30 }, concurrent: { perSecond: withoutPrepared } },
        concurrent: { clients: 20, perSecond: withPrepared },
      });
    expect(failures({ 'export-small': small(54, 50) })).toEqual(['kept measure without its gain: prepared-statements (0 %, 8 %; needs ≥ 10 %)']);
    expect(failures({ 'export-small': small(55, 50) })).toEqual([]);
  });
});
