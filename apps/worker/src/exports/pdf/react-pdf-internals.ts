// Every use the PDF makes of React-PDF, pdfkit or fontkit beyond their documented API, in one file.
// The folio's table and its one-line texts are painted on canvases with the PDF engine's own text
// call, in the very font objects React-PDF loaded (table-canvas.tsx, painted-line.tsx; why:
// docs/export.md "Text on canvases"): that is what makes a large folio fast to render (the figures:
// docs/benchmarks.md). apps/worker/package.json pins each package named here to an exact version,
// and test/unit/react-pdf-internals.test.ts checks every internal against what is installed, so an
// upgrade that changes one fails that test by name instead of an export in production.

import type { ComponentProps } from 'react';
import { Font, type Canvas } from '@react-pdf/renderer';

/** Whose internals this file relies on. pdfkit is the copy React-PDF loads, which @react-pdf/renderer pins itself. */
export const INTERNAL_PACKAGES = ['@react-pdf/renderer', '@react-pdf/font', '@react-pdf/render', 'pdfkit', 'fontkit'] as const;

/** The part of a fontkit Font the canvases use (fontkit's documented API; fontkit ships no types). */
export interface TFontkitFont {
  postscriptName: string;
  unitsPerEm: number;
  ascent: number;
  descent: number;
  lineGap: number;
  hasGlyphForCodePoint(codePoint: number): boolean;
  /** The face's one glyph object for `id`; `codePoints` (what it stands for) are kept from the first call that made it. */
  getGlyph(id: number, codePoints?: number[]): { id: number; codePoints: number[] } | null;
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

/**
 * Internal (@react-pdf/font): FontStore.load() and getFont(descriptor).data, the fontkit Font
 * React-PDF shapes and embeds a registered face with. React-PDF documents Font.register only. The
 * canvases must paint with this very object: pdfkit then takes canvas glyphs and Text-node glyphs
 * for one font and embeds one subset per face.
 */
export async function reactPdfFace(descriptor: { fontFamily: string; fontWeight: number; fontStyle: 'normal' }): Promise<TFontkitFont> {
  await Font.load(descriptor);
  const source = Font.getFont(descriptor) as unknown as { data?: TFontkitFont | null } | undefined;
  if (!source?.data) throw new Error(`font ${descriptor.fontFamily} ${descriptor.fontWeight} did not load`);
  return source.data;
}

/**
 * Internal (@react-pdf/render): a Canvas's paint callback receives a painter typed `any` that
 * forwards a fixed list of method names to the pdfkit document and returns itself for chaining.
 * These are the ones the canvases call; the test checks the painter still has each.
 */
export const PAINTER_METHODS = ['save', 'restore', 'fill', 'stroke', 'font', 'text', 'fillColor', 'fillOpacity', 'strokeColor', 'lineWidth', 'moveTo', 'lineTo'] as const;

export type TPainter = {
  [method in 'save' | 'restore' | 'fill' | 'stroke']: (...args: unknown[]) => TPainter;
} & {
  font(font: TFontkitFont | string, familyOrSize?: string | number, size?: number): TPainter;
  text(text: string, x: number, y: number, options?: object): TPainter;
  fillColor(colour: string): TPainter;
  fillOpacity(opacity: number): TPainter;
  strokeColor(colour: string): TPainter;
  lineWidth(width: number): TPainter;
  moveTo(x: number, y: number): TPainter;
  lineTo(x: number, y: number): TPainter;
};

// Every painter method is listed, and every listed name is a painter method.
type TListed = (typeof PAINTER_METHODS)[number];
const _allListed: [Exclude<keyof TPainter, TListed>, Exclude<TListed, keyof TPainter>] extends [never, never] ? true : never = true;

/** A Canvas `paint` prop from a callback that gets the painter typed (see PAINTER_METHODS). */
export function canvasPaint(paint: (painter: TPainter) => void): ComponentProps<typeof Canvas>['paint'] {
  return (painter: unknown) => {
    paint(painter as TPainter);
    return null;
  };
}

/**
 * A Canvas `paint` prop that runs `paint` only when React-PDF draws the canvas on a page. Internal
 * (@react-pdf/layout, @react-pdf/render): the layout may also call a Canvas's paint to measure it,
 * with a measuring context alone, when its style leaves its size open; a drawing call passes the
 * available width and height after the painter.
 */
export function canvasDrawnPaint(paint: (painter: TPainter) => void): ComponentProps<typeof Canvas>['paint'] {
  return (painter: unknown, availableWidth?: unknown) => {
    if (typeof availableWidth === 'number') paint(painter as TPainter);
    return null;
  };
}

/**
 * Selects a face for the painter's next texts. Internals (pdfkit): font() accepts a fontkit Font
 * object (PDFFontFactory.open takes anything with a layout method; the documented sources are a
 * path, a buffer or a standard font's name); a font opened so is recorded under its PostScript
 * name (`_fontFamilies`), and one already embedded is recognised by comparing name tables
 * (isEqualFont), serialised on every call with an object. So a paint passes each object once and
 * switches by PostScript name after that.
 */
export function selectFace(painter: TPainter, font: TFontkitFont, fontSize: number, known: Set<TFontkitFont>): void {
  if (known.has(font)) painter.font(font.postscriptName, fontSize);
  else {
    painter.font(font, fontSize);
    known.add(font);
  }
}

/**
 * Selects a face for a paint that sets one text (painted-line.tsx: every folio heading, total and
 * footer is its own canvas, so selectFace's per-paint set would pass the object every time).
 * Internals (pdfkit): with a family name, font() looks the face up under that name first
 * (`_fontFamilies[family]`) and records it there when it opens it; the PostScript name is the key
 * pdfkit itself records a face under, so a face a Text node or the table opened is found too. Without
 * it, every call builds an embedded-font object and compares name tables (isEqualFont).
 */
export function selectNamedFace(painter: TPainter, font: TFontkitFont, fontSize: number): void {
  painter.font(font, font.postscriptName, fontSize);
}

/**
 * Gives `face` a `layout` or `getGlyph` of its own (shaping-cache.ts, table-fonts.ts). Internals
 * (pdfkit, @react-pdf/textkit, fontkit): every caller reaches these through the face object itself —
 * pdfkit's embedded font (`this.font.layout`), React-PDF's text layout (`font.layout`), and fontkit's
 * code-point lookups, layout engine and subsetter (`getGlyph` on the face; the subsetter asks for a
 * composed glyph's parts with no code points) — so a method set on the object is the one they call.
 */
export function setFaceMethod<K extends 'layout' | 'getGlyph'>(face: TFontkitFont, name: K, method: TFontkitFont[K]): TFontkitFont {
  Object.defineProperty(face, name, { value: method, writable: true, configurable: true });
  return face;
}
