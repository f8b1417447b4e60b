import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import { AppError, type TFieldError } from '@folio-vault/shared/errors';

/**
 * A route = schemas for headers / params / body + a short handler. The parsed values are handed to
 * the handler (never re-parsed); every problem in every part is reported at once with its path:
 * a body field as "expiration.month", a header by its name ("X-Property-Id"), a path parameter by
 * its name.
 */
interface TRouteSchemas<H extends z.ZodType, P extends z.ZodType, B extends z.ZodType> {
  headers?: H;
  params?: P;
  body?: B;
  /** Body size limit for this route (413 above it: docs/api.md#abuse-limits). */
  bodyLimit?: string;
  /**
   * Runs once the headers are valid and before the body is read: a caller who may not act for the
   * property gets 403 whatever the body holds (and its body is never parsed).
   */
  authorize?: (req: Request, headers: z.output<H>) => void;
}

interface TRouteContext<H extends z.ZodType, P extends z.ZodType, B extends z.ZodType> {
  req: Request;
  res: Response;
  headers: z.output<H>;
  params: z.output<P>;
  body: z.output<B>;
}

const HEADER_NAMES: Record<string, string> = {
  'x-property-id': 'X-Property-Id',
  'svc-tokenization-mode': 'SVC-Tokenization-Mode',
  'idempotency-key': 'Idempotency-Key',
  'accept-language': 'Accept-Language',
  prefer: 'Prefer',
};

function issuesToFieldErrors(issues: z.core.$ZodIssue[], part: 'headers' | 'params' | 'body'): TFieldError[] {
  return issues.map((issue) => {
    const path = issue.path.map(String);
    if (part === 'headers' && path[0]) path[0] = HEADER_NAMES[path[0]] ?? path[0];
    // An unknown key is reported at the key itself, so a client sees which field to drop.
    if (issue.code === 'unrecognized_keys') {
      return { path: [...path, ...issue.keys].join('.') || part, message: 'is not a known field' };
    }
    if (issue.code === 'invalid_type' && issue.input === undefined) {
      return { path: path.join('.') || part, message: 'is required' };
    }
    return { path: path.join('.') || part, message: issue.message };
  });
}

const jsonParsers = new Map<string, RequestHandler>();
function jsonParser(limit: string): RequestHandler {
  let parser = jsonParsers.get(limit);
  if (!parser) {
    parser = express.json({ limit, strict: true, type: 'application/json' });
    jsonParsers.set(limit, parser);
  }
  return parser;
}

export function route<
  H extends z.ZodType = z.ZodUnknown,
  P extends z.ZodType = z.ZodUnknown,
  B extends z.ZodType = z.ZodUnknown,
>(schemas: TRouteSchemas<H, P, B>, handler: (ctx: TRouteContext<H, P, B>) => Promise<void>): RequestHandler[] {
  const handlers: RequestHandler[] = [];
  const headerErrors = new WeakMap<Request, { headers?: unknown; errors: TFieldError[] }>();
  handlers.push((req, _res, next) => {
    if (!schemas.headers) return next();
    const result = schemas.headers.safeParse(req.headers);
    if (!result.success) {
      headerErrors.set(req, { errors: issuesToFieldErrors(result.error.issues, 'headers') });
      return next();
    }
    headerErrors.set(req, { headers: result.data, errors: [] });
    try {
      schemas.authorize?.(req, result.data as z.output<H>);
      next();
    } catch (error) {
      next(error);
    }
  });
  if (schemas.body) {
    handlers.push((req, _res, next) => {
      if (!req.is('application/json')) {
        next(new AppError('UNSUPPORTED_MEDIA_TYPE', 'This route takes a JSON body (Content-Type: application/json).'));
        return;
      }
      next();
    });
    handlers.push(jsonParser(schemas.bodyLimit ?? '100kb'));
  }
  handlers.push(async (req: Request, res: Response, next: NextFunction) => {
    try {
      const parsedHeaders = headerErrors.get(req);
      const fieldErrors: TFieldError[] = [...(parsedHeaders?.errors ?? [])];
      const parse = <S extends z.ZodType>(schema: S | undefined, input: unknown, part: 'headers' | 'params' | 'body') => {
        if (!schema) return undefined;
        const result = schema.safeParse(input);
        if (result.success) return result.data;
        fieldErrors.push(...issuesToFieldErrors(result.error.issues, part));
        return undefined;
      };
      const headers = parsedHeaders?.headers;
      const params = parse(schemas.params, req.params, 'params');
      const body = parse(schemas.body, req.body, 'body');
      if (fieldErrors.length > 0) throw AppError.invalid(fieldErrors);
      await handler({ req, res, headers: headers as z.output<H>, params: params as z.output<P>, body: body as z.output<B> });
    } catch (error) {
      next(error);
    }
  });
  return handlers;
}
