// Messages a client can act on for the issues zod words for programmers (docs/api.md#errors):
// "must be one of RESERVATION, HOUSE_ACCOUNT, …" rather than "Invalid option: expected one of
// "RESERVATION"|…", "must be at most 200 characters" rather than "Too big: expected string to
// have <=200 characters". Schemas that give their own message keep it. Each is a clause that
// follows a field's path ("amount: must be a number"), without a full stop.

import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// Every schema file imports z from here so `.openapi()` metadata is available before any
// schema is built: the OpenAPI document is generated from the same schemas that validate.
extendZodWithOpenApi(z);

const TYPE_NAMES: Record<string, string> = { int: 'an integer', array: 'an array', object: 'an object' };
const FORMAT_NAMES: Record<string, string> = {
  uuid: 'a UUID', email: 'an e-mail address', date: 'a date YYYY-MM-DD', datetime: 'an ISO 8601 date-time', url: 'a URL',
};
type TRawIssue = z.core.$ZodRawIssue;

/** "at most 200 characters", "at least 1 item", "at most 10": the bound of a too_big/too_small issue. */
function bound(issue: TRawIssue & { origin?: string; inclusive?: boolean }, word: 'most' | 'least', limit: number | bigint): string {
  const n = String(limit);
  const unit = issue.origin === 'string' ? ` character${n === '1' ? '' : 's'}` : ['array', 'set'].includes(issue.origin ?? '') ? ` item${n === '1' ? '' : 's'}` : '';
  if (issue.inclusive === false) return `${word === 'most' ? 'less' : 'more'} than ${n}${unit}`;
  return `at ${word} ${n}${unit}`;
}

/** A string "must be at most 5 characters" long; a list "must have at most 5 items"; a number "must be at most 5". */
const verbOf = (origin: string | undefined) => (origin === 'array' || origin === 'set' ? 'must have' : 'must be');

function clientMessage(issue: TRawIssue): string | undefined {
  // A union (an id as number or digits) reports a missing field as invalid_union.
  if (issue.input === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_union' || issue.code === 'invalid_value')) return 'is required';
  switch (issue.code) {
    case 'invalid_value': {
      const values = issue.values.map(String);
      return values.length === 1 ? `must be ${values[0]}` : `must be one of ${values.join(', ')}`;
    }
    case 'invalid_type': {
      const expected = String(issue.expected);
      return `must be ${TYPE_NAMES[expected] ?? `a ${expected}`}`;
    }
    case 'too_big':
      return `${verbOf(issue.origin)} ${bound(issue, 'most', issue.maximum)}`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return 'must not be empty';
      return `${verbOf(issue.origin)} ${bound(issue, 'least', issue.minimum)}`;
    case 'invalid_format':
      if (issue.format === 'regex') return 'is not in the expected format';
      return `must be ${FORMAT_NAMES[issue.format] ?? `a valid ${issue.format}`}`;
    case 'invalid_union':
      return 'is not any of the accepted forms';
    case 'unrecognized_keys':
      return `has unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    default:
      return undefined;
  }
}

z.config({ customError: clientMessage });

export { z };
