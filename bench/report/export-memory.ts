import type { TExportMemoryResult } from '../scenarios/export-memory.js';
import { header, int, mark, table, type TRun } from './format.js';
import { GOALS } from './goals.js';

/** The "Export memory" section of docs/benchmarks.md (bench/scenarios/export-memory.ts's result). */
export function exportMemorySection(run: TRun): string[] {
  const r = run.result as TExportMemoryResult | undefined;
  const lines = ['## Export memory', '', ...header('export-memory', run)];
  if (!r) return lines;
  lines.push(
    `API and one worker as separate processes (NODE_ENV=production), files stored in S3 (${r.storage}): the rendered file is uploaded from its temp file as a stream (storage.putFile). One folio of N rows exported per format and size, smallest first, in a fresh worker per format (warmed by a small export); before each export the kernel's peak (VmHWM) of every process of the worker's tree is reset, then sampled every 50 ms. "Worker main" is the process that reads the ledger, builds the document, plans the pages and uploads; "render" is the largest of its render processes (they render the chunks, join them, write the XLSX).`,
    '',
    table(
      ['format', 'rows', 'pages', 'file', 'time', 'peak RSS MB worker main', 'peak RSS MB render (processes)'],
      r.sizes.map((s) => [s.format, int(s.rows), int(s.pages), `${(s.bytes / 1e6).toFixed(2)} MB`, `${s.seconds.toFixed(1)} s`, s.workerMb.toFixed(0), `${s.renderMb.toFixed(0)} (${s.renderProcesses})`]),
    ),
    '',
    ...r.growth.map(
      (g) =>
        `- ${g.format}, ${int(g.fromRows)} → ${int(g.toRows)} rows: worker main ${g.workerMb >= 0 ? '+' : ''}${g.workerMb.toFixed(0)} MB (goal ≤ ${GOALS.memoryGrowthMb} MB ${mark(g.workerMb <= GOALS.memoryGrowthMb)}), render process ${g.renderMb >= 0 ? '+' : ''}${g.renderMb.toFixed(0)} MB.`,
    ),
    '',
  );
  if (r.failures.length) lines.push(`Files that did not match: ${r.failures.join('; ')}.`, '');
  return lines;
}
