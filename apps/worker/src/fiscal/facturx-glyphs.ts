// PDF/A forbids drawing the .notdef glyph (ISO 19005-3, 6.2.11.8), which is what a face draws for
// a character it has no glyph for. The folio's font stack (Noto Sans, with Noto Sans SC and Noto
// Naskh Arabic when the texts need them: exports/pdf/font-stack.ts) covers Latin, Greek, Cyrillic,
// Chinese and Arabic; a hotel's or a guest's name in another script (Hebrew, Thai, Devanagari…) or
// with an emoji would draw .notdef. So every text the invoice prints is made printable first:
// control characters are dropped (a tab becomes a space) and a character no face of the stack has
// becomes U+FFFD, the replacement character, which Noto Sans draws. The CII attached beside keeps
// every text exactly as it was frozen (the Info and XMP too, less what XML cannot hold).

import { reactPdfFace, type TFontkitFont } from '../exports/pdf/react-pdf-internals.js';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const REPLACEMENT = '\ufffd';

/** Whether some face of the stack has a glyph for a code point (the faces React-PDF itself loaded). */
export async function glyphCoverage(fontFamily: readonly string[]): Promise<(codePoint: number) => boolean> {
  const faces: TFontkitFont[] = await Promise.all(fontFamily.map((family) => reactPdfFace({ fontFamily: family, fontWeight: 400, fontStyle: 'normal' })));
  return (codePoint) => faces.some((face) => face.hasGlyphForCodePoint(codePoint));
}

/** The text as the PDF can print it: control characters dropped (a tab as a space, line feeds kept), characters without a glyph replaced by U+FFFD. */
export function printable(text: string, covers: (codePoint: number) => boolean): string {
  let out = '';
  for (const ch of text.replace(/\t/g, ' ').replace(CONTROL, '')) {
    const codePoint = ch.codePointAt(0)!;
    out += ch === '\n' || covers(codePoint) ? ch : REPLACEMENT;
  }
  return out;
}

/** Every string of a plain object (arrays and objects walked, functions left as they are) mapped through `map`. */
export function mapStrings<T>(value: T, map: (text: string) => string): T {
  if (typeof value === 'string') return map(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => mapStrings(item, map)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item as unknown, map)])) as T;
  }
  return value;
}
