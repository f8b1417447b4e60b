import type { NextFunction, Request, Response } from 'express';
import { AppError, toErrorBody } from '@folio-vault/shared/errors';

/** Body-parser failures carry a `type`; map them onto the contract's codes. */
function fromParserError(error: unknown): AppError | undefined {
  const type = (error as { type?: unknown }).type;
  if (type === 'entity.too.large') return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than this route accepts.');
  if (type === 'entity.parse.failed') {
    return AppError.invalid([{ path: 'body', message: 'is not valid JSON' }], 'The request body is not valid JSON.');
  }
  if (type === 'charset.unsupported' || type === 'encoding.unsupported') {
    return new AppError('UNSUPPORTED_MEDIA_TYPE', 'The request body encoding is not supported (use UTF-8 JSON).');
  }
  if (typeof type === 'string') return AppError.invalid([{ path: 'body', message: 'could not be read' }], 'The request body could not be read.');
  return fromClientHttpError(error);
}

/**
 * Client errors Express raises without a `type` (found by test/fuzz.test.ts): the router's URIError
 * for a path that is not valid percent-encoding ("/vault/v1/tokens/%zz"), and body-parser's
 * zlib error for a Content-Encoding body that does not inflate. They are the client's fault, so a
 * 4xx, never the 500 of an unknown error.
 */
function fromClientHttpError(error: unknown): AppError | undefined {
  if ((error as { status?: unknown }).status !== 400) return undefined;
  if (error instanceof URIError) {
    return AppError.invalid([{ path: 'path', message: 'is not valid percent-encoding' }], 'The request path is not valid percent-encoding.');
  }
  return AppError.invalid([{ path: 'body', message: 'could not be read' }], 'The request body could not be read.');
}

export function notFoundHandler(_req: Request, _res: Response, next: NextFunction): void {
  next(new AppError('ENTITY_NOT_FOUND', 'There is no such route.'));
}

/**
 * The one place an error becomes an answer. Unknown errors are logged with their stack and
 * answered as a generic 500: no internals, no input echoed.
 */
export function errorHandler(error: unknown, req: Request, res: Response, _next: NextFunction): void {
  let appError = error instanceof AppError ? error : fromParserError(error);
  if (!appError) {
    req.log.error({ err: error }, 'unexpected error');
    appError = new AppError('UNEXPECTED_ERROR', 'An unexpected error occurred; it has been logged.');
  } else if (appError.status >= 500) {
    req.log.warn({ errorCode: appError.code, cause: (appError.cause as Error | undefined)?.message }, appError.message);
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (appError.code === 'UNAUTHENTICATED') res.set('WWW-Authenticate', 'Bearer realm="folio-vault", error="invalid_token"');
  if (appError.retryAfterSeconds !== undefined) res.set('Retry-After', String(appError.retryAfterSeconds));
  res.status(appError.status).json(toErrorBody(appError, String(req.id)));
}
