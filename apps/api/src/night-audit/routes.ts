// The night-audit routes: start a batch export of a business date (always 202) and read its status.

import { Router } from 'express';
import type { FlowProducer } from 'bullmq';
import type { PropertyShares } from '@folio-vault/shared/db/property-share';
import { nightAuditStatus, startNightAudit } from '@folio-vault/shared/night-audit/batches';
import { ZBatchAccepted, ZBatchParams, ZBatchStatus, ZNightAuditRequest } from '@folio-vault/shared/night-audit/schemas';
import { ZPropertyHeaders } from '@folio-vault/shared/schemas/common';
import { forPropertyHeader } from '../auth/authenticate.js';
import { SCOPES } from '../auth/principal.js';
import { HEADERS } from '../http/openapi-errors.js';
import { defineRoute, mountRoutes, type TRequestLimit, type TRouteDeps } from '../http/route.js';
import { oneAtATimePerKey } from './one-start-at-a-time.js';

const TAGS: ['Night audit'] = ['Night audit'];

export interface TNightAuditDeps extends TRouteDeps {
  /** The API's pool, within each property's share (db/property-share.ts). */
  shares: PropertyShares;
  flows: FlowProducer;
  /** NIGHT_AUDIT_RATE_LIMIT_PER_PROPERTY (rate-limit.ts, propertyRateLimit). */
  nightAuditStartLimits: TRequestLimit;
  /** NIGHT_AUDIT_MAX_RUNNING_PER_PROPERTY. */
  nightAuditMaxRunning: number;
}

const statusPath = (batchId: string) => `/fiscal-document/v1/night-audit/exports/${batchId}`;

const startBatch = defineRoute({
  method: 'post',
  path: '/fiscal-document/v1/night-audit/exports',
  operationId: 'startNightAudit',
  summary: 'Export every folio that moved on a business date',
  description:
    'Every RESERVATION with a transaction on the business date (property time zone), exported whole up to the end of that date, and every HOUSE_ACCOUNT with a transaction on it, exported for that date; plus manifest.json. Re-running rewrites the same keys. ' +
    'Starts are rate-limited per property (429); at most NIGHT_AUDIT_MAX_RUNNING_PER_PROPERTY batches of a property run at once, later ones wait queued.',
  tags: TAGS,
  scope: SCOPES.readPayment,
  limits: (deps: TNightAuditDeps) => deps.nightAuditStartLimits,
  headers: ZPropertyHeaders,
  authorize: forPropertyHeader,
  body: ZNightAuditRequest,
  bodyLimit: '8kb',
  responses: {
    202: {
      description: 'Accepted; poll the status URL',
      json: ZBatchAccepted,
      headers: { Location: HEADERS.location, 'Retry-After': HEADERS.retryAfter(true), RateLimit: HEADERS.rateLimit, 'RateLimit-Policy': HEADERS.rateLimitPolicy },
    },
  },
  handler: ({ shares, flows, nightAuditMaxRunning }: TNightAuditDeps) => {
    const startsOfProperty = oneAtATimePerKey();
    return async ({ res, headers, body }) => {
      const propertyId = headers['x-property-id'];
      const started = await startsOfProperty(propertyId, () => startNightAudit(shares.of(propertyId), flows, propertyId, body.businessDate, body.format, { maxRunning: nightAuditMaxRunning }));
      const url = statusPath(started.batchId);
      res.status(202).set({ Location: url, 'Retry-After': '5' }).json({ batchId: started.batchId, statusUrl: url, status: started.status });
    };
  },
});

const batchStatus = defineRoute({
  method: 'get',
  path: '/fiscal-document/v1/night-audit/exports/{batchId}',
  operationId: 'getNightAudit',
  summary: 'Night-audit batch status',
  tags: TAGS,
  scope: SCOPES.readPayment,
  headers: ZPropertyHeaders,
  authorize: forPropertyHeader,
  params: ZBatchParams,
  responses: {
    200: {
      description: 'Status',
      json: ZBatchStatus,
      headers: { 'Retry-After': { ...HEADERS.retryAfter(false), description: 'Seconds until the next poll is worth it; only while queued or running.' } },
    },
  },
  errors: [404],
  handler: ({ shares }: TNightAuditDeps) => async ({ res, headers, params }) => {
    const propertyId = headers['x-property-id'];
    const status = await nightAuditStatus(shares.of(propertyId), propertyId, params.batchId);
    if (status.status === 'queued' || status.status === 'running') res.set('Retry-After', '5');
    res.json(status);
  },
});

export const NIGHT_AUDIT_ROUTES = [startBatch, batchStatus];

export function nightAuditRoutes(deps: TNightAuditDeps): Router {
  return mountRoutes(Router(), NIGHT_AUDIT_ROUTES, deps);
}
