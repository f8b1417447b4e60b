import { View } from '@react-pdf/renderer';
import { PaintedLine } from './painted-line.js';
import type { TFormatters } from '@folio-vault/shared/i18n/format';
import type { TTranslate } from '@folio-vault/shared/i18n/catalog';
import { FONT_SIZE, fitText } from './layout.js';
import type { TSectionKind } from './paginate.js';
import { TEXT_WIDTH, styles } from './styles.js';

/** The folio's name above its table; "(continued)" on the pages after its first. */
export function FolioHeading({ folioName, continued, t }: { folioName: string; continued: boolean; t: TTranslate }) {
  const text = `${t('labelValue', { label: t('folio'), value: folioName })}${continued ? ` ${t('continued')}` : ''}`;
  return (
    <View style={styles.folioHeading}>
      <PaintedLine style={styles.folioHeadingText} text={fitText(text, TEXT_WIDTH.folioHeading, FONT_SIZE.heading, true)} />
    </View>
  );
}

/** "Debits" / "Credits" (creditDebitView). */
export function SectionHeading({ section, continued, t }: { section: TSectionKind; continued: boolean; t: TTranslate }) {
  const text = `${t(`section.${section}`)}${continued ? ` ${t('continued')}` : ''}`;
  return (
    <View style={styles.sectionHeading}>
      <PaintedLine style={styles.sectionHeadingText} text={text} />
    </View>
  );
}

/** The section's subtotal, under the amount column. */
export function SectionSubtotal({ section, subtotal, t, fmt }: { section: TSectionKind; subtotal: string; t: TTranslate; fmt: TFormatters }) {
  return (
    <View style={styles.sectionSubtotal}>
      <PaintedLine style={styles.sectionSubtotalLabel} text={t(`subtotal.${section}`)} inherited={{ bold: true }} />
      <PaintedLine style={styles.cellAmount} text={fmt.money(subtotal)} inherited={{ bold: true }} />
    </View>
  );
}

/** A folio (or section) without any transaction left by the filters. */
export function NoRows({ t }: { t: TTranslate }) {
  return (
    <View style={styles.noRows}>
      <PaintedLine style={styles.noRowsText} text={t('noTransactions')} />
    </View>
  );
}
