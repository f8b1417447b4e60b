import type { TExportSmallResult } from '../scenarios/export-small.js';
import { header, int, msText, renderProcesses, sec, table, type TRun } from './format.js';

function cpuText(byProcess: Record<string, number> | undefined): string {
  if (!byProcess) return 'not measured';
  const entries = Object.entries(byProcess).filter(([, ms]) => ms >= 0.05);
  const all = entries.reduce((sum, [, ms]) => sum + ms, 0);
  return `${entries.map(([role, ms]) => `${role} ${ms.toFixed(1)} ms`).join(', ')}; ${all.toFixed(1)} ms in all`;
}

function replacementsText(counts: Record<string, number> | undefined): string {
  if (!counts) return 'not measured';
  const entries = Object.entries(counts).filter(([, n]) => n > 0);
  return entries.length ? entries.map(([reason, n]) => `${n} (${reason})`).join(', ') : 'none';
}

/** docs/benchmarks.md's "Small exports" section (bench/scenarios/export-small.ts's result). */
export function exportSmallSection(run: TRun): string[] {
  const r = run.result as TExportSmallResult | undefined;
  const lines = ['## Small exports', '', ...header('export-small', run)];
  if (!r) return lines;
  const { startup: s, sequential: one, async: polled, concurrent: many, bare, renderAlone: alone } = r;
  lines.push(
    '`npm start`\'s service (API + worker in one process, its render processes; NODE_ENV=production, default settings but the rate limits lifted) on a ledger of typical 30-row folios (packages/test-kit/src/typical-ledger.ts). An export runs from the POST (no `Prefer`: the file comes in its answer) to the last byte of the PDF; the clients share one undici Pool. Baselines measured in the same run: the worker\'s own render time of the same exports ("document rendered"), a bare BullMQ round trip on the same Redis, and the render processes alone (bench/baselines/render-throughput.ts): before the service starts, a RenderPool of as many processes as the service runs, warmed by one untimed pass, rendering the same folios (built beforehand as the worker builds them) back to back with no database, queue or upload. "CPU" is the service\'s process tree\'s CPU time per export, which other work on the machine barely moves.',
    '',
    table(
      ['', 'exports', 'e2e p50', 'e2e p90', 'e2e p99', 'exports/s', 'render p50', 'CPU an export', 'load'],
      [
        ['1 client', int(one.exports), msText(one.e2e.p50), msText(one.e2e.p90), msText(one.e2e.p99), one.perSecond.toFixed(1), msText(one.renderMs.p50), msText(one.cpuMsPerExport), one.load.toFixed(1)],
        ['1 client, respond-async + polling 20 ms', int(polled.exports), msText(polled.e2e.p50), msText(polled.e2e.p90), msText(polled.e2e.p99), '', '', '', polled.load.toFixed(1)],
        [`${many.clients} clients`, int(many.exports), msText(many.e2e.p50), msText(many.e2e.p90), msText(many.e2e.p99), many.perSecond.toFixed(1), msText(many.renderMs.p50), msText(many.cpuMsPerExport), many.load.toFixed(1)],
        ['bare BullMQ round trip', '', msText(bare.p50), msText(bare.p90), msText(bare.p99), '', '', '', ''],
        alone
          ? [`${renderProcesses(alone.processes)} alone`, int(alone.documents), '', '', '', alone.perSecond.toFixed(1), '', '', alone.load.toFixed(1)]
          : ['render processes alone', 'not measured in this run', '', '', '', '', '', '', ''],
      ],
    ),
    '',
    ...(alone ? [`${many.clients} clients: ${(many.perSecond / alone.perSecond).toFixed(2)} of the render processes' own throughput on the same folios.`, ''] : []),
    `Start: ${sec(s.readyMs)} from spawning the process until it is ready (${sec(s.readyCpuMs)} of CPU; the render processes warm up before the worker takes jobs). After one GET /healthz (the client's own first request), the first 1,000-row export ${sec(s.coldMs)} (render ${s.coldRenderMs ?? '?'} ms), the same export warm ${sec(s.warmMs)} (render ${s.warmRenderMs ?? '?'} ms): cold/warm ${s.ratio.toFixed(2)}×, load ${s.load.toFixed(1)}.` +
      ` Warm exports of other 1,000-row folios, which this service had not drawn (their dates and times new to its render processes), took ${sec(s.unseenMs)} (render ${s.unseenRenderMs ?? '?'} ms): the first export is ${(s.coldMs / s.unseenMs).toFixed(2)}× that, so what the first export pays is the start, not a repeat found in the shaping cache.` +
      (r.starts && r.starts.length > 1
        ? ` That is the median of ${r.starts.length} starts, one after another (a first export is one sample): cold/warm ${r.starts.map((start) => `${start.ratio.toFixed(2)}×`).join(', ')}; ready after ${r.starts.map((start) => sec(start.readyMs)).join(', ')}.`
        : ''),
    '',
    `Render processes replaced over the run (export_render_process_replacements_total): ${replacementsText(r.replacements)}.`,
    '',
    `CPU an export by process, ${many.clients} clients (bench/support/process-cpu.ts; two cores give 2,000 ms a second): ${cpuText(many.cpuByProcess)}.`,
    '',
  );
  return lines;
}
