import { buildOpenApiDocument } from '@folio-vault/api/openapi';

// `npm run -s openapi > openapi.json`: the same document GET /openapi.json serves.
process.stdout.write(`${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
