// The folio export routes: start an export (answer the file, or 202 with a status URL), its
// status, its file.

import type { Readable } from 'node:stream';
import { Router, type Request, type Response } from 'express';
import { negotiateLanguage } from '@folio-vault/shared/i18n/languages';
import {
  ZExportAccepted, ZExportFileHeaders, ZExportFileQuery, ZExportHeaders, ZExportIdParams, ZExportStatus, ZFolioExportRequest,
} from '@folio-vault/shared/exports/schemas';
import { AppError } from '@folio-vault/shared/errors';
import { assertPropertyAccess, forPropertyHeader } from '../auth/authenticate.js';
import { SCOPES } from '../auth/principal.js';
import { HEADERS } from '../http/openapi-errors.js';
import type { TResponseDoc } from '../http/route-docs.js';
import { defineRoute, mountRoutes, type TRouteDeps, type TSignedAccess } from '../http/route.js';
import { exportFilePath, exportStatusPath } from '@folio-vault/shared/exports/export-paths';
import type { ExportService } from './export-service.js';

const TAGS: ['Folio export'] = ['Folio export'];

export interface TExportDeps extends TRouteDeps {
  exports: ExportService;
  /** EXPORT_WAIT_MS: how long a request waits for its file before it is answered 202. */
  exportWaitMs: number;
}

async function sendFile(res: Response, exportId: string, file: { stream: Readable; size: number; filename: string }): Promise<void> {
  res.status(200).set({
    'Content-Type': 'application/octet-stream',
    'Content-Disposition': `attachment; filename="${file.filename}"`,
    'Content-Length': String(file.size),
    'X-Export-Id': exportId,
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
  const url = exportStatusPath(row.id);
  res.status(202).set({ Location: url, 'Retry-After': '2', ...(preferApplied ? { 'Preference-Applied': 'respond-async' } : {}) });
  res.json({ exportId: row.id, status: row.status, statusUrl: url });
}

const FILE_ANSWER: TResponseDoc = {
  description: 'The file (PDF or XLSX, as requested)',
  content: { type: 'application/octet-stream', schema: { type: 'string', format: 'binary' } },
  headers: {
    'Content-Disposition': { description: 'attachment; filename="…" (.pdf or .xlsx)', required: true, schema: { type: 'string', pattern: '^attachment; filename=".+\\.(pdf|xlsx)"$' } },
    'Content-Length': { description: 'The size of the file in bytes.', required: true, schema: { type: 'string', pattern: '^\\d+$' } },
    'X-Export-Id': { description: 'The export the file belongs to.', required: true, schema: { type: 'string', format: 'uuid' } },
  },
};

const STATUS_RETRY_AFTER = { 'Retry-After': { ...HEADERS.retryAfter(false), description: 'Seconds until the next poll is worth it; only while queued or running.' } };

function startExport(path: string, operationId: string, summary: string) {
  return defineRoute({
    method: 'post',
    path,
    operationId,
    summary,
    description:
      "Renders the filtered transactions of the source's folios. Answers the file when it is ready within EXPORT_WAIT_MS, " +
      'otherwise (or with Prefer: respond-async) 202 with a status URL. Identical requests in flight share one export. ' +
      'A request selecting more transactions than one document holds (EXPORT_MAX_ROWS) answers 413 PAYLOAD_TOO_LARGE with the count and the bound.',
    tags: TAGS,
    scope: SCOPES.readPayment,
    headers: ZExportHeaders,
    authorize: forPropertyHeader,
    body: ZFolioExportRequest,
    bodyLimit: '64kb',
    responses: {
      200: FILE_ANSWER,
      202: {
        description: 'Accepted; poll the status URL',
        json: ZExportAccepted,
        headers: {
          Location: HEADERS.location,
          'Retry-After': HEADERS.retryAfter(true),
          'Preference-Applied': { description: 'respond-async when Prefer asked for it.', required: false, schema: { type: 'string', enum: ['respond-async'] } },
        },
      },
    },
    // 429: the property already has EXPORT_QUEUE_CAP_PER_PROPERTY exports queued or running.
    errors: [404, 429],
    handler: ({ exports, exportWaitMs: waitMs }: TExportDeps) => async ({ req, res, headers, body }) => {
      const propertyId = headers['x-property-id'];
      await exports.checkReferences(propertyId, body);
      await exports.checkSize(propertyId, body);
      const language = negotiateLanguage(headers['accept-language']);
      const started = await exports.start(propertyId, language, body, String(req.id));
      const respondAsync = /\brespond-async\b/i.test(headers.prefer ?? '');
      const completed = respondAsync ? undefined : await exports.waitForCompletion(started.exportId, waitMs);
      // Completed in time: its job's result names the file (one read of the record fewer).
      if (completed) return sendFile(res, started.exportId, await exports.open(propertyId, started.exportId, completed));
      const row = await exports.find(propertyId, started.exportId);
      if (!respondAsync && row.status === 'completed') return sendFile(res, row.id, await exports.file(row));
      if (!respondAsync && row.status === 'failed') {
        // The stored reason is a whole sentence fit for a client ("The file could not be written…").
        throw AppError.unavailable(`The export failed.${row.error ? ` ${row.error}` : ''} Retry shortly.`, 5);
      }
      accepted(res, row, respondAsync);
    },
  });
}

const exportStatus = defineRoute({
  method: 'get',
  path: exportStatusPath('{exportId}'),
  operationId: 'getFolioExport',
  summary: 'Export status',
  tags: TAGS,
  scope: SCOPES.readPayment,
  headers: ZExportHeaders,
  authorize: forPropertyHeader,
  params: ZExportIdParams,
  responses: { 200: { description: 'Status', json: ZExportStatus, headers: STATUS_RETRY_AFTER } },
  errors: [404],
  handler: ({ exports }: TExportDeps) => async ({ res, headers, params }) => {
    const row = await exports.find(headers['x-property-id'], params.exportId);
    if (row.status === 'queued' || row.status === 'running') res.set('Retry-After', '2');
    res.json(await exports.statusBody(row));
  },
});

/**
 * The download link's check (docs/export.md#download-links): a request with `expires` or
 * `signature` in its query is a link and is judged as one (403 when it is not valid for this
 * export, even if a JWT came along); one with neither goes through the JWT as usual.
 */
const downloadLinkAccess = ({ exports }: TExportDeps): TSignedAccess => (req) => {
  const { expires, signature } = req.query;
  if (expires === undefined && signature === undefined) return 'absent';
  exports.checkLink(String(req.params.exportId), typeof expires === 'string' ? expires : '', typeof signature === 'string' ? signature : '');
  return 'granted';
};

/** With the JWT, X-Property-Id is required (the schema leaves it optional for links) and must be allowed. */
function forPropertyOfJwt(req: Request, headers: { 'x-property-id'?: string }): void {
  const propertyId = headers['x-property-id'];
  if (propertyId === undefined) throw AppError.invalid([{ path: 'X-Property-Id', message: 'is required' }]);
  assertPropertyAccess(req.principal, propertyId);
}

const exportFile = defineRoute({
  method: 'get',
  path: exportFilePath('{exportId}'),
  operationId: 'getFolioExportFile',
  summary: 'Export file',
  description:
    'The finished file; 409 EXPORT_NOT_READY before (with Retry-After while it is queued or running), 410 EXPORT_EXPIRED once ' +
    'past its retention (EXPORT_RETENTION_SECONDS). Two ways in: the JWT with X-Property-Id, or a download link (the status\'s ' +
    'downloadUrl with the folder driver) whose expires and signature query parameters stand for both: then neither Authorization ' +
    'nor X-Property-Id is needed. A link tampered with, expired or signed for another export answers 403 ACCESS_DENIED.',
  tags: TAGS,
  scope: SCOPES.readPayment,
  headers: ZExportFileHeaders,
  authorize: forPropertyOfJwt,
  signedAccess: downloadLinkAccess,
  params: ZExportIdParams,
  query: ZExportFileQuery,
  responses: { 200: FILE_ANSWER },
  errors: [404, 409, 410],
  handler: ({ exports }: TExportDeps) => async ({ res, headers, params, signed }) => {
    // authorize (JWT callers only) made sure X-Property-Id is there.
    const row = signed ? await exports.findForLink(params.exportId) : await exports.find(headers['x-property-id']!, params.exportId);
    await sendFile(res, row.id, await exports.file(row));
  },
});

export const EXPORT_ROUTES = [
  startExport('/fiscal-document/v1/folios/export', 'exportFolios', 'Export folios as PDF or XLSX'),
  startExport('/fiscal-document/v1/folio-export/pdf', 'exportFoliosAlias', 'Export folios (alias of /fiscal-document/v1/folios/export)'),
  exportStatus,
  exportFile,
];

export function exportRoutes(deps: TExportDeps): Router {
  return mountRoutes(Router(), EXPORT_ROUTES, deps);
}
