// The ledger side of an export: the rows the request selects (the listing's filter module, with
// dateFrom/dateTo as whole local days in the property's time zone), grouped per folio, compacted
// and split as asked, totalled exactly. The result is everything the PDF and XLSX writers need.

import type { PoolClient } from 'pg';
import type { TPgPool } from '@folio-vault/shared/connections';
import { inTransaction } from '@folio-vault/shared/db/transaction';
import type { TDocumentFolio, TDocumentStay, TFolioDocument } from '@folio-vault/shared/exports/folio-document';
import { translator } from '@folio-vault/shared/i18n/catalog';
import type { TLanguage } from '@folio-vault/shared/i18n/languages';
import { countTransactions, findRecipient, foliosOfSource, selectTransactions } from '@folio-vault/shared/ledger/ledger-store';
import { withTieBreak } from '@folio-vault/shared/ledger/sort';
import { findStay } from '@folio-vault/shared/ledger/stay-store';
import { exportFilter } from '@folio-vault/shared/exports/export-filter';
import { ExportTooLargeError } from '@folio-vault/shared/exports/export-size';
import type { TDocumentTransactionRow } from '@folio-vault/shared/ledger/transaction-view';
import { findPropertyProfile, type TPropertyProfile } from '@folio-vault/shared/properties/property-store';
import type { TFolioExportRequest } from '@folio-vault/shared/exports/schemas';
import { buildFolioSections, compactRevenue, documentTotals, sumTaxes, sumTotals, taxSummary, type TLedgerRow } from './folio-math.js';

/** The property a document is headed with. */
export async function loadProperty(pool: TDb, propertyId: string): Promise<TPropertyProfile> {
  const row = await findPropertyProfile(pool, propertyId);
  // The ledger may hold a source before its property was imported: the export still renders.
  return row ?? { name: `Property ${propertyId}`, address: null, currency: 'EUR', timezone: 'UTC', language: null, tax_id: null, phone: null, email: null, website: null };
}

function toLedgerRow(row: TDocumentTransactionRow): TLedgerRow {
  return {
    id: row.id,
    folioId: row.folio_id,
    transactionDatetime: row.transaction_datetime.toISOString(),
    serviceDate: row.service_date,
    code: row.internal_transaction_code,
    group: row.internal_code_group,
    description: row.description,
    ...(row.notes ? { notes: row.notes } : {}),
    quantity: row.quantity,
    amount: row.amount,
    posted: row.posted,
    isVoid: row.is_void,
    chainVoided: row.chain_voided,
    rootId: row.root_id,
    ...(row.parent_id ? { parentId: row.parent_id } : {}),
    ...(row.sub_source_id ? { subSourceId: row.sub_source_id } : {}),
    ...(row.sub_source_identifier ? { room: row.sub_source_identifier } : {}),
    ...(row.payment?.creditCardType
      ? { card: { brand: row.payment.creditCardType, ...(row.payment.cardTrailingDigits ? { lastFour: row.payment.cardTrailingDigits } : {}) } }
      : {}),
    ...(row.foreign_currency && row.foreign_currency_amount !== null
      ? { foreign: { amount: row.foreign_currency_amount, currency: row.foreign_currency.trim() } }
      : {}),
  };
}

const DAY_MS = 86_400_000;

type TDb = TPgPool | PoolClient;

/**
 * The stay block of a RESERVATION source whose reservation was imported; undefined otherwise.
 * Archived rooms (moved out of, or taken off the booking) are left out: the block names the rooms
 * the stay holds, while rows posted to an archived room still name it in their own line.
 */
async function loadStay(pool: TDb, propertyId: string, request: TFolioExportRequest): Promise<TDocumentStay | undefined> {
  if (request.sourceKind !== 'RESERVATION') return undefined;
  const stay = await findStay(pool, propertyId, request.sourceId);
  if (!stay) return undefined;
  const nights = Math.round((Date.parse(`${stay.checkout_date}T00:00:00Z`) - Date.parse(`${stay.checkin_date}T00:00:00Z`)) / DAY_MS);
  return {
    guestName: stay.guest_name,
    checkinDate: stay.checkin_date,
    checkoutDate: stay.checkout_date,
    nights,
    rooms: stay.rooms.filter((room) => !room.archived).map((room) => ({ name: room.roomName, ...(room.roomTypeName ? { type: room.roomTypeName } : {}) })),
    ...(stay.adults !== null ? { adults: stay.adults } : {}),
    ...(stay.children !== null ? { children: stay.children } : {}),
    status: stay.status,
  };
}

/** How a document reads its rows. */
export interface TDocumentReads {
  /** Rows per keyset batch (ledger-store selectTransactions; 2,000 when absent). */
  batchRows?: number;
  /**
   * EXPORT_MAX_ROWS: past this many rows the read stops and throws ExportTooLargeError (with the
   * exact count, from the same snapshot), before the document is held whole. No bound when absent.
   */
  maxRows?: number;
}

export async function buildFolioDocument(
  pool: TPgPool,
  propertyId: string,
  language: TLanguage,
  request: TFolioExportRequest,
  now: Date,
  /** The property's row when the caller has read it already (one query fewer). */
  loaded?: TPropertyProfile,
  reads: TDocumentReads = {},
): Promise<TFolioDocument> {
  const t = translator(language);
  // Every read of the document is one REPEATABLE READ snapshot: the rows come in keyset batches,
  // separate statements, and an import committing between two of them would otherwise add a row,
  // or show a row it moved twice, so the totals would not be the ledger's at any moment.
  const read = await inTransaction(pool, (db) => readLedger(db, propertyId, request, loaded, reads), 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  const { property, folioRows, stay, recipient, byFolio, firstIdentifier } = read;
  const names = new Map(folioRows.map((folio) => [folio.id, folio.name]));
  const folios: TDocumentFolio[] = [...byFolio].map(([id, rows]) => {
    const shown = request.revenueCompact
      ? compactRevenue(rows, (room) => (room ? t('compacted.room', { room }) : t('compacted.noRoom')))
      : rows;
    const taxes = taxSummary(rows);
    return {
      id,
      name: names.get(id) ?? `${t('folio')} ${id}`,
      sections: buildFolioSections(shown, request.creditDebitView),
      totals: documentTotals(rows),
      ...(taxes ? { taxes } : {}),
    };
  });

  const grandTaxes = folios.length > 1 ? sumTaxes(folios.map((folio) => folio.taxes)) : undefined;
  const identifier = folioRows.find((folio) => folio.source_identifier)?.source_identifier ?? firstIdentifier ?? undefined;
  return {
    language,
    generatedAt: now.toISOString(),
    timezone: property.timezone,
    currency: property.currency,
    property: {
      name: property.name,
      ...(property.address ? { address: property.address } : {}),
      ...(property.tax_id ? { taxId: property.tax_id } : {}),
      ...(property.phone ? { phone: property.phone } : {}),
      ...(property.email ? { email: property.email } : {}),
      ...(property.website ? { website: property.website } : {}),
    },
    source: {
      kind: request.sourceKind,
      id: request.sourceId,
      ...(identifier ? { identifier } : {}),
      // A house account is known by its name; a reservation by its identifier.
      ...(request.sourceKind === 'HOUSE_ACCOUNT' && folioRows[0] ? { name: folioRows[0].name } : {}),
    },
    ...(stay ? { stay } : {}),
    ...(recipient ? { recipient } : {}),
    filters: {
      ...(request.dateFrom ? { dateFrom: request.dateFrom } : {}),
      ...(request.dateTo ? { dateTo: request.dateTo } : {}),
      ...(request.posted !== undefined ? { posted: request.posted } : {}),
      includeVoided: request.includeVoided,
      descriptionFilters: request.descriptionFilters,
      ...(request.searchQuery ? { searchQuery: request.searchQuery } : {}),
      subSourceIds: request.subSourceIds,
      ...(request.folioIds ? { folioIds: request.folioIds } : {}),
      creditDebitView: request.creditDebitView,
      revenueCompact: request.revenueCompact,
    },
    folios,
    ...(folios.length > 1 ? { grandTotals: sumTotals(folios.map((folio) => folio.totals)) } : {}),
    ...(grandTaxes ? { grandTaxes } : {}),
  };
}

/** Everything a document reads of the ledger, through `db` (one snapshot). */
async function readLedger(db: PoolClient, propertyId: string, request: TFolioExportRequest, loaded: TPropertyProfile | undefined, reads: TDocumentReads) {
  // One connection runs one statement at a time: the reads go one after another.
  const property = loaded ?? (await loadProperty(db, propertyId));
  const folioRows = await foliosOfSource(db, propertyId, request.sourceKind, request.sourceId, request.folioIds);
  const stay = await loadStay(db, propertyId, request);
  const recipient = request.recipient ? await loadRecipient(db, propertyId, request.recipient) : undefined;
  const filter = exportFilter(propertyId, request, property.timezone);
  const transactions = selectTransactions(db, filter, withTieBreak(request.sort), reads.batchRows);
  // Folios in id order; a transaction whose folio was never imported still gets its own folio.
  // Rows are read in batches and only their ledger form is kept (docs/export.md#streaming).
  const byFolio = new Map<string, TLedgerRow[]>(folioRows.map((folio) => [folio.id, []]));
  let firstIdentifier: string | null | undefined;
  let count = 0;
  for await (const batch of transactions) {
    count += batch.length;
    if (reads.maxRows !== undefined && count > reads.maxRows) throw new ExportTooLargeError(await countTransactions(db, filter), reads.maxRows);
    for (const row of batch) {
      firstIdentifier ??= row.source_identifier;
      const list = byFolio.get(row.folio_id) ?? [];
      list.push(toLedgerRow(row));
      byFolio.set(row.folio_id, list);
    }
  }
  return { property, folioRows, stay, recipient, byFolio, firstIdentifier };
}

async function loadRecipient(pool: TDb, propertyId: string, recipient: NonNullable<TFolioExportRequest['recipient']>): Promise<TFolioDocument['recipient']> {
  const row = await findRecipient(pool, propertyId, recipient.type, recipient.id);
  if (!row) return undefined;
  // GUEST_DOCUMENT_NUMBER picks the document number; otherwise (and by default) the tax id.
  const byDocument = recipient.taxDocumentSource === 'GUEST_DOCUMENT_NUMBER';
  const taxNumber = byDocument ? row.document_number : row.tax_id;
  return {
    type: recipient.type,
    name: row.name,
    ...(row.address ? { address: row.address } : {}),
    taxLabel: byDocument ? 'documentNumber' : 'taxId',
    ...(taxNumber ? { taxNumber } : {}),
  };
}
