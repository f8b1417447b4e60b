// The Noto Sans faces the transaction table paints with (table-canvas.tsx), as the very fontkit
// objects React-PDF loaded for its own texts: pdfkit recognises them as the same font, so a
// document embeds one subset per face whether a glyph came from a Text node or from the canvas.
// Each keeps its shaping across documents (shaping-cache.ts) unless the process was told not to.

import { registerFonts } from './fonts.js';
import { reactPdfFace, type TFontkitFont } from './react-pdf-internals.js';
import { withShapingCache } from './shaping-cache.js';

export interface TTableFonts {
  regular: TFontkitFont;
  bold: TFontkitFont;
}

let loaded: Promise<TTableFonts> | undefined;
let ready: TTableFonts | undefined;

const loadFace = async (fontWeight: 400 | 700): Promise<TFontkitFont> =>
  withShapingCache(await reactPdfFace({ fontFamily: 'NotoSans', fontWeight, fontStyle: 'normal' }));

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
