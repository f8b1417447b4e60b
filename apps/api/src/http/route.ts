import { Readable } from 'node:stream';
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import type { z } from 'zod';
import { AppError, type TFieldError } from '@folio-vault/shared/errors';
import { authenticate, type TAuthenticateOptions } from '../auth/authenticate.js';
import type { TJwtVerifier } from '../auth/jwt-verifier.js';
import type { TScope } from '../auth/principal.js';
import type { TResponseDoc } from './route-docs.js';

/**
 * One definition per route: path, scope, headers, params, body, answers and error statuses,
 * written once. `mountRoutes` puts it on Express; `registerRoute` (route-docs.ts) describes it
 * in the OpenAPI document, so neither can drift from the other.
 */
export type THttpMethod = 'get' | 'post' | 'delete';

/** What every route's dependencies hold: the token verifier for `scope`. */
export interface TRouteDeps {
  verifier: TJwtVerifier;
}

/** The part of a definition the OpenAPI document reads: everything but the code. */
export interface TRouteSpec {
  method: THttpMethod;
  /** OpenAPI syntax (`/vault/v1/tokens/{id}`); Express gets `:id`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: [string];
  /** The scope the bearer token needs; absent on the public operational routes. */
  scope?: TScope;
  /** A route with limits in front of it answers 429 too: set by defineRoute from `limits`. */
  rateLimited?: boolean;
  headers?: z.ZodObject;
  params?: z.ZodObject;
  /** The query string's parameters (a strict object refuses unknown ones). */
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Body size limit (413 above it); 100 kB when absent. */
  bodyLimit?: string;
  responses: Record<number, TResponseDoc>;
  /** Error statuses of this route beyond the ones its parts imply (route-docs.ts: impliedErrors). */
  errors?: number[];
  /** The route also admits a signed link instead of the JWT: set by defineRoute from `signedAccess`. */
  signedLink?: boolean;
}

/**
 * A route's check of a signed link (a download link, docs/export.md#download-links): 'absent' when
 * the request carries none (then the JWT is required as usual), 'granted' when its signature is
 * valid; it throws (403 ACCESS_DENIED) for a link that is tampered with, expired or for another entity.
 */
export type TSignedAccess = (req: Request) => 'absent' | 'granted';

export interface TRouteContext<H extends z.ZodType, P extends z.ZodType, B extends z.ZodType, Q extends z.ZodType = z.ZodObject> {
  req: Request;
  res: Response;
  headers: z.output<H>;
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
  /** True when a signed link let the request in (no JWT, `authorize` not run): see `signedAccess`. */
  signed: boolean;
}

export interface TRouteDefinition<
  D extends TRouteDeps,
  H extends z.ZodObject,
  P extends z.ZodObject,
  B extends z.ZodType,
  Q extends z.ZodObject = z.ZodObject,
> extends Omit<TRouteSpec, 'rateLimited'> {
  headers?: H;
  params?: P;
  query?: Q;
  body?: B;
  /** Options of `authenticate` (a shared secret, a cookie) drawn from the dependencies. */
  authOptions?: (deps: D) => TAuthenticateOptions;
  /** Middleware after authentication and before the headers are read (rate limits). */
  limits?: (deps: D) => RequestHandler[];
  /**
   * Runs once the headers are valid and before the body is read: a caller who may not act for the
   * property gets 403 whatever the body holds (and its body is never parsed).
   */
  authorize?: (req: Request, headers: z.output<H>) => void;
  /**
   * Lets a request with a valid signed link in without the JWT: authentication and `authorize` are
   * skipped and the handler sees `signed: true`. Its headers schema must then not require what only
   * a JWT caller sends (X-Property-Id); `authorize` checks that for JWT callers.
   */
  signedAccess?: (deps: D) => TSignedAccess;
  handler: (deps: D) => (ctx: TRouteContext<H, P, B, Q>) => Promise<void>;
}

/** A definition with its types erased, ready to mount: what route lists hold. */
export interface TRoute<D extends TRouteDeps> extends TRouteSpec {
  handlers: (deps: D) => RequestHandler[];
}

const HEADER_NAMES: Record<string, string> = {
  'x-property-id': 'X-Property-Id',
  'svc-tokenization-mode': 'SVC-Tokenization-Mode',
  'idempotency-key': 'Idempotency-Key',
  'accept-language': 'Accept-Language',
  prefer: 'Prefer',
};

/**
 * Every problem in every part is reported at once with its path: a body field as
 * "expiration.month", a header by its name ("X-Property-Id"), a path parameter by its name.
 */
function issuesToFieldErrors(issues: z.core.$ZodIssue[], part: 'headers' | 'params' | 'query' | 'body', input: unknown): TFieldError[] {
  return issues.map((issue) => {
    const path = issue.path.map(String);
    if (part === 'headers' && path[0]) path[0] = HEADER_NAMES[path[0]] ?? path[0];
    // An unknown key is reported at the key itself, so a client sees which field to drop.
    if (issue.code === 'unrecognized_keys') {
      return { path: [...path, ...issue.keys].join('.') || part, message: 'is not a known field' };
    }
    // zod's issues do not carry the input: a field is missing when the input has nothing at its path.
    if (issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined) {
      return { path: path.join('.') || part, message: 'is required' };
    }
    return { path: path.join('.') || part, message: issue.message };
  });
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>((value, key) => (value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined), input);
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

/**
 * Reads one small body through the JSON parser, before the API listens: on its first body the
 * parser loads its character-set decoders (iconv-lite's tables), 8–15 ms that the first request
 * with a body paid otherwise (measured on the first export after `npm start`).
 */
export async function warmJsonParser(): Promise<void> {
  const body = Buffer.from('{}');
  const req = Object.assign(Readable.from([body]), { headers: { 'content-type': 'application/json', 'content-length': String(body.length) } });
  await new Promise<void>((resolve) => {
    jsonParser('1kb')(req as unknown as Request, {} as Response, () => resolve());
  });
}

/** Requests a signed link let in (see `signedAccess`): they skip authentication and `authorize`. */
const signedRequests = new WeakSet<Request>();

/**
 * The route's signed-link check, then the JWT unless the link granted access: a request with a bad
 * link is refused even if it also carries a token, so a link never fails over to something else.
 */
function authentication<D extends TRouteDeps>(def: TRouteDefinition<D, z.ZodObject, z.ZodObject, z.ZodType, z.ZodObject>, deps: D): RequestHandler[] {
  if (!def.scope) return [];
  const jwt = authenticate(deps.verifier, def.scope, def.authOptions?.(deps));
  if (!def.signedAccess) return [jwt];
  const check = def.signedAccess(deps);
  return [
    (req, res, next) => {
      let access: 'absent' | 'granted';
      try {
        access = check(req);
      } catch (error) {
        next(error);
        return;
      }
      if (access === 'absent') return jwt(req, res, next);
      signedRequests.add(req);
      next();
    },
  ];
}

/** `/a/{id}/b` → `/a/:id/b`. */
export const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/**
 * Headers (and `authorize`) first, then the content type and the JSON body, then params and body
 * validated; the parsed values are handed to the handler, never re-parsed.
 */
function validation<H extends z.ZodObject, P extends z.ZodObject, B extends z.ZodType, Q extends z.ZodObject>(
  def: TRouteDefinition<never, H, P, B, Q>,
  handler: (ctx: TRouteContext<H, P, B, Q>) => Promise<void>,
): RequestHandler[] {
  const handlers: RequestHandler[] = [];
  const headerErrors = new WeakMap<Request, { headers?: unknown; errors: TFieldError[] }>();
  handlers.push((req, _res, next) => {
    if (!def.headers) return next();
    const result = def.headers.safeParse(req.headers);
    if (!result.success) {
      headerErrors.set(req, { errors: issuesToFieldErrors(result.error.issues, 'headers', req.headers) });
      return next();
    }
    headerErrors.set(req, { headers: result.data, errors: [] });
    try {
      if (!signedRequests.has(req)) def.authorize?.(req, result.data as z.output<H>);
      next();
    } catch (error) {
      next(error);
    }
  });
  if (def.body) {
    handlers.push((req, _res, next) => {
      if (!req.is('application/json')) {
        next(new AppError('UNSUPPORTED_MEDIA_TYPE', 'This route takes a JSON body (Content-Type: application/json).'));
        return;
      }
      next();
    });
    handlers.push(jsonParser(def.bodyLimit ?? '100kb'));
  }
  handlers.push(async (req: Request, res: Response, next: NextFunction) => {
    try {
      const parsedHeaders = headerErrors.get(req);
      const fieldErrors: TFieldError[] = [...(parsedHeaders?.errors ?? [])];
      const parse = <S extends z.ZodType>(schema: S | undefined, input: unknown, part: 'headers' | 'params' | 'query' | 'body') => {
        if (!schema) return undefined;
        const result = schema.safeParse(input);
        if (result.success) return result.data;
        fieldErrors.push(...issuesToFieldErrors(result.error.issues, part, input));
        return undefined;
      };
      const headers = parsedHeaders?.headers;
      const params = parse(def.params, req.params, 'params');
      const query = parse(def.query, req.query, 'query');
      const body = parse(def.body, req.body, 'body');
      if (fieldErrors.length > 0) throw AppError.invalid(fieldErrors);
      await handler({
        req, res, headers: headers as z.output<H>, params: params as z.output<P>, query: query as z.output<Q>, body: body as z.output<B>,
        signed: signedRequests.has(req),
      });
    } catch (error) {
      next(error);
    }
  });
  return handlers;
}

export function defineRoute<
  D extends TRouteDeps,
  H extends z.ZodObject = z.ZodObject,
  P extends z.ZodObject = z.ZodObject,
  B extends z.ZodType = z.ZodUnknown,
  Q extends z.ZodObject = z.ZodObject,
>(def: TRouteDefinition<D, H, P, B, Q>): TRoute<D> {
  const { handler, authOptions: _authOptions, limits, authorize: _authorize, signedAccess, ...spec } = def;
  return {
    ...spec,
    ...(limits ? { rateLimited: true } : {}),
    ...(signedAccess ? { signedLink: true } : {}),
    handlers: (deps) => [
      ...authentication(def as unknown as TRouteDefinition<D, z.ZodObject, z.ZodObject, z.ZodType, z.ZodObject>, deps),
      // Before the headers and the body are read: a limited caller costs no parsing.
      ...(limits?.(deps) ?? []),
      ...validation(def as TRouteDefinition<never, H, P, B, Q>, handler(deps)),
    ],
  };
}

/** Mounts each definition on the router at its Express path. */
export function mountRoutes<D extends TRouteDeps>(router: Router, routes: readonly TRoute<D>[], deps: D): Router {
  for (const route of routes) router[route.method](expressPath(route.path), ...route.handlers(deps));
  return router;
}
