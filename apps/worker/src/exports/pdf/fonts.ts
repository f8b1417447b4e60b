import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Font } from '@react-pdf/renderer';

/**
 * The PDF's fonts come from npm packages installed with the worker, never from the network at
 * render time. Helvetica (the PDF base font) has no glyphs outside Latin-1, so text is set in Noto
 * Sans (Latin, Cyrillic, Greek, Vietnamese) with glyph-level fallback to Noto Sans SC (CJK) and
 * Noto Naskh Arabic. React-PDF loads a font file once per process, on first use.
 */
export const FONT_FAMILY = ['NotoSans', 'NotoSansSC', 'NotoNaskhArabic'];

const CJK = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]|[\u{20000}-\u{3134f}]/u;
const ARABIC = /[\u0600-\u06ff\u0750-\u077f\u0870-\u08ff\ufb50-\ufdff\ufe70-\ufeff]/;

/**
 * The font stack a document needs: Noto Sans, plus a fallback only when some text is in its
 * script. React-PDF walks the whole stack for every character of every text run (allocating as it
 * goes), so an unneeded fallback costs: 10,000 rows rendered in about 20 % less time without them.
 */
export function fontFamilyFor(text: string): string[] {
  return fontFamilyOf([text]);
}

/** fontFamilyFor over many texts, without joining them (a 50,000-row folio is megabytes of text). */
export function fontFamilyOf(texts: Iterable<string>): string[] {
  let cjk = false;
  let arabic = false;
  for (const text of texts) {
    cjk ||= CJK.test(text);
    arabic ||= ARABIC.test(text);
    if (cjk && arabic) break;
  }
  return FONT_FAMILY.filter((family) => family === 'NotoSans' || (family === 'NotoSansSC' ? cjk : arabic));
}

const require = createRequire(import.meta.url);

/** The @embedpdf font packages export only their JS entry; the font files sit in ../fonts beside it. */
function embedPdfFont(packageName: string, file: string): string {
  return join(dirname(require.resolve(packageName)), '..', 'fonts', file);
}

let registered = false;

export function registerFonts(): void {
  if (registered) return;
  const notoSans = dirname(require.resolve('@expo-google-fonts/noto-sans'));
  Font.register({
    family: 'NotoSans',
    fonts: [
      { src: join(notoSans, '400Regular', 'NotoSans_400Regular.ttf'), fontWeight: 400 },
      { src: join(notoSans, '700Bold', 'NotoSans_700Bold.ttf'), fontWeight: 700 },
    ],
  });
  // Regular only: an 8 MB font file per weight; bold CJK text is set in the regular weight.
  Font.register({ family: 'NotoSansSC', src: embedPdfFont('@embedpdf/fonts-sc', 'NotoSansHans-Regular.otf') });
  Font.register({
    family: 'NotoNaskhArabic',
    fonts: [
      { src: embedPdfFont('@embedpdf/fonts-arabic', 'NotoNaskhArabic-Regular.ttf'), fontWeight: 400 },
      { src: embedPdfFont('@embedpdf/fonts-arabic', 'NotoNaskhArabic-Bold.ttf'), fontWeight: 700 },
    ],
  });
  // Cells are fitted to one line beforehand; no word is ever split with a hyphen.
  Font.registerHyphenationCallback((word) => [word]);
  registered = true;
}
