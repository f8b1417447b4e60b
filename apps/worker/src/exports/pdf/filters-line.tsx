import { View } from '@react-pdf/renderer';
import { PaintedLine } from './painted-line.js';
import type { TAppliedFilters } from '@folio-vault/shared/exports/folio-document';
import type { TFormatters } from '@folio-vault/shared/i18n/format';
import type { TTranslate } from '@folio-vault/shared/i18n/catalog';
import { filtersText } from './filters-text.js';
import { FONT_SIZE, fitTextShrinking } from './layout.js';
import { TEXT_WIDTH, filtersTextStyles, styles } from './styles.js';

/**
 * Every applied filter on one line (paginate() leaves the line out when nothing narrows the
 * export): a long list is set smaller before it is cut.
 */
export function FiltersLine({ filters, t, fmt }: { filters: TAppliedFilters; t: TTranslate; fmt: TFormatters }) {
  const { text, fontSize } = fitTextShrinking(filtersText(filters, t, fmt), TEXT_WIDTH.filters, FONT_SIZE.filters);
  return (
    <View style={styles.filters}>
      <PaintedLine style={filtersTextStyles[fontSize]!} text={text} />
    </View>
  );
}
