import { Text, View } from '@react-pdf/renderer';
import type { TDocumentTotals } from '@folio-vault/shared/export/folio-document';
import type { TFormatters } from '@folio-vault/shared/i18n/format';
import type { TTranslate } from '@folio-vault/shared/i18n/catalog';
import { FONT_SIZE, fitText } from './layout.js';
import { TEXT_WIDTH, styles } from './styles.js';

/** Charges, payments and balance, right-aligned under the amount column: of one folio, or of all of them. */
export function Totals({ title, totals, t, fmt }: { title: string; totals: TDocumentTotals; t: TTranslate; fmt: TFormatters }) {
  return (
    <View style={styles.totals}>
      <Text style={styles.totalsTitle}>{fitText(title, TEXT_WIDTH.totalsTitle, FONT_SIZE.row + 1, true)}</Text>
      <View style={styles.totalsLine}>
        <Text style={styles.totalsLabel}>{t('totals.charges')}</Text>
        <Text style={styles.totalsValue}>{fmt.money(totals.charges)}</Text>
      </View>
      <View style={styles.totalsLine}>
        <Text style={styles.totalsLabel}>{t('totals.payments')}</Text>
        <Text style={styles.totalsValue}>{fmt.money(totals.payments)}</Text>
      </View>
      <View style={styles.totalsLine}>
        <Text style={styles.totalsLabel}>{t('totals.balance')}</Text>
        <Text style={styles.totalsBalance}>{fmt.money(totals.balance)}</Text>
      </View>
    </View>
  );
}
