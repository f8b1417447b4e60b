// The fiscal-document routes (docs/fiscal-documents.md): issue an invoice, credit it, read it, its
// files, and a source's invoices.

import type { Readable } from 'node:stream';
import { Router, type Response } from 'express';
import { ZPropertyHeaders } from '@folio-vault/shared/schemas/common';
import {
  ZCreditNoteHeaders, ZCreditNoteRequest, ZInvoice, ZInvoiceFileParams, ZInvoiceIdParams, ZInvoiceList, ZInvoiceListQuery, ZIssueInvoiceHeaders, ZIssueInvoiceRequest,
} from '@folio-vault/shared/fiscal/schemas';
import { forPropertyHeader } from '../auth/authenticate.js';
import { SCOPES } from '../auth/principal.js';
import { HEADERS } from '../http/openapi-errors.js';
import { defineRoute, mountRoutes, type TRouteDeps } from '../http/route.js';
import { invoiceBody, invoicePath, type InvoiceService } from './invoice-service.js';

const TAGS: ['Fiscal documents'] = ['Fiscal documents'];

export interface TFiscalDeps extends TRouteDeps {
  invoices: InvoiceService;
}

const CREATED_HEADERS = {
  Location: { ...HEADERS.location, description: 'The invoice (a path on this service).' },
  'Preference-Applied': { description: 'wait=N when Prefer asked the answer to wait for the files (N as applied, at most the bound).', required: false, schema: { type: 'string', pattern: '^wait=\\d+$' } },
};

/** The longest `Prefer: wait=N` honoured, in seconds: a longer one waits this long. */
export const INVOICE_WAIT_MAX_SECONDS = 10;

/**
 * `Prefer: wait=N` (RFC 7240): the 201 waits up to N seconds (at most INVOICE_WAIT_MAX_SECONDS) for
 * the document's files, and answers it as it then stands. Any other preference is ignored.
 */
function preferredWait(prefer: string | undefined): number | undefined {
  const seconds = /(?:^|[,;\s])wait\s*=\s*"?(\d{1,6})"?/i.exec(prefer ?? '')?.[1];
  return seconds === undefined ? undefined : Math.min(Number(seconds), INVOICE_WAIT_MAX_SECONDS);
}

/** The 201 of an issue or credit, saying the wait it applied. */
function created(res: Response, invoice: { id: string }, waited: number | undefined): void {
  if (waited !== undefined) res.set('Preference-Applied', `wait=${waited}`);
  res.status(201).location(invoicePath(invoice.id)).json(invoice);
}

const issueInvoice = defineRoute({
  method: 'post',
  path: '/fiscal-document/v1/invoices',
  operationId: 'issueInvoice',
  summary: 'Issue an invoice',
  description:
    "Freezes the source's folios (or folioIds) into an invoice made out to the recipient, numbered <series>-<n> gap-free per property and series, " +
    'and queues its files (status issuing, then issued). 422 INVOICE_DATA_INCOMPLETE lists every item the ledger lacks; 409 ALREADY_INVOICED names ' +
    'the transactions already on a live invoice. With Idempotency-Key, the same request again answers the same invoice. With `Prefer: wait=N` ' +
    `(seconds, at most ${INVOICE_WAIT_MAX_SECONDS}) the answer waits until the files are stored (status issued) or N seconds have passed, whichever is first.`,
  tags: TAGS,
  scope: SCOPES.writePayment,
  headers: ZIssueInvoiceHeaders,
  authorize: forPropertyHeader,
  body: ZIssueInvoiceRequest,
  bodyLimit: '16kb',
  responses: { 201: { description: 'The invoice, issuing (or issued: with Prefer: wait=N, or for a replay)', json: ZInvoice, headers: CREATED_HEADERS } },
  errors: [404, 409, 422],
  handler: ({ invoices }: TFiscalDeps) => async ({ req, res, headers, body }) => {
    const wait = preferredWait(headers.prefer);
    const { invoice } = await invoices.issue(headers['x-property-id'], body, {
      idempotencyKey: headers['idempotency-key'],
      acceptLanguage: headers['accept-language'],
      requestId: String(req.id),
      waitMs: (wait ?? 0) * 1000,
    });
    created(res, invoice, wait);
  },
});

const creditInvoice = defineRoute({
  method: 'post',
  path: '/fiscal-document/v1/invoices/{id}/credit-notes',
  operationId: 'creditInvoice',
  summary: 'Credit an invoice',
  description:
    'A credit note (type 381) reversing the invoice whole, numbered in the series <series>-CN and naming the invoice; the invoice\'s transactions ' +
    'are free to be invoiced again. 409 ALREADY_CREDITED for an invoice credited before. `Prefer: wait=N` as for an issue.',
  tags: TAGS,
  scope: SCOPES.writePayment,
  headers: ZCreditNoteHeaders,
  authorize: forPropertyHeader,
  params: ZInvoiceIdParams,
  body: ZCreditNoteRequest,
  bodyLimit: '8kb',
  responses: { 201: { description: 'The credit note, issuing (or issued, with Prefer: wait=N)', json: ZInvoice, headers: CREATED_HEADERS } },
  errors: [404, 409],
  handler: ({ invoices }: TFiscalDeps) => async ({ req, res, headers, params, body }) => {
    const wait = preferredWait(headers.prefer);
    created(res, await invoices.credit(headers['x-property-id'], params.id, body.reason, String(req.id), (wait ?? 0) * 1000), wait);
  },
});

const getInvoice = defineRoute({
  method: 'get',
  path: '/fiscal-document/v1/invoices/{id}',
  operationId: 'getInvoice',
  summary: 'An invoice or credit note',
  tags: TAGS,
  scope: SCOPES.readPayment,
  headers: ZPropertyHeaders,
  authorize: forPropertyHeader,
  params: ZInvoiceIdParams,
  responses: { 200: { description: 'The document and its status', json: ZInvoice, headers: { 'Retry-After': { ...HEADERS.retryAfter(false), description: 'While issuing: seconds until a poll is worth it.' } } } },
  errors: [404],
  handler: ({ invoices }: TFiscalDeps) => async ({ res, headers, params }) => {
    const row = await invoices.find(headers['x-property-id'], params.id);
    if (row.status === 'issuing') res.set('Retry-After', '2');
    res.json(invoiceBody(row));
  },
});

const FILE_ANSWER = {
  description: 'The file: the Factur-X PDF (application/pdf), or the CII or UBL XML (application/xml)',
  content: { type: ['application/pdf', 'application/xml'], schema: { type: 'string', format: 'binary' } },
  headers: {
    'Content-Disposition': { description: 'attachment; filename="<number>.pdf", "<number>-cii.xml" or "<number>-ubl.xml"', required: true, schema: { type: 'string' } },
    'Content-Length': { description: 'The size of the file in bytes.', required: true, schema: { type: 'string', pattern: '^\\d+$' } },
  },
};

async function sendFile(res: Response, file: { stream: Readable; size: number; contentType: string; filename: string }): Promise<void> {
  res.status(200).set({ 'Content-Type': file.contentType, 'Content-Disposition': `attachment; filename="${file.filename}"`, 'Content-Length': String(file.size) });
  await new Promise<void>((resolve) => {
    file.stream.on('error', () => {
      res.destroy();
      resolve();
    });
    res.on('close', () => resolve());
    file.stream.pipe(res);
  });
}

const getInvoiceFile = defineRoute({
  method: 'get',
  path: '/fiscal-document/v1/invoices/{id}/files/{format}',
  operationId: 'getInvoiceFile',
  summary: "An invoice's file",
  description: 'The stored file, the same bytes at every read; 409 INVOICE_NOT_READY (with Retry-After) until the document is issued; 404 for a format it was not issued in.',
  tags: TAGS,
  scope: SCOPES.readPayment,
  headers: ZPropertyHeaders,
  authorize: forPropertyHeader,
  params: ZInvoiceFileParams,
  responses: { 200: FILE_ANSWER },
  errors: [404, 409],
  handler: ({ invoices }: TFiscalDeps) => async ({ res, headers, params }) => {
    const row = await invoices.find(headers['x-property-id'], params.id);
    await sendFile(res, await invoices.file(row, params.format));
  },
});

const listInvoices = defineRoute({
  method: 'get',
  path: '/fiscal-document/v1/invoices',
  operationId: 'listInvoices',
  summary: "A source's invoices and credit notes",
  description: 'Newest first, at most 100.',
  tags: TAGS,
  scope: SCOPES.readPayment,
  headers: ZPropertyHeaders,
  authorize: forPropertyHeader,
  query: ZInvoiceListQuery,
  responses: { 200: { description: 'The documents', json: ZInvoiceList } },
  handler: ({ invoices }: TFiscalDeps) => async ({ res, headers, query }) => {
    res.json({ invoices: await invoices.list(headers['x-property-id'], query.sourceKind, query.sourceId) });
  },
});

export const FISCAL_ROUTES = [issueInvoice, listInvoices, getInvoice, getInvoiceFile, creditInvoice];

export function fiscalRoutes(deps: TFiscalDeps): Router {
  return mountRoutes(Router(), FISCAL_ROUTES, deps);
}
