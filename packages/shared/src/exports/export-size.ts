// The size bound of an export (EXPORT_MAX_ROWS, docs/export.md#size-bound). The worker holds a
// document's rows and its page plan in memory and one render process joins every page, so a
// source far past what a reader can use would cost a worker its memory: the API refuses a request
// selecting more rows (413), and the worker checks again, in its snapshot, before rendering.

import { UnrecoverableError } from 'bullmq';

/** The sentence a refusal carries, in the 413's errorDetails and the failed export's status alike. */
export function tooManyRowsMessage(rows: number, maxRows: number): string {
  const count = (n: number) => n.toLocaleString('en-US');
  return (
    `The export selects ${count(rows)} transactions; one document holds at most ${count(maxRows)} (EXPORT_MAX_ROWS): ` +
    'narrow it with dateFrom/dateTo, folioIds or another filter.'
  );
}

/** The worker found more rows than a document holds. Never retried: the same rows would be read again. */
export class ExportTooLargeError extends UnrecoverableError {
  constructor(
    readonly rows: number,
    readonly maxRows: number,
  ) {
    super(tooManyRowsMessage(rows, maxRows));
    this.name = 'ExportTooLargeError';
  }
}
