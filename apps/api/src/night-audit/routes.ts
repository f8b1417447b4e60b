import { Router } from 'express';
import type { FlowProducer } from 'bullmq';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { TPgPool } from '@folio-vault/shared/connections';
import { nightAuditStatus, startNightAudit } from '@folio-vault/shared/night-audit/batches';
import { ZPropertyHeaders } from '@folio-vault/shared/schemas/common';
import { ZIsoDate } from '@folio-vault/shared/ledger/schemas';
import { z } from '@folio-vault/shared/schemas/zod';
import { authenticate, forPropertyHeader } from '../auth/authenticate.js';
import type { TJwtVerifier } from '../auth/jwt-verifier.js';
import { SCOPES } from '../auth/principal.js';
import { database } from '../http/database.js';
import { errorResponses } from '../http/openapi-errors.js';
import { route } from '../http/route.js';

/** docs/night-audit.md: start a night-audit batch export (always 202) and read its status. */
export const ZNightAuditRequest = z
  .strictObject({
    businessDate: ZIsoDate,
    format: z.enum(['PDF', 'XLSX']).nullish().transform((v) => v ?? 'PDF'),
  })
  .openapi('NightAuditRequest');

const ZBatchParams = z.object({ batchId: z.uuid({ error: 'must be a batch id (UUID)' }) });
const ZBatchAccepted = z.object({ batchId: z.string(), statusUrl: z.string(), status: z.string() }).openapi('NightAuditAccepted');
const ZBatchStatus = z
  .object({
    batchId: z.string(),
    businessDate: z.string(),
    format: z.string(),
    status: z.enum(['queued', 'running', 'completed', 'completed_with_failures', 'failed']),
    total: z.number(),
    completed: z.number(),
    failed: z.number(),
    manifestKey: z.string().nullable(),
  })
  .openapi('NightAuditStatus');

const statusPath = (batchId: string) => `/fiscal-document/v1/night-audit/exports/${batchId}`;

export function nightAuditRoutes(verifier: TJwtVerifier, pool: TPgPool, flows: FlowProducer): Router {
  const router = Router();

  router.post(
    '/fiscal-document/v1/night-audit/exports',
    authenticate(verifier, SCOPES.readPayment),
    ...route({ headers: ZPropertyHeaders, authorize: forPropertyHeader, body: ZNightAuditRequest, bodyLimit: '8kb' }, async ({ res, headers, body }) => {
      const started = await database(() => startNightAudit(pool, flows, headers['x-property-id'], body.businessDate, body.format));
      const url = statusPath(started.batchId);
      res.status(202).set({ Location: url, 'Retry-After': '5' }).json({ batchId: started.batchId, statusUrl: url, status: started.status });
    }),
  );

  router.get(
    '/fiscal-document/v1/night-audit/exports/:batchId',
    authenticate(verifier, SCOPES.readPayment),
    ...route({ headers: ZPropertyHeaders, authorize: forPropertyHeader, params: ZBatchParams }, async ({ res, headers, params }) => {
      const status = await database(() => nightAuditStatus(pool, headers['x-property-id'], params.batchId));
      if (status.status === 'queued' || status.status === 'running') res.set('Retry-After', '5');
      res.json(status);
    }),
  );

  return router;
}

export function registerNightAuditDocs(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'post',
    path: '/fiscal-document/v1/night-audit/exports',
    tags: ['Night audit'],
    summary: 'Export every folio that moved on a business date',
    description:
      'Every RESERVATION with a transaction on the business date (property time zone), exported whole up to the end of that date, and every HOUSE_ACCOUNT with a transaction on it, exported for that date; plus manifest.json. Re-running rewrites the same keys. Scope read:payment.',
    security: [{ bearerAuth: [] }],
    request: { headers: ZPropertyHeaders, body: { required: true, content: { 'application/json': { schema: ZNightAuditRequest } } } },
    responses: { 202: { description: 'Accepted', content: { 'application/json': { schema: ZBatchAccepted } } }, ...errorResponses(400, 401, 403, 415, 503) },
  });
  registry.registerPath({
    method: 'get',
    path: '/fiscal-document/v1/night-audit/exports/{batchId}',
    tags: ['Night audit'],
    summary: 'Night-audit batch status',
    security: [{ bearerAuth: [] }],
    request: { headers: ZPropertyHeaders, params: ZBatchParams },
    responses: { 200: { description: 'Status', content: { 'application/json': { schema: ZBatchStatus } } }, ...errorResponses(400, 401, 403, 404, 503) },
  });
}
