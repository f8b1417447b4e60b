import type { TMachine } from '../support/machine.js';
import { header, int, msText, sec, table, type TRun } from './format.js';

/** The "Ledger listing" section of docs/benchmarks.md (bench/scenarios/ledger-listing.ts's result). */
interface TLatency {
  p50: number;
  p99: number;
}
export interface TListingResult {
  machine: TMachine;
  rows: number;
  importRowsPerSecond: number;
  firstPage: TLatency;
  firstPageTotals: TLatency;
  firstPageByAmount: TLatency;
  /** The same rows with only the older fields, measured in the same run (absent in older results). */
  baseline?: { importRowsPerSecond: number; firstPage: TLatency; firstPageTotals: TLatency };
  walk1100: { pages: number; rows: number; ms: number };
  walk100: { pages: number; rows: number; ms: number };
}

const pair = (latency: TLatency) => `${msText(latency.p50)} / ${msText(latency.p99)}`;

export function listingSection(run: TRun): string[] {
  const r = run.result as TListingResult | undefined;
  const lines = ['## Ledger listing', '', ...header('listing', run)];
  if (!r) return lines;
  lines.push(
    `One source of ${int(r.rows)} transactions carrying every field the import takes (stay, users, guest, payment objects, foreign tender), the listing module the API calls, against PostgreSQL. Baseline, in the same run: a source of the same rows with only the fields the ledger had before stays and payments.`,
    '',
    table(
      ['', 'every field', 'baseline'],
      [
        ['import', `${int(r.importRowsPerSecond)} rows/s`, r.baseline ? `${int(r.baseline.importRowsPerSecond)} rows/s` : '—'],
        ['first page (100), p50 / p99', pair(r.firstPage), r.baseline ? pair(r.baseline.firstPage) : '—'],
        ['first page (100) + includeTotal, p50 / p99', pair(r.firstPageTotals), r.baseline ? pair(r.baseline.firstPageTotals) : '—'],
        ['first page by amount desc, no voided, p50 / p99', pair(r.firstPageByAmount), ''],
      ],
    ),
    '',
    `Full walk with the cursor: limit 1100 — ${r.walk1100.pages} pages in ${sec(r.walk1100.ms)}; limit 100 — ${r.walk100.pages} pages in ${sec(r.walk100.ms)} (${(r.walk100.ms / r.walk100.pages).toFixed(2)} ms a page).`,
    '',
  );
  return lines;
}
