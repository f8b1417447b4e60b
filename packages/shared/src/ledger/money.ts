// Folio arithmetic on exact decimals (big.js; never binary floats). Amounts are signed as they move
// the balance: charges > 0, payments < 0.

import Big from 'big.js';
import { CREDIT_GROUPS, type TCodeGroup } from './enums.js';

/** totalDebit = Σ debit amounts; totalCredit = −Σ credit amounts; balance = Σ amounts. */
export interface TTotals {
  count: number;
  totalDebit: string;
  totalCredit: string;
  balance: string;
}

export function isCredit(group: string): boolean {
  return CREDIT_GROUPS.has(group as TCodeGroup);
}

export function totalsOf(rows: Iterable<{ amount: string; internalCodeGroup: string }>): TTotals {
  let count = 0;
  let debit = new Big(0);
  let credit = new Big(0);
  for (const row of rows) {
    count += 1;
    if (isCredit(row.internalCodeGroup)) credit = credit.minus(row.amount);
    else debit = debit.plus(row.amount);
  }
  return { count, totalDebit: debit.toFixed(), totalCredit: credit.toFixed(), balance: debit.minus(credit).toFixed() };
}

/** Groups whose quantity counts units sold (the reference's "product/addon types"). */
const ITEM_GROUPS: ReadonlySet<string> = new Set(['ITEM_SERVICE', 'ADDON']);

/** Σ quantity of the ITEM_SERVICE and ADDON rows, exact (decimal text). */
export function itemQuantityOf(rows: Iterable<{ quantity: string; internalCodeGroup: string }>): string {
  let quantity = new Big(0);
  for (const row of rows) if (ITEM_GROUPS.has(row.internalCodeGroup)) quantity = quantity.plus(row.quantity);
  return quantity.toFixed();
}

const SCALES = new Map<string, number>();

/**
 * Decimal places of a currency (EUR 2, JPY 0, BHD 3), as Intl knows them. Remembered per code:
 * building a NumberFormat costs far more than reading a map, and the listing asks once per row.
 */
export function currencyScale(currency: string): number {
  let scale = SCALES.get(currency);
  if (scale === undefined) {
    try {
      scale = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      scale = 2;
    }
    // Bounded: only ISO codes that reach here are stored (a bad code answers 2 without being kept).
    if (/^[A-Z]{3}$/.test(currency)) SCALES.set(currency, scale);
  }
  return scale;
}

/** A decimal string as a JSON number: exact for the 15 significant digits money has here. */
export function decimalToNumber(value: string): number {
  return Number(value);
}
