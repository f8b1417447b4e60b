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
