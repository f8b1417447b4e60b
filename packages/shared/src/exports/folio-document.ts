// A folio export ready to render: every row chosen, ordered, marked and totalled by the worker
// (from the ledger, with the listing's filter rules). The PDF and XLSX writers only lay it out and
// format it in the document's language, time zone and currency. Money is exact decimal strings.

import type { TLanguage } from '../i18n/languages.js';

/** One row of a folio as printed: chosen, ordered and marked by the worker. */
export interface TDocumentRow {
  id: string;
  /** UTC instant (ISO 8601); shown in the property's time zone. */
  transactionDatetime: string;
  serviceDate: string;
  code: string;
  description: string;
  notes?: string;
  quantity: string;
  amount: string;
  /** A void, or a transaction of a chain that holds one. */
  voided: boolean;
  /** Not posted yet. */
  pending: boolean;
  /**
   * A credit (PAYMENT or ACCOUNTS_RECEIVABLE): counted in payments, not charges. The worker always
   * sets it; absent reads as a debit.
   */
  credit?: boolean;
  /** A line made by revenue compaction (room revenue with its taxes and fees for one date and room). */
  compacted?: boolean;
  /** Room (sub-source identifier), when known. */
  room?: string;
  /** The card a payment was made with, when the ledger knows its brand. */
  card?: TDocumentCard;
  /** What the guest tendered in another currency (the row's amount is in the property's currency). */
  foreign?: TForeignAmount;
}

export interface TDocumentCard {
  /** The brand code as imported (visa, master, amex… or any lowercase code). */
  brand: string;
  /** Last four digits, when known. */
  lastFour?: string;
}

export interface TForeignAmount {
  /** Exact decimal string, signed like the row's amount. */
  amount: string;
  /** ISO 4217 code. */
  currency: string;
}

/** The stay behind a RESERVATION source (only when its reservation was imported). */
export interface TDocumentStay {
  guestName: string;
  /** YYYY-MM-DD calendar dates. */
  checkinDate: string;
  checkoutDate: string;
  /** checkout − checkin in days. */
  nights: number;
  /** The booked rooms in the imported order; archived rooms (moved out of, removed) are left out. */
  rooms: Array<{ name: string; type?: string }>;
  adults?: number;
  children?: number;
  /** The reservation status code (checked_out, canceled, no_show…). */
  status: string;
}

export interface TDocumentTotals {
  charges: string;
  payments: string;
  balance: string;
}

/**
 * One tax rate of a folio's tax summary: the TAX rows of one tax (same code and description, e.g.
 * "VAT 10%"), what they were charged on and what that makes. A tax row's base is the row it was
 * posted against (its parentId; a void of a tax takes the opposite of the voided tax's base).
 */
export interface TTaxLine {
  /** The tax's description as posted ("VAT 10%"). */
  label: string;
  /** Σ the bases; absent when a tax row's base is not among the document's rows (left out by a filter). */
  net?: string;
  /** Σ the tax rows' amounts. */
  tax: string;
  /** net + tax; absent with net. */
  gross?: string;
}

export interface TDocumentSection {
  /** `all` without creditDebitView; `debits` and `credits` with it. */
  kind: 'all' | 'debits' | 'credits';
  rows: TDocumentRow[];
  /** Σ amounts of the section's rows (with creditDebitView). */
  subtotal?: string;
}

export interface TDocumentFolio {
  id: string;
  name: string;
  sections: TDocumentSection[];
  totals: TDocumentTotals;
  /** The folio's tax summary, one line per tax; absent when the folio holds no TAX row. */
  taxes?: TTaxLine[];
}

export interface TAppliedFilters {
  dateFrom?: string;
  dateTo?: string;
  posted?: boolean;
  includeVoided: boolean;
  descriptionFilters: string[];
  searchQuery?: string;
  subSourceIds: string[];
  folioIds?: string[];
  creditDebitView: boolean;
  revenueCompact: boolean;
}

export interface TFolioDocument {
  language: TLanguage;
  /** ISO instant the document was generated. */
  generatedAt: string;
  timezone: string;
  currency: string;
  property: { name: string; address?: string; taxId?: string; phone?: string; email?: string; website?: string };
  source: { kind: string; id: string; identifier?: string; name?: string };
  stay?: TDocumentStay;
  recipient?: { type: string; name: string; address?: string; taxLabel: 'taxId' | 'documentNumber'; taxNumber?: string };
  filters: TAppliedFilters;
  folios: TDocumentFolio[];
  /** Present when the export holds more than one folio. */
  grandTotals?: TDocumentTotals;
  /** The tax summary of all folios together, when the export holds more than one and any TAX row. */
  grandTaxes?: TTaxLine[];
}

export interface TRenderedFile {
  pages: number;
  rows: number;
}
