import type { TAppliedFilters } from '@folio-vault/shared/export/folio-document';
import type { TFormatters } from '@folio-vault/shared/i18n/format';
import type { TTranslate } from '@folio-vault/shared/i18n/catalog';

/**
 * The applied filters as one line of the document's language ("Filters: from 22/11/2026 · posted
 * only"), "none" when nothing narrows the export. includeVoided is only a filter when false: voided
 * transactions are shown by default.
 */
export function filtersText(filters: TAppliedFilters, t: TTranslate, fmt: Pick<TFormatters, 'date'>): string {
  const parts: string[] = [];
  if (filters.dateFrom) parts.push(t('filters.dateFrom', { date: fmt.date(filters.dateFrom) }));
  if (filters.dateTo) parts.push(t('filters.dateTo', { date: fmt.date(filters.dateTo) }));
  if (filters.posted === true) parts.push(t('filters.postedOnly'));
  if (filters.posted === false) parts.push(t('filters.pendingOnly'));
  if (!filters.includeVoided) parts.push(t('filters.withoutVoided'));
  if (filters.descriptionFilters.length) parts.push(t('filters.descriptions', { list: filters.descriptionFilters.join(', ') }));
  if (filters.searchQuery) parts.push(t('filters.search', { text: filters.searchQuery }));
  if (filters.subSourceIds.length) parts.push(t('filters.rooms', { list: filters.subSourceIds.join(', ') }));
  if (filters.folioIds?.length) parts.push(t('filters.folios', { list: filters.folioIds.join(', ') }));
  if (filters.creditDebitView) parts.push(t('filters.creditDebitView'));
  if (filters.revenueCompact) parts.push(t('filters.revenueCompact'));
  return t('labelValue', { label: t('filters'), value: parts.length ? parts.join(' · ') : t('filters.none') });
}
