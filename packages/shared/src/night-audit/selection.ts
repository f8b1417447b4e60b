// Which sources a night audit exports (docs/night-audit.md): every RESERVATION and every
// HOUSE_ACCOUNT with a transaction on the business date, the date being the property's local day
// (PostgreSQL turns the local midnights into instants, DST included; the statement is in
// ledger-store.ts).

import type { PoolClient } from 'pg';
import type { TPgPool } from '../connections.js';
import { localDate } from '../i18n/format.js';
import { sourcesWithTransactionsOn } from '../ledger/ledger-store.js';

/** A source a night audit exports. */
export interface TAuditSource {
  sourceKind: 'RESERVATION' | 'HOUSE_ACCOUNT';
  sourceId: string;
}

/** On a pool, or on a transaction's own client (the start: batches.ts, beginRun). */
export async function selectAuditSources(db: TPgPool | PoolClient, propertyId: string, businessDate: string, timezone: string): Promise<TAuditSource[]> {
  const rows = await sourcesWithTransactionsOn(db, propertyId, businessDate, timezone);
  return rows.map((row) => ({ sourceKind: row.source_kind, sourceId: row.source_id }));
}

/**
 * The export request for one audited source: a reservation whole up to the end of the business
 * date; a house account for that date alone.
 */
export function auditExportRequest(source: TAuditSource, businessDate: string, format: 'PDF' | 'XLSX') {
  return {
    sourceKind: source.sourceKind,
    sourceId: source.sourceId,
    ...(source.sourceKind === 'HOUSE_ACCOUNT' ? { dateFrom: businessDate } : {}),
    dateTo: businessDate,
    format,
  };
}

export function auditObjectKey(propertyId: string, businessDate: string, source: TAuditSource, format: 'PDF' | 'XLSX'): string {
  return `night-audit/${propertyId}/${businessDate}/${source.sourceKind}-${source.sourceId}.${format === 'XLSX' ? 'xlsx' : 'pdf'}`;
}

export function manifestKey(propertyId: string, businessDate: string): string {
  return `night-audit/${propertyId}/${businessDate}/manifest.json`;
}

/** The local date before `now` in a time zone: the business date a scheduled audit closes. */
export function previousLocalDate(now: Date, timezone: string): string {
  const today = localDate(now, timezone);
  const date = new Date(`${today}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() - 1);
  return date.toISOString().slice(0, 10);
}
