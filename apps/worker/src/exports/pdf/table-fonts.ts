// The Noto Sans faces the transaction table paints with (table-canvas.tsx), as the very fontkit
// objects React-PDF loaded for its own texts: pdfkit recognises them as the same font, so a
// document embeds one subset per face whether a glyph came from a Text node or from the canvas.

import { measureOn, measuresOffIn } from '@folio-vault/shared/performance-measures';
import { registerFonts } from './fonts.js';
import { reactPdfFace, rememberLayouts, startWithoutDefaultFont, type TFontkitFont } from './react-pdf-internals.js';

/** Distinct texts remembered per face; past it the memory starts over (a folio's words repeat). */
const LAYOUT_CACHE_SIZE = 20_000;

export interface TTableFonts {
  regular: TFontkitFont;
  bold: TFontkitFont;
}

let loaded: Promise<TTableFonts> | undefined;
let ready: TTableFonts | undefined;

/** The process's PERFORMANCE_MEASURES_OFF: the patches below are each a kept performance measure. */
const off = measuresOffIn(process.env);

/**
 * A face, made to remember its shaping results for the life of the render process: the same words
 * (dates, times, codes, labels, the footer) come back on every page and in every folio of a night
 * audit (`react-pdf-layout-memo`).
 */
async function loadFace(fontWeight: 400 | 700): Promise<TFontkitFont> {
  const font = await reactPdfFace({ fontFamily: 'NotoSans', fontWeight, fontStyle: 'normal' });
  if (measureOn(off, 'react-pdf-layout-memo')) rememberLayouts(font, LAYOUT_CACHE_SIZE);
  return font;
}

/**
 * Loads both faces once per process; documents rendered after it start without pdfkit's default
 * font (react-pdf-internals.ts, startWithoutDefaultFont; `react-pdf-no-default-font`).
 */
export function tableFonts(): Promise<TTableFonts> {
  registerFonts();
  loaded ??= Promise.all([loadFace(400), loadFace(700), measureOn(off, 'react-pdf-no-default-font') ? startWithoutDefaultFont() : undefined]).then(([regular, bold]) => (ready = { regular, bold }));
  return loaded;
}

/** The faces, for components rendering after tableFonts() resolved (every render awaits it first). */
export function loadedTableFonts(): TTableFonts {
  if (!ready) throw new Error('tableFonts() has not been awaited');
  return ready;
}
