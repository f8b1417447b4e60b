import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Cluster } from 'ioredis';
import type { TRedisClient } from '@folio-vault/shared/connections';

/**
 * Finds card data in clear in a blob of text. A PAN is looked for as plain digits and in the
 * usual groupings; a CVV only as a whole token (not inside a longer run of digits or base64), as
 * a short number otherwise matches by chance inside any ciphertext or timestamp.
 */
export function findPans(text: string, pans: string[]): string[] {
  const hits: string[] = [];
  for (const pan of pans) {
    const grouped = pan.match(/.{1,4}/g)!;
    const variants = [pan, grouped.join(' '), grouped.join('-')];
    if (variants.some((variant) => text.includes(variant))) hits.push(pan);
  }
  return hits;
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
