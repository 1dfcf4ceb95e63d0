/**
 * Dates and periods. A period is one step of a time scale; its key is the
 * text used in responses (contract 2.3): hourly `yyyy-mm-ddThh:mm:ss`, daily
 * `yyyy-mm-dd`, dekadal the dekad's first day, monthly `yyyy-mm-01`, annual
 * `yyyy`, and `calendar_month` (the long-term rain layers) `--mm`. The
 * scales are described in time-scales.ts, the arithmetic of their
 * calendars in calendars.ts; this file validates and enumerates.
 */
import { CALENDARS, type CalendarSpec } from './calendars.ts';
import { fieldError } from './errors.ts';
import { quote, truncate } from './quote.ts';
import { TIME_SCALES, type StationTimeScale, type TimeScale } from './time-scales.ts';

export type { TimeScale } from './time-scales.ts';

/** Most periods one request may enumerate (docs/contract.md). Two leap years of hours fit. */
export const MAX_PERIODS = 17_568;

/** The format of a time scale's dates, for messages and the UI. */
export function dateFormatOf(scale: TimeScale): string {
  return TIME_SCALES[scale].format;
}

/**
 * A parsed date as a position on its scale: hours, days, dekads or months
 * since 1970 (UTC calendar), years, or month number 1–12 (calendars.ts).
 */
export type Ordinal = number;

/** Parses `text` as a date of `scale`; throws `invalid_date` naming `field`. */
export function parseDate(scale: TimeScale, text: unknown, field: string): Ordinal {
  const spec = TIME_SCALES[scale];
  if (typeof text !== 'string') {
    throw fieldError(
      'invalid_date',
      field,
      `${field} must be a string like "${spec.example}" for timeScale "${scale}".`,
      { timeScale: scale, format: spec.format, example: spec.example, reason: 'not a string' },
    );
  }
  const g = spec.parse.exec(text)?.groups;
  const bad = (why: string) =>
    fieldError(
      'invalid_date',
      field,
      `${field} ${quote(text)} ${why} (timeScale "${scale}" wants ${spec.format}, e.g. "${spec.example}").`,
      { got: truncate(text), reason: why, timeScale: scale, format: spec.format, example: spec.example },
    );
  if (!g) throw bad('is not in the right format');
  const n = (name: string) => Number(g[name] ?? 0);
  const parts = {
    year: n('year'),
    month: n('month'),
    day: n('day'),
    hour: n('hour'),
    minute: n('minute'),
    second: n('second'),
  };
  if (spec.calendar !== 'month_of_year' && (parts.year < 1800 || parts.year > 2200))
    throw bad('has a year outside 1800–2200');
  const o = (CALENDARS[spec.calendar] as CalendarSpec).ordinalOf(parts);
  if (typeof o !== 'number') throw bad(o.why);
  return o;
}

/** The response key of the period at `ordinal`. */
export function periodKey(scale: TimeScale, ordinal: Ordinal): string {
  return CALENDARS[TIME_SCALES[scale].calendar].keyOf(ordinal);
}

/** The request date (startDate/endDate) that names the period of response key `key`: "2024-03" for monthly "2024-03-01". */
export function requestDateOf(scale: TimeScale, key: string): string {
  return CALENDARS[TIME_SCALES[scale].calendar].requestDateOf(key);
}

/**
 * Every period from `start` to `end` inclusive, as ordinals. Calendar months
 * wrap: 11 → 02 is November, December, January, February (a summer season).
 * Throws `too_many_periods` past {@link MAX_PERIODS}.
 */
export function enumeratePeriods(scale: TimeScale, start: Ordinal, end: Ordinal, maxPeriods = MAX_PERIODS): Ordinal[] {
  const out: Ordinal[] = [];
  if (CALENDARS[TIME_SCALES[scale].calendar].wraps) {
    for (let m = start; ; m = (m % 12) + 1) {
      out.push(m);
      if (m === end) break;
    }
    return out;
  }
  const count = end - start + 1;
  if (count > maxPeriods) {
    throw fieldError(
      'too_many_periods',
      'endDate',
      `The range holds ${count} ${scale} periods; one request may ask for at most ${maxPeriods}. Split it into shorter ranges.`,
      { got: count, max: maxPeriods, timeScale: scale },
    );
  }
  for (let o = start; o <= end; o++) out.push(o);
  return out;
}

/** A validated date range: both ends as given, as ordinals, and every period key in order. */
export interface PeriodRange {
  scale: TimeScale;
  start: Ordinal;
  end: Ordinal;
  keys: string[];
}

/** Parses and checks startDate/endDate, then enumerates the keys. */
export function parseRange(scale: TimeScale, startDate: unknown, endDate: unknown): PeriodRange {
  const start = parseDate(scale, startDate, 'startDate');
  const end = parseDate(scale, endDate, 'endDate');
  // Months of any year wrap (11 → 02); every other range runs forward.
  if (!CALENDARS[TIME_SCALES[scale].calendar].wraps && start > end) {
    throw fieldError(
      'invalid_date_range',
      'startDate',
      `startDate ${quote(startDate)} is after endDate ${quote(endDate)}.`,
      { startDate: String(startDate), endDate: String(endDate), reason: 'start after end' },
    );
  }
  const keys = enumeratePeriods(scale, start, end).map((o) => periodKey(scale, o));
  return { scale, start, end, keys };
}

/** The SQL literal form of an ordinal for station tables (TIMESTAMP or DATE text). */
export function sqlTimeOf(scale: StationTimeScale, ordinal: Ordinal): string {
  const key = periodKey(scale, ordinal);
  return TIME_SCALES[scale].calendar === 'hour' ? key.replace('T', ' ') : key;
}
