// Performance measure `shaping-cache` (packages/shared/src/performance-measures.ts): a render
// process remembers how each text was shaped, across documents. Shaping a text (fontkit's
// `layout`: the face's OpenType substitutions and positions) is shaped again for every document
// otherwise: each document gets new pdfkit font objects, whose own cache is per document, and
// React-PDF's Text nodes shape without one, while a folio's words, dates and labels come back
// document after document. What it buys is measured by the small-export benchmark's alternated pair
// (bench/scenarios/export-small.ts; figures in docs/benchmarks.md, "Kept performance measures");
// PERFORMANCE_MEASURES_OFF=shaping-cache renders with the face's own `layout`.
//
// Invariants:
// - `layout` is a pure function of the face and its arguments (fontkit keeps no state between
//   calls that changes an answer), so an answer kept for the same arguments is the answer.
// - The kept run is never handed out: each caller gets a copy whose arrays and positions it may
//   change. pdfkit scales a run's positions in place (EmbeddedFont.layoutRun), and React-PDF keeps
//   the glyph array in its own runs. The glyph objects are shared, as fontkit already shares them
//   (one per glyph id and face).
// - At most ENTRIES texts per face, the least recently used dropped first, so a large folio's
//   unique texts cannot grow a render process (its RSS is judged after every piece, render-child.ts).

import { setFaceMethod, type TFontkitFont } from './react-pdf-internals.js';

/** The render process's argument that turns the cache off (render-pool.ts passes it). */
export const SHAPING_CACHE_OFF_FLAG = '--no-shaping-cache';

/** Texts kept per face: a hotel's recurring words, dates and labels, in a few megabytes (docs/export.md). */
const ENTRIES = 5_000;

type TLayout = TFontkitFont['layout'];

let enabled = true;

/** Whether faces loaded from now on cache their shaping (a render process decides once, at its start). */
export function useShapingCache(on: boolean): void {
  enabled = on;
}

/** A position of a run, copied: an object of the same class with the same fields. */
function copyOfPosition(position: object): object {
  return Object.assign(Object.create(Object.getPrototypeOf(position) as object) as object, position);
}

/** A copy of `run` that its caller may change: its arrays copied, each position an object of its own. */
function copyOf<T extends object>(run: T): T {
  const copy = Object.create(Object.getPrototypeOf(run) as object) as Record<string, unknown>;
  for (const [key, value] of Object.entries(run)) {
    copy[key] = !Array.isArray(value) ? value : key === 'positions' ? value.map(copyOfPosition) : value.slice();
  }
  return copy as T;
}

/**
 * `face` with its shaping cached, when the cache is on; `face` as it is otherwise. The face is the
 * very object React-PDF and the canvases shape with (table-fonts.ts), so its own `layout` is what
 * is replaced (setFaceMethod): a wrapper object would not be the one React-PDF calls.
 */
export function withShapingCache(face: TFontkitFont, entries = ENTRIES): TFontkitFont {
  if (!enabled) return face;
  const shape = face.layout.bind(face) as (...args: unknown[]) => ReturnType<TLayout>;
  const kept = new Map<string, ReturnType<TLayout>>();
  const layout = (text: unknown, ...options: unknown[]): ReturnType<TLayout> => {
    // fontkit also shapes an array of glyphs; only texts are kept.
    if (typeof text !== 'string') return shape(text, ...options);
    const [features, script, language, direction] = options;
    const key = `${JSON.stringify(features ?? null)}\u0000${String(script)}\u0000${String(language)}\u0000${String(direction)}\u0000${text}`;
    let run = kept.get(key);
    if (run) {
      // Last used goes last: a Map iterates in insertion order, so the first is the least recently used.
      kept.delete(key);
    } else {
      run = shape(text, ...options);
      if (kept.size >= entries) kept.delete(kept.keys().next().value!);
    }
    kept.set(key, run);
    return copyOf(run);
  };
  return setFaceMethod(face, 'layout', layout as TLayout);
}
