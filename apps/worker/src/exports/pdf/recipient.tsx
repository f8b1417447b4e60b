import { View } from '@react-pdf/renderer';
import { PaintedLine } from './painted-line.js';
import type { TFolioDocument } from '@folio-vault/shared/exports/folio-document';
import type { TTranslate } from '@folio-vault/shared/i18n/catalog';
import { FONT_SIZE, fitText } from './layout.js';
import { TEXT_WIDTH, styles } from './styles.js';

type TRecipient = NonNullable<TFolioDocument['recipient']>;

/** "Tax ID: B12345678" or "Document number: X1234567Z", as chosen by taxDocumentSource; absent when the recipient has none. */
export function taxLine(recipient: TRecipient, t: TTranslate): string | undefined {
  if (!recipient.taxNumber?.trim()) return undefined;
  return t('labelValue', { label: t(recipient.taxLabel), value: recipient.taxNumber.trim() });
}

/** The "Bill to" block: name, address and the tax number labelled by its kind. */
export function Recipient({ recipient, t }: { recipient: TRecipient; t: TTranslate }) {
  const tax = taxLine(recipient, t);
  return (
    <View style={styles.recipient}>
      <PaintedLine style={styles.recipientLabel} text={fitText(t('recipient'), TEXT_WIDTH.recipient, FONT_SIZE.row, true)} />
      <PaintedLine style={styles.recipientName} text={fitText(recipient.name, TEXT_WIDTH.recipient, FONT_SIZE.heading, true)} />
      {recipient.address ? <PaintedLine style={styles.recipientLine} text={fitText(recipient.address, TEXT_WIDTH.recipient, FONT_SIZE.small)} /> : null}
      {tax ? <PaintedLine style={styles.recipientLine} text={fitText(tax, TEXT_WIDTH.recipient, FONT_SIZE.small)} /> : null}
    </View>
  );
}
