import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '@folio-vault/api/openapi';
import { answerProblems, openApiAnswersReady } from './support/openapi-answers.js';

/**
 * The document GET /openapi.json serves: Redocly's recommended rules give 0 errors and 0
 * warnings (redocly.yaml; the three ignored problems are explained in .redocly.lint-ignore.yaml),
 * and the answer check the integration tests run (support/validate-answers.ts) refuses what the
 * document does not describe.
 */
const root = join(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'folio-openapi-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type TDoc = { paths: Record<string, Record<string, { operationId?: string; responses: Record<string, unknown> }>> };
const doc = buildOpenApiDocument() as unknown as TDoc;

describe('/openapi.json', () => {
  it('lints clean under @redocly/cli recommended, offline', { timeout: 60_000 }, async () => {
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc, null, 2));
    copyFileSync(join(root, 'redocly.yaml'), join(dir, 'redocly.yaml'));
    copyFileSync(join(root, '.redocly.lint-ignore.yaml'), join(dir, '.redocly.lint-ignore.yaml'));
    const { stdout } = await promisify(execFile)(join(root, 'node_modules/.bin/redocly'), ['lint', '--config', 'redocly.yaml', '--format', 'json', 'openapi.json'], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    const report = JSON.parse(stdout) as { totals: object; problems: Array<{ ruleId: string; message: string }> };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 3 });
  });

  it('names every operation once, the operational routes included', () => {
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => `${method} ${path} ${op.operationId}`));
    expect(operations).toEqual([
      'post /vault/v1/tokens/card tokenizeCard',
      'get /vault/v1/tokens searchCardTokens',
      'get /vault/v1/tokens/{id} getCardToken',
      'delete /vault/v1/tokens/{id} deleteCardToken',
      'post /vault/v1/tokens/{id}/forward forwardCardToken',
      'post /accounting/v1.0/import importLedger',
      'post /accounting/v1.0/folios/transactions listFolioTransactions',
      'post /fiscal-document/v1/folios/export exportFolios',
      'post /fiscal-document/v1/folio-export/pdf exportFoliosAlias',
      'get /fiscal-document/v1/folios/exports/{exportId} getFolioExport',
      'get /fiscal-document/v1/folios/exports/{exportId}/file getFolioExportFile',
      'post /fiscal-document/v1/invoices issueInvoice',
      'get /fiscal-document/v1/invoices listInvoices',
      'get /fiscal-document/v1/invoices/{id} getInvoice',
      'get /fiscal-document/v1/invoices/{id}/files/{format} getInvoiceFile',
      'post /fiscal-document/v1/invoices/{id}/credit-notes creditInvoice',
      'post /fiscal-document/v1/night-audit/exports startNightAudit',
      'get /fiscal-document/v1/night-audit/exports/{batchId} getNightAudit',
      'post /webhooks/v1/endpoints createWebhookEndpoint',
      'get /webhooks/v1/endpoints listWebhookEndpoints',
      'get /webhooks/v1/endpoints/{id} getWebhookEndpoint',
      'delete /webhooks/v1/endpoints/{id} deleteWebhookEndpoint',
      'get /webhooks/v1/endpoints/{id}/deliveries listWebhookDeliveries',
      'post /webhooks/v1/endpoints/{id}/deliveries/{deliveryId}/retry retryWebhookDelivery',
      'get /healthz getHealth',
      'get /readyz getReadiness',
      'get /metrics getMetrics',
      'get /openapi.json getOpenApiDocument',
    ]);
    expect(Object.keys(doc.paths['/vault/v1/tokens/card']!.post!.responses)).toEqual(['200', '400', '401', '403', '409', '413', '415', '429', '500', '503']);
  });
});

describe('the answer check', () => {
  beforeAll(openApiAnswersReady);

  const requestId = 'req-1';
  const headers = (values: Record<string, string>) => (name: string) => values[name.toLowerCase()];
  const error = (code: string) => JSON.stringify({ id: requestId, timestamp: '2026-11-23T10:00:00.000Z', errorCode: code, errorDetails: 'No.' });
  const json = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId };

  it('passes an answer the document describes', () => {
    const answer = { method: 'GET', path: '/vault/v1/tokens/x', status: 404, header: headers(json), text: error('ENTITY_NOT_FOUND') };
    expect(answerProblems(answer)).toEqual([]);
  });

  it('refuses a status, a missing header, an unknown field and a wrong content type', () => {
    expect(answerProblems({ method: 'GET', path: '/healthz', status: 404, header: headers(json), text: error('ENTITY_NOT_FOUND') })).toEqual([
      'status 404 is not described for GET #/paths/~1healthz/get',
    ]);
    expect(answerProblems({ method: 'GET', path: '/metrics', status: 401, header: headers(json), text: error('UNAUTHENTICATED') })).toEqual(['header WWW-Authenticate is missing']);
    expect(answerProblems({ method: 'GET', path: '/healthz', status: 200, header: headers(json), text: '{"status":"ok","uptime":1}' })).toEqual([
      'body must NOT have additional properties {"additionalProperty":"uptime"}',
    ]);
    expect(answerProblems({ method: 'GET', path: '/healthz', status: 200, header: headers({ ...json, 'content-type': 'text/html' }), text: 'ok' })).toEqual([
      'Content-Type text/html where the document has application/json',
    ]);
  });

  it('wants 404 for a path the document lacks, and leaves /docs and /admin/queues alone', () => {
    expect(answerProblems({ method: 'PUT', path: '/healthz', status: 200, header: headers(json), text: '{}' })).toEqual(['PUT /healthz is not in the document, yet answered 200']);
    expect(answerProblems({ method: 'GET', path: '/nope', status: 404, header: headers(json), text: error('ENTITY_NOT_FOUND') })).toEqual([]);
    expect(answerProblems({ method: 'GET', path: '/docs/', status: 200, header: headers({}), text: '<html>' })).toBeUndefined();
  });
});
