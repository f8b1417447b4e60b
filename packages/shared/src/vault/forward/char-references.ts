// HTML and XML character references, read as generously as a browser reads them: decimal and
// hexadecimal ones with any number of leading zeros and with or without the closing ';'
// (`&#52;`, `&#52`, `&#0000000052;`, `&#x34;`), and a named set that covers what a gateway
// writes between digits or in a name (spaces of every width, invisible characters, dashes and the
// punctuation it separates groups with). The forward's template check reads a template's XML text
// with it (template.ts) and the answer's masking reads an answer with it (mask-views.ts): one
// reading for both sides.

const NAMED: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'",
  nbsp: '\u00a0', ensp: '\u2002', emsp: '\u2003', emsp13: '\u2004', emsp14: '\u2005', numsp: '\u2007', puncsp: '\u2008',
  thinsp: '\u2009', hairsp: '\u200a', ThinSpace: '\u2009', VeryThinSpace: '\u200a', MediumSpace: '\u205f', NoBreak: '\u2060',
  zwsp: '\u200b', ZeroWidthSpace: '\u200b', zwnj: '\u200c', zwj: '\u200d', shy: '\u00ad',
  ndash: '\u2013', mdash: '\u2014', minus: '\u2212', hyphen: '\u2010', dash: '\u2010',
  period: '.', comma: ',', colon: ':', semi: ';', sol: '/', bsol: '\\', plus: '+', lowbar: '_', UnderBar: '_', excl: '!',
  num: '#', dollar: '$', percnt: '%', lpar: '(', rpar: ')', ast: '*', equals: '=', quest: '?', commat: '@', verbar: '|',
  Tab: '\t', NewLine: '\n',
};
/** Names HTML5 reads without their ';' (its "legacy" references) among the set above. */
const SEMICOLON_OPTIONAL = new Set(['amp', 'lt', 'gt', 'quot', 'nbsp', 'shy']);
const LONGEST_NAME = Math.max(...Object.keys(NAMED).map((name) => name.length));

const isDecimal = (code: number) => code >= 0x30 && code <= 0x39;
const isHex = (code: number) => isDecimal(code) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
const isNameChar = (code: number) => isDecimal(code) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);

/** A code point as text; 0, a surrogate or past U+10FFFF is U+FFFD, as HTML reads it. */
function codePointText(value: number): string {
  if (value === 0 || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return '\uFFFD';
  return String.fromCodePoint(value);
}

/**
 * The character reference starting at text[i] ('&'): what it stands for and how many characters
 * it was written with, or undefined when none starts there. Digits are read to their end (the
 * value saturates past U+10FFFF), so the work is the reference's own length.
 */
export function characterReferenceAt(text: string, i: number): { char: string; length: number } | undefined {
  if (text.charCodeAt(i) !== 0x26) return undefined;
  let j = i + 1;
  if (text.charCodeAt(j) === 0x23) {
    j += 1;
    const hex = text.charCodeAt(j) === 0x78 || text.charCodeAt(j) === 0x58;
    if (hex) j += 1;
    const digitsFrom = j;
    let value = 0;
    while (j < text.length && (hex ? isHex(text.charCodeAt(j)) : isDecimal(text.charCodeAt(j)))) {
      value = Math.min(value * (hex ? 16 : 10) + Number.parseInt(text[j]!, 16), 0x110000);
      j += 1;
    }
    if (j === digitsFrom) return undefined;
    if (text.charCodeAt(j) === 0x3b) j += 1;
    return { char: codePointText(value), length: j - i };
  }
  while (j < text.length && j - i - 1 < LONGEST_NAME + 1 && isNameChar(text.charCodeAt(j))) j += 1;
  const run = text.slice(i + 1, j);
  if (text.charCodeAt(j) === 0x3b && Object.hasOwn(NAMED, run)) return { char: NAMED[run]!, length: j + 1 - i };
  // Without ';', a legacy name is read even when letters follow it ("&nbsp4242", "&amp;" aside).
  for (const name of SEMICOLON_OPTIONAL) if (run.startsWith(name)) return { char: NAMED[name]!, length: name.length + 1 };
  return undefined;
}

/** `text` with every character reference replaced by what it stands for. */
export function decodeCharacterReferences(text: string): string {
  let out = '';
  let at = 0;
  for (let i = text.indexOf('&'); i !== -1; i = text.indexOf('&', i)) {
    const reference = characterReferenceAt(text, i);
    if (!reference) {
      i += 1;
      continue;
    }
    out += text.slice(at, i) + reference.char;
    i += reference.length;
    at = i;
  }
  return out + text.slice(at);
}
