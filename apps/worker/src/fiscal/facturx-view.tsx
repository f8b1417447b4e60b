// The invoice's page(s): the folio PDF's look (its page geometry, sizes, colours and Noto Sans
// stack: exports/pdf/layout.ts, styles.ts) with an invoice's blocks. A hotel invoice has a few
// dozen lines, so React-PDF's own flow lays it out (texts wrap, a line never splits across pages, a
// long invoice continues on the next page); the folio's fixed-row pagination exists for folios of
// tens of thousands of rows and is not needed here. The texts come from facturx-text.ts.

import { Document, Page, Text, View } from '@react-pdf/renderer';
import { COLOURS, CONTENT_WIDTH, FONT_SIZE, MARGIN_X } from '../exports/pdf/layout.js';
import { pageStyle } from '../exports/pdf/styles.js';
import type { TInvoiceTexts } from './facturx-text.js';

const { ink: INK, muted: MUTED, rule: RULE, hairline: HAIRLINE } = COLOURS;
const bold = { fontWeight: 700 } as const;

/** The lines table's columns (they add up to CONTENT_WIDTH, rounded down). */
const COLUMNS = { date: 58, description: 218, quantity: 38, unitPrice: 74, net: 80, vat: 70 } as const;
/** The VAT breakdown (left) and the totals (right) share a line: together they fit CONTENT_WIDTH. */
const BREAKDOWN = { category: 120, rate: 45, base: 85, tax: 70 } as const;
const TOTALS = { label: 130, amount: 80 } as const;

const right = { textAlign: 'right' } as const;
const cell = (width: number) => ({ width, paddingRight: 4 });

const s = {
  header: { flexDirection: 'row', justifyContent: 'space-between', borderBottomWidth: 0.75, borderBottomColor: RULE, paddingBottom: 6 },
  headerLeft: { width: 330 },
  headerRight: { width: 200, alignItems: 'flex-end' },
  sellerName: { fontSize: FONT_SIZE.propertyName, ...bold },
  partyLine: { fontSize: FONT_SIZE.small, color: MUTED, marginTop: 1 },
  title: { fontSize: FONT_SIZE.title, ...bold },
  reference: { fontSize: FONT_SIZE.small, marginTop: 2, ...right },
  parties: { flexDirection: 'row', justifyContent: 'space-between', paddingTop: 8 },
  buyer: { width: 300 },
  stay: { width: 230, alignItems: 'flex-end' },
  blockLabel: { fontSize: FONT_SIZE.row, color: MUTED, ...bold },
  buyerName: { fontSize: FONT_SIZE.heading, ...bold, marginTop: 1 },
  buyerLine: { fontSize: FONT_SIZE.small, marginTop: 1 },
  stayLine: { fontSize: FONT_SIZE.small, marginTop: 1, ...right },
  preceding: { fontSize: FONT_SIZE.heading, ...bold, marginTop: 8 },
  table: { marginTop: 12 },
  columnHeader: { flexDirection: 'row', borderBottomWidth: 0.75, borderBottomColor: RULE, paddingBottom: 2, fontSize: FONT_SIZE.columnHeader, color: MUTED, ...bold },
  row: { flexDirection: 'row', borderBottomWidth: 0.5, borderBottomColor: HAIRLINE, paddingVertical: 2.5, fontSize: FONT_SIZE.small },
  lineDescription: { fontSize: FONT_SIZE.detail, color: MUTED, marginTop: 1 },
  sectionTitle: { fontSize: FONT_SIZE.row + 1, ...bold, marginBottom: 2 },
  summary: { flexDirection: 'row', justifyContent: 'space-between', marginTop: 12 },
  breakdown: { width: BREAKDOWN.category + BREAKDOWN.rate + BREAKDOWN.base + BREAKDOWN.tax },
  breakdownHeader: { flexDirection: 'row', fontSize: FONT_SIZE.columnHeader, color: MUTED, ...bold, borderBottomWidth: 0.5, borderBottomColor: RULE, paddingBottom: 1 },
  breakdownRow: { flexDirection: 'row', paddingVertical: 1.5 },
  exemption: { fontSize: FONT_SIZE.detail, color: MUTED, marginBottom: 1.5 },
  totals: { width: TOTALS.label + TOTALS.amount },
  totalsRow: { flexDirection: 'row', paddingVertical: 1.5 },
  totalsLabel: { width: TOTALS.label, paddingRight: 4, color: MUTED, ...right },
  totalsAmount: { width: TOTALS.amount, ...right },
  dueRow: { flexDirection: 'row', borderTopWidth: 0.75, borderTopColor: RULE, paddingTop: 2, marginTop: 1, fontSize: FONT_SIZE.heading, ...bold },
  dueLabel: { width: TOTALS.label, paddingRight: 4, ...right },
  section: { marginTop: 12 },
  paragraph: { fontSize: FONT_SIZE.small, marginTop: 1 },
  footer: {
    position: 'absolute',
    left: MARGIN_X,
    right: MARGIN_X,
    bottom: 18,
    flexDirection: 'row',
    justifyContent: 'space-between',
    borderTopWidth: 0.5,
    borderTopColor: RULE,
    paddingTop: 2,
    fontSize: FONT_SIZE.footer,
    color: MUTED,
  },
} as const;

function Header({ texts }: { texts: TInvoiceTexts }) {
  return (
    <View style={s.header}>
      <View style={s.headerLeft}>
        <Text style={s.sellerName}>{texts.seller.name}</Text>
        {texts.seller.lines.map((line, index) => (
          <Text key={index} style={s.partyLine}>
            {line}
          </Text>
        ))}
      </View>
      <View style={s.headerRight}>
        <Text style={s.title}>{texts.title}</Text>
        {texts.references.map((line, index) => (
          <Text key={index} style={s.reference}>
            {line}
          </Text>
        ))}
      </View>
    </View>
  );
}

function Parties({ texts }: { texts: TInvoiceTexts }) {
  return (
    <View style={s.parties}>
      <View style={s.buyer}>
        <Text style={s.blockLabel}>{texts.buyerLabel}</Text>
        <Text style={s.buyerName}>{texts.buyer.name}</Text>
        {texts.buyer.lines.map((line, index) => (
          <Text key={index} style={s.buyerLine}>
            {line}
          </Text>
        ))}
      </View>
      <View style={s.stay}>
        {texts.stay.map((line, index) => (
          <Text key={index} style={s.stayLine}>
            {line}
          </Text>
        ))}
      </View>
    </View>
  );
}

function Lines({ texts }: { texts: TInvoiceTexts }) {
  const { columns } = texts;
  return (
    <View style={s.table}>
      <View style={s.columnHeader} fixed>
        <Text style={cell(COLUMNS.date)}>{columns.date}</Text>
        <Text style={cell(COLUMNS.description)}>{columns.description}</Text>
        <Text style={{ ...cell(COLUMNS.quantity), ...right }}>{columns.quantity}</Text>
        <Text style={{ ...cell(COLUMNS.unitPrice), ...right }}>{columns.unitPrice}</Text>
        <Text style={{ ...cell(COLUMNS.net), ...right }}>{columns.net}</Text>
        <Text style={{ ...cell(COLUMNS.vat), ...right }}>{columns.vat}</Text>
      </View>
      {texts.lines.map((line, index) => (
        // A line never splits across two pages.
        <View key={index} style={s.row} wrap={false}>
          <Text style={cell(COLUMNS.date)}>{line.date}</Text>
          <View style={cell(COLUMNS.description)}>
            <Text>{line.name}</Text>
            {line.description ? <Text style={s.lineDescription}>{line.description}</Text> : null}
          </View>
          <Text style={{ ...cell(COLUMNS.quantity), ...right }}>{line.quantity}</Text>
          <Text style={{ ...cell(COLUMNS.unitPrice), ...right }}>{line.unitPrice}</Text>
          <Text style={{ ...cell(COLUMNS.net), ...right }}>{line.net}</Text>
          <Text style={{ ...cell(COLUMNS.vat), ...right }}>{line.vat}</Text>
        </View>
      ))}
    </View>
  );
}

function Summary({ texts }: { texts: TInvoiceTexts }) {
  const due = texts.totals.at(-1)!;
  return (
    <View style={s.summary} wrap={false}>
      <View style={s.breakdown}>
        <Text style={s.sectionTitle}>{texts.breakdownTitle}</Text>
        <View style={s.breakdownHeader}>
          <Text style={cell(BREAKDOWN.category)}>{texts.breakdownColumns.category}</Text>
          <Text style={{ ...cell(BREAKDOWN.rate), ...right }}>{texts.breakdownColumns.rate}</Text>
          <Text style={{ ...cell(BREAKDOWN.base), ...right }}>{texts.breakdownColumns.base}</Text>
          <Text style={{ ...cell(BREAKDOWN.tax), ...right }}>{texts.breakdownColumns.tax}</Text>
        </View>
        {texts.breakdown.map((entry, index) => (
          <View key={index}>
            <View style={s.breakdownRow}>
              <Text style={cell(BREAKDOWN.category)}>{entry.category}</Text>
              <Text style={{ ...cell(BREAKDOWN.rate), ...right }}>{entry.rate}</Text>
              <Text style={{ ...cell(BREAKDOWN.base), ...right }}>{entry.base}</Text>
              <Text style={{ ...cell(BREAKDOWN.tax), ...right }}>{entry.tax}</Text>
            </View>
            {entry.exemption ? <Text style={s.exemption}>{entry.exemption}</Text> : null}
          </View>
        ))}
      </View>
      <View style={s.totals}>
        {texts.totals.slice(0, -1).map((line, index) => (
          <View key={index} style={s.totalsRow}>
            <Text style={s.totalsLabel}>{line.label}</Text>
            <Text style={s.totalsAmount}>{line.amount}</Text>
          </View>
        ))}
        <View style={s.dueRow}>
          <Text style={s.dueLabel}>{due.label}</Text>
          <Text style={s.totalsAmount}>{due.amount}</Text>
        </View>
      </View>
    </View>
  );
}

function Paragraphs({ title, lines }: { title: string; lines: readonly string[] }) {
  if (!lines.length) return null;
  return (
    <View style={s.section} wrap={false}>
      <Text style={s.sectionTitle}>{title}</Text>
      {lines.map((line, index) => (
        <Text key={index} style={s.paragraph}>
          {line}
        </Text>
      ))}
    </View>
  );
}

/**
 * The whole document. `conformance` makes pdfkit write a PDF/A-3b file (version 1.7, the sRGB
 * OutputIntent, pdfaid in the XMP); facturx-pdfa.ts completes it. The Info fields given here are
 * replaced there, so both stay equal to the XMP.
 */
export function InvoicePdf({ texts, language, fontFamily, created }: { texts: TInvoiceTexts; language: string; fontFamily: string[]; created: Date }) {
  return (
    <Document conformance="PDF/A-3b" title={texts.documentTitle} language={language} creator="Folio Vault" producer="Folio Vault" creationDate={created}>
      <Page size="A4" style={{ ...pageStyle(fontFamily), color: INK }}>
        <View style={{ width: CONTENT_WIDTH }}>
          <Header texts={texts} />
          <Parties texts={texts} />
          {texts.precedingInvoice ? <Text style={s.preceding}>{texts.precedingInvoice}</Text> : null}
          <Lines texts={texts} />
          <Summary texts={texts} />
          <Paragraphs title={texts.paymentTitle} lines={texts.payment} />
          <Paragraphs title={texts.notesTitle} lines={texts.notes} />
        </View>
        <View style={s.footer} fixed>
          <Text>{texts.footer}</Text>
          <Text render={({ pageNumber, totalPages }) => texts.page(pageNumber, totalPages)} />
        </View>
      </Page>
    </Document>
  );
}
