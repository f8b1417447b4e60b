import { View } from '@react-pdf/renderer';
import { PaintedLine } from './painted-line.js';
import type { TDocumentTotals } from '@folio-vault/shared/exports/folio-document';
import type { TFormatters } from '@folio-vault/shared/i18n/format';
import type { TTranslate } from '@folio-vault/shared/i18n/catalog';
import { FONT_SIZE, fitText } from './layout.js';
import { TEXT_WIDTH, styles } from './styles.js';

/** Charges, payments and balance, right-aligned under the amount column: of one folio, or of all of them. */
export function Totals({ title, totals, t, fmt }: { title: string; totals: TDocumentTotals; t: TTranslate; fmt: TFormatters }) {
  return (
    <View style={styles.totals}>
      <PaintedLine style={styles.totalsTitle} text={fitText(title, TEXT_WIDTH.totalsTitle, FONT_SIZE.row + 1, true)} />
      <View style={styles.totalsLine}>
        <PaintedLine style={styles.totalsLabel} text={t('totals.charges')} />
        <PaintedLine style={styles.totalsValue} text={fmt.money(totals.charges)} />
      </View>
      <View style={styles.totalsLine}>
        <PaintedLine style={styles.totalsLabel} text={t('totals.payments')} />
        <PaintedLine style={styles.totalsValue} text={fmt.money(totals.payments)} />
      </View>
      <View style={styles.totalsLine}>
        <PaintedLine style={styles.totalsLabel} text={t('totals.balance')} />
        <PaintedLine style={styles.totalsBalance} text={fmt.money(totals.balance)} />
      </View>
    </View>
  );
}
