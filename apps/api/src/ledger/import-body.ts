// The import's body, read and checked without holding the event loop (docs/ledger.md#import): one
// JSON.parse and one schema parse of a body of up to 64 MB would be one long stretch of it. Here
// the bytes are read as they come, the top level is split into its members and each list into its
// records (a scan that finds where each value ends), and every record is parsed and checked
// on its own, with a turn of the event loop after each slice of work (pacer.ts). The answers are
// those of a whole-body parse: the same field paths, the same malformed-JSON answer. The bytes are
// read, and a byte order mark, another charset or bytes that are not UTF-8 answered, as for every
// JSON route (http/json-body.ts); every record is checked, and its problems counted, but only the
// first are kept (errors.ts addFieldErrors), so a body of a million bad fields costs no list of them.

import { isUtf8 } from 'node:buffer';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import { addFieldErrors, MAX_LISTED_FIELD_ERRORS, NO_FIELD_ERRORS, type TFieldError } from '@folio-vault/shared/errors';
import { pacer } from '@folio-vault/shared/ledger/pacer';
import { IMPORT_LISTS, ZImportEnvelope, type TImportListName, type TImportRequest } from '@folio-vault/shared/ledger/schemas';
import { shownFieldName } from '../http/field-path.js';
import { checkCharset, invalidUtf8Problem, notJson, rawBody, withoutBom } from '../http/json-body.js';
import { fieldErrorCount, issuesToFieldErrors, type TBodyRead } from '../http/route.js';

/**
 * The largest value a record (or the property) may take in the body. A ledger record is a few kB
 * (a reservation with 100 rooms, every character escaped, under 200 kB): a larger one is refused
 * at its path without parsing it, so no single value costs one long parse.
 */
const MAX_VALUE_BYTES = 1024 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const isSpace = (byte: number | undefined) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

class TooLarge extends Error {}

/** Where each value of a JSON text ends. Only finds the ends: JSON.parse checks each value's content. */
class JsonScan {
  constructor(readonly bytes: Buffer) {}

  /** The first index at or after `at` that is not white space. */
  skipSpace(at: number): number {
    let i = at;
    while (isSpace(this.bytes[i])) i += 1;
    return i;
  }

  /** The index after the string that opens at `at`. */
  stringEnd(at: number): number {
    let i = at + 1;
    for (;;) {
      const quote = this.bytes.indexOf(QUOTE, i);
      if (quote < 0) throw notJson();
      let backslashes = 0;
      while (this.bytes[quote - 1 - backslashes] === BACKSLASH) backslashes += 1;
      if (backslashes % 2 === 0) return quote + 1;
      i = quote + 1;
    }
  }

  /** The index after the value that starts at `at`; TooLarge past MAX_VALUE_BYTES. */
  valueEnd(at: number): number {
    const first = this.bytes[at];
    if (first === undefined) throw notJson();
    if (first === QUOTE) return this.within(at, this.stringEnd(at));
    const limit = Math.min(this.bytes.length, at + MAX_VALUE_BYTES + 1);
    if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
      let i = at;
      while (i < limit && !isSpace(this.bytes[i]) && this.bytes[i] !== COMMA && this.bytes[i] !== CLOSE_OBJECT && this.bytes[i] !== CLOSE_ARRAY) i += 1;
      return this.within(at, i);
    }
    let depth = 0;
    let i = at;
    while (i < limit) {
      const byte = this.bytes[i]!;
      if (byte === QUOTE) {
        i = this.stringEnd(i);
        continue;
      }
      if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) depth += 1;
      else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
        depth -= 1;
        if (depth === 0) return this.within(at, i + 1);
      }
      i += 1;
    }
    if (i >= this.bytes.length) throw notJson();
    throw new TooLarge();
  }

  parse(from: number, to: number): unknown {
    try {
      return JSON.parse(this.bytes.toString('utf8', from, to));
    } catch {
      throw notJson();
    }
  }

  /**
   * The field error for bytes of the value from `from` to `to` that are not UTF-8, at `at` (the
   * value's path) and below; undefined when they all are. Checked before the value is parsed, so
   * no U+FFFD stands in for them.
   */
  utf8Problem(from: number, to: number, at: readonly string[]): TFieldError | undefined {
    const value = this.bytes.subarray(from, to);
    if (isUtf8(value)) return undefined;
    const problem = invalidUtf8Problem(value, at);
    if (!problem) throw notJson();
    return problem;
  }

  private within(from: number, to: number): number {
    if (to - from > MAX_VALUE_BYTES) throw new TooLarge();
    return to;
  }
}

/** A member of the top-level object: a list's records still as byte ranges, or any other value parsed. */
type TMember = { records: Array<[number, number]> } | { value: unknown };

const isList = (key: string): key is TImportListName => Object.hasOwn(IMPORT_LISTS, key);
const refused = (problem: TFieldError): TBodyRead<never> => ({ problems: addFieldErrors(NO_FIELD_ERRORS, [problem]) });
const tooLarge = (path: string): TBodyRead<never> => refused({ path, message: `is larger than ${MAX_VALUE_BYTES / 1024 / 1024} MB` });

/**
 * The members of the top-level object, in order (a repeated key: the last, as JSON.parse has it);
 * undefined when the body is not an object.
 */
async function splitTopLevel(scan: JsonScan, pause: () => Promise<void>): Promise<Map<string, TMember> | TBodyRead<never> | undefined> {
  const members = new Map<string, TMember>();
  let i = scan.skipSpace(0);
  if (i >= scan.bytes.length) return members; // An empty body is {}, as express.json has it.
  if (scan.bytes[i] !== OPEN_OBJECT) return undefined;
  i = scan.skipSpace(i + 1);
  if (scan.bytes[i] === CLOSE_OBJECT) i += 1;
  else {
    for (;;) {
      if (scan.bytes[i] !== QUOTE) throw notJson();
      const keyEnd = scan.stringEnd(i);
      if (scan.utf8Problem(i, keyEnd, [])) return refused({ path: 'body', message: 'holds a field name that is not valid UTF-8' });
      const key = scan.parse(i, keyEnd) as string;
      const shownKey = shownFieldName(key, members.size + 1);
      i = scan.skipSpace(keyEnd);
      if (scan.bytes[i] !== COLON) throw notJson();
      i = scan.skipSpace(i + 1);
      if (isList(key) && scan.bytes[i] === OPEN_ARRAY) {
        const records: Array<[number, number]> = [];
        i = scan.skipSpace(i + 1);
        if (scan.bytes[i] === CLOSE_ARRAY) i += 1;
        else {
          for (;;) {
            let end: number;
            try {
              end = scan.valueEnd(i);
            } catch (error) {
              if (error instanceof TooLarge) return tooLarge(`${key}.${records.length}`);
              throw error;
            }
            records.push([i, end]);
            i = scan.skipSpace(end);
            await pause();
            if (scan.bytes[i] === CLOSE_ARRAY) break;
            if (scan.bytes[i] !== COMMA) throw notJson();
            i = scan.skipSpace(i + 1);
          }
          i += 1;
        }
        members.set(key, { records });
      } else {
        let end: number;
        try {
          end = scan.valueEnd(i);
        } catch (error) {
          if (error instanceof TooLarge) return tooLarge(shownKey);
          throw error;
        }
        const notUtf8 = scan.utf8Problem(i, end, [shownKey]);
        if (notUtf8) return refused(notUtf8);
        members.set(key, { value: scan.parse(i, end) });
        i = end;
      }
      i = scan.skipSpace(i);
      if (scan.bytes[i] === CLOSE_OBJECT) {
        i += 1;
        break;
      }
      if (scan.bytes[i] !== COMMA) throw notJson();
      i = scan.skipSpace(i + 1);
    }
  }
  if (scan.skipSpace(i) !== scan.bytes.length) throw notJson();
  return members;
}

/** The import route's body reader (route.ts bodyReader): ZImportRequest's value or its field problems. */
export function importBodyReader(limitBytes: number): (req: Request, res: Response) => Promise<TBodyRead<TImportRequest>> {
  const read = rawBody(limitBytes);
  return async (req, res) => {
    checkCharset(req);
    const scan = new JsonScan(withoutBom(await read(req, res)));
    const pause = pacer();
    const members = await splitTopLevel(scan, pause);
    if (members !== undefined && !(members instanceof Map)) return members;
    // The top level with each list's records left out: the same rules and answers as ZImportRequest's.
    const envelope = members
      ? Object.fromEntries([...members].map(([key, member]) => [key, 'records' in member ? new Array(member.records.length) : member.value]))
      : [];
    const top = ZImportEnvelope.safeParse(envelope);
    const topProblems = top.success ? [] : issuesToFieldErrors(top.error.issues, 'body', envelope);
    // Every record is checked and its problems counted; only the first are kept (errors.ts addFieldErrors).
    let problems = addFieldErrors(NO_FIELD_ERRORS, topProblems);
    const lists: Partial<Record<TImportListName, unknown[]>> = {};
    for (const [key, member] of members ?? []) {
      if (!isList(key) || !('records' in member)) continue;
      // A list over its length limit is refused whole (above): its records are not checked.
      if (topProblems.some((problem) => problem.path === key)) continue;
      const schema: z.ZodType = IMPORT_LISTS[key];
      const values: unknown[] = [];
      for (const [index, [from, to]] of member.records.entries()) {
        const notUtf8 = scan.utf8Problem(from, to, [key, String(index)]);
        if (notUtf8) problems = addFieldErrors(problems, [notUtf8]);
        else {
          const record = scan.parse(from, to);
          const checked = schema.safeParse(record);
          if (checked.success) values.push(checked.data);
          else if (problems.listed.length >= MAX_LISTED_FIELD_ERRORS) {
            problems = addFieldErrors(problems, { listed: [], total: fieldErrorCount(checked.error.issues) });
          } else {
            const issues = checked.error.issues.map((issue) => ({ ...issue, path: [key, index, ...issue.path] }));
            problems = addFieldErrors(problems, issuesToFieldErrors(issues, 'body', { [key]: { [index]: record } }));
          }
        }
        await pause();
      }
      lists[key] = values;
    }
    if (problems.total > 0 || !top.success) return { problems };
    return { value: { ...top.data, ...lists } as TImportRequest };
  };
}
