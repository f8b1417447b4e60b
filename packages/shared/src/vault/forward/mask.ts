// What a gateway answers goes back to the client, into the recorded answer and into the job's
// result: the card that was forwarded must not come back with it, in whatever form the answer
// carries it (docs/vault.md#the-answer). An answer allowlist (answer.ts) keeps only what a
// destination names; this masking is the second line, on what is kept and on whole answers.
//
// How an answer is read. A document (the answer, or a text decoded from a block inside it) is read
// through a bounded sequence of views (mask-views.ts): view 0, the text normalised character by
// character; up to MAX_ESCAPE_LEVELS escape views, each decoding one more level of escapes (JSON,
// percent, character references, markup dropped), stopping as soon as a level changes nothing;
// and quoted-printable views of view 0 and of the last escape view. Every view maps each of its
// code units to the span of the document it came from. Matches are looked for in EVERY view, so a
// decoding that mangles one form never hides it: the views before it still show it.
//
// What is matched in a view, from its digits (each with its position) and its letters:
// - this card's number: the view's digits split into chains where consecutive digits are at most
//   PAN_GAP characters apart (any characters: separators, markup, names of spaces); the number's
//   digits anywhere in a chain's digits (inside a longer run too) are masked but the first six and
//   last four, and the CVV right against it in the chain becomes '***';
// - other cards: in chains whose gaps are at most GROUP_GAP characters that are neither letters
//   nor digits, a digit group (a run of adjacent digits) of 13 to 19 that passes Luhn, and whole
//   consecutive groups totalling 13 to 19 digits of a card's brand, length and Luhn (isPanShaped);
//   each start extends over at most 19 digits, and Luhn is read from prefix sums;
// - the CVV: a tight group sequence (digits at most CVV_GAP non-alphanumeric characters apart,
//   bounded by a larger gap, a letter or the end) whose digits are the CVV;
// - the holder's name: its words folded (NFKD, marks dropped, lower case, ł→l, ø→o, ß→ss…) found
//   in the view's letters folded the same way, in order or last word first ("RYDER/ZOE", "Ryder,
//   Zoë"), at most NAME_GAP non-letter characters between words; a name of fewer than four letters
//   only as a word of its own among Latin letters.
// A masked digit's span becomes '*', a CVV's '***', a name's the masked name.
//
// Nested documents. In every view, base64 blocks (either alphabet, at least MIN_BASE64 characters,
// line breaks and spaces allowed inside) and hex blocks (runs of at least MIN_HEX hex digits) are
// decoded: from their first character, and from each later one of the first four (two for hex)
// when that reading is text (a word glued in front of a block must not shift it out of reach).
// The bytes are read as UTF-8, each invalid byte as U+DC80+byte, so the text is written back to
// exactly the same bytes, and read as a document of its own, down to MAX_DEPTH. A block's span is
// decoded once however many views show it. When the inner document held a secret, the block is
// replaced by its masked text encoded the same way (one line; its padding kept; percent-encoded
// where the block was).
//
// Edits. Every view's and every nested document's edits (a span of the document → its
// replacement) are merged and applied in one pass, in order. Of two masks that overlap, the wider
// wins; of two blocks, the one read from its first character, then the wider (a wrapped block
// rather than one of its lines). An edit a wider mask covers is masked with it; one that crosses
// another, lies inside a re-encoded block or is a block left out may still be in the text: the
// document is then masked again (at most MAX_PASSES times; still crossing, nothing is returned).
// Last, the log redaction (redactPans).
//
// Linear. Each view is built in one pass over the one before and is never longer; matching a view
// reads its digits and letters a bounded number of times (this card's occurrences in order, each
// other-card start over at most 19 digits, Luhn from prefix sums, the name from indexOf of its
// first word); a nested document is at most three quarters (base64) or half (hex) of its block,
// so every level of nesting is smaller than the one above and the total is a small constant times
// the answer's size. The work is counted as it is done (TMaskMeter) and bounded by
// WORK_PER_CHARACTER times the answer's size: an answer built to need more (blocks that decode to
// text at every alignment, level after level) is not returned at all (null), never unmasked.
// The work is written as steps (a generator: a view, a match, a nested document each): an answer's
// body is masked a slice at a time (maskAnswerBody), so a large one does not hold the worker's
// event loop from its other jobs; a short text in one go (maskSecrets).

import { isUtf8 } from 'node:buffer';
import { maskName } from '../card/mask.js';
import { isPanShaped, redactPans } from '../card/redact-pan.js';
import { CharacterNormaliser, escapeView, normalisedView, quotedPrintableView, readUtf8, stringOf, type TView } from './mask-views.js';

export interface TMaskedSecrets {
  pan?: string;
  cvv?: string;
  holderName?: string;
}

/** The masking's own count of its work (characters read by every view, match and nested document). */
export interface TMaskMeter {
  work: number;
}

const MAX_ESCAPE_LEVELS = 4;
const MAX_DEPTH = 4;
const MAX_PASSES = 3;
const PAN_GAP = 32;
const GROUP_GAP = 8;
const CVV_GAP = 3;
const NAME_GAP = 3;
const MIN_BASE64 = 16;
const MIN_HEX = 26;
const WORK_PER_CHARACTER = 400;
/** Matches between two steps of the masking (see maskAnswerBody). */
const STEP = 8192;
/** First digits of a card number of any brand (brand.ts): other starts need no Luhn or brand check. */
const BRAND_FIRST_DIGITS = new Set(['2', '3', '4', '5', '6', '8']);

/** The work bound was passed, or edits kept crossing: the document is not returned. */
class Unmaskable extends Error {}

interface TEdit {
  start: number;
  end: number;
  text: string;
  /** A mask replaces all of its span; a block re-encodes it, and may keep some of the text it covers. */
  kind: 'mask' | 'block';
  /** A block read from its first character (alignment 0) is the more natural reading. */
  aligned?: boolean;
}

/**
 * The edits of one document, applied in one ordered pass. Masks: the widest per start. Blocks: none
 * overlapping another, those read from their first character first, then the widest (the whole of
 * a wrapped block rather than one of its lines); one left out is read again in the next pass,
 * where it holds nothing left to mask.
 */
class Edits {
  /** slots[start] is 1 + the index in `masks` of the widest mask starting there, 0 for none. */
  private readonly slots: Int32Array;
  /** stars[k] is 1 when the one character at k becomes '*' (the common mask, kept without an object). */
  private readonly stars: Uint8Array;
  private readonly masks: TEdit[] = [];
  private readonly blocks: TEdit[] = [];

  constructor(private readonly length: number) {
    this.slots = new Int32Array(length + 1);
    this.stars = new Uint8Array(length + 1);
  }

  /** The one character at `at` becomes '*'. */
  star(at: number): void {
    this.stars[at] = 1;
  }

  add(edit: TEdit): void {
    if (edit.kind === 'block') {
      this.blocks.push(edit);
      return;
    }
    const slot = this.slots[edit.start]!;
    if (slot === 0) this.slots[edit.start] = this.masks.push(edit);
    else if (edit.end > this.masks[slot - 1]!.end) this.masks[slot - 1] = edit;
  }

  /**
   * The text with the edits applied. `clean` is false when an edit was left out that the one kept
   * over it may not cover: one crossing it, one inside a block (a re-encoding keeps text), a block
   * left out for another.
   */
  apply(text: string, meter: TMaskMeter): { text: string; clean: boolean } {
    let clean = true;
    const taken = new Uint8Array(this.length);
    this.blocks.sort((a, b) => Number(!a.aligned) - Number(!b.aligned) || b.end - b.start - (a.end - a.start) || a.start - b.start);
    for (const block of this.blocks) {
      meter.work += block.end - block.start;
      let free = true;
      for (let k = block.start; k < block.end && free; k += 1) free = taken[k] === 0;
      if (!free) {
        clean = false;
        continue;
      }
      taken.fill(1, block.start, block.end);
      const slot = this.slots[block.start]!;
      if (slot !== 0 && this.masks[slot - 1]!.end >= block.end) continue;
      if (slot !== 0 || this.stars[block.start] === 1) clean = false;
      this.slots[block.start] = this.masks.push(block);
    }
    // The result, code unit by code unit: most edits are one '*' for one character.
    let out = new Uint16Array(text.length + 64);
    let n = 0;
    const write = (from: string, a: number, b: number) => {
      if (n + b - a > out.length) {
        const more = new Uint16Array(Math.max(out.length * 2, n + b - a));
        more.set(out);
        out = more;
      }
      for (let k = a; k < b; k += 1) out[n++] = from.charCodeAt(k);
    };
    let at = 0;
    let keptKind: TEdit['kind'] = 'mask';
    for (let start = 0; start < this.length; start += 1) {
      const slot = this.slots[start]!;
      if (slot === 0 && this.stars[start] === 0) continue;
      // A star is one character wide: any edit starting at the same place covers it.
      const edit = slot === 0 ? undefined : this.masks[slot - 1]!;
      const end = edit ? edit.end : start + 1;
      if (start < at) {
        if (end > at || keptKind === 'block') clean = false;
        continue;
      }
      write(text, at, start);
      if (edit) write(edit.text, 0, edit.text.length);
      else write('*', 0, 1);
      at = end;
      keptKind = edit ? edit.kind : 'mask';
    }
    write(text, at, text.length);
    meter.work += text.length;
    return { text: stringOf(out.subarray(0, n)), clean };
  }
}

// --- Names ---------------------------------------------------------------------------------------

/** Letters NFKD does not take apart, as the ASCII a name is also written with. */
const ASCII_FOLD: Record<string, string> = {
  ł: 'l', ø: 'o', đ: 'd', ħ: 'h', ı: 'i', ŀ: 'l', ß: 'ss', æ: 'ae', œ: 'oe', þ: 'th', ð: 'd', ŧ: 't', ĸ: 'k', ſ: 's', ŋ: 'n',
};
const LETTER = /^\p{L}$/u;
const MARK = /^\p{M}$/u;

/** Folds letters the same way for a name and for a view: NFKD, marks dropped, lower case, ASCII_FOLD. */
class LetterFolder {
  private readonly cache = new Map<number, string>();

  /** The folded letters of the character `cp`, '' for a mark, undefined for anything that is not a letter. */
  of(cp: number): string | undefined {
    if (cp < 0x80) {
      if (cp >= 0x61 && cp <= 0x7a) return String.fromCharCode(cp);
      if (cp >= 0x41 && cp <= 0x5a) return String.fromCharCode(cp + 0x20);
      return undefined;
    }
    const cached = this.cache.get(cp);
    if (cached !== undefined) return cached === '\0' ? undefined : cached;
    const char = String.fromCodePoint(cp);
    let out: string | undefined;
    if (MARK.test(char)) out = '';
    else if (LETTER.test(char)) {
      out = '';
      for (const part of char.normalize('NFKD')) {
        if (MARK.test(part)) continue;
        const lower = part.toLowerCase();
        for (const letter of lower) out += ASCII_FOLD[letter] ?? (LETTER.test(letter) ? letter : '');
      }
    }
    this.cache.set(cp, out ?? '\0');
    return out;
  }
}

/** A view's letters, folded: letter k came from the view's code units [from[k], to[k]) (marks included). */
interface TLetters {
  text: string;
  from: Int32Array;
  to: Int32Array;
}

function grown(array: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(size);
  next.set(array);
  return next;
}

function lettersOf(view: TView, folder: LetterFolder): TLetters {
  const text = view.text;
  let units = new Uint16Array(text.length + 16);
  let from = new Int32Array(text.length + 16);
  let to = new Int32Array(text.length + 16);
  let n = 0;
  for (let i = 0; i < text.length; ) {
    const code = text.charCodeAt(i);
    if (code < 0x80) {
      const lower = code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
      if (lower >= 0x61 && lower <= 0x7a) {
        units[n] = lower;
        from[n] = i;
        to[n] = i + 1;
        n += 1;
      }
      i += 1;
      continue;
    }
    const cp = text.codePointAt(i)!;
    const length = cp > 0xffff ? 2 : 1;
    const folded = folder.of(cp);
    if (folded === '') {
      // A combining mark belongs to the letter right before it.
      if (n > 0 && to[n - 1] === i) to[n - 1] = i + length;
    } else if (folded !== undefined) {
      if (n + folded.length > units.length) {
        // A letter NFKD takes apart into several (ß, ﬃ): rare, so the arrays grow when needed.
        const size = units.length * 2 + folded.length;
        const more = new Uint16Array(size);
        more.set(units);
        units = more;
        from = grown(from, size);
        to = grown(to, size);
      }
      for (let u = 0; u < folded.length; u += 1) {
        units[n] = folded.charCodeAt(u);
        from[n] = i;
        to[n] = i + length;
        n += 1;
      }
    }
    i += length;
  }
  return { text: stringOf(units.subarray(0, n)), from: from.subarray(0, n), to: to.subarray(0, n) };
}

interface TName {
  masked: string;
  /** The name's letter runs, in order and last word first. */
  orders: string[][];
  /** Fewer than four letters: matched only as a word of its own among Latin letters. */
  short: boolean;
}

function nameOf(holderName: string | undefined, folder: LetterFolder): TName | undefined {
  const words = (holderName ?? '').trim().split(/\s+/u).filter(Boolean);
  const runsOf = (word: string) => {
    const runs: string[] = [];
    let run = '';
    for (const char of word) {
      const folded = folder.of(char.codePointAt(0)!);
      if (folded === undefined) {
        if (run) runs.push(run);
        run = '';
      } else run += folded;
    }
    if (run) runs.push(run);
    return runs;
  };
  const byWord = words.map(runsOf);
  const inOrder = byWord.flat();
  const letters = inOrder.join('').length;
  if (letters < 2) return undefined;
  const orders = [inOrder];
  if (byWord.length > 1) orders.push([...byWord.at(-1)!, ...byWord.slice(0, -1).flat()]);
  return { masked: maskName(holderName!), orders, short: letters < 4 };
}

// --- The masking of one document ---------------------------------------------------------------

interface TContext {
  pan?: string;
  cvv?: string;
  name?: TName;
  normaliser: CharacterNormaliser;
  folder: LetterFolder;
  meter: TMaskMeter;
  budget: number;
}

const isDigitCode = (code: number) => code >= 0x30 && code <= 0x39;
const UUID = /(?<![0-9A-Fa-f-])[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}(?![0-9A-Fa-f-])/g;

/** The first index of the sorted `values` whose value is at least `value`. */
function lowerBound(values: Int32Array, value: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

function spend(context: TContext, work: number): void {
  context.meter.work += work;
  if (context.meter.work > context.budget) throw new Unmaskable();
}

function isLetterAt(text: string, k: number): boolean {
  const code = text.charCodeAt(k);
  if (code < 0x80) return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
  return LETTER.test(String.fromCodePoint(text.codePointAt(k)!));
}

/** Whether any of text[from, to) is a letter. */
function lettersBetween(text: string, from: number, to: number): boolean {
  for (let k = from; k < to; k += 1) if (isLetterAt(text, k)) return true;
  return false;
}

/** Matches of this card, other cards and the CVV in one view's digits. */
function* matchDigits(view: TView, context: TContext, edits: Edits): TSteps<void> {
  const text = view.text;
  const digits = text.replace(/[^0-9]/g, '');
  const m = digits.length;
  spend(context, text.length + m);
  if (m === 0) return;
  const at = new Int32Array(m);
  for (let i = 0, j = 0; i < text.length; i += 1) if (isDigitCode(text.charCodeAt(i))) at[j++] = i;
  const gap = (j: number) => at[j]! - at[j - 1]! - 1;
  const starred = new Uint8Array(m);
  const claimed = new Uint8Array(m);
  const star = (j: number) => {
    if (starred[j]) return;
    starred[j] = 1;
    const start = view.starts[at[j]!]!;
    const end = view.ends[at[j]!]!;
    if (end === start + 1) edits.star(start);
    else edits.add({ start, end, text: '*', kind: 'mask' });
  };
  /** Digits [a, b) as a card: all claimed, all but the first six and last four starred. */
  const maskCard = (a: number, b: number) => {
    for (let j = a; j < b; j += 1) {
      claimed[j] = 1;
      if (j >= a + 6 && j < b - 4) star(j);
    }
  };
  const maskRange = (a: number, b: number, replacement: string) => {
    claimed.fill(1, a, b);
    edits.add({ start: view.starts[at[a]!]!, end: view.ends[at[b - 1]!]!, text: replacement, kind: 'mask' });
  };
  const { pan, cvv } = context;

  if (pan) {
    const chain = new Int32Array(m);
    for (let j = 1; j < m; j += 1) chain[j] = gap(j) <= PAN_GAP ? chain[j - 1]! : chain[j - 1]! + 1;
    // Occurrences come in order and may overlap: each digit is claimed and starred once.
    let claimedTo = 0;
    let starredTo = 0;
    let found = 0;
    for (let a = digits.indexOf(pan); a !== -1; a = digits.indexOf(pan, a + 1)) {
      spend(context, pan.length);
      if (++found % STEP === 0) yield;
      const b = a + pan.length;
      if (chain[a] !== chain[b - 1]) continue;
      claimed.fill(1, Math.max(a, claimedTo), b);
      claimedTo = b;
      for (let j = Math.max(a + 6, starredTo); j < b - 4; j += 1) star(j);
      starredTo = Math.max(starredTo, b - 4);
      if (!cvv) continue;
      const before = a - cvv.length;
      if (before >= 0 && chain[before] === chain[a] && digits.startsWith(cvv, before)) maskRange(before, a, '***');
      if (b + cvv.length <= m && chain[b + cvv.length - 1] === chain[b - 1] && digits.startsWith(cvv, b)) maskRange(b, b + cvv.length, '***');
    }
  }

  // Luhn of any digits [a, b) from prefix sums: digit j counts doubled when (b - 1 - j) is odd.
  const plain = [new Int32Array(m + 1), new Int32Array(m + 1)];
  const doubled = [new Int32Array(m + 1), new Int32Array(m + 1)];
  const [plainEven, plainOdd] = plain as [Int32Array, Int32Array];
  const [doubledEven, doubledOdd] = doubled as [Int32Array, Int32Array];
  for (let j = 0; j < m; j += 1) {
    const d = digits.charCodeAt(j) - 48;
    const twice = d * 2 > 9 ? d * 2 - 9 : d * 2;
    const even = (j & 1) === 0;
    plainEven[j + 1] = plainEven[j]! + (even ? d : 0);
    plainOdd[j + 1] = plainOdd[j]! + (even ? 0 : d);
    doubledEven[j + 1] = doubledEven[j]! + (even ? twice : 0);
    doubledOdd[j + 1] = doubledOdd[j]! + (even ? 0 : twice);
  }
  const luhn = (a: number, b: number) => {
    const last = (b - 1) % 2;
    return (plain[last]![b]! - plain[last]![a]! + doubled[1 - last]![b]! - doubled[1 - last]![a]!) % 10 === 0;
  };
  // A UUID's digits are an id, whatever their groups add up to: no other card or CVV is read in them.
  for (const uuid of text.includes('-') ? text.matchAll(UUID) : []) {
    for (let j = lowerBound(at, uuid.index); j < m && at[j]! < uuid.index + uuid[0].length; j += 1) claimed[j] = 1;
  }
  const free = (a: number, b: number) => {
    for (let j = a; j < b; j += 1) if (claimed[j]) return false;
    return true;
  };

  // Groups: runs of adjacent digits, [groupFrom[g], groupTo[g]) in digit indices.
  const groupFrom = new Int32Array(m);
  const groupTo = new Int32Array(m);
  let groups = 0;
  for (let j = 0; j < m; j += 1) {
    if (j > 0 && gap(j) === 0) continue;
    if (groups > 0) groupTo[groups - 1] = j;
    groupFrom[groups++] = j;
  }
  groupTo[groups - 1] = m;
  /** Whether group g follows group g - 1 within `limit` characters that are not letters. */
  const joined = (g: number, limit: number) => {
    const between = gap(groupFrom[g]!);
    return between <= limit && !lettersBetween(text, at[groupFrom[g]! - 1]! + 1, at[groupFrom[g]!]!);
  };

  yield;
  for (let first = 0; first < groups; ) {
    let last = first;
    while (last + 1 < groups && joined(last + 1, GROUP_GAP)) last += 1;
    spend(context, last - first + 1);
    for (let g = first; g <= last; g += 1) {
      const a = groupFrom[g]!;
      const b = groupTo[g]!;
      if (b - a >= 13 && b - a <= 19 && luhn(a, b) && free(a, b)) maskCard(a, b);
    }
    yield;
    for (let s = first; s <= last; s += 1) {
      if ((s - first) % STEP === STEP - 1) yield;
      const a = groupFrom[s]!;
      if (!BRAND_FIRST_DIGITS.has(digits[a]!)) continue;
      for (let e = s + 1; e <= last; e += 1) {
        const b = groupTo[e]!;
        spend(context, 1);
        if (b - a > 19) break;
        if (b - a >= 13 && luhn(a, b) && free(a, b) && isPanShaped(digits.slice(a, b))) {
          maskCard(a, b);
          s = e;
          break;
        }
      }
    }
    first = last + 1;
  }

  if (cvv) {
    yield;
    for (let a = 0, steps = 0; a < m; ) {
      if (++steps % STEP === 0) yield;
      let b = a + 1;
      while (b < m && gap(b) <= CVV_GAP && !lettersBetween(text, at[b - 1]! + 1, at[b]!)) b += 1;
      if (b - a === cvv.length && digits.startsWith(cvv, a) && free(a, b)) maskRange(a, b, '***');
      a = b;
    }
  }
}

/** The holder's name in one view's letters, in order and last word first. */
function matchName(view: TView, context: TContext, edits: Edits): void {
  const name = context.name!;
  const letters = lettersOf(view, context.folder);
  spend(context, view.text.length);
  const { text: folded, from, to } = letters;
  const adjacent = (k: number) => from[k]! - to[k - 1]! <= 0;
  const latin = (k: number) => folded.charCodeAt(k) >= 0x61 && folded.charCodeAt(k) <= 0x7a;
  for (const tokens of name.orders) {
    for (let start = folded.indexOf(tokens[0]!); start !== -1; start = folded.indexOf(tokens[0]!, start + 1)) {
      let k = start;
      let matched = true;
      for (let t = 0; t < tokens.length && matched; t += 1) {
        const token = tokens[t]!;
        spend(context, token.length);
        if (t > 0 && (k >= folded.length || from[k]! - to[k - 1]! > NAME_GAP)) matched = false;
        else if (!folded.startsWith(token, k)) matched = false;
        else for (let q = k + 1; q < k + token.length && matched; q += 1) if (!adjacent(q)) matched = false;
        k += token.length;
      }
      if (!matched) continue;
      if (name.short && ((start > 0 && adjacent(start) && latin(start - 1)) || (k < folded.length && adjacent(k) && latin(k)))) continue;
      edits.add({ start: view.starts[from[start]!]!, end: view.ends[to[k - 1]! - 1]!, text: name.masked, kind: 'mask' });
    }
  }
}

// --- Nested documents --------------------------------------------------------------------------

/** Bytes as text: UTF-8, each byte of no valid sequence as U+DC80 + byte (written back by bytesOf). */
function textOf(bytes: Uint8Array): string {
  if (isUtf8(bytes)) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
  const units = new Uint16Array(bytes.length);
  let n = 0;
  readUtf8(bytes, (cp, from) => {
    if (cp === undefined) units[n++] = 0xdc00 + bytes[from]!;
    else if (cp > 0xffff) {
      units[n++] = 0xd800 + ((cp - 0x10000) >> 10);
      units[n++] = 0xdc00 + ((cp - 0x10000) & 0x3ff);
    } else units[n++] = cp;
  });
  return stringOf(units.subarray(0, n));
}

/** Valid UTF-8, or at least three quarters printable ASCII (a document with a few bytes of a shifted reading before it). */
function readsAsText(bytes: Uint8Array): boolean {
  let printable = 0;
  for (const byte of bytes) if ((byte >= 0x20 && byte < 0x7f) || byte === 0x09 || byte === 0x0a || byte === 0x0d) printable += 1;
  return printable * 4 >= bytes.length * 3 || isUtf8(bytes);
}

/** textOf's inverse: U+DC80–U+DCFF as the byte it stands for, everything else as UTF-8. */
function bytesOf(text: string): Buffer {
  const parts: Buffer[] = [];
  let plainFrom = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    const escaped = code >= 0xdc80 && code <= 0xdcff && !(i > 0 && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff);
    if (!escaped) continue;
    parts.push(Buffer.from(text.slice(plainFrom, i), 'utf8'), Buffer.of(code - 0xdc00));
    plainFrom = i + 1;
  }
  parts.push(Buffer.from(text.slice(plainFrom), 'utf8'));
  return Buffer.concat(parts);
}

/** A block span already decoded: the characters decoded, and its edit when it had one. */
interface TSeenBlock {
  used: string;
  edit?: TEdit;
}

/** A block of a view: its alphabet characters, the view index of each, and where its padding ends. */
interface TBlock {
  kind: 'base64' | 'base64url' | 'hex';
  chars: string;
  at: Int32Array;
  end: number;
}

const isBase64Code = (code: number, urlSafe: boolean) =>
  (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || isDigitCode(code) || (urlSafe ? code === 0x2d || code === 0x5f : code === 0x2b || code === 0x2f);
const isBlockSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
const isHexDigitCode = (code: number) => isDigitCode(code) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);

/** The block's characters in text[from, to) (separators left out), and the view index of each. */
function readBlock(text: string, from: number, to: number, isChar: (code: number) => boolean, kind: TBlock['kind'], end: number): TBlock {
  const at = new Int32Array(to - from);
  const runs: string[] = [];
  let n = 0;
  for (let k = from; k < to; ) {
    const runFrom = k;
    while (k < to && isChar(text.charCodeAt(k))) at[n++] = k++;
    if (k > runFrom) runs.push(text.slice(runFrom, k));
    while (k < to && !isChar(text.charCodeAt(k))) k += 1;
  }
  return { kind, chars: runs.join(''), at: at.subarray(0, n), end };
}

/**
 * Maximal base64 runs of one alphabet, spaces and line breaks inside them allowed; padding up to
 * two '='. Each character is looked at once to find the runs; a run long enough is read again.
 */
function base64Blocks(text: string, urlSafe: boolean): TBlock[] {
  const blocks: TBlock[] = [];
  // A block of letters and digits only is read by the standard alphabet's pass.
  if (urlSafe && !text.includes('-') && !text.includes('_')) return blocks;
  const isChar = (code: number) => isBase64Code(code, urlSafe);
  for (let i = 0; i < text.length; ) {
    if (!isChar(text.charCodeAt(i))) {
      i += 1;
      continue;
    }
    let k = i;
    let count = 0;
    let last = i;
    let marked = false;
    let letters = false;
    while (k < text.length) {
      const code = text.charCodeAt(k);
      if (isChar(code)) {
        count += 1;
        last = k + 1;
        if (code > 0x39) letters = true;
        if (urlSafe ? code === 0x2d || code === 0x5f : code === 0x2b || code === 0x2f) marked = true;
        k += 1;
      } else if (isBlockSpace(code)) k += 1;
      else break;
    }
    let end = last;
    while (end < text.length && text.charCodeAt(end) === 0x3d && end - last < 2) end += 1;
    // A run of decimal digits is a number: its base64 reading never has two ASCII digits side by side, nor three letters.
    if (count >= MIN_BASE64 && (!urlSafe || marked) && letters) blocks.push(readBlock(text, i, last, isChar, urlSafe ? 'base64url' : 'base64', end));
    i = k;
  }
  return blocks;
}

/** Maximal runs of hex digits. */
function hexBlocks(text: string): TBlock[] {
  const blocks: TBlock[] = [];
  for (let i = 0; i < text.length; ) {
    if (!isHexDigitCode(text.charCodeAt(i))) {
      i += 1;
      continue;
    }
    let k = i;
    while (k < text.length && isHexDigitCode(text.charCodeAt(k))) k += 1;
    if (k - i >= MIN_HEX) blocks.push(readBlock(text, i, k, isHexDigitCode, 'hex', k));
    i = k;
  }
  return blocks;
}

/**
 * Each block of `view` decoded (at each alignment) and masked as a document of its own; a block
 * whose document held a secret gets its re-encoding as an edit. `seen` holds the spans already
 * decoded, by any view of this document.
 */
function* maskBlocks(document: string, view: TView, depth: number, context: TContext, edits: Edits, seen: Map<string, TSeenBlock>): TSteps<void> {
  const text = view.text;
  spend(context, text.length * 3);
  const blocks = [...base64Blocks(text, false), ...base64Blocks(text, true), ...hexBlocks(text)];
  for (const block of blocks) {
    const { chars } = block;
    const hex = block.kind === 'hex';
    for (let align = 0; align < (hex ? 2 : 4); align += 1) {
      const used = hex ? chars.slice(align, align + ((chars.length - align) & ~1)) : chars.slice(align);
      if (used.length < (hex ? MIN_HEX : MIN_BASE64)) continue;
      const first = block.at[align]!;
      const lastUsed = block.at[align + used.length - 1]!;
      const end = hex ? lastUsed + 1 : block.end;
      const start = view.starts[first]!;
      const stop = view.ends[end - 1]!;
      const key = `${block.kind}:${start}:${stop}`;
      const before = seen.get(key);
      if (before?.used === used) {
        // The same span read from its first character in this view: its edit is an aligned reading.
        if (align === 0 && before.edit) before.edit.aligned = true;
        continue;
      }
      const entry: TSeenBlock = { used };
      seen.set(key, entry);
      spend(context, used.length);
      const bytes = Buffer.from(used, hex ? 'hex' : block.kind);
      // A block is read from its first character whatever it holds; from a later one (past a word
      // glued in front of it) only when that reading is text: otherwise it is the same bytes shifted.
      if (bytes.length < 12 || (align > 0 && !readsAsText(bytes))) continue;
      const inner = textOf(bytes);
      const masked = yield* maskDocument(inner, depth + 1, context);
      if (masked === inner) continue;
      let encoded = bytesOf(masked).toString(block.kind);
      if (hex && /[A-F]/.test(chars) && !/[a-f]/.test(chars)) encoded = encoded.toUpperCase();
      if (!hex) {
        encoded = encoded.replace(/=+$/, '');
        if (end > lastUsed + 1) encoded = encoded.padEnd(Math.ceil(encoded.length / 4) * 4, '=');
      }
      // Found through percent-encoding, it goes back percent-encoded, so a form reader still reads it.
      if (/%[0-9A-Fa-f]{2}/.test(document.slice(start, stop))) encoded = encoded.replace(/[+/=]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
      entry.edit = { start, end: stop, text: encoded, kind: 'block', aligned: align === 0 };
      edits.add(entry.edit);
    }
  }
}

/** Every edit the document's views call for. */
function* collectEdits(text: string, depth: number, context: TContext, edits: Edits): TSteps<void> {
  const views: TView[] = [normalisedView(text, context.normaliser)];
  spend(context, text.length);
  let last = views[0]!;
  for (let level = 0; level < MAX_ESCAPE_LEVELS; level += 1) {
    // Each view is a pass over the whole document: a step of its own.
    yield;
    const next = yield* escapeView(last, context.normaliser);
    spend(context, last.text.length);
    if (next.text === last.text) break;
    views.push(next);
    last = next;
  }
  for (const source of last === views[0] ? [last] : [views[0]!, last]) {
    if (!source.text.includes('=')) continue;
    yield;
    const decoded = quotedPrintableView(source, context.normaliser);
    spend(context, source.text.length);
    if (decoded.text !== source.text) views.push(decoded);
  }
  const seen = new Map<string, TSeenBlock>();
  for (const view of views) {
    yield;
    yield* matchDigits(view, context, edits);
    yield;
    if (context.name) matchName(view, context, edits);
    yield;
    if (depth < MAX_DEPTH) yield* maskBlocks(text, view, depth, context, edits, seen);
  }
}

/** The document masked: every view's edits applied; again while an edit was left out that may not be covered. */
function* maskDocument(text: string, depth: number, context: TContext): TSteps<string> {
  let current = text;
  for (let pass = 0; pass < MAX_PASSES; pass += 1) {
    const edits = new Edits(current.length);
    yield* collectEdits(current, depth, context, edits);
    yield;
    const applied = edits.apply(current, context.meter);
    if (applied.clean) return applied.text;
    current = applied.text;
  }
  throw new Unmaskable();
}

/**
 * The masking as steps: each `yield` is a point where the work may pause, between views, matches
 * and nested documents (none of them holds the event loop for long on its own).
 */
type TSteps<T> = Generator<undefined, T, undefined>;

function* masked(text: string, secrets: TMaskedSecrets, meter: TMaskMeter): TSteps<string | null> {
  const folder = new LetterFolder();
  const pan = (secrets.pan ?? '').replace(/\D/g, '');
  const cvv = secrets.cvv !== undefined && /^\d{3,4}$/.test(secrets.cvv) ? secrets.cvv : undefined;
  const name = nameOf(secrets.holderName, folder);
  const context: TContext = {
    ...(pan.length >= 12 ? { pan } : {}),
    ...(cvv ? { cvv } : {}),
    ...(name ? { name } : {}),
    normaliser: new CharacterNormaliser(),
    folder,
    meter,
    budget: meter.work + WORK_PER_CHARACTER * Math.max(text.length, 64),
  };
  try {
    return redactPans(yield* maskDocument(text, 0, context));
  } catch (error) {
    if (error instanceof Unmaskable) return null;
    throw error;
  }
}

/**
 * `text` with this card, its CVV and holder's name, and any other card number masked (see the
 * file's comment), or null when it cannot be masked within its work bound: it must then not be
 * returned, recorded or logged. `meter` counts the work done, for the tests of its shape. In one
 * go: for short texts (a header, an error message); an answer's body goes to maskAnswerBody.
 */
export function maskSecrets(text: string, secrets: TMaskedSecrets, meter: TMaskMeter = { work: 0 }): string | null {
  const steps = masked(text, secrets, meter);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** How long the masking of an answer's body holds the event loop before it lets other work run. */
const SLICE_MS = 10;

/**
 * maskSecrets, letting other work run every `sliceMs`: a worker masking a large hostile answer
 * goes on serving its other jobs (another property's tokenize) meanwhile.
 */
export async function maskAnswerBody(text: string, secrets: TMaskedSecrets, sliceMs = SLICE_MS): Promise<string | null> {
  const steps = masked(text, secrets, { work: 0 });
  let since = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - since >= sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      since = performance.now();
    }
  }
}

/** Each value masked; a value that cannot be masked (maskSecrets' null) is left out. */
export function maskHeaders(headers: Record<string, string>, secrets: TMaskedSecrets): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const text = maskSecrets(value, secrets);
    if (text !== null) result[name] = text;
  }
  return result;
}
