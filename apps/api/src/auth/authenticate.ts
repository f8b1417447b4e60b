import type { NextFunction, Request, Response } from 'express';
import { AppError } from '@folio-vault/shared/errors';
import { bearerMatches } from '@folio-vault/shared/metrics';
import type { TJwtVerifier } from './jwt-verifier.js';
import { SCOPES, type TPrincipal, type TScope } from './principal.js';

export interface TAuthenticateOptions {
  /**
   * A shared secret accepted instead of a JWT as `Authorization: Bearer <secret>` (METRICS_TOKEN),
   * compared in constant time. It lets the caller in to this route only; there is no principal.
   */
  sharedSecret?: string;
  /**
   * A cookie that may carry the JWT when there is no Authorization header: only for the browser
   * dashboard (/admin/queues), whose own links cannot send a header.
   */
  cookie?: string;
}

const JWT_CHARS = /^[A-Za-z0-9._~+/=-]+$/;

/** The value of one cookie of the request (no cookie parser in the app: this is the one reader). */
export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * `Authorization: Bearer <JWT>` and the scope a route needs; the token never comes from the query.
 * Options add a shared secret (instead of a JWT) or a cookie (when no header is sent). Resolves
 * with the caller's principal set on the request (none for the shared secret); throws 401 or 403.
 */
export function callerCheck(verifier: TJwtVerifier, scope: TScope, options: TAuthenticateOptions = {}) {
  return async (req: Request): Promise<void> => {
    const header = req.get('authorization');
    if (options.sharedSecret && bearerMatches(header, options.sharedSecret)) return;
    const match = header ? /^Bearer +([A-Za-z0-9._~+/=-]+)$/i.exec(header.trim()) : null;
    const fromCookie = !header && options.cookie ? readCookie(req, options.cookie) : undefined;
    const token = match?.[1] ?? (fromCookie && JWT_CHARS.test(fromCookie) ? fromCookie : undefined);
    if (!token) throw new AppError('UNAUTHENTICATED', 'A bearer token is required (Authorization: Bearer <JWT>).');
    req.principal = await verifier(token);
    assertScope(req.principal, scope);
  };
}

/**
 * 403 unless the principal holds the scope. `admin` opens views of every property, so it counts
 * only on the operator's token (property_ids ["*"]): a token bound to properties, or to none, is
 * refused there whatever its scope claim says.
 */
export function assertScope(principal: TPrincipal, scope: TScope): void {
  if (!principal.scopes.has(scope)) throw new AppError('ACCESS_DENIED', `The token lacks the ${scope} scope.`);
  if (scope === SCOPES.admin && !principal.operator) {
    throw new AppError('ACCESS_DENIED', 'The admin scope needs an operator token (property_ids ["*"]); this token is bound to properties.');
  }
}

/** callerCheck as Express middleware, for what is mounted outside route definitions (the queue dashboard). */
export function authenticate(verifier: TJwtVerifier, scope: TScope, options: TAuthenticateOptions = {}) {
  const check = callerCheck(verifier, scope, options);
  return (req: Request, _res: Response, next: NextFunction) => {
    check(req).then(() => next(), next);
  };
}

/** 403 when the token may not act for X-Property-Id (docs/api.md#authentication-and-scopes). */
export function assertPropertyAccess(principal: TPrincipal | undefined, propertyId: string): void {
  if (!principal?.propertyIds.has(propertyId)) {
    throw new AppError('ACCESS_DENIED', 'The token may not act for this property.');
  }
}

/** For defineRoute({ authorize }) (http/route.ts): the caller must be allowed X-Property-Id before the body is read. */
export function forPropertyHeader(req: Request, headers: { 'x-property-id': string }): void {
  assertPropertyAccess(req.principal, headers['x-property-id']);
}
