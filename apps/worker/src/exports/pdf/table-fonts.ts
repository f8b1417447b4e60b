import { Font } from '@react-pdf/renderer';
import { registerFonts } from './fonts.js';

/**
 * The Noto Sans faces the transaction table paints with (table-canvas.tsx), as the very fontkit
 * objects React-PDF loaded for its own texts: pdfkit recognises them as the same font, so a
 * document embeds one subset per face whether a glyph came from a Text node or from the canvas.
 */
export interface TFontkitFont {
  postscriptName: string;
  unitsPerEm: number;
  ascent: number;
  descent: number;
  hasGlyphForCodePoint(codePoint: number): boolean;
  glyphForCodePoint(codePoint: number): { advanceWidth: number };
  layout(text: string, ...options: unknown[]): TGlyphRun;
}

interface TGlyphPosition {
  xAdvance: number;
  yAdvance: number;
  xOffset: number;
  yOffset: number;
}

interface TGlyphRun {
  glyphs: unknown[];
  positions: TGlyphPosition[];
}

/** Distinct texts remembered per face; past it the memory starts over (a folio's words repeat). */
const LAYOUT_CACHE_SIZE = 20_000;

/**
 * Remembers the face's shaping results for the life of the render process. Shaping (fontkit's
 * layout: GSUB/GPOS lookups) was the largest single cost of a render, and the same words — dates,
 * times, codes, labels, the footer — come back on every page and in every folio of a night audit;
 * the PDF engine's own cache is per document and React-PDF's text engine has none. Callers get a
 * copy of the glyph list and positions: both the PDF engine and React-PDF scale positions in place.
 */
function rememberLayouts(font: TFontkitFont): void {
  const layout = font.layout.bind(font);
  const runs = new Map<string, TGlyphRun>();
  font.layout = (text: string, ...options: unknown[]) => {
    const key = options.length && options.some((option) => option !== undefined) ? `${text}\u0000${JSON.stringify(options)}` : text;
    let run = runs.get(key);
    if (!run) {
      if (runs.size >= LAYOUT_CACHE_SIZE) runs.clear();
      run = layout(text, ...options);
      runs.set(key, run);
    }
    const copy = Object.create(Object.getPrototypeOf(run) as object) as TGlyphRun;
    Object.assign(copy, run);
    copy.glyphs = run.glyphs.slice();
    copy.positions = run.positions.map(({ xAdvance, yAdvance, xOffset, yOffset }) => ({ xAdvance, yAdvance, xOffset, yOffset }));
    return copy;
  };
}

export interface TTableFonts {
  regular: TFontkitFont;
  bold: TFontkitFont;
}

let loaded: Promise<TTableFonts> | undefined;
let ready: TTableFonts | undefined;

async function loadFace(fontWeight: 400 | 700): Promise<TFontkitFont> {
  const descriptor = { fontFamily: 'NotoSans', fontWeight, fontStyle: 'normal' } as const;
  await Font.load(descriptor);
  const source = Font.getFont(descriptor) as unknown as { data: TFontkitFont | null } | undefined;
  if (!source?.data) throw new Error(`font NotoSans ${fontWeight} did not load`);
  rememberLayouts(source.data);
  return source.data;
}

/** Loads both faces once per process (and makes them remember their layouts). */
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
