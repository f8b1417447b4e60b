// What a gateway answers goes back to the client, into the recorded answer and into the job's
// result: the card that was forwarded must not come back with it, in whatever form the answer
// carries it (docs/vault.md#the-answer-masked).
//
// The text is first read as a client would decode it (decode()): JSON escapes (\u0034, \"),
// percent-encoding (%34, UTF-8 sequences), HTML/XML character references (&#52;, &#x34;, &amp;,
// &nbsp;), fullwidth forms and any script's decimal digits (４, ٤) each become the one character
// they stand for, remembering the span of text they came from. Numbers and names are found in
// that decoded view and masked in place in the text: each masked digit's span becomes '*', a
// masked name's span the masked name, so separators, quotes and the document around stay as they
// were. Then every base64 block (standard or URL-safe, ≥ 16 characters) is decoded, masked the
// same way and, when that changed it, re-encoded in its own alphabet and padding. Last, the log
// redaction (redactPans) catches what is left in plain digits.
//
// What is masked:
// - this card's number, its digits with up to three characters that are neither letters nor
//   digits between any two (4242.4242, 4 2 4 2, 4242 - 4242…), also inside a longer digit run,
//   with the CVV written right against it; first six and last four digits kept;
// - any other Luhn-valid run of 13 to 19 digits, and any other number of a card's brand, length
//   and Luhn (isPanShaped) written in groups with one separator (space, dash, dot, slash,
//   underscore, '+', any Unicode space or dash) between them;
// - a digit run equal to the CVV, as '***' (a template cannot put it against other digits);
// - the holder's name, in any case, with '+' or any space for its spaces, as the metadata masks it.

import { isLuhnValid } from '../card/luhn.js';
import { maskName } from '../card/mask.js';
import { isPanShaped, redactPans } from '../card/redact-pan.js';

export interface TMaskedSecrets {
  pan?: string;
  cvv?: string;
  holderName?: string;
}

/**
 * The text as a client decodes it: `text` the decoded characters, and for each of its UTF-16 code
 * units the span [starts[k], ends[k]) of the original text it was written as (both code units of a
 * surrogate pair share their character's span).
 */
interface TDecoded {
  text: string;
  starts: Int32Array;
  ends: Int32Array;
}

/** A replacement of text[start, end). */
interface TEdit {
  start: number;
  end: number;
  text: string;
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
const JSON_ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const ENTITY = /^&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|(amp|lt|gt|quot|apos|nbsp));/;
const JSON_U = /^\\u([0-9a-fA-F]{4})/;
const PERCENT = /^(?:%[0-9a-fA-F]{2})+/;
const DECIMAL_DIGIT = /\p{Nd}/u;
/** Runs of characters that are themselves: ASCII other than '\', '%' and '&'. */
const PLAIN_RUN = /[^\\%&\u0080-\uffff]+/y;

/** The value 0–9 of a decimal digit of any script: Unicode writes each script's digits as ten consecutive code points from 0. */
function digitValue(cp: number): string {
  let count = 0;
  while (DECIMAL_DIGIT.test(String.fromCodePoint(cp - 1))) {
    cp -= 1;
    count += 1;
  }
  return String(count % 10);
}

/** Decoded characters with their spans, in order. */
type TPiece = [char: string, start: number, end: number];

/** The percent-encoded bytes of `run` decoded as UTF-8, one piece per character; undefined when they are not UTF-8. */
function percentPieces(run: string, offset: number): TPiece[] | undefined {
  const bytes = Buffer.from(run.replace(/%/g, ''), 'hex');
  const decoded = bytes.toString('utf8');
  if (!Buffer.from(decoded, 'utf8').equals(bytes)) return undefined;
  const pieces: TPiece[] = [];
  let at = offset;
  for (const char of decoded) {
    const end = at + Buffer.byteLength(char, 'utf8') * 3;
    pieces.push([char, at, end]);
    at = end;
  }
  return pieces;
}

/** The escape (JSON, percent, character reference) at text[i] as pieces and its length, or undefined. */
function escapeAt(text: string, i: number): { pieces: TPiece[]; length: number } | undefined {
  const c = text[i];
  if (c === '\\') {
    const u = JSON_U.exec(text.slice(i, i + 6));
    if (u) return { pieces: [[String.fromCharCode(Number.parseInt(u[1]!, 16)), i, i + 6]], length: 6 };
    const escaped = JSON_ESCAPES[text[i + 1] ?? ''];
    return escaped === undefined ? undefined : { pieces: [[escaped, i, i + 2]], length: 2 };
  }
  if (c === '%') {
    const run = PERCENT.exec(text.slice(i, i + 3 * 64));
    const pieces = run ? percentPieces(run[0], i) : undefined;
    return run && pieces ? { pieces, length: run[0].length } : undefined;
  }
  const entity = ENTITY.exec(text.slice(i, i + 12));
  if (!entity) return undefined;
  const [whole, dec, hex, name] = entity;
  const cp = dec !== undefined ? Number(dec) : hex !== undefined ? Number.parseInt(hex, 16) : undefined;
  const char = cp === undefined ? NAMED_ENTITIES[name!]! : cp <= 0x10ffff ? String.fromCodePoint(cp) : '\uFFFD';
  return { pieces: [[char, i, i + whole.length]], length: whole.length };
}

/** The text as a client decodes it (see the file's comment). */
function decode(text: string): TDecoded {
  // A decoded character is never longer than what it was written as.
  const starts = new Int32Array(text.length);
  const ends = new Int32Array(text.length);
  const out: string[] = [];
  let n = 0;
  const put = (char: string, start: number, end: number) => {
    out.push(char);
    for (let j = 0; j < char.length; j += 1, n += 1) {
      starts[n] = start;
      ends[n] = end;
    }
  };
  let i = 0;
  while (i < text.length) {
    PLAIN_RUN.lastIndex = i;
    const plain = PLAIN_RUN.exec(text);
    if (plain) {
      out.push(plain[0]);
      for (let j = 0; j < plain[0].length; j += 1, n += 1) {
        starts[n] = i + j;
        ends[n] = i + j + 1;
      }
      i += plain[0].length;
      continue;
    }
    const code = text.charCodeAt(i);
    if (code === 0x5c || code === 0x25 || code === 0x26) {
      const escape = escapeAt(text, i);
      if (escape) {
        for (const [char, start, end] of escape.pieces) put(char, start, end);
        i += escape.length;
      } else {
        put(text[i]!, i, i + 1);
        i += 1;
      }
      continue;
    }
    const cp = text.codePointAt(i)!;
    const char = String.fromCodePoint(cp);
    // Fullwidth ASCII (！ to ～) as ASCII, any script's digit as its ASCII digit.
    const mapped = cp >= 0xff01 && cp <= 0xff5e ? String.fromCharCode(cp - 0xfee0) : DECIMAL_DIGIT.test(char) ? digitValue(cp) : char;
    put(mapped, i, i + char.length);
    i += char.length;
  }
  return { text: out.join(''), starts: starts.subarray(0, n), ends: ends.subarray(0, n) };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** What may stand between the groups of another card's number. */
const GROUP_CHAIN = /\d(?:[\s\p{Zs}\p{Pd}./_+]?\d)*/gu;
const isDigitCode = (code: number) => code >= 0x30 && code <= 0x39;

class Masker {
  readonly edits: TEdit[] = [];
  private readonly masked: Uint8Array;

  constructor(private readonly decoded: TDecoded) {
    this.masked = new Uint8Array(decoded.text.length);
  }

  private free(positions: number[]): boolean {
    return positions.every((k) => this.masked[k] === 0);
  }

  /** First six and last four of `positions` kept, every other digit's span '*'. */
  private maskDigits(positions: number[]): void {
    positions.forEach((k, j) => {
      this.masked[k] = 1;
      if (j >= 6 && j < positions.length - 4) this.edits.push({ start: this.decoded.starts[k]!, end: this.decoded.ends[k]!, text: '*' });
    });
  }

  /** text[from, to) replaced by `replacement` as one span. */
  private maskSpan(from: number, to: number, replacement: string): void {
    this.masked.fill(1, from, to);
    this.edits.push({ start: this.decoded.starts[from]!, end: this.decoded.ends[to - 1]!, text: replacement });
  }

  private digitPositions(from: number, to: number): number[] {
    const positions: number[] = [];
    for (let k = from; k < to; k += 1) if (isDigitCode(this.decoded.text.charCodeAt(k))) positions.push(k);
    return positions;
  }

  /** This card's number wherever it stands, up to three non-alphanumeric characters between two digits, with the CVV right against it. */
  thisCard(pan: string, cvv: string | undefined): void {
    const number = pan.split('').join('[^\\p{L}\\p{N}]{0,3}');
    const pattern = new RegExp(cvv ? `(${cvv})?(${number})(${cvv})?` : `()(${number})()`, 'gdu');
    for (const match of this.decoded.text.matchAll(pattern)) {
      const indices = match.indices!;
      const [panFrom, panTo] = indices[2]!;
      const positions = this.digitPositions(panFrom, panTo);
      if (!this.free(positions)) continue;
      this.maskDigits(positions);
      for (const group of [indices[1], indices[3]]) if (group && group[1] > group[0]) this.maskSpan(group[0], group[1], '***');
    }
  }

  /** Luhn-valid digit runs of 13 to 19, and numbers of a card's shape written in groups with one separator between. */
  otherCards(): void {
    const text = this.decoded.text;
    for (const match of text.matchAll(GROUP_CHAIN)) {
      // The chain's digit runs as [from, to): digits are contiguous within a run.
      const runs: Array<[number, number]> = [];
      const end = match.index + match[0].length;
      for (let k = match.index; k < end; ) {
        let to = k;
        while (to < end && isDigitCode(text.charCodeAt(to))) to += 1;
        runs.push([k, to]);
        k = to + 1;
      }
      const positionsOf = (chosen: Array<[number, number]>) => chosen.flatMap(([from, to]) => Array.from({ length: to - from }, (_, j) => from + j));
      for (const [from, to] of runs) {
        const digits = text.slice(from, to);
        if (digits.length >= 13 && digits.length <= 19 && isLuhnValid(digits) && this.free(positionsOf([[from, to]]))) this.maskDigits(positionsOf([[from, to]]));
      }
      for (let first = 0; first < runs.length; first += 1) {
        let count = runs[first]![1] - runs[first]![0];
        for (let last = first + 1; last < runs.length; last += 1) {
          count += runs[last]![1] - runs[last]![0];
          if (count > 19) break;
          if (count < 13) continue;
          const chosen = runs.slice(first, last + 1);
          const positions = positionsOf(chosen);
          if (this.free(positions) && isPanShaped(chosen.map(([from, to]) => text.slice(from, to)).join(''))) {
            this.maskDigits(positions);
            first = last;
            break;
          }
        }
      }
    }
  }

  /** A digit run of its own equal to the CVV. */
  cvv(cvv: string): void {
    for (const match of this.decoded.text.matchAll(new RegExp(`(?<!\\d)${cvv}(?!\\d)`, 'g'))) {
      if (this.masked.subarray(match.index, match.index + cvv.length).every((bit) => bit === 0)) this.maskSpan(match.index, match.index + cvv.length, '***');
    }
  }

  /** The holder's name in any case, '+' or any space for its spaces. */
  name(name: string): void {
    const pattern = new RegExp(name.split(' ').map(escapeRegExp).join('[\\s\\p{Zs}+]'), 'giu');
    for (const match of this.decoded.text.matchAll(pattern)) {
      const to = match.index + match[0].length;
      if (this.masked.subarray(match.index, to).every((bit) => bit === 0)) this.maskSpan(match.index, to, maskName(name));
    }
  }
}

function applied(text: string, edits: TEdit[]): string {
  let out = '';
  let at = 0;
  for (const edit of [...edits].sort((a, b) => a.start - b.start)) {
    if (edit.start < at) continue;
    out += text.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + text.slice(at);
}

/**
 * Base64 blocks of either alphabet: standard (a `/` possibly JSON-escaped as `\/`) and URL-safe.
 * A block may follow a JSON `\n`, `\r` or `\t` (the escape is kept, not decoded).
 */
const BASE64_BLOCKS: Array<{ pattern: RegExp; urlSafe: boolean }> = [
  { pattern: /(?<![A-Za-z0-9+/\\])(\\[nrt])?((?:[A-Za-z0-9+]|\\?\/){16,}={0,2})/g, urlSafe: false },
  { pattern: /(?<![A-Za-z0-9_\\-])(\\[nrt])?([A-Za-z0-9_-]{16,}={0,2})/g, urlSafe: true },
];
const MAX_DEPTH = 2;

/** Base64 blocks whose decoded text holds a secret, re-encoded masked in their own alphabet, padding and escapes. */
function maskBase64(text: string, secrets: TMaskedSecrets, depth: number): string {
  let out = text;
  for (const { pattern, urlSafe } of BASE64_BLOCKS) {
    out = out.replace(pattern, (whole, prefix: string | undefined, block: string) => {
      // A block of letters and digits only was read by the standard pass already.
      if (urlSafe && !/[-_]/.test(block)) return whole;
      const escapedSlash = block.includes('\\/');
      const raw = block.replace(/\\\//g, '/');
      const bytes = Buffer.from(raw, urlSafe ? 'base64url' : 'base64');
      if (bytes.length < 12) return whole;
      const utf8 = bytes.toString('utf8');
      const encoding: BufferEncoding = Buffer.from(utf8, 'utf8').equals(bytes) ? 'utf8' : 'latin1';
      const inner = bytes.toString(encoding);
      const masked = maskText(inner, secrets, depth + 1);
      if (masked === inner) return whole;
      let encoded = Buffer.from(masked, encoding).toString(urlSafe ? 'base64url' : 'base64');
      if (!raw.endsWith('=')) encoded = encoded.replace(/=+$/, '');
      else if (urlSafe) encoded = encoded.padEnd(Math.ceil(encoded.length / 4) * 4, '=');
      return (prefix ?? '') + (escapedSlash ? encoded.replace(/\//g, '\\/') : encoded);
    });
  }
  return out;
}

function maskText(text: string, secrets: TMaskedSecrets, depth: number): string {
  const pan = (secrets.pan ?? '').replace(/\D/g, '');
  const cvv = secrets.cvv !== undefined && /^\d{3,4}$/.test(secrets.cvv) ? secrets.cvv : undefined;
  const name = secrets.holderName?.trim().replace(/\s+/gu, ' ');
  const masker = new Masker(decode(text));
  if (pan.length >= 12) masker.thisCard(pan, cvv);
  masker.otherCards();
  if (cvv) masker.cvv(cvv);
  if (name && name.length >= 2) masker.name(name);
  const once = applied(text, masker.edits);
  return depth < MAX_DEPTH ? maskBase64(once, secrets, depth) : once;
}

export function maskSecrets(text: string, secrets: TMaskedSecrets): string {
  return redactPans(maskText(text, secrets, 0));
}

export function maskHeaders(headers: Record<string, string>, secrets: TMaskedSecrets): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, maskSecrets(value, secrets)]));
}
