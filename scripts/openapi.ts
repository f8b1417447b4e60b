import { parseCommandLine } from './cli-support.js';

// `npm run -s openapi > openapi.json`: the same document GET /openapi.json serves.
parseCommandLine('openapi', `
usage: npm run -s openapi > openapi.json

Prints the service's OpenAPI document (the one GET /openapi.json serves) on stdout.`, { options: {} });
// What the work needs loads once the command line is read (cli-support.ts).
const { buildOpenApiDocument } = await import('@folio-vault/api/openapi');
process.stdout.write(`${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
