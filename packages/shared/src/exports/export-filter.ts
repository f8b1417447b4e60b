// Which ledger rows an export request selects: the listing's filter (transaction-filter.ts), with
// dateFrom/dateTo as whole local days in the property's time zone. The API counts them against
// EXPORT_MAX_ROWS and the worker reads them with the same filter.

import type { TTransactionFilter } from '../ledger/transaction-filter.js';
import type { TFolioExportRequest } from './schemas.js';

export function exportFilter(propertyId: string, request: TFolioExportRequest, timezone: string): TTransactionFilter {
  return {
    propertyId,
    sourceKind: request.sourceKind,
    sourceId: request.sourceId,
    folioIds: request.folioIds,
    posted: request.posted,
    descriptionFilters: request.descriptionFilters,
    localDateFrom: request.dateFrom,
    localDateTo: request.dateTo,
    timezone,
    subSourceIds: request.subSourceIds,
    searchQuery: request.searchQuery,
    includeVoided: request.includeVoided,
  };
}
