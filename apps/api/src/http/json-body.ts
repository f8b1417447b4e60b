// Request bodies as every route reads them (docs/api.md#conventions): the bytes up to the route's
// limit (413 past it), UTF-8 alone, a leading byte order mark skipped, then JSON. Bytes that are
// not UTF-8 are refused at the value or field name that holds them (400), never stored as U+FFFD.
// The JSON routes read their body with jsonBodyReader; the import (ledger/import-body.ts) reads
// its own with the same parts, so both answer alike.

import { isUtf8 } from 'node:buffer';
import express, { type Request, type Response } from 'express';
import type { TFieldError } from '@folio-vault/shared/errors';
import { shownFieldName } from './field-path.js';

/** A route's body limit as written in its definition ('16kb', '64mb') in bytes, 1 kb being 1024 bytes as body-parser counts. */
export function limitBytes(limit: string): number {
  const match = /^(\d+)(b|kb|mb)$/i.exec(limit);
  if (!match) throw new Error(`body limit ${limit} is not a number of b, kb or mb`);
  return Number(match[1]) * { b: 1, kb: 1024, mb: 1024 * 1024 }[match[2]!.toLowerCase() as 'b' | 'kb' | 'mb'];
}

/** Body-parser's error for a body that is not JSON: the app answers it as for every other route (errors.ts). */
export function notJson(): Error {
  return Object.assign(new SyntaxError('The request body is not valid JSON'), { type: 'entity.parse.failed', status: 400, expose: true });
}

/** An error as body-parser raises it (`type`, `status`): the app answers it as for every other route (errors.ts). */
const bodyError = (message: string, type: string, status: number) => Object.assign(new Error(message), { type, status, expose: true });

/** Only UTF-8 is read (what every client sends); another charset is 415. */
export function checkCharset(req: Request): void {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.get('content-type') ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw bodyError(`unsupported charset "${charset}"`, 'charset.unsupported', 415);
  }
}

/** Whether the request has a body at all (a length or a chunked transfer), as body-parser judges it. */
export const hasBody = (req: Request) => req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;

/**
 * The body's bytes. With a Content-Length and no Content-Encoding (what clients send), each chunk
 * is copied into one buffer of that length as it arrives, never joined at the end in a single
 * stretch of the event loop. Otherwise body-parser reads it (inflation, chunked transfer), with its limit and errors.
 */
export function rawBody(limitBytes: number): (req: Request, res: Response) => Promise<Buffer> {
  const parser = express.raw({ limit: limitBytes, type: () => true });
  const byParser = (req: Request, res: Response) =>
    new Promise<Buffer>((resolve, reject) =>
      parser(req, res, (error?: unknown) => (error ? reject(error) : resolve(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0)))),
    );
  return (req, res) => {
    const declared = req.get('content-length');
    const encoding = (req.get('content-encoding') ?? 'identity').toLowerCase();
    if (declared === undefined || !/^\d+$/.test(declared) || encoding !== 'identity') return byParser(req, res);
    const length = Number(declared);
    return new Promise<Buffer>((resolve, reject) => {
      // As body-parser does: a refused body is read off before the answer, so the client gets it.
      let refused = false;
      const refuse = (error: Error) => {
        refused = true;
        req.removeAllListeners('data');
        req.resume();
        if (req.readableEnded) reject(error);
        else req.once('end', () => reject(error)).once('close', () => reject(error));
      };
      if (length > limitBytes) return refuse(bodyError('request entity too large', 'entity.too.large', 413));
      const body = Buffer.allocUnsafe(length);
      let received = 0;
      req.on('data', (chunk: Buffer) => {
        if (received + chunk.length > length) return refuse(bodyError('request size did not match content length', 'request.size.invalid', 400));
        received += chunk.copy(body, received);
      });
      req.once('end', () => (refused ? undefined : received === length ? resolve(body) : reject(bodyError('request size did not match content length', 'request.size.invalid', 400))));
      req.once('aborted', () => reject(bodyError('request aborted', 'request.aborted', 400)));
      req.once('error', (error) => reject(Object.assign(error, { type: 'request.aborted', status: 400 })));
    });
  };
}

/** `bytes` without a leading UTF-8 byte order mark (EF BB BF), which some clients write before JSON. */
export function withoutBom(bytes: Buffer): Buffer {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
}

/**
 * The index in `text` (`bytes` decoded, each sequence that is not UTF-8 replaced by U+FFFD) of the
 * first replacement; -1 when there is none. A U+FFFD the client sent (EF BF BD) is not one.
 */
function firstReplacement(bytes: Buffer, text: string): number {
  let byte = 0;
  let from = 0;
  for (let i = text.indexOf('\uFFFD'); i >= 0; i = text.indexOf('\uFFFD', i + 1)) {
    byte += Buffer.byteLength(text.slice(from, i));
    if (bytes[byte] !== 0xef || bytes[byte + 1] !== 0xbf || bytes[byte + 2] !== 0xbd) return i;
    byte += 3;
    from = i + 1;
  }
  return -1;
}

/** A place in a parsed body: its shown name and the place it is in. */
interface TPlace {
  name: string;
  parent?: TPlace;
}

const pathOf = (place: TPlace | undefined): string[] => {
  const names: string[] = [];
  for (let at = place; at; at = at.parent) names.unshift(at.name);
  return names;
};

/**
 * The string value or field name of `value` that holds `mark`, as a path and which of the two.
 * A walk with a stack of its own: a body may nest deeper than a call stack goes.
 */
function findMark(value: unknown, mark: string): { path: string[]; inName: boolean } | undefined {
  const stack: Array<{ value: unknown; place?: TPlace }> = [{ value }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { value: item, place } = next;
    if (typeof item === 'string') {
      if (item.includes(mark)) return { path: pathOf(place), inName: false };
    } else if (Array.isArray(item)) {
      item.forEach((element, index) => stack.push({ value: element, place: { name: String(index), parent: place } }));
    } else if (item !== null && typeof item === 'object') {
      const entries = Object.entries(item);
      for (const [index, [name, element]] of entries.entries()) {
        if (name.includes(mark)) return { path: pathOf(place), inName: true };
        stack.push({ value: element, place: { name: shownFieldName(name, index + 1), parent: place } });
      }
    }
  }
  return undefined;
}

/**
 * The field error for the first sequence of `bytes` (a JSON text) that is not UTF-8, at the string
 * value or field name holding it, under `at` (the path of the value `bytes` is, in a larger body):
 * `transactions.3.description: is not valid UTF-8`. Undefined when there is no such sequence, or
 * when it sits outside every string, where the text is not JSON either.
 */
export function invalidUtf8Problem(bytes: Buffer, at: readonly string[] = []): TFieldError | undefined {
  const text = bytes.toString('utf8');
  const index = firstReplacement(bytes, text);
  if (index < 0) return undefined;
  // The sequence is marked with a character the text does not hold, so the parsed value shows where it went.
  let code = 0xe000;
  while (text.includes(String.fromCharCode(code))) code += 1;
  const mark = String.fromCharCode(code);
  let value: unknown;
  try {
    value = JSON.parse(`${text.slice(0, index)}${mark}${text.slice(index + 1)}`);
  } catch {
    return undefined;
  }
  // Not found: a repeated field name whose earlier value JSON.parse dropped. The body is named.
  const found = findMark(value, mark) ?? { path: [], inName: false };
  const path = [...at, ...found.path].join('.') || 'body';
  return { path, message: found.inName ? 'holds a field name that is not valid UTF-8' : 'is not valid UTF-8' };
}

/** JSON.parse with body-parser's strict rules: an empty body is `{}`, anything but an object or array is not JSON. */
function parseStrict(text: string): unknown {
  if (text.length === 0) return {};
  const first = /^[ \t\n\r]*(.)/s.exec(text)?.[1];
  if (first !== '{' && first !== '[') throw notJson();
  try {
    return JSON.parse(text);
  } catch {
    throw notJson();
  }
}

/**
 * A JSON route's body reader: the value, or the field error of its first byte sequence that is
 * not UTF-8; a body that is not JSON throws body-parser's error (400, `body: is not valid JSON`).
 * A request without a body reads as undefined, as with body-parser.
 */
export function jsonBodyReader(limit: string): (req: Request, res: Response) => Promise<{ value: unknown } | { problem: TFieldError }> {
  const read = rawBody(limitBytes(limit));
  return async (req, res) => {
    if (!hasBody(req)) return { value: undefined };
    checkCharset(req);
    const bytes = withoutBom(await read(req, res));
    if (isUtf8(bytes)) return { value: parseStrict(bytes.toString('utf8')) };
    const problem = invalidUtf8Problem(bytes);
    if (!problem) throw notJson();
    return { problem };
  };
}
