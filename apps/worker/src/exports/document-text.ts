// Texts both writers show the same way: the hotel's tax id and contact, the folio number(s), the
// source ("Reservation RES-42"), the balance's label by its sign, and the applied filters as one line
// ("from 22/11/2026 · posted only", "none" when nothing narrows the export — the PDF leaves the line
// out then; voided transactions are shown by default, so includeVoided is a filter only when false).

import Big from 'big.js';
import type { TAppliedFilters, TFolioDocument } from '@folio-vault/shared/exports/folio-document';
import type { TTranslate } from '@folio-vault/shared/i18n/catalog';
import type { TFormatters } from '@folio-vault/shared/i18n/format';
import { SOURCE_KINDS } from '@folio-vault/shared/ledger/enums';

type TProperty = TFolioDocument['property'];

/** "Tax ID: PT509123456" when the hotel's tax id was imported. */
export function propertyTaxIdText(property: TProperty, t: TTranslate): string | undefined {
  return property.taxId ? t('labelValue', { label: t('taxId'), value: property.taxId }) : undefined;
}

/**
 * How to reach the hotel, each part only when imported: "Tel. +351 21 000 0000",
 * "reservas@hotel.example", "hotel.example" (a web address as people write it: without its
 * scheme and final slash).
 */
export function propertyContactParts(property: TProperty, t: TTranslate): string[] {
  const website = property.website?.replace(/^https?:\/\//i, '').replace(/\/$/, '');
  return [property.phone ? `${t('phone')} ${property.phone}` : undefined, property.email, website].filter((part): part is string => !!part);
}

/** "Folio no. 7001" (or "Folio no. 7001, 7002" for a document of several folios); absent without folios. */
export function folioNumberText(folioNumbers: readonly string[], t: TTranslate): string | undefined {
  return folioNumbers.length ? t('folioNumber', { number: folioNumbers.join(', ') }) : undefined;
}

/**
 * The balance's label by its sign: "Balance due" what the guest owes, "Credit" what the hotel owes
 * the guest (shown without its minus), "Balance" at zero.
 */
export function balanceLabel(balance: string): 'totals.balanceDue' | 'totals.credit' | 'totals.balance' {
  const value = new Big(balance);
  return value.gt(0) ? 'totals.balanceDue' : value.lt(0) ? 'totals.credit' : 'totals.balance';
}

/** "Reservation RES-42": the source's kind in the document's language, its identifier and name (else its id). */
export function sourceText(source: TFolioDocument['source'], t: TTranslate): string {
  const kind = (SOURCE_KINDS as readonly string[]).includes(source.kind) ? t(`source.${source.kind as (typeof SOURCE_KINDS)[number]}`) : source.kind;
  const names = [source.identifier, source.name].filter((part): part is string => !!part?.trim());
  return `${kind} ${names.length ? names.join(' · ') : source.id}`;
}

/** Each applied filter as a phrase, in a fixed order; none when nothing narrows the export. */
export function appliedFilters(filters: TAppliedFilters, t: TTranslate, fmt: Pick<TFormatters, 'date'>): string[] {
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
  return parts;
}

export function filtersValue(filters: TAppliedFilters, t: TTranslate, fmt: Pick<TFormatters, 'date'>): string {
  const parts = appliedFilters(filters, t, fmt);
  return parts.length ? parts.join(' · ') : t('filters.none');
}
