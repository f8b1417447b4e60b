// Webhook endpoints and their delivery log (docs/export.md#webhooks): what a client sends to
// subscribe, and what the API answers. The signing secret appears in one answer only, creation's.

import { z } from '../schemas/zod.js';

export const WEBHOOK_EVENTS = ['export.completed', 'export.failed', 'night_audit.completed', 'night_audit.failed', 'invoice.issued', 'invoice.failed'] as const;
export type TWebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type TDeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const ZCreateEndpointBody = z
  .strictObject({
    // Scheme and address rules (https, no private address) are checked by the route, which knows the settings.
    url: z.url({ error: 'must be an absolute URL' }).max(2048),
    events: z
      .array(z.enum(WEBHOOK_EVENTS))
      .min(1, { error: 'must name at least one event' })
      .max(WEBHOOK_EVENTS.length)
      .refine((events) => new Set(events).size === events.length, { error: 'must not repeat an event' }),
    description: z.string().max(500).optional(),
  })
  .openapi('WebhookEndpointRequest', {
    example: { url: 'https://pms.example.com/folio-vault/webhooks', events: ['export.completed', 'export.failed'], description: 'Front desk PMS' },
  });

export const ZEndpointParams = z.object({ id: z.uuid({ error: 'must be an endpoint id (UUID)' }) });
export const ZDeliveryParams = z.object({
  id: z.uuid({ error: 'must be an endpoint id (UUID)' }),
  deliveryId: z.uuid({ error: 'must be a delivery id (UUID)' }),
});

const endpointShape = {
  id: z.uuid(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENTS)),
  description: z.string().nullable(),
  createdAt: z.iso.datetime({ offset: true }),
};

export const ZEndpoint = z.object(endpointShape).openapi('WebhookEndpoint');

export const ZEndpointCreated = z
  .object({
    ...endpointShape,
    secret: z.string().regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/).openapi({ description: 'The signing secret (Standard Webhooks). Shown once: store it now.' }),
  })
  .openapi('WebhookEndpointCreated');

export const ZEndpointList = z.object({ endpoints: z.array(ZEndpoint) }).openapi('WebhookEndpointList');

export const ZDelivery = z
  .object({
    id: z.uuid(),
    eventId: z.string().openapi({ description: 'Sent as webhook-id on every attempt' }),
    type: z.enum(WEBHOOK_EVENTS),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.int().min(0),
    lastStatusCode: z.int().nullable(),
    lastError: z.string().nullable().openapi({
      description: 'Why the last attempt failed ("answered 500", "no answer within 10 s", an address the rules refuse…), or why the delivery ended without one ("endpoint deleted"); null while none failed, after a success, and from a manual retry until its attempt',
      example: 'answered 500',
    }),
    nextAttemptAt: z.iso.datetime({ offset: true }).nullable(),
    createdAt: z.iso.datetime({ offset: true }),
  })
  .openapi('WebhookDelivery');

export const ZDeliveryList = z.object({ deliveries: z.array(ZDelivery) }).openapi('WebhookDeliveryList');

export const ZRetryAccepted = z.object({ id: z.uuid(), status: z.literal('pending') }).openapi('WebhookRetryAccepted');

export type TEndpoint = z.output<typeof ZEndpoint>;
export type TDelivery = z.output<typeof ZDelivery>;
