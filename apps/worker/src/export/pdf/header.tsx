import { Text, View } from '@react-pdf/renderer';
import type { TFolioDocument } from '@folio-vault/shared/export/folio-document';
import type { TTranslate } from '@folio-vault/shared/i18n/catalog';
import { sourceText } from '../document-text.js';
import { FONT_SIZE, fitText } from './layout.js';
import { TEXT_WIDTH, styles } from './styles.js';

/** First page: property name and address on the left; document title and source on the right. */
export function Header({ document, t }: { document: TFolioDocument; t: TTranslate }) {
  return (
    <View style={styles.header}>
      <View style={styles.headerLeft}>
        <Text style={styles.propertyName}>{fitText(document.property.name, TEXT_WIDTH.headerLeft, FONT_SIZE.propertyName, true)}</Text>
        {document.property.address ? (
          <Text style={styles.propertyAddress}>{fitText(document.property.address, TEXT_WIDTH.headerLeft, FONT_SIZE.small)}</Text>
        ) : null}
      </View>
      <View style={styles.headerRight}>
        <Text style={styles.title}>{fitText(t('title'), TEXT_WIDTH.headerRight, FONT_SIZE.title, true)}</Text>
        <Text style={styles.source}>{fitText(sourceText(document.source, t), TEXT_WIDTH.headerRight, FONT_SIZE.heading)}</Text>
      </View>
    </View>
  );
}
