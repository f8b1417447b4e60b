import type { TAppliedFilters } from '@folio-vault/shared/exports/folio-document';
import type { TFormatters } from '@folio-vault/shared/i18n/format';
import type { TTranslate } from '@folio-vault/shared/i18n/catalog';
import { filtersValue } from '../document-text.js';

/** The PDF's filters line: "Filters: from 22/11/2026 · posted only" (French spacing from the catalog). */
export function filtersText(filters: TAppliedFilters, t: TTranslate, fmt: Pick<TFormatters, 'date'>): string {
  return t('labelValue', { label: t('filters'), value: filtersValue(filters, t, fmt) });
}
