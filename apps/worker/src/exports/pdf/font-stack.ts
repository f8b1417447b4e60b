// Which font families a document's text needs, decided from the text alone: the render pool plans
// a PDF's pages and font stack in the worker's main process, which never loads React-PDF (fonts.ts
// registers the families with it, in the render processes). Helvetica (the PDF base font) has no
// glyphs outside Latin-1, so text is set in Noto Sans (Latin, Cyrillic, Greek, Vietnamese) with
// glyph-level fallback to Noto Sans SC (CJK) and Noto Naskh Arabic.

/** Every family a PDF may set text in: Noto Sans first, then its fallbacks in the order React-PDF tries them. */
export const FONT_FAMILY = ['NotoSans', 'NotoSansSC', 'NotoNaskhArabic'];

const CJK = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]|[\u{20000}-\u{3134f}]/u;
const ARABIC = /[\u0600-\u06ff\u0750-\u077f\u0870-\u08ff\ufb50-\ufdff\ufe70-\ufeff]/;

/**
 * The font stack a document needs: Noto Sans, plus a fallback only when some text is in its
 * script. React-PDF walks the whole stack for every character of every text run (allocating as it
 * goes), so an unneeded fallback costs time on every text of the document. The texts are tested one
 * by one, never joined (a large folio's texts would make one huge string).
 */
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
