// Webhook endpoints of a property and their deliveries (docs/export.md#webhooks, docs/api.md).
// Creating answers the signing secret, once; no other answer carries it.

import { Router } from 'express';
import { ZPropertyHeaders } from '@folio-vault/shared/schemas/common';
import {
  ZCreateEndpointBody, ZDeliveryList, ZDeliveryParams, ZEndpoint, ZEndpointCreated, ZEndpointList, ZEndpointParams, ZRetryAccepted,
} from '@folio-vault/shared/webhooks/schemas';
import { forPropertyHeader } from '../auth/authenticate.js';
import { SCOPES } from '../auth/principal.js';
import { defineRoute, mountRoutes, type TRouteDeps } from '../http/route.js';
import type { WebhookService } from './webhook-service.js';

const TAGS: ['Webhooks'] = ['Webhooks'];

export interface TWebhookDeps extends TRouteDeps {
  webhooks: WebhookService;
}

const createEndpoint = defineRoute({
  method: 'post',
  path: '/webhooks/v1/endpoints',
  operationId: 'createWebhookEndpoint',
  summary: 'Subscribe a URL to events',
  description: 'The URL must be https and reach a public address (settings WEBHOOK_ALLOW_INSECURE, WEBHOOK_ALLOW_PRIVATE). The answer carries the signing secret: it is shown this once.',
  tags: TAGS,
  scope: SCOPES.writePayment,
  headers: ZPropertyHeaders,
  authorize: forPropertyHeader,
  body: ZCreateEndpointBody,
  bodyLimit: '8kb',
  responses: { 201: { description: 'Created', json: ZEndpointCreated } },
  handler: ({ webhooks }: TWebhookDeps) => async ({ res, headers, body }) => {
    res.status(201).json(await webhooks.create(headers['x-property-id'], body));
  },
});

const listEndpoints = defineRoute({
  method: 'get',
  path: '/webhooks/v1/endpoints',
  operationId: 'listWebhookEndpoints',
  summary: "The property's webhook endpoints",
  tags: TAGS,
  scope: SCOPES.readPayment,
  headers: ZPropertyHeaders,
  authorize: forPropertyHeader,
  responses: { 200: { description: 'Endpoints, oldest first', json: ZEndpointList } },
  handler: ({ webhooks }: TWebhookDeps) => async ({ res, headers }) => {
    res.json({ endpoints: await webhooks.list(headers['x-property-id']) });
  },
});

const getEndpoint = defineRoute({
  method: 'get',
  path: '/webhooks/v1/endpoints/{id}',
  operationId: 'getWebhookEndpoint',
  summary: 'One webhook endpoint',
  tags: TAGS,
  scope: SCOPES.readPayment,
  headers: ZPropertyHeaders,
  authorize: forPropertyHeader,
  params: ZEndpointParams,
  responses: { 200: { description: 'The endpoint (never its secret)', json: ZEndpoint } },
  errors: [404],
  handler: ({ webhooks }: TWebhookDeps) => async ({ res, headers, params }) => {
    res.json(await webhooks.get(headers['x-property-id'], params.id));
  },
});

const deleteEndpoint = defineRoute({
  method: 'delete',
  path: '/webhooks/v1/endpoints/{id}',
  operationId: 'deleteWebhookEndpoint',
  summary: 'Delete a webhook endpoint',
  description: 'Its pending deliveries are marked failed and not sent.',
  tags: TAGS,
  scope: SCOPES.writePayment,
  headers: ZPropertyHeaders,
  authorize: forPropertyHeader,
  params: ZEndpointParams,
  responses: { 204: { description: 'Deleted' } },
  errors: [404],
  handler: ({ webhooks }: TWebhookDeps) => async ({ res, headers, params }) => {
    await webhooks.delete(headers['x-property-id'], params.id);
    res.status(204).end();
  },
});

const listDeliveries = defineRoute({
  method: 'get',
  path: '/webhooks/v1/endpoints/{id}/deliveries',
  operationId: 'listWebhookDeliveries',
  summary: "An endpoint's deliveries",
  description: 'Newest first, at most 100.',
  tags: TAGS,
  scope: SCOPES.readPayment,
  headers: ZPropertyHeaders,
  authorize: forPropertyHeader,
  params: ZEndpointParams,
  responses: { 200: { description: 'Deliveries', json: ZDeliveryList } },
  errors: [404],
  handler: ({ webhooks }: TWebhookDeps) => async ({ res, headers, params }) => {
    res.json({ deliveries: await webhooks.deliveries(headers['x-property-id'], params.id) });
  },
});

const retryDelivery = defineRoute({
  method: 'post',
  path: '/webhooks/v1/endpoints/{id}/deliveries/{deliveryId}/retry',
  operationId: 'retryWebhookDelivery',
  summary: 'Send a delivery again',
  description: 'The delivery is pending again (its attempts are kept) and sent now, with the same webhook-id.',
  tags: TAGS,
  scope: SCOPES.writePayment,
  headers: ZPropertyHeaders,
  authorize: forPropertyHeader,
  params: ZDeliveryParams,
  responses: { 202: { description: 'Queued', json: ZRetryAccepted } },
  errors: [404],
  handler: ({ webhooks }: TWebhookDeps) => async ({ res, headers, params }) => {
    await webhooks.retry(headers['x-property-id'], params.id, params.deliveryId);
    res.status(202).json({ id: params.deliveryId, status: 'pending' });
  },
});

export const WEBHOOK_ROUTES = [createEndpoint, listEndpoints, getEndpoint, deleteEndpoint, listDeliveries, retryDelivery];

export function webhookRoutes(deps: TWebhookDeps): Router {
  return mountRoutes(Router(), WEBHOOK_ROUTES, deps);
}
