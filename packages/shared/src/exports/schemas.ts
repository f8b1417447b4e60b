// The folio export's request and answers: POST /fiscal-document/v1/folios/export (and the
// /folio-export/pdf alias), its status and its file (docs/export.md).

import { ZInt64Id, ZPropertyHeaders, searchQuerySchema } from '../schemas/common.js';
import { RECIPIENT_TYPES, ZDescriptionFilters, ZIsoDate, ZSortDirection } from '../ledger/schemas.js';
import { SOURCE_KINDS } from '../ledger/enums.js';
import { z } from '../schemas/zod.js';

/** The fields an export request may sort by. */
export const EXPORT_SORT_FIELDS = ['transaction_datetime', 'service_date', 'internal_code', 'description', 'notes', 'quantity', 'amount'] as const;
export const EXPORT_FORMATS = ['PDF', 'XLSX'] as const;
export type TExportFormat = (typeof EXPORT_FORMATS)[number];

/** The reference's examples send "" for an absent date. */
const optionalDate = z
  .union([ZIsoDate, z.literal('')])
  .nullish()
  .transform((v) => v || undefined);

export const ZExportRecipient = z.strictObject({
  type: z.enum(RECIPIENT_TYPES),
  id: ZInt64Id,
  taxDocumentSource: z.enum(['GUEST_TAX_ID', 'GUEST_DOCUMENT_NUMBER']).nullish().transform((v) => v ?? undefined),
});

export const ZFolioExportRequest = z
  .strictObject({
    // Sorted and unique: the same folios asked in another order are the same export.
    folioIds: z
      .array(ZInt64Id)
      .max(100)
      .nullish()
      .transform((v) => (v?.length ? [...new Set(v)].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0)) : undefined)),
    sourceKind: z.enum(SOURCE_KINDS),
    sourceId: ZInt64Id,
    creditDebitView: z.boolean().nullish().transform((v) => v ?? false),
    revenueCompact: z.boolean().nullish().transform((v) => v ?? false),
    dateFrom: optionalDate,
    dateTo: optionalDate,
    searchQuery: searchQuerySchema(),
    descriptionFilters: ZDescriptionFilters.nullish().transform((v) => v ?? []),
    posted: z.boolean().nullish().transform((v) => v ?? undefined),
    includeVoided: z.boolean().nullish().transform((v) => v ?? true),
    subSourceIds: z.array(ZInt64Id).max(1000).nullish().transform((v) => v ?? []),
    sort: z
      .array(z.strictObject({ field: z.enum(EXPORT_SORT_FIELDS), direction: ZSortDirection }))
      .max(EXPORT_SORT_FIELDS.length)
      .nullish()
      .transform((v) => v ?? []),
    format: z.enum(EXPORT_FORMATS).nullish().transform((v) => v ?? 'PDF'),
    recipient: ZExportRecipient.nullish().transform((v) => v ?? undefined),
  })
  .superRefine((request, ctx) => {
    if (request.revenueCompact && request.sourceKind !== 'RESERVATION') {
      ctx.addIssue({ code: 'custom', path: ['revenueCompact'], message: 'is only allowed with sourceKind RESERVATION' });
    }
    if (request.sourceKind === 'HOUSE_ACCOUNT' && !request.dateFrom) {
      ctx.addIssue({ code: 'custom', path: ['dateFrom'], message: 'is required for sourceKind HOUSE_ACCOUNT' });
    }
    if (request.dateFrom && request.dateTo && request.dateFrom > request.dateTo) {
      ctx.addIssue({ code: 'custom', path: ['dateTo'], message: 'must not be before dateFrom' });
    }
    const seen = new Set<string>();
    request.sort.forEach((key, index) => {
      if (seen.has(key.field)) ctx.addIssue({ code: 'custom', path: ['sort', index, 'field'], message: 'appears twice' });
      seen.add(key.field);
    });
  })
  .openapi('GetFolioExportRequest', {
    example: { sourceKind: 'RESERVATION', sourceId: 500, format: 'PDF', creditDebitView: false, includeVoided: true },
  });
export type TFolioExportRequest = z.output<typeof ZFolioExportRequest>;

export const ZExportHeaders = ZPropertyHeaders.extend({
  'accept-language': z.string().max(500).optional(),
  prefer: z.string().max(200).optional(),
});

/** expired: past EXPORT_RETENTION_SECONDS, its file deleted by the retention sweep (docs/export.md#retention). */
export const EXPORT_STATUSES = ['queued', 'running', 'completed', 'failed', 'expired'] as const;
export type TExportStatus = (typeof EXPORT_STATUSES)[number];

export const ZExportAccepted = z
  .object({ exportId: z.string(), status: z.enum(EXPORT_STATUSES), statusUrl: z.string() })
  .openapi('FolioExportAccepted');

export const ZExportStatus = z
  .object({
    exportId: z.string(),
    status: z.enum(EXPORT_STATUSES),
    progress: z.number().int().min(0).max(100),
    createdAt: z.string(),
    completedAt: z.string().optional(),
    error: z.string().optional(),
    size: z.number().optional(),
    pages: z.number().optional(),
    sha256: z.string().optional(),
    fileUrl: z.string().optional(),
    expiresAt: z.string().optional().openapi({
      description: 'When the file is (completed) or was (expired) deleted: EXPORT_RETENTION_SECONDS after completion.',
    }),
    downloadUrl: z.string().optional().openapi({
      description:
        'Completed only: fetches the file without the JWT until downloadUrlExpiresAt (EXPORT_LINK_TTL_SECONDS from this read). ' +
        'A presigned MinIO URL, or with the folder driver the API path of the file with expires and signature, relative like fileUrl.',
    }),
    downloadUrlExpiresAt: z.string().optional(),
  })
  .openapi('FolioExportStatus');
export type TExportStatusBody = z.output<typeof ZExportStatus>;

export const ZExportIdParams = z.object({ exportId: z.uuid({ error: 'must be an export id (UUID)' }) });

/** A download link's query (docs/export.md#download-links): both or neither; with them no JWT is needed. */
export const ZExportFileQuery = z.strictObject({
  expires: z.string().max(20).optional().openapi({ description: "A download link's expiry (Unix seconds); sent with signature." }),
  signature: z.string().max(100).optional().openapi({ description: "A download link's signature; with a valid one, no Authorization or X-Property-Id is needed." }),
});

/** The file route's headers: X-Property-Id is required with the JWT and not read with a download link. */
export const ZExportFileHeaders = ZExportHeaders.extend({
  'x-property-id': ZExportHeaders.shape['x-property-id'].optional(),
});
