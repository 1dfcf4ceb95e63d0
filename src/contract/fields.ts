/**
 * Reading a request's JSON fields: the object checks every validator
 * shares (unknown fields, required fields, one of a set), each throwing a
 * 400 whose `field` points at the value and whose `params` carry what was
 * allowed and what was sent, so clients need not read the message.
 */
import { ClimateQueryError, fieldError, pointerToken, toPointer } from './errors.ts';
import { quote, truncate } from './quote.ts';

/** A parsed JSON object. */
export type Json = Record<string, unknown>;

/** True for a JSON object (not null, not an array). */
export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Names quoted and joined for a message: `"a", "b"`. */
export const list = (xs: readonly string[]) => xs.map((x) => `"${x}"`).join(', ');

/** The body as an object, or `invalid_json`. */
export function requireObject(body: unknown, what = 'The request body'): Json {
  if (!isObject(body)) throw new ClimateQueryError('invalid_json', `${what} must be a JSON object.`);
  return body;
}

/**
 * Refuses any key of `obj` not in `allowed` (`unknown_field`, named with
 * `prefix`; params `allowed`). `context` says why, when the set depends on
 * the request (", for an undated layer").
 */
export function rejectUnknown(obj: Json, allowed: readonly string[], prefix: string, context = ''): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) {
      // A hostile key may be a megabyte long: name it by a short piece.
      const field = prefix + truncate(key);
      const names = allowed.map((a) => prefix + a);
      // The client's key may hold "." or "/": it is one escaped token, never read as a dotted path.
      throw fieldError(
        'unknown_field',
        `${prefix === '' ? '' : toPointer(prefix.slice(0, -1))}/${pointerToken(truncate(key))}`,
        `${field} is not a field of this endpoint${context}; it takes ${list(names)}.`,
        { allowed: names },
      );
    }
  }
}

/** The value of a required field, or `missing_field`. */
export function requireField(obj: Json, key: string, prefix = ''): unknown {
  if (!(key in obj) || obj[key] === undefined)
    throw fieldError('missing_field', prefix + key, `${prefix + key} is required.`);
  return obj[key];
}

/** `value` when it is one of `allowed`, else `invalid_field` listing them (params `allowed`, `got`). */
export function oneOf<T extends string>(value: unknown, allowed: readonly T[], field: string, context = ''): T {
  if (typeof value !== 'string' || !allowed.includes(value as T)) {
    throw fieldError(
      'invalid_field',
      field,
      `${field} must be one of ${list(allowed)}${context}; got ${quote(value)}.`,
      {
        allowed,
        got: quote(value),
      },
    );
  }
  return value as T;
}
