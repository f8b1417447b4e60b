import { View } from '@react-pdf/renderer';
import { PaintedLine } from './painted-line.js';
import type { TFolioDocument } from '@folio-vault/shared/exports/folio-document';
import type { TTranslate } from '@folio-vault/shared/i18n/catalog';
import { sourceText } from '../document-text.js';
import { FONT_SIZE, fitText } from './layout.js';
import { TEXT_WIDTH, styles } from './styles.js';

/** First page: property name and address on the left; document title and source on the right. */
export function Header({ document, t }: { document: Pick<TFolioDocument, 'property' | 'source'>; t: TTranslate }) {
  return (
    <View style={styles.header}>
      <View style={styles.headerLeft}>
        <PaintedLine style={styles.propertyName} text={fitText(document.property.name, TEXT_WIDTH.headerLeft, FONT_SIZE.propertyName, true)} />
        {document.property.address ? (
          <PaintedLine style={styles.propertyAddress} text={fitText(document.property.address, TEXT_WIDTH.headerLeft, FONT_SIZE.small)} />
        ) : null}
      </View>
      <View style={styles.headerRight}>
        <PaintedLine style={styles.title} text={fitText(t('title'), TEXT_WIDTH.headerRight, FONT_SIZE.title, true)} />
        <PaintedLine style={styles.source} text={fitText(sourceText(document.source, t), TEXT_WIDTH.headerRight, FONT_SIZE.heading)} />
      </View>
    </View>
  );
}
