import type { NextFunction, Request, Response } from 'express';
import { auditSubject, auditTokenId, type AuditLog, type TAuditAction, type TAuditEvent } from '@folio-vault/shared/vault/audit-log';
import { toAppError, type TErrorCode } from '@folio-vault/shared/errors';
import { tokenizationModeOf } from '@folio-vault/shared/vault/tokenization-mode';
import type { TAuditCaller } from '@folio-vault/shared/vault/vault-job-common';

/**
 * Express side of the vault audit trail (packages/shared/src/vault/audit-log.ts). The event is
 * written before the answer goes out, so every answered vault request has its row. A failed write
 * is logged and the request goes on: the vault's own work is already done by then (a delete has
 * shredded), and failing the answer would only make the client retry it.
 */
function actionOf(req: Request): TAuditAction | undefined {
  const path = req.originalUrl.split('?')[0] ?? '';
  if (req.method === 'POST') return path.endsWith('/forward') ? 'token.forward' : 'token.tokenize';
  if (req.method === 'GET') return /^\/vault\/v1\/tokens\/?$/.test(path) ? 'token.search' : 'token.read';
  return req.method === 'DELETE' ? 'token.delete' : undefined;
}

/**
 * What a forward route puts in `res.locals.forward` as soon as its request is valid (destination,
 * method, path template) and once the gateway answered (status, duration), for its audit event.
 */
export type TForwardAudit = NonNullable<TAuditEvent['forward']>;

/**
 * Who sent a tokenization or a forward, for the success event its worker writes with the work
 * (recordVaultEvent's fields of the caller). The subject travels through the queue already as the
 * audit row keeps it: masked and cut (auditSubject).
 */
export function auditCaller(req: Request): TAuditCaller {
  const subject = req.principal?.subject;
  const clientAddress = req.socket.remoteAddress;
  return { ...(subject !== undefined ? { subject: auditSubject(subject) } : {}), ...(clientAddress ? { clientAddress } : {}) };
}

export async function recordVaultEvent(
  audit: AuditLog,
  req: Request,
  event: { httpStatus: number; errorCode?: TErrorCode; tokenId?: string },
): Promise<void> {
  const action = actionOf(req);
  if (!action) return;
  const forward = req.res?.locals.forward as TForwardAudit | undefined;
  try {
    await audit.record({
      action,
      subject: req.principal?.subject,
      propertyId: req.get('x-property-id')?.trim(),
      mode: tokenizationModeOf(req.get('svc-tokenization-mode')),
      requestId: String(req.id),
      clientAddress: req.socket.remoteAddress,
      ...(forward ? { forward } : {}),
      ...event,
    });
  } catch (error) {
    // A database that is away is logged once by the connection log; a write refused otherwise is a fault.
    const expected = toAppError(error).status === 503;
    req.log[expected ? 'warn' : 'error']({ err: { message: (error as Error).message, code: (error as { code?: string }).code }, action }, 'audit event not written');
  }
}

/**
 * Error middleware for the vault router: records denied (401/403), rejected and failed requests,
 * then hands the error on to the one error handler. Mounted on the tokens path, the token id is
 * the first path segment here (kept only when it is a UUID; `card` is tokenize's).
 */
export function auditVaultErrors(audit: AuditLog) {
  return async (error: unknown, req: Request, _res: Response, next: NextFunction) => {
    const segment = req.path.split('/')[1];
    const tokenId = segment === 'card' ? undefined : auditTokenId(segment);
    // Classified once: the error handler takes an AppError as it is, so the answer is the one recorded.
    const answer = toAppError(error);
    await recordVaultEvent(audit, req, { httpStatus: answer.status, errorCode: answer.code, tokenId });
    next(answer);
  };
}
