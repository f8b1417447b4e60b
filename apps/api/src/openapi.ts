import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { DOMAINS } from './domains.js';
import { registerErrorComponents } from './http/openapi-errors.js';
import { registerRoute } from './http/route-docs.js';

/**
 * Every route the service defines, in the order the document lists them (domains.ts). Left out on purpose:
 * /docs (Swagger UI: HTML and static assets for a person, drawn from this very document) and
 * /admin/queues (the BullMQ dashboard: bull-board's own pages and internal JSON API, for a
 * browser with a cookie; a client generator must not build calls to them).
 */
export const ROUTES = DOMAINS.flatMap((domain) => domain.routes);

const TAGS = [
  { name: 'Card vault', description: 'Tokenize a card, read its metadata, delete it (crypto-shredding).' },
  { name: 'Ledger', description: 'Import a property\'s ledger and list a source\'s folio transactions.' },
  { name: 'Folio export', description: 'Folios as PDF or XLSX: answered at once, or accepted with a status to poll.' },
  { name: 'Fiscal documents', description: 'Invoices and credit notes as EU e-invoices (Factur-X, CII, UBL): issued from the ledger, numbered gap-free, frozen, rendered by the workers.' },
  { name: 'Night audit', description: 'Every folio that moved on a business date, exported in one batch.' },
  { name: 'Webhooks', description: 'Endpoints that are told, signed per Standard Webhooks, when an export or a night audit ends.' },
  { name: 'Operations', description: 'Liveness, readiness, metrics and this document.' },
];

/**
 * The OpenAPI 3.1 document, generated from the route definitions Express mounts. 3.1 because
 * zod-to-openapi writes nullable values there as plain JSON Schema (`type: [..., "null"]`), which
 * linters and validators take as is; its 3.0 output puts `nullable` where no `type` is.
 */
export function buildOpenApiDocument(): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'A JWT whose `scope` claim holds the scope an operation lists and whose `property_ids` claim holds X-Property-Id.',
  });
  registerErrorComponents(registry);
  for (const route of ROUTES) registerRoute(registry, route);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Folio Vault',
      version: '0.1.0',
      description: 'Card vault and folio export for hotel software. Every non-2xx JSON answer is the Error schema.',
    },
    servers: [{ url: '/' }],
    tags: TAGS,
  });
}
