import type { TMachine } from '../support/machine.js';

/** The Markdown pieces every section of docs/benchmarks.md is written with (bench/report/report.ts). */
export interface TRun {
  command: string;
  quick: boolean;
  seconds: number;
  result: unknown;
  error?: string;
}

export const mark = (ok: boolean) => (ok ? '✔' : '✘');
export const int = (value: number) => Math.round(value).toLocaleString('en-US');
export const sec = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
export const msText = (ms: number) => `${ms.toFixed(1)} ms`;
/** "1 render process", "2 render processes". */
export const renderProcesses = (count: number) => `${count} render process${count === 1 ? '' : 'es'}`;
export const table = (head: string[], rows: string[][]) =>
  [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
export const machineLine = (m: TMachine | undefined) => (m ? `${m.cores} × ${m.cpu}, ${m.memoryGiB} GiB, Node ${m.node}` : 'unknown');

/** When and how a section was measured, and whether it failed. */
export function header(name: string, run: TRun): string[] {
  const result = run.result as { machine?: TMachine } | undefined;
  return [
    `Measured ${result?.machine?.date.slice(0, 16).replace('T', ' ') ?? '?'} UTC${run.quick ? ' — **quick run (small sizes, a smoke check, not the figures to quote)**' : ''}; took ${Math.round(run.seconds)} s.`,
    `Command: \`${run.command}\``,
    ...(run.error ? [`**${name} failed: ${run.error}.** Figures below, if any, are partial.`] : []),
    '',
  ];
}
