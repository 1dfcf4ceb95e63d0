/**
 * Dates and periods. A period is one step of a time scale; its key is the
 * text used in responses (contract 2.3): hourly `yyyy-mm-ddThh:mm:ss`, daily
 * `yyyy-mm-dd`, monthly `yyyy-mm-01`, annual `yyyy`, and `calendar_month`
 * (the long-term rain layers) `--mm`. All arithmetic is on calendar fields in
 * UTC, so there is no daylight-saving ambiguity: station times are local
 * standard time (SAST, UTC+2, which has no DST) written without a zone.
 * The scales themselves (formats, examples, calendars) are described in
 * time-scales.ts; the arithmetic here follows each scale's calendar.
 */
import { fieldError } from './errors.ts';
import { quote } from './quote.ts';
import { TIME_SCALES, type StationTimeScale, type TimeScale } from './time-scales.ts';

export type { TimeScale } from './time-scales.ts';

/** Most periods one request may enumerate (docs/contract.md). Two leap years of hours fit. */
export const MAX_PERIODS = 17_568;

/** The format of a time scale's dates, for messages and the UI. */
export function dateFormatOf(scale: TimeScale): string {
  return TIME_SCALES[scale].format;
}

/**
 * A parsed date as a position on its scale: hours, days or months since
 * 1970 (UTC calendar), years, or month number 1–12.
 */
export type Ordinal = number;

function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** Parses `text` as a date of `scale`; throws `invalid_date` naming `field`. */
export function parseDate(scale: TimeScale, text: unknown, field: string): Ordinal {
  const spec = TIME_SCALES[scale];
  if (typeof text !== 'string') {
    throw fieldError(
      'invalid_date',
      field,
      `${field} must be a string like "${spec.example}" for timeScale "${scale}".`,
    );
  }
  const g = spec.parse.exec(text)?.groups;
  const bad = (why: string) =>
    fieldError(
      'invalid_date',
      field,
      `${field} ${quote(text)} ${why} (timeScale "${scale}" wants ${spec.format}, e.g. "${spec.example}").`,
    );
  if (!g) throw bad('is not in the right format');
  const n = (name: string) => Number(g[name] ?? 0);
  if (spec.calendar === 'month_of_year') {
    const month = n('month');
    if (month < 1 || month > 12) throw bad('is not a month 01–12');
    return month;
  }
  const year = n('year');
  if (year < 1800 || year > 2200) throw bad('has a year outside 1800–2200');
  if (spec.calendar === 'year') return year;
  const month = n('month');
  if (month < 1 || month > 12) throw bad('has a month outside 01–12');
  if (spec.calendar === 'month') return (year - 1970) * 12 + (month - 1);
  const day = n('day');
  if (day < 1 || day > daysInMonth(year, month)) throw bad(`has no day ${String(day).padStart(2, '0')} in that month`);
  const days = Date.UTC(year, month - 1, day) / 86_400_000;
  if (spec.calendar === 'day') return days;
  const [hour, minute, second] = [n('hour'), n('minute'), n('second')];
  if (hour > 23) throw bad('has an hour outside 00–23');
  if (minute !== 0 || second !== 0) throw bad('must have minutes and seconds 00:00');
  return days * 24 + hour;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** The response key of the period at `ordinal`. */
export function periodKey(scale: TimeScale, ordinal: Ordinal): string {
  switch (TIME_SCALES[scale].calendar) {
    case 'month_of_year':
      // ISO 8601's "--MM" (a month of any year). Plain "10".."12" would be
      // integer-like object keys, which JavaScript always orders first.
      return `--${pad(ordinal)}`;
    case 'year':
      return String(ordinal);
    case 'month': {
      const y = 1970 + Math.floor(ordinal / 12);
      return `${pad(y, 4)}-${pad((((ordinal % 12) + 12) % 12) + 1)}-01`;
    }
    case 'day':
      return new Date(ordinal * 86_400_000).toISOString().slice(0, 10);
    case 'hour':
      return new Date(ordinal * 3_600_000).toISOString().slice(0, 19);
  }
}

/**
 * Every period from `start` to `end` inclusive, as ordinals. Calendar months
 * wrap: 11 → 02 is November, December, January, February (a summer season).
 * Throws `too_many_periods` past {@link MAX_PERIODS}.
 */
export function enumeratePeriods(scale: TimeScale, start: Ordinal, end: Ordinal, maxPeriods = MAX_PERIODS): Ordinal[] {
  const out: Ordinal[] = [];
  if (TIME_SCALES[scale].calendar === 'month_of_year') {
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
  if (TIME_SCALES[scale].calendar !== 'month_of_year' && start > end) {
    throw fieldError(
      'invalid_date_range',
      'startDate',
      `startDate ${quote(startDate)} is after endDate ${quote(endDate)}.`,
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
