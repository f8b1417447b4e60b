import { Router, type Response } from 'express';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { negotiateLanguage } from '@folio-vault/shared/i18n/languages';
import { ZExportAccepted, ZExportHeaders, ZExportIdParams, ZExportStatus, ZFolioExportRequest } from '@folio-vault/shared/exports/schemas';
import { AppError } from '@folio-vault/shared/errors';
import { authenticate, forPropertyHeader } from '../auth/authenticate.js';
import type { TJwtVerifier } from '../auth/jwt-verifier.js';
import { SCOPES } from '../auth/principal.js';
import { database } from '../http/database.js';
import { errorResponses } from '../http/openapi-errors.js';
import { route } from '../http/route.js';
import { statusPath, type ExportService, type TExportRow } from './export-service.js';

/** docs/export.md: start an export (answer the file, or 202 with a status URL), its status, its file. */
const EXPORT_PATHS = ['/fiscal-document/v1/folios/export', '/fiscal-document/v1/folio-export/pdf'];

async function sendFile(res: Response, exports: ExportService, row: TExportRow): Promise<void> {
  const file = await exports.file(row);
  res.status(200).set({
    'Content-Type': 'application/octet-stream',
    'Content-Disposition': `attachment; filename="${file.filename}"`,
    'Content-Length': String(file.size),
    'X-Export-Id': row.id,
  });
  await new Promise<void>((resolve) => {
    file.stream.on('error', () => {
      res.destroy();
      resolve();
    });
    res.on('close', () => resolve());
    file.stream.pipe(res);
  });
}

function accepted(res: Response, row: { id: string; status: string }, preferApplied: boolean): void {
  const url = statusPath(row.id);
  res.status(202).set({ Location: url, 'Retry-After': '2', ...(preferApplied ? { 'Preference-Applied': 'respond-async' } : {}) });
  res.json({ exportId: row.id, status: row.status, statusUrl: url });
}

export function exportRoutes(verifier: TJwtVerifier, exports: ExportService, waitMs: number): Router {
  const router = Router();

  router.post(
    EXPORT_PATHS,
    authenticate(verifier, SCOPES.readPayment),
    ...route({ headers: ZExportHeaders, authorize: forPropertyHeader, body: ZFolioExportRequest, bodyLimit: '64kb' }, async ({ req, res, headers, body }) => {
      const propertyId = headers['x-property-id'];
      await database(() => exports.checkReferences(propertyId, body));
      const language = negotiateLanguage(headers['accept-language']);
      const started = await database(() => exports.start(propertyId, language, body, String(req.id)));
      const respondAsync = /\brespond-async\b/i.test(headers.prefer ?? '');
      if (!respondAsync) await exports.waitForCompletion(started.exportId, waitMs);
      const row = await database(() => exports.find(propertyId, started.exportId));
      if (!respondAsync && row.status === 'completed') return sendFile(res, exports, row);
      if (!respondAsync && row.status === 'failed') {
        // The stored reason is a whole sentence fit for a client ("The file could not be written…").
        throw AppError.unavailable(`The export failed.${row.error ? ` ${row.error}` : ''} Retry shortly.`, 5);
      }
      accepted(res, row, respondAsync);
    }),
  );

  router.get(
    '/fiscal-document/v1/folios/exports/:exportId',
    authenticate(verifier, SCOPES.readPayment),
    ...route({ headers: ZExportHeaders, authorize: forPropertyHeader, params: ZExportIdParams }, async ({ res, headers, params }) => {
      const row = await database(() => exports.find(headers['x-property-id'], params.exportId));
      if (row.status === 'queued' || row.status === 'running') res.set('Retry-After', '2');
      res.json(exports.statusBody(row));
    }),
  );

  router.get(
    '/fiscal-document/v1/folios/exports/:exportId/file',
    authenticate(verifier, SCOPES.readPayment),
    ...route({ headers: ZExportHeaders, authorize: forPropertyHeader, params: ZExportIdParams }, async ({ res, headers, params }) => {
      const row = await database(() => exports.find(headers['x-property-id'], params.exportId));
      await sendFile(res, exports, row);
    }),
  );

  return router;
}

export function registerExportDocs(registry: OpenAPIRegistry): void {
  for (const path of EXPORT_PATHS) {
    registry.registerPath({
      method: 'post',
      path,
      tags: ['Folio export'],
      summary: path.endsWith('/pdf') ? 'Export folios (alias)' : 'Export folios as PDF or XLSX',
      description:
        'Renders the filtered transactions of the source\'s folios. Answers the file when it is ready within EXPORT_WAIT_MS, ' +
        'otherwise (or with Prefer: respond-async) 202 with a status URL. Identical requests in flight share one export. Scope read:payment.',
      security: [{ bearerAuth: [] }],
      request: { headers: ZExportHeaders, body: { required: true, content: { 'application/json': { schema: ZFolioExportRequest } } } },
      responses: {
        200: { description: 'The file', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
        202: { description: 'Accepted; poll the status URL', content: { 'application/json': { schema: ZExportAccepted } } },
        ...errorResponses(400, 401, 403, 404, 413, 415, 429, 503),
      },
    });
  }
  registry.registerPath({
    method: 'get',
    path: '/fiscal-document/v1/folios/exports/{exportId}',
    tags: ['Folio export'],
    summary: 'Export status',
    security: [{ bearerAuth: [] }],
    request: { headers: ZExportHeaders, params: ZExportIdParams },
    responses: { 200: { description: 'Status', content: { 'application/json': { schema: ZExportStatus } } }, ...errorResponses(400, 401, 403, 404, 503) },
  });
  registry.registerPath({
    method: 'get',
    path: '/fiscal-document/v1/folios/exports/{exportId}/file',
    tags: ['Folio export'],
    summary: 'Export file',
    security: [{ bearerAuth: [] }],
    request: { headers: ZExportHeaders, params: ZExportIdParams },
    responses: {
      200: { description: 'The file', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
      ...errorResponses(400, 401, 403, 404, 409, 503),
    },
  });
}
