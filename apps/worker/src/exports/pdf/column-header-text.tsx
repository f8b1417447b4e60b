import { Text, View } from '@react-pdf/renderer';
import type { TTranslate } from '@folio-vault/shared/i18n/catalog';
import { styles } from './styles.js';

/**
 * Column labels as Text nodes: what table-canvas.tsx falls back to when a label holds a character
 * the canvas cannot set.
 */
export function ColumnHeaderText({ t }: { t: TTranslate }) {
  return (
    <View style={styles.columnHeader}>
      <Text style={styles.headDatetime}>{t('column.datetime')}</Text>
      <Text style={styles.headServiceDate}>{t('column.serviceDate')}</Text>
      <Text style={styles.headCode}>{t('column.code')}</Text>
      <Text style={styles.headDescription}>{t('column.description')}</Text>
      <Text style={styles.headNotes}>{t('column.notes')}</Text>
      <Text style={styles.headQuantity}>{t('column.quantity')}</Text>
      <Text style={styles.headAmount}>{t('column.amount')}</Text>
      <Text style={styles.headStatus}>{t('column.status')}</Text>
    </View>
  );
}
