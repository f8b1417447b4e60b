// A text of one or more lines with a Text node's style, painted on a Canvas: painted-line.tsx's idea
// (React-PDF's text layout is costly per node) for texts that wrap, as the invoice's do
// (fiscal/facturx-view.tsx). The lines break at spaces within `style.width` (canvas-text.ts,
// wrapCanvasText), each the face's line height (ascent to descent and line gap, as a Text's line);
// the box is as wide as `style.width`, or else its widest line, with the style's margins. A text the
// canvas cannot set (a glyph Noto Sans lacks, right-to-left) stays a Text node with the same style,
// keeping React-PDF's glyph fallback and bidi.

import { Canvas, Text, View, type TextProps } from '@react-pdf/renderer';
import { wrapCanvasText } from './canvas-text.js';
import { COLOURS } from './layout.js';
import { textRoom, type TInherited, type TLineStyle } from './painted-line.js';
import { canvasPaint, selectNamedFace, type TFontkitFont, type TPainter } from './react-pdf-internals.js';

/** A face's line height at `fontSize`, as React-PDF's text layout (textkit) makes a line of it. */
export function lineHeight(font: TFontkitFont, fontSize: number): number {
  return ((font.ascent - font.descent + font.lineGap) / font.unitsPerEm) * fontSize;
}

/** What a painted text sets: its face and size, its lines, and its box. */
export interface TPaintedText {
  font: TFontkitFont;
  fontSize: number;
  color: string;
  lines: Array<{ text: string; x: number }>;
  width: number;
  height: number;
}

/** The text set in the style's box, or undefined when the canvas cannot set it. */
export function paintedText(text: string, style: TLineStyle, inherited: TInherited = {}): TPaintedText | undefined {
  const { font, fontSize, paddingLeft, paddingRight, available } = textRoom(style, inherited);
  const wrapped = wrapCanvasText(font, text, fontSize, available);
  if (!wrapped) return undefined;
  const width = style.width ?? Math.max(...wrapped.map((line) => line.width)) + paddingLeft + paddingRight;
  const x = (lineWidth: number) =>
    style.textAlign === 'right' ? width - paddingRight - lineWidth : style.textAlign === 'center' ? (width - lineWidth) / 2 : paddingLeft;
  return {
    font,
    fontSize,
    color: style.color ?? inherited.color ?? COLOURS.ink,
    lines: wrapped.map((line) => ({ text: line.text, x: x(line.width) })),
    width,
    height: wrapped.length * lineHeight(font, fontSize),
  };
}

/** Paints a set text with its top-left corner at (left, top). */
export function paintText(painter: TPainter, text: TPaintedText, left = 0, top = 0): void {
  const pitch = lineHeight(text.font, text.fontSize);
  selectNamedFace(painter.fillOpacity(1).fillColor(text.color), text.font, text.fontSize);
  text.lines.forEach((line, index) => {
    if (line.text) painter.text(line.text, left + line.x, top + index * pitch, { lineBreak: false });
  });
}

export function PaintedText({ text, style, inherited }: { text: string; style: TLineStyle; inherited?: TInherited }) {
  const set = paintedText(text, style, inherited);
  if (!set) return <Text style={style as TextProps['style']}>{text}</Text>;
  const margins = { marginTop: style.marginTop ?? 0, marginBottom: style.marginBottom ?? 0 };
  // An empty text still takes its line's height, as an empty Text does; a canvas may not be 0 wide.
  if (!set.width || set.lines.every((line) => !line.text)) return <View style={{ width: set.width, height: set.height, ...margins }} />;
  return <Canvas style={{ width: set.width, height: set.height, ...margins }} paint={canvasPaint((painter) => paintText(painter, set))} />;
}
