import { AppError } from '@folio-vault/shared/errors';

/**
 * Runs a database step of a request: a store that cannot answer is the client's to retry (503 with
 * Retry-After), never a 500 with internals. Errors that are ours (AppError) pass through.
 */
export async function database<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError) throw error;
    const code = (error as { code?: string }).code;
    if (code === undefined || /^(08|57P|53)/.test(code) || /^E(CONNREFUSED|CONNRESET|TIMEDOUT|HOSTUNREACH)$/.test(code)) {
      throw AppError.unavailable('The database cannot be reached right now; retry shortly.').withCause(error);
    }
    throw error;
  }
}
