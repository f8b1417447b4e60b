// How an answer names a place in the request body (docs/api.md#errors). A field name comes from
// the client and may be anything, a card number included, so it is echoed only when it is a plain
// name: a letter or `_`, then letters, digits, `_` or `-`, at most 64 characters and at most six
// digits in all (no card number fits, even split by `_`). Any other name is shown by its place in
// its object as sent: `[field 3]` is the third field.

const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const MAX_DIGITS = 6;

export function isPlainFieldName(name: string): boolean {
  return PLAIN_NAME.test(name) && name.replace(/[^0-9]/g, '').length <= MAX_DIGITS;
}

/** The name of the field `name`, the `position`th (from 1; 0 when not known) of its object, as an answer shows it. */
export function shownFieldName(name: string, position: number): string {
  if (isPlainFieldName(name)) return name;
  return position > 0 ? `[field ${position}]` : '[field]';
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A path into `input` as an answer shows it, dotted (`transactions.12.amount`): list indices as
 * numbers, field names through shownFieldName, their places read from `input` itself.
 */
export function shownPath(path: readonly PropertyKey[], input: unknown): string {
  const shown: string[] = [];
  let value: unknown = input;
  for (const key of path) {
    if (typeof key === 'number') shown.push(String(key));
    else if (typeof key === 'string') shown.push(isObject(value) ? shownFieldName(key, Object.keys(value).indexOf(key) + 1) : shownFieldName(key, 0));
    else shown.push('[field]');
    value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  }
  return shown.join('.');
}
