import { OpenAPIRegistry, OpenApiGeneratorV3 } from '@asteasolutions/zod-to-openapi';
import { registerExportDocs } from './exports/routes.js';
import { registerLedgerDocs } from './ledger/routes.js';
import { registerNightAuditDocs } from './night-audit/routes.js';
import { registerVaultDocs } from './vault/routes.js';

/** The OpenAPI document, generated from the same zod schemas the routes validate with. */
export function buildOpenApiDocument(): ReturnType<OpenApiGeneratorV3['generateDocument']> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  registerVaultDocs(registry);
  registerLedgerDocs(registry);
  registerExportDocs(registry);
  registerNightAuditDocs(registry);
  return new OpenApiGeneratorV3(registry.definitions).generateDocument({
    openapi: '3.0.3',
    info: {
      title: 'Folio Vault',
      version: '0.1.0',
      description: 'Card vault and folio export for hotel software. Errors use the Error schema.',
    },
    servers: [{ url: '/' }],
  });
}
