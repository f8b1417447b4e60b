import { Text, View } from '@react-pdf/renderer';
import type { TTranslate } from '@folio-vault/shared/i18n/catalog';
import { styles } from './styles.js';

/**
 * "Generated …" and "Page X of Y" at the foot of every page. The page count is known from
 * paginate(), so no render callback (which would lay every page out again) is needed.
 */
export function Footer({ page, pages, generated, t }: { page: number; pages: number; generated: string; t: TTranslate }) {
  return (
    <View style={styles.footer}>
      <Text style={styles.footerText}>{t('generated', { datetime: generated })}</Text>
      <Text style={styles.footerText}>{t('page', { page, pages })}</Text>
    </View>
  );
}
