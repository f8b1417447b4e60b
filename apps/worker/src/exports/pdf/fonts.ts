// The PDF's fonts come from npm packages installed with the worker, never from the network at
// render time: the families of font-stack.ts, registered with React-PDF, which loads a font file
// once per process, on first use.

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Font } from '@react-pdf/renderer';

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
  // Regular only: a CJK face is a large file per weight; bold CJK text is set in the regular weight.
  Font.register({ family: 'NotoSansSC', src: embedPdfFont('@embedpdf/fonts-sc', 'NotoSansHans-Regular.otf') });
  Font.register({
    family: 'NotoNaskhArabic',
    fonts: [
      { src: embedPdfFont('@embedpdf/fonts-arabic', 'NotoNaskhArabic-Regular.ttf'), fontWeight: 400 },
      { src: embedPdfFont('@embedpdf/fonts-arabic', 'NotoNaskhArabic-Bold.ttf'), fontWeight: 700 },
    ],
  });
  // Cells are fitted (and notes wrapped) beforehand; no word is ever split with a hyphen.
  Font.registerHyphenationCallback((word) => [word]);
  registered = true;
}
