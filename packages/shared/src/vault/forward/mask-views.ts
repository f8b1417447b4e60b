// The readings of an answer the masking looks through (mask.ts). A view is a text plus, for each
// of its UTF-16 code units, the span [start, end) of the ORIGINAL text it came from: a match in
// any view is masked in the original, in place, however the original wrote it.
//
// Invariants:
// - A view is never longer than the text it is read from (a decoded character is never longer
//   than what it was written as; a dropped one is nothing), and it is built in one pass over it:
//   every reading here is linear.
// - Spans only ever merge: a code unit of a view covers whole code units of the view it was read
//   from, so the spans of two views are nested or apart, never crossing.
// - View 0 normalises characters one by one and decodes no escape: any script's decimal digit and
//   any character whose NFKC form is one ASCII digit (superscripts, circled, mathematical) becomes
//   that digit, fullwidth ASCII becomes ASCII, and a format character (\p{Cf}: zero-width
//   characters, the soft hyphen, the BOM) becomes nothing, so its neighbours stand side by side.
// - An escape view decodes one level of escapes of the view before it (JSON \uXXXX and \n…, \xNN,
//   percent-encoding, character references) and drops markup (tags, comments); what it decodes is
//   normalised as view 0 is. Quoted-printable has views of its own (quotedPrintableView): `=12`
//   is common in a plain form body and must not be read as an escape in the same view.

import { endianness } from 'node:os';
import { characterReferenceAt } from './char-references.js';

export interface TView {
  text: string;
  starts: Int32Array;
  ends: Int32Array;
}

/** The longest tag and comment dropped as markup: a '<' further from its '>' stays text. */
const MAX_TAG = 256;
const MAX_COMMENT = 4096;
const JSON_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', "'": "'", b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

const ND = /^\p{Nd}$/u;
const CF = /^\p{Cf}$/u;
const isHexCode = (code: number) => (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
const hexValue = (code: number) => (code <= 0x39 ? code - 0x30 : (code | 0x20) - 0x57);

const UTF16 = endianness() === 'LE' ? new TextDecoder('utf-16le') : undefined;

/**
 * Code units as a string. The UTF-16 decoder is the fast way, but it writes U+FFFD for a lone
 * surrogate: a text that holds one (a byte of no UTF-8 sequence, U+DC80 + byte) is built in chunks.
 */
export function stringOf(units: Uint16Array): string {
  let surrogate = false;
  for (let k = 0; k < units.length && !surrogate; k += 1) surrogate = units[k]! >= 0xd800 && units[k]! <= 0xdfff;
  if (UTF16 && !surrogate) return UTF16.decode(units);
  let text = '';
  for (let k = 0; k < units.length; k += 8192) text += String.fromCharCode.apply(null, units.subarray(k, k + 8192) as unknown as number[]);
  return text;
}

/** Builds a view, code unit by code unit, with the original span of each. */
class ViewWriter {
  private units: Uint16Array;
  private starts: Int32Array;
  private ends: Int32Array;
  private n = 0;

  constructor(capacity: number) {
    this.units = new Uint16Array(capacity);
    this.starts = new Int32Array(capacity);
    this.ends = new Int32Array(capacity);
  }

  private room(count: number): void {
    if (this.n + count <= this.starts.length) return;
    const size = Math.max(this.starts.length * 2, this.n + count);
    const units = new Uint16Array(size);
    const starts = new Int32Array(size);
    const ends = new Int32Array(size);
    units.set(this.units);
    starts.set(this.starts);
    ends.set(this.ends);
    [this.units, this.starts, this.ends] = [units, starts, ends];
  }

  /** `text` (possibly empty: the span then leaves nothing) written as [start, end) of the original. */
  put(text: string, start: number, end: number): void {
    this.room(text.length);
    for (let k = 0; k < text.length; k += 1, this.n += 1) {
      this.units[this.n] = text.charCodeAt(k);
      this.starts[this.n] = start;
      this.ends[this.n] = end;
    }
  }

  /** raw[from, to) as it is, each code unit its own span. */
  original(raw: string, from: number, to: number): void {
    this.room(to - from);
    for (let k = from; k < to; k += 1, this.n += 1) {
      this.units[this.n] = raw.charCodeAt(k);
      this.starts[this.n] = k;
      this.ends[this.n] = k + 1;
    }
  }

  /** The code units [from, to) of `view`, with their spans. */
  copy(view: TView, from: number, to: number): void {
    if (to <= from) return;
    this.room(to - from);
    for (let k = from; k < to; k += 1) this.units[this.n + k - from] = view.text.charCodeAt(k);
    this.starts.set(view.starts.subarray(from, to), this.n);
    this.ends.set(view.ends.subarray(from, to), this.n);
    this.n += to - from;
  }

  done(): TView {
    return { text: stringOf(this.units.subarray(0, this.n)), starts: this.starts.subarray(0, this.n), ends: this.ends.subarray(0, this.n) };
  }
}

/** Per-character normalisation (see the file's comment), cached per code point for one masking. */
export class CharacterNormaliser {
  private readonly cache = new Map<number, string>();

  /** The value 0–9 of a decimal digit of any script: Unicode writes each script's digits as ten consecutive code points from 0. */
  private static digitValue(cp: number): string {
    let count = 0;
    while (count < 60 && ND.test(String.fromCodePoint(cp - 1))) {
      cp -= 1;
      count += 1;
    }
    return String(count % 10);
  }

  of(cp: number): string {
    if (cp < 0x80) return String.fromCharCode(cp);
    const cached = this.cache.get(cp);
    if (cached !== undefined) return cached;
    const char = String.fromCodePoint(cp);
    let out = char;
    if (ND.test(char)) out = CharacterNormaliser.digitValue(cp);
    else if (CF.test(char)) out = '';
    else if (cp >= 0xff01 && cp <= 0xff5e) out = String.fromCharCode(cp - 0xfee0);
    else if (cp < 0xd800 || cp > 0xdfff) {
      const compatible = char.normalize('NFKC');
      if (compatible.length === 1 && compatible >= '0' && compatible <= '9') out = compatible;
    }
    this.cache.set(cp, out);
    return out;
  }

  /** Every code point of `text` normalised. */
  text(text: string): string {
    if (text.length === 1) return this.of(text.charCodeAt(0));
    let out = '';
    for (const char of text) out += this.of(char.codePointAt(0)!);
    return out;
  }
}

/** View 0: the raw text, normalised character by character. */
export function normalisedView(raw: string, normaliser: CharacterNormaliser): TView {
  const writer = new ViewWriter(raw.length);
  let i = 0;
  while (i < raw.length) {
    let j = i;
    while (j < raw.length && raw.charCodeAt(j) < 0x80) j += 1;
    if (j > i) {
      writer.original(raw, i, j);
      i = j;
      continue;
    }
    const cp = raw.codePointAt(i)!;
    const length = cp > 0xffff ? 2 : 1;
    writer.put(normaliser.of(cp), i, i + length);
    i += length;
  }
  return writer.done();
}

/**
 * Bytes as text: UTF-8, and each byte that is not part of a valid UTF-8 sequence as one piece of
 * its own. Calls `piece(codePoint | undefined, firstByte, endByte)` in order; undefined stands for
 * an invalid byte. Overlong forms, surrogates and code points past U+10FFFF are invalid.
 */
export function readUtf8(bytes: ArrayLike<number>, piece: (cp: number | undefined, from: number, to: number) => void): void {
  let i = 0;
  const continuation = (k: number) => k < bytes.length && (bytes[k]! & 0xc0) === 0x80;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let length = 0;
    let cp = 0;
    if (b < 0x80) {
      piece(b, i, i + 1);
      i += 1;
      continue;
    }
    if (b >= 0xc2 && b <= 0xdf) [length, cp] = [2, b & 0x1f];
    else if (b >= 0xe0 && b <= 0xef) [length, cp] = [3, b & 0x0f];
    else if (b >= 0xf0 && b <= 0xf4) [length, cp] = [4, b & 0x07];
    let valid = length > 0;
    for (let k = 1; valid && k < length; k += 1) {
      if (!continuation(i + k)) valid = false;
      else cp = (cp << 6) | (bytes[i + k]! & 0x3f);
    }
    const minimum = length === 3 ? 0x800 : length === 4 ? 0x10000 : 0x80;
    if (valid && (cp < minimum || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))) valid = false;
    if (valid) {
      piece(cp, i, i + length);
      i += length;
    } else {
      piece(undefined, i, i + 1);
      i += 1;
    }
  }
}

/** A run of byte escapes (%XX, or =XX with soft line breaks) as pieces of the view: one per decoded character. */
interface TByteRun {
  /** Each byte and the view indices [from, to) it was written as. */
  bytes: number[];
  from: number[];
  to: number[];
  /** Where the run ends in the view. */
  end: number;
}

/** Writes a run's bytes as UTF-8 characters (an invalid byte as U+FFFD), each with the span of its bytes. */
function writeByteRun(run: TByteRun, view: TView, writer: ViewWriter, normaliser: CharacterNormaliser): void {
  readUtf8(run.bytes, (cp, a, b) => {
    const start = view.starts[run.from[a]!]!;
    const end = view.ends[run.to[b - 1]! - 1]!;
    writer.put(cp === undefined ? '\uFFFD' : normaliser.of(cp), start, end);
  });
}

/** The percent-encoded bytes %XX from text[i] on, or undefined when none starts there. */
function percentRun(text: string, i: number): TByteRun | undefined {
  const run: TByteRun = { bytes: [], from: [], to: [], end: i };
  let k = i;
  while (text.charCodeAt(k) === 0x25 && isHexCode(text.charCodeAt(k + 1)) && isHexCode(text.charCodeAt(k + 2))) {
    run.bytes.push(hexValue(text.charCodeAt(k + 1)) * 16 + hexValue(text.charCodeAt(k + 2)));
    run.from.push(k);
    run.to.push(k + 3);
    k += 3;
  }
  run.end = k;
  return run.bytes.length > 0 ? run : undefined;
}

/** The length of a soft line break ("=\r\n" or "=\n") at text[i], or 0. */
function softBreakAt(text: string, i: number): number {
  if (text.charCodeAt(i) !== 0x3d) return 0;
  if (text.charCodeAt(i + 1) === 0x0a) return 2;
  return text.charCodeAt(i + 1) === 0x0d && text.charCodeAt(i + 2) === 0x0a ? 3 : 0;
}

/** The quoted-printable bytes =XX from text[i] on, soft line breaks between them skipped. */
function quotedPrintableRun(text: string, i: number): TByteRun | undefined {
  const run: TByteRun = { bytes: [], from: [], to: [], end: i };
  let k = i;
  for (;;) {
    const soft = softBreakAt(text, k);
    if (soft > 0 && run.bytes.length > 0) {
      k += soft;
      continue;
    }
    if (text.charCodeAt(k) !== 0x3d || !isHexCode(text.charCodeAt(k + 1)) || !isHexCode(text.charCodeAt(k + 2))) break;
    run.bytes.push(hexValue(text.charCodeAt(k + 1)) * 16 + hexValue(text.charCodeAt(k + 2)));
    run.from.push(k);
    run.to.push(k + 3);
    k += 3;
    run.end = k;
  }
  return run.bytes.length > 0 ? run : undefined;
}

/** A JSON (or JavaScript) escape at text[i] ('\'): the character and its length; a \uD8xx\uDCxx pair is one character. */
function backslashEscapeAt(text: string, i: number): { char: string; length: number } | undefined {
  const kind = text[i + 1];
  const hexAt = (from: number, count: number) => {
    let value = 0;
    for (let k = from; k < from + count; k += 1) {
      if (!isHexCode(text.charCodeAt(k))) return undefined;
      value = value * 16 + hexValue(text.charCodeAt(k));
    }
    return value;
  };
  if (kind === 'u') {
    const unit = hexAt(i + 2, 4);
    if (unit === undefined) return undefined;
    if (unit >= 0xd800 && unit <= 0xdbff && text[i + 6] === '\\' && text[i + 7] === 'u') {
      const low = hexAt(i + 8, 4);
      if (low !== undefined && low >= 0xdc00 && low <= 0xdfff) return { char: String.fromCharCode(unit, low), length: 12 };
    }
    return { char: String.fromCharCode(unit), length: 6 };
  }
  if (kind === 'x') {
    const byte = hexAt(i + 2, 2);
    return byte === undefined ? undefined : { char: String.fromCharCode(byte), length: 4 };
  }
  const escaped = kind === undefined ? undefined : JSON_ESCAPES[kind];
  return escaped === undefined ? undefined : { char: escaped, length: 2 };
}

/** Finds the next "-->" at or after a position, each search starting where the last one ended: linear over a view. */
class CommentCloser {
  private next = -1;
  private searchedTo = 0;

  constructor(private readonly text: string) {}

  at(from: number): number {
    if (this.next >= from) return this.next;
    if (this.searchedTo > from && this.next === -1) return -1;
    this.next = this.text.indexOf('-->', Math.max(from, this.searchedTo));
    this.searchedTo = this.next === -1 ? this.text.length : this.next;
    return this.next;
  }
}

/** The length of the markup (a tag of at most MAX_TAG characters, a comment of at most MAX_COMMENT) at text[i], or 0. */
function markupAt(text: string, i: number, comments: CommentCloser): number {
  if (text.startsWith('<!--', i)) {
    const close = comments.at(i + 4);
    return close !== -1 && close + 3 - i <= MAX_COMMENT ? close + 3 - i : 0;
  }
  const next = text.charCodeAt(i + 1);
  const opensTag = (next >= 0x41 && next <= 0x5a) || (next >= 0x61 && next <= 0x7a) || next === 0x2f || next === 0x21 || next === 0x3f;
  if (!opensTag) return 0;
  // A '<' inside stops the search: each character is looked at for at most one '<'.
  for (let k = i + 1; k < text.length && k - i < MAX_TAG; k += 1) {
    const code = text.charCodeAt(k);
    if (code === 0x3e) return k + 1 - i;
    if (code === 0x3c) return 0;
  }
  return 0;
}

/** Escapes decoded between two steps of an escape view: an answer made of escapes takes its longest pass here. */
const ESCAPES_PER_STEP = 4096;

/**
 * One more level of escapes decoded, and markup dropped (see the file's comment), as steps: it
 * pauses (yields) every ESCAPES_PER_STEP escapes, so the masking of an answer does not hold the
 * event loop for a whole view of it (mask.ts, maskAnswerBody).
 */
export function* escapeView(view: TView, normaliser: CharacterNormaliser): Generator<undefined, TView, undefined> {
  const text = view.text;
  const writer = new ViewWriter(text.length);
  const comments = new CommentCloser(text);
  // Its own expression: its position (lastIndex) must outlive a pause in which another view is read.
  const escapeStart = /[\\%&<]/g;
  let at = 0;
  let decoded = 0;
  for (let match = escapeStart.exec(text); match; match = escapeStart.exec(text)) {
    if (++decoded % ESCAPES_PER_STEP === 0) yield;
    const i = match.index;
    if (i < at) continue;
    writer.copy(view, at, i);
    at = i + 1;
    const c = text[i];
    if (c === '%') {
      const run = percentRun(text, i);
      if (run) {
        writeByteRun(run, view, writer, normaliser);
        at = run.end;
      } else writer.copy(view, i, i + 1);
    } else if (c === '<') {
      const length = markupAt(text, i, comments);
      if (length > 0) at = i + length;
      else writer.copy(view, i, i + 1);
    } else {
      const escape = c === '\\' ? backslashEscapeAt(text, i) : characterReferenceAt(text, i);
      if (escape) {
        writer.put(normaliser.text(escape.char), view.starts[i]!, view.ends[i + escape.length - 1]!);
        at = i + escape.length;
      } else writer.copy(view, i, i + 1);
    }
    escapeStart.lastIndex = at;
  }
  writer.copy(view, at, text.length);
  return writer.done();
}

/**
 * Quoted-printable decoded: =XX bytes as UTF-8, soft line breaks dropped; nothing else. A '='
 * right after another is text: quoted-printable writes a '=' as =3D, and base64 padding ("==\n")
 * must not be read as a soft line break.
 */
export function quotedPrintableView(view: TView, normaliser: CharacterNormaliser): TView {
  const text = view.text;
  const writer = new ViewWriter(text.length);
  let at = 0;
  for (let i = text.indexOf('=', at); i !== -1; i = text.indexOf('=', at)) {
    writer.copy(view, at, i);
    const literal = i > 0 && text.charCodeAt(i - 1) === 0x3d;
    const soft = literal ? 0 : softBreakAt(text, i);
    const run = soft > 0 || literal ? undefined : quotedPrintableRun(text, i);
    if (soft > 0) at = i + soft;
    else if (run) {
      writeByteRun(run, view, writer, normaliser);
      at = run.end;
    } else {
      writer.copy(view, i, i + 1);
      at = i + 1;
    }
  }
  writer.copy(view, at, text.length);
  return writer.done();
}
