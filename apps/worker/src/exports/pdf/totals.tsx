import { View } from '@react-pdf/renderer';
import Big from 'big.js';
import { PaintedLine } from './painted-line.js';
import type { TDocumentTotals, TTaxLine } from '@folio-vault/shared/exports/folio-document';
import type { TFormatters } from '@folio-vault/shared/i18n/format';
import type { TTranslate } from '@folio-vault/shared/i18n/catalog';
import { balanceLabel } from '../document-text.js';
import { FONT_SIZE, fitText } from './layout.js';
import { TEXT_WIDTH, styles, taxSummaryHeight } from './styles.js';

/**
 * The balance line by its sign: "Balance due" what the guest owes, "Credit" (the amount without its
 * minus) what the hotel owes the guest, "Balance" at zero.
 */
export function balanceLine(balance: string, t: TTranslate, fmt: TFormatters): { label: string; amount: string } {
  return { label: t(balanceLabel(balance)), amount: fmt.money(new Big(balance).abs().toFixed()) };
}

/**
 * Payments as they move the balance (negative, like the payment rows and the credits' subtotal), so
 * charges + payments = balance reads down the column.
 */
export function paymentsAmount(payments: string, fmt: TFormatters): string {
  const value = new Big(payments);
  return fmt.money(value.eq(0) ? '0' : value.neg().toFixed());
}

/** Charges, payments and balance, right-aligned under the amount column: of one folio, or of all of them. */
export function Totals({ title, totals, t, fmt }: { title: string; totals: TDocumentTotals; t: TTranslate; fmt: TFormatters }) {
  const balance = balanceLine(totals.balance, t, fmt);
  return (
    <View style={styles.totals}>
      <PaintedLine style={styles.totalsTitle} text={fitText(title, TEXT_WIDTH.totalsTitle, FONT_SIZE.row + 1, true)} />
      <View style={styles.totalsLine}>
        <PaintedLine style={styles.totalsLabel} text={t('totals.charges')} />
        <PaintedLine style={styles.totalsValue} text={fmt.money(totals.charges)} />
      </View>
      <View style={styles.totalsLine}>
        <PaintedLine style={styles.totalsLabel} text={t('totals.payments')} />
        <PaintedLine style={styles.totalsValue} text={paymentsAmount(totals.payments, fmt)} />
      </View>
      <View style={styles.totalsLine}>
        <PaintedLine style={styles.totalsBalanceLabel} text={balance.label} />
        <PaintedLine style={styles.totalsBalance} text={balance.amount} />
      </View>
    </View>
  );
}

/**
 * The tax summary under the totals: per tax ("VAT 10%") the net it was charged on, the tax and the
 * gross, right-aligned so the gross stands under the amount column. A net the document cannot know
 * (the taxed rows left out by a filter) shows "—".
 */
export function TaxSummary({ lines, all, continued, t, fmt }: { lines: TTaxLine[]; all: boolean; continued: boolean; t: TTranslate; fmt: TFormatters }) {
  const title = `${t('taxSummary')}${all ? ` — ${t('totals.all')}` : ''}${continued ? ` ${t('continued')}` : ''}`;
  const money = (amount: string | undefined) => (amount === undefined ? '—' : fmt.money(amount));
  return (
    <View style={{ ...styles.taxSummary, height: taxSummaryHeight(lines.length) }}>
      <PaintedLine style={styles.totalsTitle} text={fitText(title, TEXT_WIDTH.totalsTitle, FONT_SIZE.row + 1, true)} />
      <View style={styles.taxLine}>
        <PaintedLine style={styles.taxHeadLabel} text={t('taxSummary.rate')} />
        <PaintedLine style={styles.taxHeadValue} text={t('taxSummary.net')} />
        <PaintedLine style={styles.taxHeadValue} text={t('taxSummary.tax')} />
        <PaintedLine style={styles.taxHeadGross} text={t('taxSummary.gross')} />
      </View>
      {lines.map((line, index) => (
        <View key={index} style={styles.taxLine}>
          <PaintedLine style={styles.taxLabel} text={fitText(line.label, TEXT_WIDTH.taxLabel, FONT_SIZE.row)} />
          <PaintedLine style={styles.taxValue} text={money(line.net)} />
          <PaintedLine style={styles.taxValue} text={money(line.tax)} />
          <PaintedLine style={styles.taxGross} text={money(line.gross)} />
        </View>
      ))}
    </View>
  );
}
