import type { Queue } from 'bullmq';
import { Router } from 'express';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { TPgPool } from '@folio-vault/shared/connections';
import { AppError } from '@folio-vault/shared/errors';
import { importLedger } from '@folio-vault/shared/ledger/import-ledger';
import { syncNightAuditSchedule } from '@folio-vault/shared/night-audit/schedules';
import { listTransactions } from '@folio-vault/shared/ledger/list-transactions';
import { ZPropertyHeaders } from '@folio-vault/shared/schemas/common';
import { ZImportRequest, ZImportResponse, ZListTransactionsRequest } from '@folio-vault/shared/ledger/schemas';
import { authenticate, forPropertyHeader } from '../auth/authenticate.js';
import type { TJwtVerifier } from '../auth/jwt-verifier.js';
import { SCOPES } from '../auth/principal.js';
import { database } from '../http/database.js';
import { errorResponses } from '../http/openapi-errors.js';
import { route } from '../http/route.js';

/**
 * docs/ledger.md. A query, not a job: the API reads the ledger directly through the one
 * ledger module the export uses too.
 */
const IMPORT_BODY_LIMIT = '64mb'; // ≥ 10,000 transactions per request with room to spare
const LISTING_BODY_LIMIT = '64kb';


export function ledgerRoutes(verifier: TJwtVerifier, pool: TPgPool, nightAuditQueue: Queue): Router {
  const router = Router();

  router.post(
    '/accounting/v1.0/import',
    authenticate(verifier, SCOPES.writePayment),
    ...route({ headers: ZPropertyHeaders, authorize: forPropertyHeader, body: ZImportRequest, bodyLimit: IMPORT_BODY_LIMIT }, async ({ res, headers, body }) => {
      const counts = await database(() => importLedger(pool, headers['x-property-id'], body));
      // The property's daily night audit follows its nightAuditTime and time zone.
      if (body.property) {
        await syncNightAuditSchedule(nightAuditQueue, { id: body.property.id, timezone: body.property.timezone, nightAuditTime: body.property.nightAuditTime }).catch(
          (error: unknown) => {
            throw AppError.unavailable('The ledger was imported, but the night-audit schedule could not be updated; retry the import.').withCause(error);
          },
        );
      }
      res.json(counts);
    }),
  );

  router.post(
    '/accounting/v1.0/folios/transactions',
    authenticate(verifier, SCOPES.readPayment),
    ...route({ headers: ZPropertyHeaders, authorize: forPropertyHeader, body: ZListTransactionsRequest, bodyLimit: LISTING_BODY_LIMIT }, async ({ res, headers, body }) => {
      res.json(await database(() => listTransactions(pool, headers['x-property-id'], body)));
    }),
  );

  return router;
}

export function registerLedgerDocs(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'post',
    path: '/accounting/v1.0/import',
    tags: ['Ledger'],
    summary: 'Import ledger data',
    description: 'Upserts the property, recipients, folios and transactions of X-Property-Id in one database transaction. Scope write:payment.',
    security: [{ bearerAuth: [] }],
    request: { headers: ZPropertyHeaders, body: { required: true, content: { 'application/json': { schema: ZImportRequest } } } },
    responses: { 200: { description: 'Counts of records upserted', content: { 'application/json': { schema: ZImportResponse } } }, ...errorResponses(400, 401, 403, 413, 415, 503) },
  });
  registry.registerPath({
    method: 'post',
    path: '/accounting/v1.0/folios/transactions',
    tags: ['Ledger'],
    summary: 'List folio transactions',
    description: 'One page of a source\'s transactions, filtered, sorted and grouped; cursor pagination (nextPageToken). Scope read:payment.',
    security: [{ bearerAuth: [] }],
    request: { headers: ZPropertyHeaders, body: { required: true, content: { 'application/json': { schema: ZListTransactionsRequest } } } },
    responses: { 200: { description: 'Groups of transactions', content: { 'application/json': { schema: { type: 'object' } } } }, ...errorResponses(400, 401, 403, 404, 503) },
  });
}
