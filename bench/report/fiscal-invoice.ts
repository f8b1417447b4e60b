import type { TFiscalInvoiceResult } from '../scenarios/fiscal-invoice.js';
import { header, msText, table, type TRun } from './format.js';

/** Issue to files of a 30-line invoice against the same folio's plain PDF export (bench/scenarios/fiscal-invoice.ts). */
export function fiscalInvoiceSection(run: TRun): string[] {
  const r = run.result as TFiscalInvoiceResult | undefined;
  const row = (what: string, s: TFiscalInvoiceResult['export']) => [what, msText(s.p50), msText(s.p90), msText(s.max)];
  return [
    '## Invoice: issue to files',
    '',
    ...header('invoice', run),
    ...(r
      ? [
          `A French hotel's folio of ten nights (${r.rows} ledger rows, ${r.lines} invoice lines), ${r.folios} folios one after another, each exported as a plain PDF (the file answered by the POST) and issued as an invoice in all three formats (POST with Prefer: wait=10, answered once the files are stored, then the Factur-X PDF, CII and UBL fetched), in alternating order; mean load ${r.load.toFixed(2)}. Validation is not on the request path.`,
          '',
          table(['', 'p50', 'p90', 'max'], [
            row('plain PDF export, POST to the last byte', r.export),
            row('invoice, POST to the last byte of the three files', r.invoice),
            row("the worker's build and store of the three files", r.renderMs),
          ]),
          '',
          `Invoice / export at p50: ${r.ratio.toFixed(2)}×.${r.failures.length ? ` Files that did not check: ${r.failures.length}.` : ''}`,
          '',
        ]
      : ['No result.', '']),
  ];
}
