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

  const small = (withRuns: number[], withoutRuns: number[]) => {
    const runs = withRuns.flatMap((value, i) => [
      { side: 'with', perSecond: value },
      { side: 'without', perSecond: withoutRuns[i] },
    ]);
    return run({ concurrent: { clients: 20, perSecond: 50 }, pairs: [{ measure: 'hpke-native', runs }] });
  };

  it('a kept measure whose alternated pair gains 10 % at the median, the ranges apart, is none', () => {
    expect(failures({ 'export-small': small([55, 56, 57], [49, 50, 51]) })).toEqual([]);
  });

  it('a kept measure whose median gain is under 10 % is a failure line naming its gain', () => {
    expect(failures({ 'export-small': small([53, 54, 55], [49, 50, 51]) })).toEqual([
      'kept measure without its gain: hpke-native (+8 %, ranges apart; needs ≥ 10 % with the ranges apart)',
    ]);
  });

  it('a kept measure whose ranges overlap is a failure, whatever its median gain', () => {
    expect(failures({ 'export-small': small([48, 60, 62], [45, 50, 52]) })).toEqual([
      'kept measure without its gain: hpke-native (+20 %, ranges overlap; needs ≥ 10 % with the ranges apart)',
    ]);
  });

  it('fewer than three runs a side cannot keep a measure', () => {
    expect(failures({ 'export-small': small([60, 60], [50, 50]) })).toEqual([
      'kept measure without its gain: hpke-native (+20 %, ranges apart; needs ≥ 10 % with the ranges apart)',
    ]);
  });

  it('a render-time pair (lower is better) is judged the other way round', () => {
    const render = (withMs: number[], withoutMs: number[]) =>
      run({ sizes: [], pairs: [{ measure: 'hpke-native', rows: 10_000, runs: withMs.flatMap((ms, i) => [{ side: 'with', ms }, { side: 'without', ms: withoutMs[i] }]) }] });
    expect(failures({ render: render([1000, 1050, 1100], [1300, 1350, 1400]) })).toEqual([]);
    expect(failures({ render: render([1300, 1350, 1400], [1000, 1050, 1100]) })).toEqual([
      'kept measure without its gain: hpke-native (-22 %, ranges apart, against it; needs ≥ 10 % with the ranges apart)',
    ]);
  });
});
