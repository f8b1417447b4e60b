// The Noto Sans faces the transaction table paints with (table-canvas.tsx), as the very fontkit
// objects React-PDF loaded for its own texts: pdfkit recognises them as the same font, so a
// document embeds one subset per face whether a glyph came from a Text node or from the canvas.
// Each keeps its shaping across documents (shaping-cache.ts) unless the process was told not to.

import { registerFonts } from './fonts.js';
import { reactPdfFace, setFaceMethod, type TFontkitFont } from './react-pdf-internals.js';
import { withShapingCache } from './shaping-cache.js';

export interface TTableFonts {
  regular: TFontkitFont;
  bold: TFontkitFont;
}

let loaded: Promise<TTableFonts> | undefined;
let ready: TTableFonts | undefined;

const loadFace = async (fontWeight: 400 | 700): Promise<TFontkitFont> =>
  withShapingCache(withPartsNamed(await reactPdfFace({ fontFamily: 'NotoSans', fontWeight, fontStyle: 'normal' })));

/**
 * `face` whose glyphs name their characters whatever made them first. fontkit makes a glyph object
 * once per face and process and keeps the code points it was first made with; pdfkit writes those
 * into the PDF's ToUnicode map, which is what copying, searching and pdftotext read. Subsetting a
 * composed glyph (é, ï, the "…" of a cut text) makes its parts (acute, dotless i, period) with no
 * code point, so every later document of the process would set "." as text that reads back as
 * nothing: a German date 22.11.2026 read as 22112026. Such a glyph takes the code points of the
 * first text that asks for it as itself. A glyph made by shaping keeps its own (a ligature "ff"
 * stays "ff", not the presentation form U+FB00 the face also maps to it).
 */
function withPartsNamed(face: TFontkitFont): TFontkitFont {
  const make = face.getGlyph.bind(face);
  return setFaceMethod(face, 'getGlyph', (id, codePoints = []) => {
    const glyph = make(id, codePoints);
    if (glyph && glyph.codePoints.length === 0 && codePoints.length > 0) glyph.codePoints = codePoints;
    return glyph;
  });
}

/** Loads both faces once per process. */
export function tableFonts(): Promise<TTableFonts> {
  registerFonts();
  loaded ??= Promise.all([loadFace(400), loadFace(700)]).then(([regular, bold]) => (ready = { regular, bold }));
  return loaded;
}

/** The faces, for components rendering after tableFonts() resolved (every render awaits it first). */
export function loadedTableFonts(): TTableFonts {
  if (!ready) throw new Error('tableFonts() has not been awaited');
  return ready;
}
