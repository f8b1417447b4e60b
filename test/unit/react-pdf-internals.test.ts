import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Canvas, Document, Page, Text, renderToBuffer } from '@react-pdf/renderer';
import { PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import { createElement, type ReactElement } from 'react';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerFonts } from '@folio-vault/worker/exports/pdf/fonts';
import {
  INTERNAL_PACKAGES,
  PAINTER_METHODS,
  canvasPaint,
  reactPdfFace,
  selectFace,
  selectNamedFace,
  setFaceMethod,
  type TFontkitFont,
  type TPainter,
} from '@folio-vault/worker/exports/pdf/react-pdf-internals';

/**
 * The PDF relies on internals of React-PDF, pdfkit and fontkit (all in
 * apps/worker/src/exports/pdf/react-pdf-internals.ts). This checks that the worker pins each of
 * those packages exactly, that the installed copies React-PDF loads are those versions, and that
 * every internal still has the shape the adapter expects. A failure names the package, its pinned
 * version and the internal: review the adapter before moving the pin.
 */
type TPackage = (typeof INTERNAL_PACKAGES)[number];

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WORKER = join(ROOT, 'apps', 'worker');

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { name: string; version: string; dependencies?: Record<string, string> };

/** The directory `name` resolves to from `fromDir`, the way Node walks node_modules. */
function packageDir(name: string, fromDir: string): string {
  for (let dir = realpathSync(fromDir); ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) throw new Error(`${name} is not installed where ${fromDir} would find it`);
  }
}

/**
 * Where React-PDF finds each package: the renderer and its font and render packages from the worker,
 * pdfkit from the renderer (it pins its own copy), fontkit from @react-pdf/font (which loads the faces).
 */
function installedDir(name: TPackage): string {
  const renderer = packageDir('@react-pdf/renderer', WORKER);
  if (name === 'pdfkit') return packageDir('pdfkit', renderer);
  if (name === 'fontkit') return packageDir('fontkit', packageDir('@react-pdf/font', renderer));
  return packageDir(name, WORKER);
}

/** The exact version a package is held at: the worker's pin, or for pdfkit the renderer's own. */
function pinnedVersion(name: TPackage): string {
  const declaring = name === 'pdfkit' ? readJson(join(installedDir('@react-pdf/renderer'), 'package.json')) : readJson(join(WORKER, 'package.json'));
  return declaring.dependencies?.[name] ?? 'unpinned';
}

const because = (name: TPackage, internal: string) =>
  `${name} ${pinnedVersion(name)}: the PDF relies on its internal "${internal}" (apps/worker/src/exports/pdf/react-pdf-internals.ts), which changed`;

describe('pins of the packages whose internals the PDF uses', () => {
  it.each(INTERNAL_PACKAGES)('%s is pinned exactly and installed at that version', (name) => {
    const pinned = pinnedVersion(name);
    expect(pinned, `${name} must be pinned to an exact version (${name === 'pdfkit' ? '@react-pdf/renderer pins it' : 'apps/worker/package.json'})`).toMatch(
      /^\d+\.\d+\.\d+$/,
    );
    const installed = readJson(join(installedDir(name), 'package.json'));
    expect(`${installed.name}@${installed.version}`, `${name}: React-PDF loads another version than the pinned one; run npm install, or review react-pdf-internals.ts before moving the pin`).toBe(`${name}@${pinned}`);
  });
});

describe('internals the PDF uses', () => {
  let face: TFontkitFont;

  beforeAll(async () => {
    registerFonts();
    face = await reactPdfFace({ fontFamily: 'NotoSans', fontWeight: 400, fontStyle: 'normal' });
  });

  it('@react-pdf/font: Font.getFont(descriptor).data is the fontkit Font of a registered face', () => {
    const why = because('@react-pdf/font', 'Font.getFont(descriptor).data');
    expect(face.postscriptName, why).toBe('NotoSans-Regular');
    expect(face.unitsPerEm, why).toBe(1000);
    expect([face.ascent, face.descent], why).toEqual([1069, -293]);
    expect(face.hasGlyphForCodePoint(0x41), why).toBe(true);
    expect(face.glyphForCodePoint(0x41).advanceWidth, why).toBe(639);
    expect(typeof face.layout, why).toBe('function');
  });

  it('@react-pdf/render and pdfkit: the Canvas painter sets text in a fontkit Font, by object and then by PostScript name', async () => {
    const painterWhy = because('@react-pdf/render', 'Canvas paint callback painter');
    const pdfkitWhy = because('pdfkit', 'font(fontkitFont) and fonts recorded by PostScript name');
    const seen: { missing: string[]; chained?: boolean; error?: string } = { missing: [] };
    const paint = canvasPaint((painter: TPainter) => {
      seen.missing = PAINTER_METHODS.filter((method) => typeof (painter as unknown as Record<string, unknown>)[method] !== 'function');
      try {
        const known = new Set<TFontkitFont>();
        selectFace(painter, face, 7, known);
        seen.chained = painter.text('Folio', 0, 0, { lineBreak: false }) === painter;
        selectFace(painter, face, 7, known);
        painter.text('Vault', 40, 0, { lineBreak: false });
      } catch (error) {
        seen.error = (error as Error).message;
      }
    });
    const pdf = await onePage(canvas(paint), createElement(Text, null, 'Folio Vault'));
    expect(seen.missing, painterWhy).toEqual([]);
    expect(seen.chained, painterWhy).toBe(true);
    expect(seen.error, pdfkitWhy).toBeUndefined();
    // The canvas and the Text node set glyphs in one object: pdfkit must embed it once.
    expect(await embeddedFonts(pdf), pdfkitWhy).toEqual(['NotoSans-Regular']);
  });

  it('pdfkit: a face selected by object and PostScript name on separate canvases is embedded once, with a Text node in it', async () => {
    const why = because('pdfkit', 'font(fontkitFont, family) looks the face up under the family name');
    const errors: string[] = [];
    const line = (text: string) =>
      canvasPaint((painter: TPainter) => {
        try {
          selectNamedFace(painter, face, 7);
          painter.text(text, 0, 0, { lineBreak: false });
        } catch (error) {
          errors.push((error as Error).message);
        }
      });
    const pdf = await onePage(createElement(Text, null, 'Folio Vault'), canvas(line('Folio')), canvas(line('Vault')));
    expect(errors, why).toEqual([]);
    expect(await embeddedFonts(pdf), why).toEqual(['NotoSans-Regular']);
  });

  it('pdfkit, @react-pdf/textkit and fontkit call a face\'s layout and getGlyph through the face object (setFaceMethod)', async () => {
    const shaped: string[] = [];
    const unnamed: number[] = [];
    const [layout, getGlyph] = [face.layout.bind(face), face.getGlyph.bind(face)];
    setFaceMethod(face, 'layout', (text, ...options) => (shaped.push(text), layout(text, ...options)));
    setFaceMethod(face, 'getGlyph', (id, codePoints = []) => (codePoints.length || unnamed.push(id), getGlyph(id, codePoints)));
    try {
      const paint = canvasPaint((painter: TPainter) => {
        selectNamedFace(painter, face, 7);
        painter.text('Canvas', 0, 0, { lineBreak: false });
      });
      // é is a composed glyph in Noto Sans: the subset adds its parts by id alone.
      await onePage(canvas(paint), createElement(Text, null, 'Textnode é'));
      expect(shaped, because('pdfkit', 'EmbeddedFont shapes with this.font.layout')).toContain('Canvas');
      expect(shaped, because('@react-pdf/renderer', 'its text layout shapes with font.layout')).toContain('Textnode é');
      expect(unnamed.length, because('fontkit', 'the subsetter takes a composed glyph\'s parts with this.font.getGlyph(id)')).toBeGreaterThan(0);
    } finally {
      // The face's own methods again (the prototype's), for the tests after this one.
      delete (face as Partial<TFontkitFont>).layout;
      delete (face as Partial<TFontkitFont>).getGlyph;
    }
  });
});

/** One A4 page in NotoSans holding `children`, rendered to PDF bytes. */
function onePage(...children: ReactElement[]): Promise<Buffer> {
  return renderToBuffer(createElement(Document, null, createElement(Page, { size: 'A4', style: { fontFamily: 'NotoSans', padding: 20 } }, ...children)));
}

const canvas = (paint: ReturnType<typeof canvasPaint>) => createElement(Canvas, { style: { width: 100, height: 20 }, paint });

/** The base names (subset tag dropped) of the composite fonts a PDF embeds. */
async function embeddedFonts(bytes: Uint8Array): Promise<string[]> {
  const document = await PDFDocument.load(bytes);
  const names: string[] = [];
  for (const [, object] of document.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFDict) || object.get(PDFName.of('Subtype')) !== PDFName.of('Type0')) continue;
    names.push(String(object.get(PDFName.of('BaseFont'))).replace(/^\/([A-Z]{6}\+)?/, ''));
  }
  return names.sort();
}
