import { View } from '@react-pdf/renderer';
import { PaintedLine } from './painted-line.js';
import type { TTranslate } from '@folio-vault/shared/i18n/catalog';
import { COLOURS, FONT_SIZE } from './layout.js';
import { styles } from './styles.js';

const FOOTER = { fontSize: FONT_SIZE.footer, color: COLOURS.muted };

/**
 * "Generated …" and "Page X of Y" at the foot of every page. The page count is known from
 * paginate(), so no render callback (which would lay every page out again) is needed.
 */
export function Footer({ page, pages, generated, t }: { page: number; pages: number; generated: string; t: TTranslate }) {
  return (
    <View style={styles.footer}>
      <PaintedLine style={styles.footerText} text={t('generated', { datetime: generated })} inherited={FOOTER} />
      <PaintedLine style={styles.footerText} text={t('page', { page, pages })} inherited={FOOTER} />
    </View>
  );
}
