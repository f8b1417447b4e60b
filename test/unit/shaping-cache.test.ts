import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { TFontkitFont } from '@folio-vault/worker/exports/pdf/react-pdf-internals';
import { useShapingCache, withShapingCache } from '@folio-vault/worker/exports/pdf/shaping-cache';

/**
 * The performance measure `shaping-cache` (apps/worker/src/exports/pdf/shaping-cache.ts) on the
 * real Noto Sans face, opened with the fontkit React-PDF loads: what the cache answers must be what
 * the face shapes, whoever changed an earlier answer. That it leaves a PDF's bytes as they are is
 * checked in test/pdf-render-pool.test.ts.
 */
const require = createRequire(import.meta.url);
const fontkit = createRequire(require.resolve('@react-pdf/font'))('fontkit') as { openSync(path: string): TFontkitFont };
const FACE_FILE = join(dirname(require.resolve('@expo-google-fonts/noto-sans')), '400Regular', 'NotoSans_400Regular.ttf');
const openFace = () => fontkit.openSync(FACE_FILE);

type TRun = ReturnType<TFontkitFont['layout']> & { advanceWidth: number };
const layout = (face: TFontkitFont, text: string, ...options: unknown[]) => (face.layout as (...args: unknown[]) => TRun)(text, ...options);
/** What a caller reads of a run: glyph ids, positions, and the width fontkit's getter sums. */
const readOf = (run: TRun) => ({
  glyphs: run.glyphs.map((glyph) => (glyph as { id: number }).id),
  positions: run.positions.map((position) => ({ ...position })),
  advanceWidth: run.advanceWidth,
});

// Ligatures (ffi), kerning (AV, Wo), digits, accents, Greek and Cyrillic.
const TEXTS = ['Room charge', 'office suffix', 'AVATAR Wolf', '29/11/2026 14:05', '1.234,56 €', 'Zoë Łukasiewicz', 'Ζωή', 'Гостиница', ''];
// As pdfkit calls it (text alone), as React-PDF's text layout does (left to right), with features.
const CALLS: unknown[][] = [[], [undefined, undefined, undefined, 'ltr'], [['liga', 'kern']]];

describe('shaping cache', () => {
  it('answers every text as the face itself shapes it, the first time and from the cache', () => {
    const plain = openFace();
    const cached = withShapingCache(openFace());
    for (const options of CALLS) {
      for (const text of TEXTS) {
        const expected = readOf(layout(plain, text, ...options));
        expect(readOf(layout(cached, text, ...options)), `${text} ${JSON.stringify(options)}`).toEqual(expected);
        expect(readOf(layout(cached, text, ...options)), `${text} ${JSON.stringify(options)}, again`).toEqual(expected);
      }
    }
  });

  it('hands each caller a copy: an answer changed in place (pdfkit scales positions so) changes no later answer', () => {
    const cached = withShapingCache(openFace());
    const expected = readOf(layout(openFace(), 'Room charge'));
    const first = layout(cached, 'Room charge');
    for (const position of first.positions) position.xAdvance *= 2;
    first.glyphs.push(first.glyphs[0]);
    expect(readOf(layout(cached, 'Room charge'))).toEqual(expected);
  });

  it('shapes a text once per set of options; holding its most texts, it drops the least recently used', () => {
    const face = openFace();
    const shape = vi.spyOn(face, 'layout');
    withShapingCache(face, 2);
    layout(face, 'Minibar');
    layout(face, 'Minibar');
    expect(shape).toHaveBeenCalledTimes(1);
    layout(face, 'Minibar', undefined, undefined, undefined, 'ltr');
    expect(shape).toHaveBeenCalledTimes(2);
    // Held: Minibar, then Minibar left to right. Minibar used again is the most recent, so Parking drops the other.
    layout(face, 'Minibar');
    layout(face, 'Parking');
    layout(face, 'Minibar');
    expect(shape).toHaveBeenCalledTimes(3);
    layout(face, 'Minibar', undefined, undefined, undefined, 'ltr');
    expect(shape.mock.calls.map(([text, ...options]) => [text, options.at(3)])).toEqual([
      ['Minibar', undefined],
      ['Minibar', 'ltr'],
      ['Parking', undefined],
      ['Minibar', 'ltr'],
    ]);
  });

  it('switched off (PERFORMANCE_MEASURES_OFF=shaping-cache), leaves the face as it is', () => {
    useShapingCache(false);
    try {
      const face = openFace();
      expect(withShapingCache(face)).toBe(face);
      expect(Object.hasOwn(face, 'layout')).toBe(false);
    } finally {
      useShapingCache(true);
    }
  });
});
