// The fiscal-document routes' requests and answers (docs/fiscal-documents.md): issue an invoice,
// read it, fetch its files, list a source's invoices, credit an invoice.

import { ZInt64Id, ZInt64IdOut, ZPropertyHeaders } from '../schemas/common.js';
import { z } from '../schemas/zod.js';
import { SOURCE_KINDS } from '../ledger/enums.js';
import { RECIPIENT_TYPES, ZIsoDate } from '../ledger/schemas.js';
import { optionalFreeText, text } from '../ledger/field-schemas.js';
import { FISCAL_FORMATS, ZParty, ZVatBreakdown } from './document-model.js';

export const INVOICE_STATUSES = ['issuing', 'issued', 'failed'] as const;
export type TInvoiceStatus = (typeof INVOICE_STATUSES)[number];
export const FISCAL_DOCUMENT_KINDS = ['INVOICE', 'CREDIT_NOTE'] as const;
export type TFiscalDocumentKind = (typeof FISCAL_DOCUMENT_KINDS)[number];

/**
 * A series: what the number starts with. French rules allow letters, digits and + - _ / in a number
 * of at most 35 characters (BR-FR-01/02): 20 for the series leaves room for "-CN" and the count.
 */
export const ZSeries = z.string().regex(/^[A-Za-z0-9+_/-]{1,20}$/, 'must be 1-20 letters, digits or + - _ / (the number is <series>-<n>)');

export const ZIssueInvoiceHeaders = ZPropertyHeaders.extend({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255, 'must be at most 255 characters')
    .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII characters')
    .optional(),
  'accept-language': z.string().max(500).optional(),
  prefer: z.string().max(200).optional(),
});

/** A credit note's headers: the property, and `Prefer: wait=N` as for an issue. */
export const ZCreditNoteHeaders = ZPropertyHeaders.extend({ prefer: z.string().max(200).optional() });

export const ZIssueInvoiceRequest = z
  .strictObject({
    sourceKind: z.enum(SOURCE_KINDS),
    sourceId: ZInt64Id,
    /** Only these folios of the source (all of them when absent), in this order. */
    folioIds: z
      .array(ZInt64Id)
      .min(1)
      .max(100)
      .refine((ids) => new Set(ids).size === ids.length, 'must not repeat a folio')
      .nullish()
      .transform((v) => v ?? undefined),
    recipient: z.strictObject({ type: z.enum(RECIPIENT_TYPES), id: ZInt64Id }),
    issueDate: ZIsoDate.nullish().transform((v) => v ?? undefined),
    dueDate: ZIsoDate.nullish().transform((v) => v ?? undefined),
    series: ZSeries.nullish().transform((v) => v ?? 'INV'),
    formats: z
      .array(z.enum(FISCAL_FORMATS))
      .min(1)
      .max(FISCAL_FORMATS.length)
      .refine((formats) => new Set(formats).size === formats.length, 'must not repeat a format')
      .nullish()
      .transform((v) => v ?? ['FACTURX' as const]),
    note: optionalFreeText(2000),
  })
  .superRefine((request, ctx) => {
    if (request.issueDate && request.dueDate && request.dueDate < request.issueDate) {
      ctx.addIssue({ code: 'custom', path: ['dueDate'], message: 'must not be before issueDate' });
    }
  })
  .openapi('IssueInvoiceRequest', {
    example: { sourceKind: 'RESERVATION', sourceId: 500, recipient: { type: 'COMPANY', id: 1001 }, formats: ['FACTURX', 'UBL'], note: 'Conference, 20-21 November' },
  });
export type TIssueInvoiceRequest = z.output<typeof ZIssueInvoiceRequest>;

export const ZCreditNoteRequest = z
  .strictObject({ reason: text(500) })
  .openapi('CreditNoteRequest', { example: { reason: 'Invoiced to the wrong company' } });

export const ZInvoiceIdParams = z.object({ id: z.uuid({ error: 'must be an invoice id (UUID)' }) });
export const ZInvoiceFileParams = ZInvoiceIdParams.extend({ format: z.enum(FISCAL_FORMATS) });
export const ZInvoiceListQuery = z.strictObject({ sourceKind: z.enum(SOURCE_KINDS), sourceId: ZInt64Id });

/** Another fiscal document this one refers to or is referred to by. */
const ZDocumentRef = z.object({ id: z.uuid(), number: z.string() });

export const ZInvoice = z
  .object({
    id: z.uuid(),
    kind: z.enum(FISCAL_DOCUMENT_KINDS),
    number: z.string().openapi({ example: 'INV-42' }),
    series: z.string(),
    issueDate: ZIsoDate,
    dueDate: ZIsoDate.optional(),
    currency: z.string(),
    sourceKind: z.enum(SOURCE_KINDS),
    sourceId: ZInt64IdOut,
    folioIds: z.array(ZInt64IdOut),
    /** The buyer as frozen on the document (BG-7). */
    buyer: ZParty,
    totals: z.object({
      net: z.string(),
      vat: z.string(),
      gross: z.string(),
      prepaid: z.string(),
      rounding: z.string().openapi({ description: "BT-114: the ledger's per-line VAT rounding against the breakdown's (docs/fiscal-documents.md#rounding)" }),
      due: z.string(),
    }),
    vatBreakdown: z.array(ZVatBreakdown),
    status: z.enum(INVOICE_STATUSES),
    error: z.string().optional().openapi({ description: 'Why the last render failed; its files are rendered again' }),
    files: z.partialRecord(z.enum(FISCAL_FORMATS), z.string()).openapi({ description: 'The path of each requested file; 409 INVOICE_NOT_READY until the invoice is issued' }),
    /** A credit note: the invoice it credits (BG-3). */
    creditedInvoice: ZDocumentRef.optional(),
    /** An invoice: its credit note, once credited. */
    creditNote: ZDocumentRef.optional(),
    createdAt: z.iso.datetime({ offset: true }),
    issuedAt: z.iso.datetime({ offset: true }).optional(),
  })
  .openapi('Invoice');
export type TInvoiceBody = z.output<typeof ZInvoice>;

export const ZInvoiceList = z.object({ invoices: z.array(ZInvoice) }).openapi('InvoiceList');
