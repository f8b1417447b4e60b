import { View } from '@react-pdf/renderer';
import { PaintedLine } from './painted-line.js';
import type { TFolioDocument } from '@folio-vault/shared/exports/folio-document';
import type { TTranslate } from '@folio-vault/shared/i18n/catalog';
import { folioNumberText, propertyContactParts, propertyTaxIdText, sourceText } from '../document-text.js';
import { canvasTextWidth } from './canvas-text.js';
import { FONT_SIZE, fitText } from './layout.js';
import { loadedTableFonts } from './table-fonts.js';
import { TEXT_WIDTH, styles } from './styles.js';

type TProperty = TFolioDocument['property'];

/** Lines under the hotel's name at most: the header is HEADER_SLOTS high (paginate.ts). */
const PROPERTY_LINES = 4;

/**
 * The lines under the hotel's name, each part only when imported: its address; its tax id ("Tax
 * ID: PT509123456"); how to reach it ("Tel. +351 21 000 0000 · reservas@hotel.example ·
 * hotel.example"), carried onto a second line between two parts when it does not fit one (`fits`
 * says whether a line does). Every line fits TEXT_WIDTH.headerLeft.
 */
export function propertyLines(property: TProperty, t: TTranslate, fits: (line: string) => boolean): string[] {
  const contact = propertyContactParts(property, t);
  const lines = [property.address, propertyTaxIdText(property, t)].filter((line): line is string => !!line);
  let line = '';
  for (const part of contact) {
    const joined = line ? `${line} · ${part}` : part;
    if (!line || fits(joined)) line = joined;
    else {
      lines.push(line);
      line = part;
    }
  }
  if (line) lines.push(line);
  // Past the last line the rest joins it (only a very long address and contact); a line too long is cut with "…".
  const kept = lines.length > PROPERTY_LINES ? [...lines.slice(0, PROPERTY_LINES - 1), lines.slice(PROPERTY_LINES - 1).join(' · ')] : lines;
  return kept.map((text) => (fits(text) ? text : fitText(text, TEXT_WIDTH.headerLeft, FONT_SIZE.small)));
}

/**
 * First page: the hotel on the left — name, address, tax id, contact — and on the right the
 * document's title, its source and the folio number(s).
 */
export function Header({ document, folioNumbers, t }: { document: Pick<TFolioDocument, 'property' | 'source'>; folioNumbers: readonly string[]; t: TTranslate }) {
  const folioNumber = folioNumberText(folioNumbers, t);
  // Measured in the face it is set in (the header is a fixed height: nothing else depends on it);
  // a text the canvas cannot measure is estimated like every other fitted text.
  const font = loadedTableFonts().regular;
  const fits = (line: string) => (canvasTextWidth(font, line, FONT_SIZE.small) ?? Infinity) <= TEXT_WIDTH.headerLeft || fitText(line, TEXT_WIDTH.headerLeft, FONT_SIZE.small) === line;
  return (
    <View style={styles.header}>
      <View style={styles.headerLeft}>
        <PaintedLine style={styles.propertyName} text={fitText(document.property.name, TEXT_WIDTH.headerLeft, FONT_SIZE.propertyName, true)} />
        {propertyLines(document.property, t, fits).map((line, index) => (
          <PaintedLine key={index} style={styles.propertyLine} text={line} />
        ))}
      </View>
      <View style={styles.headerRight}>
        <PaintedLine style={styles.title} text={fitText(t('title'), TEXT_WIDTH.headerRight, FONT_SIZE.title, true)} />
        <PaintedLine style={styles.source} text={fitText(sourceText(document.source, t), TEXT_WIDTH.headerRight, FONT_SIZE.heading)} />
        {folioNumber ? <PaintedLine style={styles.folioNumber} text={fitText(folioNumber, TEXT_WIDTH.headerRight, FONT_SIZE.small)} /> : null}
      </View>
    </View>
  );
}
