import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { AppError, connectionFailureOf, isUnexpected, toAppError, toErrorBody } from '@folio-vault/shared/errors';

export function notFoundHandler(_req: Request, _res: Response, next: NextFunction): void {
  next(new AppError('ENTITY_NOT_FOUND', 'There is no such route.'));
}

/** What the error handler leaves for the request's log line (res.locals; read by requestLogOptions). */
interface TAnsweredError {
  errorCode: string;
  /** The store that could not be reached: its outage is logged once, by the connection log. */
  store?: string;
  /** A 5xx's reason otherwise. Never a 4xx's: a parser's message can quote the body. */
  cause?: string;
}

function answeredError(appError: AppError): TAnsweredError {
  if (appError.status < 500 || isUnexpected(appError)) return { errorCode: appError.code };
  const store = connectionFailureOf(appError.cause);
  if (store) return { errorCode: appError.code, store };
  return { errorCode: appError.code, ...(appError.cause instanceof Error ? { cause: appError.cause.message } : {}) };
}

/**
 * The one place an error becomes an answer (toAppError decides which). Only an unexpected error
 * gets a line of its own, with its stack; the code and cause of any other error ride on the
 * request's one log line, so an outage answered 503 by the thousand is a warning per request, not
 * a stack trace per request (the outage itself is logged once, by the connection log).
 */
export function errorHandler(error: unknown, req: Request, res: Response, _next: NextFunction): void {
  const appError = toAppError(error);
  if (isUnexpected(appError)) req.log.error({ err: appError.cause ?? error }, 'unexpected error');
  if (res.headersSent) {
    res.locals.answeredError = answeredError(appError);
    res.destroy();
    return;
  }
  startErrorAnswer(appError, res).json(toErrorBody(appError, String(req.id)));
}

/**
 * An error answer's status and headers, and its code left for the request's log line; the caller
 * writes the body (the error body here, the dashboard's sign-in page for a browser).
 */
export function startErrorAnswer(appError: AppError, res: Response): Response {
  res.locals.answeredError = answeredError(appError);
  if (appError.code === 'UNAUTHENTICATED') res.set('WWW-Authenticate', 'Bearer realm="folio-vault", error="invalid_token"');
  if (appError.retryAfterSeconds !== undefined) res.set('Retry-After', String(appError.retryAfterSeconds));
  return res.status(appError.status);
}

type TLogLevel = 'debug' | 'warn' | 'error';
type TLogValues = Record<string, unknown>;
const answeredErrorOf = (res: ServerResponse): TAnsweredError | undefined =>
  (res as ServerResponse & { locals?: { answeredError?: TAnsweredError } }).locals?.answeredError;

/**
 * pino-http options for the request's line: an answered request at debug (the metrics count them;
 * the default level shows what needs a look), 503 (a store away, a wait bounded) and 4xx at warn,
 * other 5xx at error. The stack pino-http makes up for a 5xx ("failed with status code") is left
 * out: it points into pino-http, and the error handler has logged any real one.
 */
export const requestLogOptions = {
  customLogLevel: (_req: IncomingMessage, res: ServerResponse, error?: Error): TLogLevel => {
    if (res.statusCode === 503 || (res.statusCode >= 400 && res.statusCode < 500)) return 'warn';
    return error || res.statusCode >= 500 ? 'error' : 'debug';
  },
  customSuccessObject: (_req: IncomingMessage, res: ServerResponse, values: TLogValues): TLogValues => ({ ...values, ...answeredErrorOf(res) }),
  customErrorObject: (_req: IncomingMessage, res: ServerResponse, error: Error, values: TLogValues): TLogValues => {
    const answered = answeredErrorOf(res);
    // A route that answers a 5xx itself (/readyz's 503) gets pino-http's made-up error too.
    if (!answered && error.message !== `failed with status code ${res.statusCode}`) return values;
    const { err: _made, ...rest } = values;
    return { ...rest, ...answered };
  },
};
