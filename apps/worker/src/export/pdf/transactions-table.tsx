import { Text, View } from '@react-pdf/renderer';
import type { TFormatters } from '@folio-vault/shared/i18n/format';
import type { TTranslate } from '@folio-vault/shared/i18n/catalog';
import type { TPageRow } from './paginate.js';
import { styles } from './styles.js';

/** Column labels, repeated at the top of every page a folio's table runs onto. */
export function ColumnHeader({ t }: { t: TTranslate }) {
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

/**
 * The transaction rows of one page. Kept cheap on purpose (React-PDF's cost grows with nodes): one
 * View per row and one Text per cell, shared style objects, texts already fitted to one line. A
 * void row is grey and struck through, a pending one coloured; both carry their mark in the last
 * column (void wins when a row is both: it counts in no total). Unmarked rows have no status node.
 */
export function TransactionRows({ rows, t, fmt }: { rows: TPageRow[]; t: TTranslate; fmt: TFormatters }) {
  const voidMark = t('mark.void');
  const pendingMark = t('mark.pending');
  return (
    <>
      {rows.map(({ row, code, description, notes }, index) => {
        const mark = row.voided ? voidMark : row.pending ? pendingMark : undefined;
        return (
          // A static render: the position is a stable key (ids may repeat across compacted lines).
          <View key={index} style={row.voided ? styles.rowVoid : row.pending ? styles.rowPending : styles.row}>
            <Text style={styles.cellDatetime}>{fmt.dateTime(row.transactionDatetime)}</Text>
            <Text style={styles.cellServiceDate}>{fmt.date(row.serviceDate)}</Text>
            <Text style={styles.cellCode}>{code}</Text>
            <Text style={styles.cellDescription}>{description}</Text>
            <Text style={styles.cellNotes}>{notes}</Text>
            <Text style={styles.cellQuantity}>{fmt.number(row.quantity)}</Text>
            <Text style={styles.cellAmount}>{fmt.money(row.amount)}</Text>
            {mark ? <Text style={styles.cellStatus}>{mark}</Text> : null}
          </View>
        );
      })}
    </>
  );
}
