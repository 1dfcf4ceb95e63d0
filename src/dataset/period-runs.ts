/**
 * How catalog.json writes a layer file's dates: the list itself, or — when they run on the layer's
 * calendar — a run `{first, last, missing?}` (every period from first to last but the missing
 * ones). A daily year is then ~60 bytes, not ~4.8 KB: ten daily layers over forty years make a
 * catalog every first query reads of tens of KiB, not about 2 MB. The engine expands a run when it
 * checks the catalog, bounded before it does; in memory a file's periods are always the list.
 */
import { CALENDARS } from '../contract/calendars.ts';
import { calendarOf, type TimeScale } from '../contract/time-scales.ts';

/** A file's periods as catalog.json may write them. */
export interface PeriodRun {
  first: string;
  last: string;
  /** Periods between first and last the file does not hold, in order. */
  missing?: string[];
}

/** Fewest periods a file writes as a run: a month of days or more. */
export const MIN_RUN_PERIODS = 28;

/** Most periods one file's run may stand for (a daily run of 500 years). */
export const MAX_RUN_PERIODS = 200_000;

/** `periods` as catalog.json writes them: a run where it is shorter, else the list as it is. */
export function compactPeriods(scale: TimeScale | null, periods: readonly string[]): string[] | PeriodRun {
  // A short list (a year of months, a few years) reads best as it is; a run pays for long ones.
  if (scale === null || periods.length < MIN_RUN_PERIODS) return [...periods];
  const cal = CALENDARS[calendarOf(scale)];
  if (cal.wraps) return [...periods];
  const ords = periods.map((p) => cal.ordinalOfKey(p));
  // Only keys the calendar writes back as they are (a run is expanded by the calendar's own keys).
  if (ords.some((o, i) => !Number.isFinite(o) || cal.keyOf(o) !== periods[i] || (i > 0 && o <= ords[i - 1]!)))
    return [...periods];
  const missing: string[] = [];
  for (let i = 1; i < ords.length; i++) for (let o = ords[i - 1]! + 1; o < ords[i]!; o++) missing.push(cal.keyOf(o));
  // A run pays only when few periods are missing: otherwise the list says it in fewer bytes.
  if (missing.length > periods.length / 4) return [...periods];
  return { first: periods[0]!, last: periods.at(-1)!, ...(missing.length > 0 ? { missing } : {}) };
}

/** The periods a run stands for, or why it is not one (words that follow the field's name). */
export function expandPeriods(scale: TimeScale | null, run: unknown): string[] | { why: string } {
  const r = run as Partial<PeriodRun> | null;
  if (scale === null) return { why: 'must be a list: an undated layer has no run of periods' };
  const cal = CALENDARS[calendarOf(scale)];
  if (typeof r?.first !== 'string' || typeof r.last !== 'string')
    return { why: 'must be a list of period keys or a run {"first", "last", "missing"?}' };
  const [a, b] = [cal.ordinalOfKey(r.first), cal.ordinalOfKey(r.last)];
  if (!Number.isFinite(a) || !Number.isFinite(b) || b < a || cal.wraps)
    return { why: `must run from a ${scale} period to a later one (got ${r.first} … ${r.last})` };
  if (b - a + 1 > MAX_RUN_PERIODS) return { why: `must stand for at most ${MAX_RUN_PERIODS} periods` };
  const missing = r.missing ?? [];
  if (!Array.isArray(missing) || missing.length > b - a - 1)
    return { why: 'must list its missing periods in a list shorter than the run' };
  const gone = new Set<number>();
  let prev = a;
  for (const m of missing) {
    const o = typeof m === 'string' ? cal.ordinalOfKey(m) : Number.NaN;
    if (!(o > prev && o < b)) return { why: 'must list its missing periods in order, strictly inside the run' };
    gone.add(o);
    prev = o;
  }
  const out: string[] = [];
  for (let o = a; o <= b; o++) if (!gone.has(o)) out.push(cal.keyOf(o));
  return out;
}
