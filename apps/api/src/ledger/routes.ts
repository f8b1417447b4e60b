// The ledger routes: the import, and the listing. The listing is a query, not a job: the API reads
// the ledger directly through the one ledger module the export uses too.

import type { Queue } from 'bullmq';
import { Router } from 'express';
import type { PropertyShares } from '@folio-vault/shared/db/property-share';
import { AppError } from '@folio-vault/shared/errors';
import { importLedger } from '@folio-vault/shared/ledger/import-ledger';
import { syncNightAuditSchedule } from '@folio-vault/shared/night-audit/schedules';
import { listTransactions } from '@folio-vault/shared/ledger/list-transactions';
import { ZPropertyHeaders } from '@folio-vault/shared/schemas/common';
import { ZImportRequest, ZImportResponse } from '@folio-vault/shared/ledger/schemas';
import { ZListTransactionsRequest, ZListTransactionsResponse } from '@folio-vault/shared/ledger/listing-schemas';
import { forPropertyHeader } from '../auth/authenticate.js';
import { SCOPES } from '../auth/principal.js';
import { defineRoute, mountRoutes, type TRequestLimit, type TRouteDeps } from '../http/route.js';
import type { VaultClient } from '../vault/vault-client.js';
import { importBodyReader } from './import-body.js';

const IMPORT_BODY_MB = 64; // ≥ 10,000 transactions per request with room to spare
const IMPORT_BODY_LIMIT = `${IMPORT_BODY_MB}mb`;
const LISTING_BODY_LIMIT = '64kb';
const TAGS: ['Ledger'] = ['Ledger'];

export interface TLedgerDeps extends TRouteDeps {
  /** The API's pool, within each property's share (db/property-share.ts). */
  shares: PropertyShares;
  nightAuditQueue: Queue;
  /** Payments that name a card token are checked and labelled by the vault workers (never SQL on the vault here). */
  vault: VaultClient;
  /** Imports per property per window (http/rate-limit.ts). */
  importLimits: TRequestLimit;
}

const importLedgerRoute = defineRoute({
  method: 'post',
  path: '/accounting/v1.0/import',
  operationId: 'importLedger',
  summary: 'Import ledger data',
  description:
    "Upserts the property, recipients, reservations, users, folios and transactions of X-Property-Id in one database transaction; a payment's cardTokenId must name a current card token of the property (test or live). The property's night audit follows its nightAuditTime.",
  tags: TAGS,
  scope: SCOPES.writePayment,
  headers: ZPropertyHeaders,
  authorize: forPropertyHeader,
  limits: ({ importLimits }: TLedgerDeps) => importLimits,
  body: ZImportRequest,
  bodyLimit: IMPORT_BODY_LIMIT,
  // Read and checked record by record: one large import does not hold the API (import-body.ts).
  bodyReader: importBodyReader(IMPORT_BODY_MB * 1024 * 1024),
  responses: { 200: { description: 'Counts of records upserted', json: ZImportResponse } },
  handler: ({ shares, nightAuditQueue, vault }: TLedgerDeps) => async ({ req, res, headers, body }) => {
    const propertyId = headers['x-property-id'];
    const counts = await importLedger(shares.of(propertyId), propertyId, body, (tokenIds) => vault.cardLabels(propertyId, tokenIds, String(req.id)));
    // The property's daily night audit follows its nightAuditTime and time zone.
    if (body.property) {
      await syncNightAuditSchedule(nightAuditQueue, { id: body.property.id, timezone: body.property.timezone, nightAuditTime: body.property.nightAuditTime }).catch(
        (error: unknown) => {
          throw AppError.unavailable('The ledger was imported, but the night-audit schedule could not be updated; retry the import.').withCause(error);
        },
      );
    }
    res.json(counts);
  },
});

const listTransactionsRoute = defineRoute({
  method: 'post',
  path: '/accounting/v1.0/folios/transactions',
  operationId: 'listFolioTransactions',
  summary: 'List folio transactions',
  description: "One page of a source's transactions, filtered, sorted and grouped; cursor pagination (nextPageToken).",
  tags: TAGS,
  scope: SCOPES.readPayment,
  headers: ZPropertyHeaders,
  authorize: forPropertyHeader,
  body: ZListTransactionsRequest,
  bodyLimit: LISTING_BODY_LIMIT,
  responses: { 200: { description: 'Groups of transactions', json: ZListTransactionsResponse } },
  errors: [404],
  handler: ({ shares }: TLedgerDeps) => async ({ res, headers, body }) => {
    const propertyId = headers['x-property-id'];
    res.json(await listTransactions(shares.of(propertyId), propertyId, body));
  },
});

export const LEDGER_ROUTES = [importLedgerRoute, listTransactionsRoute];

export function ledgerRoutes(deps: TLedgerDeps): Router {
  return mountRoutes(Router(), LEDGER_ROUTES, deps);
}
