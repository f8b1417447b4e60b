import { View } from '@react-pdf/renderer';
import type { TDocumentStay, TFolioDocument } from '@folio-vault/shared/exports/folio-document';
import type { TTranslate } from '@folio-vault/shared/i18n/catalog';
import type { TFormatters } from '@folio-vault/shared/i18n/format';
import { stayLines, stayTexts } from '../stay-text.js';
import { FONT_SIZE, fitText } from './layout.js';
import { PaintedLine } from './painted-line.js';
import { TEXT_WIDTH, styles } from './styles.js';

/**
 * The stay block of a reservation's folio, under the header (STAY_SLOTS high): the guest in bold,
 * then arrival, departure and nights; the rooms; the guests and the reservation's status. Every
 * line is fitted to the content width, so the block never grows.
 */
export function Stay({ stay, language, t, fmt }: { stay: TDocumentStay; language: TFolioDocument['language']; t: TTranslate; fmt: TFormatters }) {
  const lines = stayLines(stayTexts(stay, language, t, fmt), t);
  const line = (text: string) => <PaintedLine style={styles.stayLine} text={fitText(text, TEXT_WIDTH.stay, FONT_SIZE.small)} />;
  return (
    <View style={styles.stay}>
      <PaintedLine style={styles.stayGuest} text={fitText(lines.guest, TEXT_WIDTH.stay, FONT_SIZE.heading, true)} />
      {line(lines.dates)}
      {lines.rooms ? line(lines.rooms) : null}
      {line(lines.people)}
    </View>
  );
}
