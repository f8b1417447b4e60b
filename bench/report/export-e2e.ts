import type { TExportE2eSize } from '../scenarios/export-e2e.js';
import type { TMachine } from '../support/machine.js';
import { header, int, mark, sec, table, type TRun } from './format.js';
import { GOALS, inExportRange } from './goals.js';

/** bench/scenarios/export-e2e.ts's result. */
export interface TExportResult {
  machine: TMachine;
  sizes: TExportE2eSize[];
  failures: string[];
}

const KINDS = ['api', 'worker', 'render process', 'api (tsx launcher)', 'worker (tsx launcher)'];

/** docs/benchmarks.md's "Folio export, end to end" section. */
export function exportE2eSection(run: TRun): string[] {
  const r = run.result as TExportResult | undefined;
  const lines = ['## Folio export, end to end', '', ...header('export', run)];
  if (!r) return lines;
  lines.push(
    'API and worker as separate processes (NODE_ENV=production); one reservation, one folio, N transactions; POST with `Prefer: respond-async` → status polled every 50 ms → file downloaded. Time from the POST to the last byte. "Raw pdfkit" draws the same table (same rows, columns, fonts, page header and footer) in a process of its own, warm (bench/baselines/raw-pdfkit.ts). Each size runs several times, the export and raw pdfkit in turn; the times are medians, "of raw pdfkit" is the median of the runs\' own ratios (each run\'s in brackets). Peak RSS is the largest process of each kind (VmHWM, sampled every 50 ms over every process of both trees). Load is the mean 1-minute load average during the run (above the core count, the machine was shared).',
    '',
    table(
      ['rows', 'pages', 'end to end', 'rows/s', 'worker render', 'raw pdfkit', 'of raw pdfkit', 'peak RSS MB api / worker / render / launchers', 'load'],
      r.sizes.map((size) => {
        const peaks = KINDS.map((kind) => size.peaks[kind]?.peakMb ?? 0);
        const goal = inExportRange(size.rows) ? ` ${mark(size.ratio <= GOALS.exportOfRawPdfkit)}` : '';
        return [
          int(size.rows),
          String(size.pages),
          sec(size.ms),
          int(size.rowsPerSecond),
          size.renderMs === undefined ? '–' : sec(size.renderMs),
          sec(size.baseline.ms),
          `${size.ratio.toFixed(2)}×${goal}${size.runs.length > 1 ? ` (${size.runs.map((run) => `${run.ratio.toFixed(2)}`).join(', ')})` : ''}`,
          `${peaks.slice(0, 3).map((mb) => mb.toFixed(0)).join(' / ')} / ${Math.max(peaks[3]!, peaks[4]!).toFixed(0)}`,
          size.load.toFixed(1),
        ];
      }),
    ),
    '',
  );
  if (r.failures.length) lines.push(`**Files that did not check out:** ${r.failures.join('; ')}`, '');
  return lines;
}
