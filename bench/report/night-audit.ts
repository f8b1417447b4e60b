import type { TRenderThroughput } from '../baselines/render-throughput.js';
import type { TMachine } from '../support/machine.js';
import { header, int, renderProcesses, table, type TRun } from './format.js';

/** bench/scenarios/night-audit.ts's result. */
export interface TNightAuditResult {
  machine: TMachine;
  folios: number;
  rowsPerFolio: number;
  configs: Array<{
    workers: number; concurrency: number; folios: number; seconds: number; foliosPerSecond: number; runs?: number[]; peakMb: number; renderMs: number; jobMs: number; load: number;
    /** The render processes alone on the same folios; absent from results older than the baseline. */
    renderAlone?: TRenderThroughput;
  }>;
  failures: string[];
}

/** docs/benchmarks.md's "Night audit" section. */
export function nightAuditSection(run: TRun): string[] {
  const r = run.result as TNightAuditResult | undefined;
  const lines = ['## Night audit', '', ...header('night-audit', run)];
  if (!r) return lines;
  lines.push(
    `One batch of ${int(r.folios)} folios (${r.rowsPerFolio.toFixed(0)} rows each), worker processes (\`start:worker\`, NODE_ENV=production, WORKER_QUEUES=night-audit as a night-audit fleet runs them: every render process takes batch pieces) × EXPORT_CONCURRENCY each, after a small warm-up batch; the time runs until the batch's status says it ended. The batch runs several times per configuration and the median run is shown (every run's folios/s in the last column). Peak RSS is the sum over the workers and their render processes. Baseline, measured before each configuration's workers start: the render processes alone (bench/baselines/render-throughput.ts), as many as the configuration runs in all, warmed by one untimed pass, rendering the batch's documents (built beforehand from the same ledger, as the worker builds them) back to back with no database, queue or upload, the median of as many runs.`,
    '',
    table(
      ['workers × concurrency', 'wall time', 'folios/s', 'render processes alone, folios/s', 'of render alone', 'peak RSS (sum)', 'mean render / job', 'load', 'every run, folios/s'],
      r.configs.map((c) => [
        `${c.workers} × ${c.concurrency}`,
        `${c.seconds.toFixed(1)} s`,
        c.foliosPerSecond.toFixed(1),
        c.renderAlone ? `${c.renderAlone.perSecond.toFixed(1)} (${renderProcesses(c.renderAlone.processes)})` : 'not measured in this run',
        c.renderAlone ? (c.foliosPerSecond / c.renderAlone.perSecond).toFixed(2) : '–',
        `${c.peakMb.toFixed(0)} MB`,
        `${c.renderMs.toFixed(0)} / ${c.jobMs.toFixed(0)} ms`,
        c.load.toFixed(1),
        (c.runs ?? [c.foliosPerSecond]).map((rate) => rate.toFixed(1)).join(', '),
      ]),
    ),
    '',
  );
  if (r.failures.length) lines.push(`**Batches that did not complete:** ${r.failures.join('; ')}`, '');
  return lines;
}
