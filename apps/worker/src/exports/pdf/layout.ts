// Page geometry of the folio PDF and the one-line text fitting every cell goes through. Pure: the
// paginator, the styles and the tests read the same numbers, so "a page never overflows" is a sum
// of constants, not something React-PDF's layout decides (its automatic wrapping is quadratic,
// docs/export.md#what-the-pdf-shows).

/** A4 in PostScript points. */
export const PAGE_WIDTH = 595.28;
export const PAGE_HEIGHT = 841.89;
export const MARGIN_X = 28;
export const MARGIN_TOP = 28;
/** The footer lives in the bottom margin. */
export const MARGIN_BOTTOM = 44;
export const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN_X;

/** Every block is a whole number of slots of this height; one table row is one slot. */
export const SLOT_HEIGHT = 12;
export const PAGE_SLOTS = Math.floor((PAGE_HEIGHT - MARGIN_TOP - MARGIN_BOTTOM) / SLOT_HEIGHT);

export const FONT_SIZE = {
  row: 7,
  status: 6,
  /** A row's detail line (a payment's card, a foreign tender). */
  detail: 6,
  columnHeader: 6,
  /** The filters line steps down through these sizes before it truncates. */
  filters: [7, 6, 5],
  heading: 9,
  propertyName: 12,
  title: 16,
  small: 8,
  footer: 7,
} as const;

/** The document's colours: the styles' (styles.ts) and what the canvases paint (table-canvas.tsx). */
export const COLOURS = {
  ink: '#1a1a1a',
  muted: '#6b6b6b',
  rule: '#c8c8c8',
  hairline: '#e4e4e4',
  void: '#9a9a9a',
  pending: '#8a5a00',
} as const;

/** Points between the lines of a wrapped note (its first line sits where a one-line cell's does). */
export const NOTE_LINE_PITCH = 9;

/** Space kept free on the right of a left-aligned cell (left of a right-aligned one). */
export const CELL_PADDING = 4;

/**
 * Column widths in points (they add up to CONTENT_WIDTH, rounded down). Sized from measured Noto
 * Sans advances: the longest short date-time of the five languages ("22/11/2026, 00:30", 8.4 em),
 * "-US$1,234,567.89" (8.4 em), the longest mark ("EN ATTENTE", 6 em bold) and the longest
 * single-word column label ("Leistungsdatum", 8.1 em bold at the header size). Description and
 * notes share the rest; the notes get enough that a short remark ("Posted to the wrong room")
 * holds on one line (a longer one wraps).
 */
export const COLUMNS = {
  datetime: 64,
  serviceDate: 54,
  code: 46,
  description: 130,
  notes: 105,
  quantity: 30,
  amount: 66,
  status: 44,
} as const;
export type TColumn = keyof typeof COLUMNS;

/**
 * Estimated advance of one character in em: a few width classes measured on Noto Sans Regular,
 * each rounded up, so the estimate is deterministic and errs towards truncating a little early.
 * Wide East Asian characters are a full em. (Cells also carry maxLines 1 with an ellipsis as a
 * backstop, so a miss clips the text instead of growing the row.)
 */
export function charEm(codePoint: number): number {
  if (codePoint === 0x20) return 0.3;
  if (isWide(codePoint)) return 1;
  const ch = String.fromCodePoint(codePoint);
  if (/[iljtfrIJ.,:;'"!|()[\]{}\-/\\`]/.test(ch)) return 0.4;
  if (/[mwMW@%&ÆŒæœ]/.test(ch)) return 1;
  if (/[a-z]/.test(ch)) return 0.6;
  return 0.7;
}

function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    cp >= 0x1f300
  );
}

/** Bold Noto Sans is wider than regular: its estimated advances are scaled up by this, rounded up. */
const BOLD_FACTOR = 1.06;
const ELLIPSIS = '…';
const ELLIPSIS_EM = 0.9;

/** Whitespace runs (line breaks and tabs included) become one space: a one-line cell. */
export function oneLine(text: string | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * The text as one line that fits `width` points at `fontSize`: unchanged when it fits, else cut on
 * a character (code point) boundary with "…" appended.
 */
export function fitText(text: string | undefined, width: number, fontSize: number, bold = false): string {
  const line = oneLine(text);
  const budget = width / (fontSize * (bold ? BOLD_FACTOR : 1));
  const chars = Array.from(line);
  let used = 0;
  for (const ch of chars) used += charEm(ch.codePointAt(0)!);
  if (used <= budget) return line;
  const limit = budget - ELLIPSIS_EM;
  used = 0;
  let end = 0;
  while (end < chars.length) {
    const next = used + charEm(chars[end]!.codePointAt(0)!);
    if (next > limit) break;
    used = next;
    end += 1;
  }
  return `${chars.slice(0, end).join('').trimEnd()}${ELLIPSIS}`;
}

const widthEm = (chars: readonly string[]) => chars.reduce((sum, ch) => sum + charEm(ch.codePointAt(0)!), 0);

/**
 * The text as lines that each fit `width` points at `fontSize` (estimated as fitText does): its own
 * line breaks kept, other white space runs made one space, words wrapped, a word longer than a line
 * broken between characters. Past `maxLines` the last line holds the rest, cut with "…". Empty text:
 * no line.
 */
export function wrapText(text: string | undefined, width: number, fontSize: number, maxLines: number): string[] {
  const budget = width / fontSize;
  const space = charEm(0x20);
  const lines: string[] = [];
  for (const paragraph of (text ?? '').split(/\r\n|\r|\n/)) {
    let line: string[] = [];
    let used = 0;
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      let chars = Array.from(word);
      let wordEm = widthEm(chars);
      if (line.length && used + space + wordEm <= budget) {
        line.push(' ', ...chars);
        used += space + wordEm;
        continue;
      }
      if (line.length) lines.push(line.join(''));
      // A word wider than a line fills lines of its own characters.
      while (wordEm > budget && chars.length > 1) {
        let end = 0;
        let taken = 0;
        while (end < chars.length - 1 && taken + charEm(chars[end]!.codePointAt(0)!) <= budget) taken += charEm(chars[end++]!.codePointAt(0)!);
        end = Math.max(end, 1);
        lines.push(chars.slice(0, end).join(''));
        chars = chars.slice(end);
        wordEm = widthEm(chars);
      }
      line = chars;
      used = wordEm;
    }
    if (line.length) lines.push(line.join(''));
  }
  if (lines.length <= maxLines) return lines;
  // The last line kept takes the rest, cut to fit.
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = fitText(lines.slice(maxLines - 1).join(' '), width, fontSize);
  return kept;
}

/**
 * The first of `sizes` (largest first) at which the text fits `width` on one line; at the last size
 * it is cut with "…" if it still does not fit.
 */
export function fitTextShrinking(text: string | undefined, width: number, sizes: readonly number[]): { text: string; fontSize: number } {
  const line = oneLine(text);
  for (const fontSize of sizes) {
    const fitted = fitText(line, width, fontSize);
    if (fitted === line) return { text: line, fontSize };
  }
  const smallest = sizes[sizes.length - 1]!;
  return { text: fitText(line, width, smallest), fontSize: smallest };
}

/** The text width available in a table column. */
export function columnTextWidth(column: TColumn): number {
  return COLUMNS[column] - CELL_PADDING;
}
