// Setting text on a React-PDF Canvas (table-canvas.tsx, painted-line.tsx): which texts the canvas
// can set and how wide they are (the painter itself: react-pdf-internals.ts).

import type { TFontkitFont } from './react-pdf-internals.js';

/** Right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, NKo…, their presentation forms). */
const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]|[\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;

/** Per face: can the canvas set this code point? (The face has the glyph.) */
const coverage = new WeakMap<TFontkitFont, Map<number, number>>();

function advanceOf(font: TFontkitFont, codePoint: number): number | undefined {
  let known = coverage.get(font);
  if (!known) coverage.set(font, (known = new Map()));
  let advance = known.get(codePoint);
  if (advance === undefined) {
    advance = font.hasGlyphForCodePoint(codePoint) ? font.glyphForCodePoint(codePoint).advanceWidth : -1;
    known.set(codePoint, advance);
  }
  return advance < 0 ? undefined : advance;
}

/**
 * The text's width in points when the canvas can set it, else undefined. Sums glyph advances
 * without kerning: Noto Sans kerns letter pairs, not digits, so right-aligned numbers land exactly;
 * elsewhere the width only places the strike-through of a void row.
 */
export function canvasTextWidth(font: TFontkitFont, text: string, fontSize: number): number | undefined {
  if (RTL.test(text)) return undefined;
  let units = 0;
  for (const ch of text) {
    const advance = advanceOf(font, ch.codePointAt(0)!);
    if (advance === undefined) return undefined;
    units += advance;
  }
  return (units * fontSize) / font.unitsPerEm;
}

/**
 * The text cut (on a code point, with "…") to fit `width` points, measured; undefined when the
 * canvas cannot set it.
 */
export function fitCanvasText(font: TFontkitFont, text: string, fontSize: number, width: number): { text: string; width: number } | undefined {
  const measured = canvasTextWidth(font, text, fontSize);
  if (measured === undefined) return undefined;
  if (measured <= width) return { text, width: measured };
  const chars = Array.from(text);
  for (let end = chars.length - 1; end > 0; end -= 1) {
    const cut = `${chars.slice(0, end).join('').trimEnd()}…`;
    const cutWidth = canvasTextWidth(font, cut, fontSize)!;
    if (cutWidth <= width) return { text: cut, width: cutWidth };
  }
  return { text: '', width: 0 };
}

/**
 * The text broken into lines of at most `width` points, measured, when the canvas can set it, else
 * undefined. Greedy, at spaces (a line feed always breaks); a word wider than the line is cut
 * between code points. Widths are summed advances (canvasTextWidth): never narrower than the set text.
 */
export function wrapCanvasText(font: TFontkitFont, text: string, fontSize: number, width: number): Array<{ text: string; width: number }> | undefined {
  const lines: Array<{ text: string; width: number }> = [];
  const space = canvasTextWidth(font, ' ', fontSize);
  if (space === undefined) return undefined;
  for (const paragraph of text.split('\n')) {
    let line = '';
    let lineWidth = 0;
    for (const word of paragraph.split(' ')) {
      const wordWidth = canvasTextWidth(font, word, fontSize);
      if (wordWidth === undefined) return undefined;
      if (!line) {
        [line, lineWidth] = [word, wordWidth];
      } else if (lineWidth + space + wordWidth <= width) {
        line += ` ${word}`;
        lineWidth += space + wordWidth;
        continue;
      } else {
        lines.push({ text: line, width: lineWidth });
        [line, lineWidth] = [word, wordWidth];
      }
      // A word alone wider than the line: cut it where it overflows.
      while (lineWidth > width && Array.from(line).length > 1) {
        const chars = Array.from(line);
        let end = 1;
        let cutWidth = canvasTextWidth(font, chars[0]!, fontSize)!;
        for (; end < chars.length; end += 1) {
          const next = cutWidth + canvasTextWidth(font, chars[end]!, fontSize)!;
          if (next > width) break;
          cutWidth = next;
        }
        lines.push({ text: chars.slice(0, end).join(''), width: cutWidth });
        line = chars.slice(end).join('');
        lineWidth = canvasTextWidth(font, line, fontSize)!;
      }
    }
    lines.push({ text: line, width: lineWidth });
  }
  return lines;
}
