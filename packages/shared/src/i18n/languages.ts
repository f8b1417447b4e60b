/** The export languages (docs/export.md); anything else falls back to English. */
export const LANGUAGES = ['en', 'es', 'pt', 'fr', 'de'] as const;
export type TLanguage = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: TLanguage = 'en';

/**
 * Accept-Language with q-values (RFC 9110 §12.5.4): the supported language with the highest
 * weight wins; a regional tag matches its base language ("pt-BR" → pt); q=0 refuses; ties keep
 * the header's order; nothing usable → en.
 */
export function negotiateLanguage(header: string | undefined): TLanguage {
  if (!header) return DEFAULT_LANGUAGE;
  let best: { language: TLanguage; q: number; index: number } | undefined;
  header.split(',').forEach((part, index) => {
    const [tag = '', ...params] = part.trim().split(';');
    const base = tag.trim().toLowerCase().split('-')[0] ?? '';
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q) || q <= 0 || q > 1) return;
    if (!(LANGUAGES as readonly string[]).includes(base)) return;
    if (!best || q > best.q) best = { language: base as TLanguage, q, index };
  });
  return best?.language ?? DEFAULT_LANGUAGE;
}
