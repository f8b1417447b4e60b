import type { TBaselineResult } from '../baselines/raw-pdfkit.js';
import type { TMachine } from '../support/machine.js';
import { header, int, sec, table, type TRun } from './format.js';

/** bench/scenarios/render-pdf.ts's result. */
export interface TRenderResult {
  machine: TMachine;
  sizes: Array<{ rows: number; pages: number; ms: number; maxRssMb: number; bytes: number; baseline: TBaselineResult; ratio: number }>;
  /** The React-PDF internals patches' alternated pairs: a fresh process's render time with each patch and without it, in the order taken. */
  pairs?: Array<{ measure: string; rows: number; runs: Array<{ side: 'with' | 'without'; ms: number }> }>;
}

/** docs/benchmarks.md's "PDF render alone" section. */
export function renderPdfSection(run: TRun): string[] {
  const r = run.result as TRenderResult | undefined;
  const lines = ['## PDF render alone', '', ...header('render', run)];
  if (!r) return lines;
  lines.push(
    "The worker's renderFolioPdf in a fresh process per size (its first document: fonts loaded, code compiled), against raw pdfkit drawing the same document in a fresh process, also its first.",
    '',
    table(
      ['rows', 'pages', 'render', 'rows/s', 'peak RSS', 'raw pdfkit', 'raw peak RSS', 'ratio'],
      r.sizes.map((s) => [int(s.rows), String(s.pages), sec(s.ms), int(s.rows / (s.ms / 1000)), `${s.maxRssMb.toFixed(0)} MB`, sec(s.baseline.ms), `${s.baseline.maxRssMb.toFixed(0)} MB`, `${s.ratio.toFixed(1)}×`]),
    ),
    '',
  );
  return lines;
}
