/**
 * Short, bounded quotes of request values for error messages. A hostile
 * value may be a megabyte string or an array nested 20,000 deep; quoting it
 * whole made a 1 MiB error body, and `JSON.stringify` of the deep one threw
 * "Maximum call stack size exceeded" (a 500). These never recurse and never
 * return more than about {@link QUOTE_MAX} characters.
 */

/** Longest quoted piece of a value, in characters, before it is cut with "…". */
export const QUOTE_MAX = 60;

/** `text` cut to at most `max` characters, marking the cut with "…". */
export function truncate(text: string, max = QUOTE_MAX): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * A short description of any JSON value: a truncated, JSON-quoted string, a
 * number, or the kind of a container with its size (never its contents).
 */
export function quote(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(truncate(value));
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return `an array of ${value.length} item${value.length === 1 ? '' : 's'}`;
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** `n` with its noun, singular for one: "1 station", "2 stations", "1,200 stations". */
export function countOf(n: number, noun: string, plural = `${noun}s`): string {
  return `${n.toLocaleString('en')} ${n === 1 ? noun : plural}`;
}
