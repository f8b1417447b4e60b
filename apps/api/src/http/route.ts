// One definition per route: path, scope, headers, params, body, answers, error statuses and the
// audit action, written once. `mountRoutes` puts it on Express as one handler that runs the steps
// in order (authentication, limits, headers, body, handler) with the request's state in its own
// local variables; `registerRoute` (route-docs.ts) describes the same definition in the OpenAPI
// document, so neither can drift from the other.

import type { Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import { addFieldErrors, AppError, NO_FIELD_ERRORS, toAppError, type TFieldError, type TFieldErrors } from '@folio-vault/shared/errors';
import type { TRequestAction } from '@folio-vault/shared/vault/audit-log';
import { callerCheck, type TAuthenticateOptions } from '../auth/authenticate.js';
import type { TJwtVerifier } from '../auth/jwt-verifier.js';
import type { TScope } from '../auth/principal.js';
import type { TResponseDoc } from './route-docs.js';
import { shownPath } from './field-path.js';
import { jsonBodyReader } from './json-body.js';
import { auditEventOf, type TAuditFacts, type TRouteAudit } from './route-audit.js';

export type THttpMethod = 'get' | 'post' | 'delete';

/** What every route's dependencies hold: the token verifier for `scope`, the audit writer for `audit`. */
export interface TRouteDeps {
  verifier: TJwtVerifier;
  /** Needed by the routes that declare `audit` (mountRoutes refuses to mount one without it). */
  routeAudit?: TRouteAudit;
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
  /** The vault audit action every answer of this route is recorded as (route-audit.ts). */
  audit?: TRequestAction;
}

/**
 * A route's check of a signed link (a download link, docs/export.md#download-links): 'absent' when
 * the request carries none (then the JWT is required as usual), 'granted' when its signature is
 * valid; it throws (403 ACCESS_DENIED) for a link that is tampered with, expired or for another entity.
 */
export type TSignedAccess = (req: Request) => 'absent' | 'granted';

/** A limit in front of a route (rate limits): resolves to let the request on, throws (429, 503) to refuse it. */
export type TRequestLimit = (req: Request, res: Response) => Promise<void>;

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

/**
 * What a handler returns once it has answered: the facts its route's audit event records, and, for
 * a route whose work ended in an error after those facts were known (a forward's gateway failure),
 * that error, answered as any thrown one is.
 */
export interface TRouteOutcome {
  audit?: TAuditFacts;
  error?: unknown;
}

export interface TRouteDefinition<
  D extends TRouteDeps,
  H extends z.ZodObject,
  P extends z.ZodObject,
  B extends z.ZodType,
  Q extends z.ZodObject = z.ZodObject,
> extends Omit<TRouteSpec, 'rateLimited' | 'signedLink'> {
  headers?: H;
  params?: P;
  query?: Q;
  body?: B;
  /** Options of the caller check (a shared secret, a cookie) drawn from the dependencies. */
  authOptions?: (deps: D) => TAuthenticateOptions;
  /** Runs after authentication and before the headers are read (rate limits). */
  limits?: (deps: D) => TRequestLimit;
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
  /**
   * Reads and checks the body in place of the JSON parser and `body`'s parse (`body` and
   * `bodyLimit` then only document it): for a body too large to parse and check in one go without
   * holding the event loop (docs/ledger.md#import). Resolves to the value or to its field problems.
   */
  bodyReader?: (req: Request, res: Response) => Promise<TBodyRead<z.output<B>>>;
  handler: (deps: D) => (ctx: TRouteContext<H, P, B, Q>) => Promise<TRouteOutcome | void>;
}

/**
 * What a route's own body reader found: the body's value, or its field problems (paths as `body`'s
 * parse gives them; the first of them listed, all counted).
 */
export type TBodyRead<T> = { value: T } | { problems: TFieldErrors };

/** A definition with its types erased, ready to mount: what route lists hold. */
export interface TRoute<D extends TRouteDeps> extends TRouteSpec {
  handler: (deps: D) => RequestHandler;
}

const HEADER_NAMES: Record<string, string> = {
  'x-property-id': 'X-Property-Id',
  'svc-tokenization-mode': 'SVC-Tokenization-Mode',
  'idempotency-key': 'Idempotency-Key',
  'accept-language': 'Accept-Language',
  prefer: 'Prefer',
};

type TPart = 'headers' | 'params' | 'query' | 'body';

/**
 * Every problem in every part is reported at once with its path: a body field as
 * "expiration.month", a header by its name ("X-Property-Id"), a path parameter by its name. Field
 * names the client chose are shown only when plain (field-path.ts); an unknown field is reported
 * at its own path, each of several on its own line.
 */
export function issuesToFieldErrors(issues: z.core.$ZodIssue[], part: TPart, input: unknown): TFieldError[] {
  const pathOf = (path: readonly PropertyKey[]) => {
    if (part === 'headers' && typeof path[0] === 'string') return [HEADER_NAMES[path[0]] ?? path[0], ...path.slice(1)].join('.');
    return shownPath(path, input) || part;
  };
  return issues.flatMap((issue) => {
    // An unknown key is reported at the key itself, so a client sees which field to drop.
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ path: pathOf([...issue.path, key]), message: 'is not a known field' }));
    // zod's issues do not carry the input: a field is missing when the input has nothing at its path.
    if (issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined) return [{ path: pathOf(issue.path), message: 'is required' }];
    return [{ path: pathOf(issue.path), message: issue.message }];
  });
}

/** How many field errors issuesToFieldErrors makes of `issues`, without making them (a long list past the listed ones). */
export function fieldErrorCount(issues: readonly z.core.$ZodIssue[]): number {
  return issues.reduce((count, issue) => count + (issue.code === 'unrecognized_keys' ? issue.keys.length : 1), 0);
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>((value, key) => (value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined), input);
}

/** A part of the request checked against its schema: its value, or its field problems. */
type TPartRead<T> = { value?: T; problems: readonly TFieldError[] | TFieldErrors };

/** `schema`'s value of `input`, or its problems (and no value) when it does not parse. */
function parsePart<S extends z.ZodType>(schema: S | undefined, input: unknown, part: TPart): TPartRead<z.output<S>> {
  if (!schema) return { problems: [] };
  const result = schema.safeParse(input);
  return result.success ? { value: result.data, problems: [] } : { problems: issuesToFieldErrors(result.error.issues, part, input) };
}

/** `/a/{id}/b` → `/a/:id/b`. */
export const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/**
 * The route's handler on Express, its steps in order: the signed link or the JWT, the limits, the
 * headers (and `authorize`), the content type and the JSON body, then params, query and body —
 * every field problem reported at once — and the handler with the parsed values. An error at any
 * step goes to the app's error handler. With `audit`, the route's event is written once the
 * answer is out, from the handler's outcome or the error answered (route-audit.ts).
 */
function routeHandler<D extends TRouteDeps, H extends z.ZodObject, P extends z.ZodObject, B extends z.ZodType, Q extends z.ZodObject>(
  def: TRouteDefinition<D, H, P, B, Q>,
  deps: D,
): RequestHandler {
  const checkCaller = def.scope ? callerCheck(deps.verifier, def.scope, def.authOptions?.(deps)) : undefined;
  const checkLink = def.signedAccess?.(deps);
  const limit = def.limits?.(deps);
  const readJson = def.body && !def.bodyReader ? jsonBodyReader(def.bodyLimit ?? '100kb') : undefined;
  const bodyReader = def.bodyReader;
  const handle = def.handler(deps);
  const audit = def.audit;
  const routeAudit = deps.routeAudit;
  if (audit && !routeAudit) throw new Error(`route ${def.operationId} declares audit but its dependencies have no routeAudit`);

  return async (req, res, next) => {
    let outcome: TRouteOutcome | void = undefined;
    let failure: AppError | undefined;
    if (audit && routeAudit) {
      const pathId = typeof req.params.id === 'string' ? req.params.id : undefined;
      res.once('close', () => routeAudit.write(auditEventOf(audit, req, res, { pathId, facts: outcome?.audit, failure }), req.log));
    }
    try {
      // A request with a link is judged by the link alone: a bad one is refused even with a JWT.
      const signed = checkLink?.(req) === 'granted';
      if (!signed) await checkCaller?.(req);
      await limit?.(req, res);

      const headers = parsePart(def.headers, req.headers, 'headers');
      if (headers.value !== undefined && !signed) def.authorize?.(req, headers.value);
      if (readJson || bodyReader) {
        if (!req.is('application/json')) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'This route takes a JSON body (Content-Type: application/json).');
      }
      const json = readJson ? await readJson(req, res) : undefined;
      const read = bodyReader ? await bodyReader(req, res) : undefined;
      const params = parsePart(def.params, req.params, 'params');
      const query = parsePart(def.query, req.query, 'query');
      let body: TPartRead<z.output<B>> = { problems: [] };
      if (json) body = 'value' in json ? parsePart(def.body, json.value, 'body') : { problems: [json.problem] };
      else if (read) body = 'value' in read ? { value: read.value, problems: [] } : read;
      const found = [headers, params, query, body].reduce<TFieldErrors>((all, part) => addFieldErrors(all, part.problems), NO_FIELD_ERRORS);
      if (found.total > 0) throw AppError.invalid(found);

      outcome = await handle({
        req, res, headers: headers.value as z.output<H>, params: params.value as z.output<P>, query: query.value as z.output<Q>, body: body.value as z.output<B>, signed,
      });
      if (outcome?.error !== undefined) throw outcome.error;
    } catch (error) {
      // Classified once: the error handler takes an AppError as it is, so the answer is the one audited.
      failure = toAppError(error);
      next(failure);
    }
  };
}

export function defineRoute<
  D extends TRouteDeps,
  H extends z.ZodObject = z.ZodObject,
  P extends z.ZodObject = z.ZodObject,
  B extends z.ZodType = z.ZodUnknown,
  Q extends z.ZodObject = z.ZodObject,
>(def: TRouteDefinition<D, H, P, B, Q>): TRoute<D> {
  const { handler: _handler, authOptions: _authOptions, limits, authorize: _authorize, signedAccess, bodyReader: _bodyReader, ...spec } = def;
  return {
    ...spec,
    ...(limits ? { rateLimited: true } : {}),
    ...(signedAccess ? { signedLink: true } : {}),
    handler: (deps) => routeHandler(def, deps),
  };
}

/** Mounts each definition on the router at its Express path. */
export function mountRoutes<D extends TRouteDeps>(router: Router, routes: readonly TRoute<D>[], deps: D): Router {
  for (const route of routes) router[route.method](expressPath(route.path), route.handler(deps));
  return router;
}
