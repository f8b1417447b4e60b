// One line of text with a Text node's style, painted on a Canvas (see table-canvas.tsx for why:
// React-PDF's text layout is costly per node, and a page's chrome — folio heading, footer — and a
// folio's totals would otherwise cost more than its rows). The box is the line's own: as wide as
// `style.width` or else the text, as high as the face's ascent to descent, with the style's margins,
// so the enclosing Views place it as they placed the Text. A text the canvas cannot set (a glyph
// Noto Sans lacks, right-to-left) stays a Text node with the same style.

import { Canvas, Text, View, type TextProps } from '@react-pdf/renderer';
import { fitCanvasText } from './canvas-text.js';
import { COLOURS, FONT_SIZE } from './layout.js';
import { canvasPaint, selectNamedFace, type TFontkitFont, type TPainter } from './react-pdf-internals.js';
import { loadedTableFonts } from './table-fonts.js';

/** The Text style a painted line follows: its box, size, weight, colour and alignment. */
export interface TLineStyle {
  /** Other Text style properties (maxLines…) serve the Text fallback only. */
  [property: string]: unknown;
  width?: number;
  fontSize?: number;
  fontWeight?: number;
  color?: string;
  textAlign?: 'left' | 'right' | 'center' | 'justify';
  marginTop?: number;
  marginBottom?: number;
  paddingLeft?: number;
  paddingRight?: number;
}

/** What the Text would inherit from its parent Views (a canvas inherits nothing): their colour, size and weight. */
export interface TInherited {
  fontSize?: number;
  bold?: boolean;
  color?: string;
}

/** The face, size and horizontal room a Text of this style would set its text in (painted-text.tsx too). */
export function textRoom(style: TLineStyle, inherited: TInherited): { font: TFontkitFont; fontSize: number; paddingLeft: number; paddingRight: number; available: number } {
  const fonts = loadedTableFonts();
  const fontSize = style.fontSize ?? inherited.fontSize ?? FONT_SIZE.row;
  const bold = (style.fontWeight ?? (inherited.bold ? 700 : 400)) >= 700;
  const paddingLeft = style.paddingLeft ?? 0;
  const paddingRight = style.paddingRight ?? 0;
  const available = style.width === undefined ? Infinity : style.width - paddingLeft - paddingRight;
  return { font: bold ? fonts.bold : fonts.regular, fontSize, paddingLeft, paddingRight, available };
}

export function PaintedLine({ text, style, inherited = {} }: { text: string; style: TLineStyle; inherited?: TInherited }) {
  const { font, fontSize, paddingLeft, paddingRight, available } = textRoom(style, inherited);
  const fitted = fitCanvasText(font, text, fontSize, available);
  if (!fitted) return <Text style={style as TextProps['style']}>{text}</Text>;

  const width = style.width ?? fitted.width + paddingLeft + paddingRight;
  const height = ((font.ascent - font.descent) / font.unitsPerEm) * fontSize;
  const margins = { marginTop: style.marginTop ?? 0, marginBottom: style.marginBottom ?? 0 };
  // An empty line still takes its height, as an empty Text does; a canvas may not be 0 wide.
  if (!fitted.text || !width) return <View style={{ height, ...margins }} />;
  const x =
    style.textAlign === 'right' ? width - paddingRight - fitted.width : style.textAlign === 'center' ? (width - fitted.width) / 2 : paddingLeft;
  const color = style.color ?? inherited.color ?? COLOURS.ink;
  const paint = (painter: TPainter) => {
    selectNamedFace(painter.fillOpacity(1).fillColor(color), font, fontSize);
    painter.text(fitted.text, x, 0, { lineBreak: false });
  };
  return <Canvas style={{ width, height, ...margins }} paint={canvasPaint(paint)} />;
}
