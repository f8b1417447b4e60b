import { ExportTooLargeError } from '@folio-vault/shared/exports/export-size';
import { StorageWriteError } from '@folio-vault/shared/storage/object-storage';
import type { TAttempt } from './attempts.js';

/**
 * What an export's status says when an attempt fails. Clients read it (GET …/exports/{id}, and the
 * 503 of an inline export), so it is one sentence of ours, never a driver message with addresses,
 * paths or SQL; the error itself goes to the log.
 */
export function exportFailureReason(error: unknown, attempt: TAttempt, last: boolean): string {
  const what = error instanceof StorageWriteError || error instanceof ExportTooLargeError ? error.message : 'The export could not be produced.';
  return last ? `${what} Gave up after ${attempt.number} of ${attempt.of} attempt(s).` : `${what} Attempt ${attempt.number} of ${attempt.of} failed; it will be retried.`;
}
