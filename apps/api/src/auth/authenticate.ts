import type { NextFunction, Request, Response } from 'express';
import { AppError } from '@folio-vault/shared/errors';
import type { TJwtVerifier } from './jwt-verifier.js';
import type { TPrincipal, TScope } from './principal.js';

/** `Authorization: Bearer <JWT>` and the scope a route needs; the token never comes from the query. */
export function authenticate(verifier: TJwtVerifier, scope: TScope) {
  return async (req: Request, _res: Response, next: NextFunction) => {
    const header = req.get('authorization');
    const match = header ? /^Bearer +([A-Za-z0-9._~+/=-]+)$/i.exec(header.trim()) : null;
    if (!match?.[1]) {
      next(new AppError('UNAUTHENTICATED', 'A bearer token is required (Authorization: Bearer <JWT>).'));
      return;
    }
    try {
      req.principal = await verifier(match[1]);
    } catch (error) {
      next(error);
      return;
    }
    if (!req.principal.scopes.has(scope)) {
      next(new AppError('ACCESS_DENIED', `The token lacks the ${scope} scope.`));
      return;
    }
    next();
  };
}

/** 403 when the token may not act for X-Property-Id (CONTRACT §2). */
export function assertPropertyAccess(principal: TPrincipal | undefined, propertyId: string): void {
  if (!principal?.propertyIds.has(propertyId)) {
    throw new AppError('ACCESS_DENIED', 'The token may not act for this property.');
  }
}

/** For route({ authorize }): the caller must be allowed X-Property-Id before the body is read. */
export function forPropertyHeader(req: Request, headers: { 'x-property-id': string }): void {
  assertPropertyAccess(req.principal, headers['x-property-id']);
}
