import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Cluster } from 'ioredis';
import type { TRedisClient } from '@folio-vault/shared/connections';

/**
 * Finds card data in a blob of text. A PAN is looked for as plain digits, with up to three
 * characters that are not letters or digits between any two of them (groupings, separators), and
 * in the encodings the forward's answer masking reads (its tests leave every one of them behind,
 * masked): JSON \u escapes, percent-encoding (also of the '%'), character references, quoted-
 * printable, fullwidth digits, hex, and base64 (any alignment, line breaks ignored, and inside
 * base64 down to three levels). A CVV only as a whole token (not inside a longer run of digits or
 * base64), as a short number otherwise matches by chance inside any ciphertext or timestamp.
 */
export function findPans(text: string, pans: string[]): string[] {
  return pans.filter((pan) => holdsPan(text, pan, 3));
}

function holdsPan(text: string, pan: string, depth: number): boolean {
  const codes = Array.from(pan, (digit) => digit.charCodeAt(0));
  const patterns = [
    pan.split('').join('[^A-Za-z0-9]{0,3}'),
    codes.map((code) => `&#0*${code};?`).join(''),
    codes.map((code) => `&#[xX]0*${code.toString(16)};?`).join(''),
  ];
  if (patterns.some((pattern) => new RegExp(pattern).test(text)) || panForms(pan).some((form) => text.includes(form))) return true;
  // Line breaks, and escaped ones however many times their backslash was escaped, out of base64.
  const unwrapped = text.replace(/\s+|(?:\\)+[nr]/g, '');
  if (base64Forms(pan).some((form) => unwrapped.includes(form))) return true;
  if (depth === 0) return false;
  return Array.from(unwrapped.matchAll(/[A-Za-z0-9+/_-]{16,}={0,2}/g), ([run]) => Buffer.from(run, 'base64').toString('latin1')).some((decoded) =>
    holdsPan(decoded, pan, depth - 1),
  );
}

const hex2 = (code: number) => code.toString(16).padStart(2, '0');

/** The PAN written digit by digit in each escape an answer may carry it in (character references are patterns, above). */
function panForms(pan: string): string[] {
  const codes = Array.from(pan, (digit) => digit.charCodeAt(0));
  const each = (write: (code: number) => string) => codes.map(write).join('');
  const hex = Buffer.from(pan).toString('hex');
  return [
    each((c) => `\\u00${hex2(c)}`),
    each((c) => `%${hex2(c).toUpperCase()}`),
    each((c) => `%${hex2(c)}`),
    each((c) => `%25${hex2(c).toUpperCase()}`),
    each((c) => `=${hex2(c).toUpperCase()}`),
    each((c) => String.fromCharCode(c + 0xfee0)),
    hex,
    hex.toUpperCase(),
  ];
}

/** What base64 of any text holding the PAN holds, whatever the PAN's offset: the groups that only its bytes make. */
function base64Forms(pan: string): string[] {
  return [0, 1, 2].flatMap((offset) => {
    const encoded = Buffer.from(`${'x'.repeat(offset)}${pan}`).toString('base64');
    const stable = encoded.slice(offset === 0 ? 0 : 4, (offset + pan.length) % 3 === 0 ? undefined : -4);
    return [stable, stable.replace(/\+/g, '-').replace(/\//g, '_')];
  });
}

export function findCvvs(text: string, cvvs: string[]): string[] {
  return cvvs.filter((cvv) => new RegExp(`(?<![A-Za-z0-9+/=_-])${cvv}(?![A-Za-z0-9+/=_-])`).test(text));
}

/** Every key of the Redis database (of every master of a cluster), every type, as text (key names included). */
export async function dumpRedis(client: TRedisClient): Promise<{ text: string; keys: number }> {
  const parts: string[] = [];
  let keys = 0;
  for (const redis of client instanceof Cluster ? client.nodes('master') : [client]) {
    for await (const batch of redis.scanStream({ count: 1000 }) as AsyncIterable<string[]>) {
      for (const key of batch) {
        keys += 1;
        parts.push(key);
        const type = await redis.type(key);
        if (type === 'string') parts.push((await redis.get(key)) ?? '');
        else if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
        else if (type === 'list') parts.push(JSON.stringify(await redis.lrange(key, 0, -1)));
        else if (type === 'set') parts.push(JSON.stringify(await redis.smembers(key)));
        else if (type === 'zset') parts.push(JSON.stringify(await redis.zrange(key, 0, -1)));
        else if (type === 'stream') parts.push(JSON.stringify(await redis.xrange(key, '-', '+')));
        else parts.push(`<${type}>`);
      }
    }
  }
  return { text: parts.join('\n'), keys };
}

/** JSON numbers in log lines and answers are timings, pids and counts; a CVV enters as a string. */
export const withoutJsonNumbers = (text: string) => text.replace(/":-?\d+(\.\d+)?(?=[,}])/g, '":0');

/** Data rows of a pg_dump (the lines of its COPY blocks). */
export function dumpRows(dump: string): number {
  return Array.from(dump.matchAll(/^COPY [^\n]*FROM stdin;\n([\s\S]*?)^\\\.$/gm), (block) => block[1]!.split('\n').length - 1).reduce((a, b) => a + b, 0);
}

export interface TScan {
  store: string;
  bytes: number;
  /** What was read, counted in the store's own units ("412 keys", "97 rows"). */
  units: string;
  pans: string[];
  cvvs: string[];
}

/**
 * Scans one store's text for the canaries and prints its figures. `cvvText` is the same text with
 * what cannot hold a CVV by construction removed (RESP framing, hex ciphertext, JSON numbers).
 */
export function scanStore(store: string, text: string, canaries: { pans: string[]; cvvs: string[] }, options: { cvvText?: string; units?: string } = {}): TScan {
  const result = { store, bytes: Buffer.byteLength(text), units: options.units ?? '', pans: findPans(text, canaries.pans), cvvs: findCvvs(options.cvvText ?? text, canaries.cvvs) };
  // Tests print their figures.
  // eslint-disable-next-line no-console
  console.log(`residue ${store}: ${result.pans.length} PAN hits, ${result.cvvs.length} CVV hits over ${result.bytes} bytes${result.units ? ` (${result.units})` : ''}`);
  return result;
}

/** The append-only files of a Redis whose data directory is `dir`, as one text (latin1: bytes kept). */
export async function readAof(dir: string): Promise<{ text: string; files: number }> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile() && /appendonly/.test(entry.name)).map((entry) => join(entry.parentPath, entry.name));
  const texts = await Promise.all(files.map(async (file) => (await readFile(file)).toString('latin1')));
  return { text: texts.join('\n'), files: files.length };
}
