// Cursor pages: the token holds the sort values of the last row returned (keyset pagination), so
// a row inserted between two pages never shifts the next one, and a digest of the query it
// belongs to, so a token is not replayed against other filters or another sort.

import { createHash } from 'node:crypto';
import { AppError } from '../errors.js';

/** What a token holds: its version, the query's digest and the last row's sort values. */
interface TPageToken {
  v: 1;
  q: string;
  k: Array<string | null>;
}

export function queryDigest(query: unknown): string {
  return createHash('sha256').update(JSON.stringify(query)).digest('base64url').slice(0, 22);
}

export function encodePageToken(digest: string, keys: Array<string | null>): string {
  return Buffer.from(JSON.stringify({ v: 1, q: digest, k: keys } satisfies TPageToken)).toString('base64url');
}

export function decodePageToken(token: string, digest: string, keyCount: number): Array<string | null> {
  const invalid = () => AppError.invalid([{ path: 'pageToken', message: 'is not a page token of this query' }]);
  let parsed: TPageToken;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as TPageToken;
  } catch {
    throw invalid();
  }
  if (parsed?.v !== 1 || parsed.q !== digest || !Array.isArray(parsed.k) || parsed.k.length !== keyCount) throw invalid();
  if (!parsed.k.every((value) => value === null || typeof value === 'string')) throw invalid();
  return parsed.k;
}
