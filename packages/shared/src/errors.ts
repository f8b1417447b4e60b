/**
 * The service's one error type. Every non-2xx JSON answer is built from an AppError by the API's
 * error middleware, so the code → status table below is the whole of docs/api.md#errors.
 */
export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  TOKENIZATION_MODE_MISMATCH: 400,
  TEST_CARD_IN_LIVE_MODE: 400,
  UNAUTHENTICATED: 401,
  ACCESS_DENIED: 403,
  ENTITY_NOT_FOUND: 404,
  IDEMPOTENCY_KEY_REUSED: 409,
  EXPORT_NOT_READY: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  UNEXPECTED_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type TErrorCode = keyof typeof ERROR_STATUS;

export interface TFieldError {
  path: string;
  message: string;
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

  static invalid(fieldErrors: TFieldError[], details = 'The request is not valid.'): AppError {
    return new AppError('INVALID_REQUEST', details, { fieldErrors });
  }

  static notFound(what = 'The requested entity'): AppError {
    // One sentence for every cause (unknown, other property, other mode): never reveal which.
    return new AppError('ENTITY_NOT_FOUND', `${what} was not found.`);
  }

  static unavailable(details: string, retryAfterSeconds = 2): AppError {
    return new AppError('SERVICE_UNAVAILABLE', details, { retryAfterSeconds });
  }
}

export function toErrorBody(error: AppError, requestId: string, now = new Date()): TErrorBody {
  const body: TErrorBody = {
    id: requestId,
    timestamp: now.toISOString(),
    errorCode: error.code,
    errorDetails: error.message,
  };
  if (error.fieldErrors && error.fieldErrors.length > 0) body.fieldErrors = error.fieldErrors;
  return body;
}
