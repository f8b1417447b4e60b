// The vault routes' audit events (packages/shared/src/vault/audit-log.ts), written by one step: a
// route declares its action (defineRoute's `audit`), its handler returns the facts only it knows
// (the token it created, a forward's destination and gateway status), and the route's handler
// writes the event once the answer is out, whatever the answer was: success, refusal (401, 403),
// rejection or failure. Everything else comes from the request as it arrived: the verified
// caller, the raw property and mode headers, the token id of the path (each kept only when it has
// the shape it claims, audit-log.ts). A write that fails is logged; the answer has gone by then.

import type { Request, Response } from 'express';
import type { Logger } from '@folio-vault/shared/logger';
import type { AuditLog, TAuditEvent, TRequestAction, TRequestAuditEvent } from '@folio-vault/shared/vault/audit-log';
import { tokenizationModeOf } from '@folio-vault/shared/vault/tokenization-mode';
import { toAppError, type AppError } from '@folio-vault/shared/errors';

/** What a vault handler knows that the request does not say. */
export interface TAuditFacts {
  /** The token the request acted on, when the path does not name it (tokenize). */
  tokenId?: string;
  forward?: TRequestAuditEvent['forward'];
}

export interface TRouteAudit {
  /** Writes the event; never throws (a failure is logged on `log`). */
  write(event: TAuditEvent, log: Logger): void;
}

/**
 * The event of one answered request of a route that declares `action`. `pathId` is the path's
 * `{id}` as the route received it (Express resets req.params once the request leaves the route).
 */
export function auditEventOf(
  action: TRequestAction,
  req: Request,
  res: Response,
  answered: { pathId?: string; facts?: TAuditFacts; failure?: AppError },
): TRequestAuditEvent {
  const { facts, failure } = answered;
  const tokenId = facts?.tokenId ?? answered.pathId;
  return {
    action,
    httpStatus: failure?.status ?? res.statusCode,
    ...(failure ? { errorCode: failure.code } : {}),
    ...(req.principal ? { subject: req.principal.subject } : {}),
    ...(req.get('x-property-id') !== undefined ? { propertyId: req.get('x-property-id')!.trim() } : {}),
    mode: tokenizationModeOf(req.get('svc-tokenization-mode')),
    requestId: String(req.id),
    // The peer, or with TRUST_PROXY the client the trusted proxies name (app.ts).
    ...(req.ip ? { clientAddress: req.ip } : {}),
    ...(typeof tokenId === 'string' ? { tokenId } : {}),
    ...(facts?.forward ? { forward: facts.forward } : {}),
  };
}

/**
 * The API's writer, on the API's pool: one statement an event. `flush` lets the API's shutdown
 * wait for the writes of the last answers before it closes the pool.
 */
export class RouteAudit implements TRouteAudit {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly log: AuditLog) {}

  write(event: TAuditEvent, logger: Logger): void {
    const written = this.log.record([event]).catch((error: unknown) => {
      // A database that is away is logged once by the connection log; a write refused otherwise is a fault.
      const expected = toAppError(error).status === 503;
      logger[expected ? 'warn' : 'error']({ err: { message: (error as Error).message, code: (error as { code?: string }).code }, action: event.action }, 'audit event not written');
    });
    this.pending.add(written);
    void written.finally(() => this.pending.delete(written));
  }

  async flush(): Promise<void> {
    await Promise.all(this.pending);
  }
}
