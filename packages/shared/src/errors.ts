// The service's one error type. Every non-2xx JSON answer is built from an AppError with
// toErrorBody, so the code → status table (ERROR_STATUS) is the whole of docs/api.md#errors. Most
// go through the API's error middleware (apps/api/src/http/error-handler.ts); the API's /readyz 503
// (apps/api/src/ops/routes.ts) answers itself, to add its `checks`, and so does every error of the
// worker's health server (apps/worker/src/health-server.ts), which is not Express.

import { redactCardRuns } from './vault/card/redact-pan.js';

/** Every error code and the status it is answered with: the whole of docs/api.md#errors. */
export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  TOKENIZATION_MODE_MISMATCH: 400,
  TEST_CARD_IN_LIVE_MODE: 400,
  CVV_NOT_AVAILABLE: 400,
  UNAUTHENTICATED: 401,
  ACCESS_DENIED: 403,
  ENTITY_NOT_FOUND: 404,
  IDEMPOTENCY_KEY_REUSED: 409,
  EXPORT_NOT_READY: 409,
  FORWARD_OUTCOME_UNKNOWN: 409,
  ALREADY_INVOICED: 409,
  ALREADY_CREDITED: 409,
  INVOICE_NOT_READY: 409,
  EXPORT_EXPIRED: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INVOICE_DATA_INCOMPLETE: 422,
  RATE_LIMITED: 429,
  UNEXPECTED_ERROR: 500,
  GATEWAY_UNREACHABLE: 502,
  FORWARD_ANSWER_TOO_LARGE: 502,
  SERVICE_UNAVAILABLE: 503,
  GATEWAY_TIMEOUT: 504,
} as const;

export type TErrorCode = keyof typeof ERROR_STATUS;

export interface TFieldError {
  path: string;
  message: string;
}

/** The field errors an answer lists; errorDetails counts the rest (docs/api.md#errors). */
export const MAX_LISTED_FIELD_ERRORS = 100;

/**
 * Field errors as a request's checks find them: the first MAX_LISTED_FIELD_ERRORS, and how many
 * there are in all. A body with a million bad fields costs a count, not a list of a million.
 */
export interface TFieldErrors {
  listed: readonly TFieldError[];
  total: number;
}

export const NO_FIELD_ERRORS: TFieldErrors = { listed: [], total: 0 };

/** `found` with `more` added: listed while there is room, counted always. */
export function addFieldErrors(found: TFieldErrors, more: readonly TFieldError[] | TFieldErrors): TFieldErrors {
  const { listed, total } = 'total' in more ? more : { listed: more, total: more.length };
  if (total === 0) return found;
  const room = MAX_LISTED_FIELD_ERRORS - found.listed.length;
  return { listed: room > 0 && listed.length > 0 ? [...found.listed, ...listed.slice(0, room)] : found.listed, total: found.total + total };
}

export interface TErrorBody {
  id: string;
  timestamp: string;
  errorCode: TErrorCode;
  errorDetails: string;
  fieldErrors?: TFieldError[];
}

interface TAppErrorOptions {
  fieldErrors?: TFieldError[];
  /** Seconds a client should wait before retrying (503, 429). */
  retryAfterSeconds?: number;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: TErrorCode;
  readonly fieldErrors?: TFieldError[];
  readonly retryAfterSeconds?: number;

  constructor(code: TErrorCode, details: string, options: TAppErrorOptions = {}) {
    super(details, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.fieldErrors = options.fieldErrors;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  /** Keeps the underlying error for the log, never for the client. */
  withCause(cause: unknown): AppError {
    return new AppError(this.code, this.message, { fieldErrors: this.fieldErrors, retryAfterSeconds: this.retryAfterSeconds, cause });
  }

  /**
   * Without `details`, the sentence names the first field error and how many more there are. At
   * most MAX_LISTED_FIELD_ERRORS are listed; the sentence counts them all.
   */
  static invalid(fieldErrors: readonly TFieldError[] | TFieldErrors, details?: string): AppError {
    const found = addFieldErrors(NO_FIELD_ERRORS, fieldErrors);
    return new AppError('INVALID_REQUEST', details ?? describeFieldErrors(found.listed, found.total), { fieldErrors: [...found.listed] });
  }

  static notFound(what = 'The requested entity'): AppError {
    // One sentence for every cause (unknown, other property, other mode): never reveal which.
    return new AppError('ENTITY_NOT_FOUND', `${what} was not found.`);
  }

  static unavailable(details: string, retryAfterSeconds = 2): AppError {
    return new AppError('SERVICE_UNAVAILABLE', details, { retryAfterSeconds });
  }
}

const COUNT = new Intl.NumberFormat('en-US');

/**
 * errorDetails of a validation error: the first problem a client can act on, and how many more
 * there are ("sourceKind: must be one of RESERVATION, HOUSE_ACCOUNT (and 2 more field errors).");
 * when `total` is more than are listed, that only the first are ("… (and 999,899 more field
 * errors; the first 100 are listed).").
 */
export function describeFieldErrors(fieldErrors: readonly TFieldError[], total = fieldErrors.length): string {
  const first = fieldErrors[0];
  if (!first) return 'The request is not valid.';
  const sentence = `${first.path}: ${first.message.replace(/[.\s]+$/, '')}`;
  const more = total - 1;
  if (more <= 0) return `${sentence}.`;
  const cut = total > fieldErrors.length ? `; the first ${fieldErrors.length} are listed` : '';
  return `${sentence} (and ${COUNT.format(more)} more field error${more === 1 ? '' : 's'}${cut}).`;
}

/** A store the service depends on; its outage is answered 503, never 500. */
export type TStoreName = 'postgres' | 'redis' | 'storage';

const UNAVAILABLE_DETAILS: Record<TStoreName | 'network', string> = {
  postgres: 'The database cannot be reached right now; retry shortly.',
  redis: 'The job queue cannot be reached right now; retry shortly.',
  storage: 'The file store cannot be reached right now; retry shortly.',
  network: 'A store this request needs cannot be reached right now; retry shortly.',
};

/**
 * Socket errors of a connection to a store. Not ECONNABORTED: body-parser gives that code to a
 * client that went away mid-body, which is the client's doing.
 */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
/** SQLSTATE classes 08 (connection exception) and 53 (insufficient resources), and 57P01-57P05 (server shutting down, starting up, gone). */
const PG_STATES = /^(08|53|57P0[1-5])/;
/** node-postgres raises these without a code when the server goes away or does not answer a connect. */
const PG_MESSAGES = /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|Query read timeout)/;
/**
 * A PostgreSQL pool's budget spent (connections.ts, TPgBudget): a statement cancelled by
 * statement_timeout (57014), a lock not granted within lock_timeout (55P03), or no free pooled
 * connection within the pool-wait budget (node-postgres's message, no code). The store answers,
 * slowly: a 503 of its own, not an outage for the connection log.
 */
const PG_BUDGET_STATES = new Set(['57014', '55P03']);
const PG_POOL_WAIT_MESSAGE = 'timeout exceeded when trying to connect';
const BUDGET_DETAILS = "The PostgreSQL database did not answer within this request's time budget; retry shortly.";

/** Whether a PostgreSQL budget ran out for this error (its own, or its cause's). */
export function isPgBudgetSpent(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const { message, code, cause } = error as { message?: unknown; code?: unknown; cause?: unknown };
  if ((typeof code === 'string' && PG_BUDGET_STATES.has(code)) || message === PG_POOL_WAIT_MESSAGE) return true;
  return isPgBudgetSpent(cause, depth + 1);
}
const REDIS_NAMES = new Set(['MaxRetriesPerRequestError', 'ClusterAllFailedError']);
/** ioredis while the connection is down (fail-fast clients, clusters), and Redis replies of a server not ready to serve. */
const REDIS_MESSAGES =
  /^(Connection is closed|Stream isn't writeable|Cluster isn't ready|None of startup nodes is available|Failed to refresh slots cache|Command timed out|(LOADING|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|READONLY) )/;
/** S3 error codes of a store that is overloaded or failing on its side. */
const S3_CODES = new Set(['SlowDown', 'ServiceUnavailable', 'InternalError', 'RequestTimeout']);

function ownFailureOf(error: object): TStoreName | 'network' | undefined {
  const { name, message, code } = error as { name?: unknown; message?: unknown; code?: unknown };
  const text = typeof message === 'string' ? message : '';
  if (typeof code === 'string' && PG_STATES.test(code)) return 'postgres';
  if (PG_MESSAGES.test(text)) return 'postgres';
  if (REDIS_NAMES.has(String(name)) || REDIS_MESSAGES.test(text)) return 'redis';
  if (name === 'StorageWriteError' || (name === 'S3Error' && S3_CODES.has(String(code)))) return 'storage';
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return 'network';
  return undefined;
}

/**
 * Which store an error says is unreachable, if any: its own name, code or message, else those of
 * its cause (a wrapped driver error) or of the attempts of an AggregateError (a connect tried on
 * every address of a host). 'network' is a socket error that does not say which store it was.
 */
export function connectionFailureOf(error: unknown, depth = 0): TStoreName | 'network' | undefined {
  if (typeof error !== 'object' || error === null || depth > 3) return undefined;
  const own = ownFailureOf(error);
  if (own && own !== 'network') return own;
  const inner = [(error as { cause?: unknown }).cause, ...(error instanceof AggregateError ? error.errors : [])];
  for (const candidate of inner) {
    const found = connectionFailureOf(candidate, depth + 1);
    if (found && found !== 'network') return found;
  }
  return own ?? inner.map((candidate) => connectionFailureOf(candidate, depth + 1)).find(Boolean);
}

/**
 * Errors Express and body-parser raise for a request that cannot be read. Body-parser's carry a
 * `type`; the router's URIError for a path that is not valid percent-encoding ("/vault/v1/tokens/%zz")
 * and body-parser's zlib error for a Content-Encoding body that does not inflate carry only status
 * 400 (test/fuzz.test.ts sends such requests). They are the client's fault: a 4xx, never a 500.
 */
function fromHttpClientError(error: unknown): AppError | undefined {
  const { type, status } = (typeof error === 'object' && error !== null ? error : {}) as { type?: unknown; status?: unknown };
  if (type === 'entity.too.large') return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than this route accepts.');
  if (type === 'entity.parse.failed') {
    return AppError.invalid([{ path: 'body', message: 'is not valid JSON' }], 'The request body is not valid JSON.');
  }
  if (type === 'charset.unsupported' || type === 'encoding.unsupported') {
    return new AppError('UNSUPPORTED_MEDIA_TYPE', 'The request body encoding is not supported (use UTF-8 JSON).');
  }
  if (typeof type === 'string') return AppError.invalid([{ path: 'body', message: 'could not be read' }], 'The request body could not be read.');
  if (status !== 400) return undefined;
  if (error instanceof URIError) {
    return AppError.invalid([{ path: 'path', message: 'is not valid percent-encoding' }], 'The request path is not valid percent-encoding.');
  }
  return AppError.invalid([{ path: 'body', message: 'could not be read' }], 'The request body could not be read.');
}

/**
 * The one conversion of anything thrown into the answer it gets: an AppError as it is; a request
 * that cannot be read, its 4xx; a PostgreSQL budget spent, 503 naming PostgreSQL with Retry-After;
 * a store that cannot be reached (PostgreSQL, Redis, object storage,
 * or a socket error), 503 with Retry-After; anything else 500 UNEXPECTED_ERROR. The original error
 * is kept as `cause`, for the log, never for the client.
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const fromClient = fromHttpClientError(error);
  if (fromClient) return fromClient.withCause(error);
  if (isPgBudgetSpent(error)) return AppError.unavailable(BUDGET_DETAILS).withCause(error);
  const store = connectionFailureOf(error);
  if (store) return AppError.unavailable(UNAVAILABLE_DETAILS[store]).withCause(error);
  return new AppError('UNEXPECTED_ERROR', 'An unexpected error occurred; it has been logged.', { cause: error });
}

/** An error answered 500: a fault of ours, logged with its stack (503s and 4xx are expected). */
export function isUnexpected(error: AppError): boolean {
  return error.code === 'UNEXPECTED_ERROR';
}

/**
 * The answer's body. Its text is passed through redactCardRuns as a last line: whatever a message
 * or a path picked up from the request, no answer carries a card number (docs/api.md#errors).
 */
export function toErrorBody(error: AppError, requestId: string, now = new Date()): TErrorBody {
  const body: TErrorBody = {
    id: requestId,
    timestamp: now.toISOString(),
    errorCode: error.code,
    errorDetails: redactCardRuns(error.message),
  };
  if (error.fieldErrors && error.fieldErrors.length > 0) {
    body.fieldErrors = error.fieldErrors.slice(0, MAX_LISTED_FIELD_ERRORS).map(({ path, message }) => ({ path: redactCardRuns(path), message: redactCardRuns(message) }));
  }
  return body;
}
