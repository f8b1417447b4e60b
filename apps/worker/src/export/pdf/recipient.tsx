import { Text, View } from '@react-pdf/renderer';
import type { TFolioDocument } from '@folio-vault/shared/export/folio-document';
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
      <Text style={styles.recipientLabel}>{fitText(t('recipient'), TEXT_WIDTH.recipient, FONT_SIZE.row, true)}</Text>
      <Text style={styles.recipientName}>{fitText(recipient.name, TEXT_WIDTH.recipient, FONT_SIZE.heading, true)}</Text>
      {recipient.address ? <Text style={styles.recipientLine}>{fitText(recipient.address, TEXT_WIDTH.recipient, FONT_SIZE.small)}</Text> : null}
      {tax ? <Text style={styles.recipientLine}>{fitText(tax, TEXT_WIDTH.recipient, FONT_SIZE.small)}</Text> : null}
    </View>
  );
}
