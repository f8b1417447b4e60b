import type { TPgPool } from '../connections.js';

/**
 * Which sources a night audit exports (docs/night-audit.md): every RESERVATION and every HOUSE_ACCOUNT
 * with a transaction on the business date, the date being the property's local day (PostgreSQL
 * turns the local midnights into instants, DST included).
 */
export interface TAuditSource {
  sourceKind: 'RESERVATION' | 'HOUSE_ACCOUNT';
  sourceId: string;
}

export async function selectAuditSources(pool: TPgPool, propertyId: string, businessDate: string, timezone: string): Promise<TAuditSource[]> {
  const result = await pool.query<{ source_kind: TAuditSource['sourceKind']; source_id: string }>(
    `SELECT DISTINCT source_kind, source_id FROM transactions
      WHERE property_id = $1 AND source_kind IN ('RESERVATION', 'HOUSE_ACCOUNT')
        AND transaction_datetime >= ($2::date::timestamp AT TIME ZONE $3)
        AND transaction_datetime < (($2::date + 1)::timestamp AT TIME ZONE $3)
      ORDER BY source_kind, source_id`,
    [propertyId, businessDate, timezone],
  );
  return result.rows.map((row) => ({ sourceKind: row.source_kind, sourceId: row.source_id }));
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
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
  const date = new Date(`${today}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() - 1);
  return date.toISOString().slice(0, 10);
}
