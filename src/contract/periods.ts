/**
 * Dates and periods. A period is one step of a time scale; its key is the
 * text used in responses (contract 2.3): hourly `yyyy-mm-ddThh:mm:ss`, daily
 * `yyyy-mm-dd`, monthly `yyyy-mm-01`, annual `yyyy`, and `calendar_month`
 * (the long-term rain layers) `--mm`. All arithmetic is on calendar fields in
 * UTC, so there is no daylight-saving ambiguity: station times are local
 * standard time (SAST, UTC+2, which has no DST) written without a zone.
 */
import { fieldError } from './errors.ts';
import { quote } from './quote.ts';

/** Every time scale a request can name. */
export type TimeScale = 'hourly' | 'daily' | 'monthly' | 'annual' | 'calendar_month';

/** Most periods one request may enumerate (docs/contract.md). Two leap years of hours fit. */
export const MAX_PERIODS = 17_568;

const FORMATS: Record<TimeScale, { re: RegExp; example: string }> = {
  hourly: { re: /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/, example: '2024-01-31T13:00:00' },
  daily: { re: /^(\d{4})-(\d{2})-(\d{2})$/, example: '2024-01-31' },
  monthly: { re: /^(\d{4})-(\d{2})$/, example: '2024-01' },
  annual: { re: /^(\d{4})$/, example: '2024' },
  // "--06" (the response key form) is accepted too, so keys can be sent back.
  calendar_month: { re: /^(?:--)?(\d{2})$/, example: '06' },
};

/** The format of a time scale's dates, for messages and the UI. */
export function dateFormatOf(scale: TimeScale): string {
  return { hourly: 'yyyy-mm-ddThh:00:00', daily: 'yyyy-mm-dd', monthly: 'yyyy-mm', annual: 'yyyy', calendar_month: 'mm' }[scale];
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
  if (typeof text !== 'string') {
    throw fieldError('invalid_date', field, `${field} must be a string like "${FORMATS[scale].example}" for timeScale "${scale}".`);
  }
  const m = FORMATS[scale].re.exec(text);
  const bad = (why: string) =>
    fieldError('invalid_date', field, `${field} ${quote(text)} ${why} (timeScale "${scale}" wants ${dateFormatOf(scale)}, e.g. "${FORMATS[scale].example}").`);
  if (!m) throw bad('is not in the right format');
  const n = m.slice(1).map(Number);
  if (scale === 'calendar_month') {
    const month = n[0]!;
    if (month < 1 || month > 12) throw bad('is not a month 01–12');
    return month;
  }
  const year = n[0]!;
  if (year < 1800 || year > 2200) throw bad('has a year outside 1800–2200');
  if (scale === 'annual') return year;
  const month = n[1]!;
  if (month < 1 || month > 12) throw bad('has a month outside 01–12');
  if (scale === 'monthly') return (year - 1970) * 12 + (month - 1);
  const day = n[2]!;
  if (day < 1 || day > daysInMonth(year, month)) throw bad(`has no day ${String(day).padStart(2, '0')} in that month`);
  const days = Date.UTC(year, month - 1, day) / 86_400_000;
  if (scale === 'daily') return days;
  const [hour, minute, second] = [n[3]!, n[4]!, n[5]!];
  if (hour > 23) throw bad('has an hour outside 00–23');
  if (minute !== 0 || second !== 0) throw bad('must have minutes and seconds 00:00');
  return days * 24 + hour;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** The response key of the period at `ordinal`. */
export function periodKey(scale: TimeScale, ordinal: Ordinal): string {
  switch (scale) {
    case 'calendar_month':
      // ISO 8601's "--MM" (a month of any year). Plain "10".."12" would be
      // integer-like object keys, which JavaScript always orders first.
      return `--${pad(ordinal)}`;
    case 'annual':
      return String(ordinal);
    case 'monthly': {
      const y = 1970 + Math.floor(ordinal / 12);
      return `${pad(y, 4)}-${pad((ordinal % 12 + 12) % 12 + 1)}-01`;
    }
    case 'daily':
      return new Date(ordinal * 86_400_000).toISOString().slice(0, 10);
    case 'hourly':
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
  if (scale === 'calendar_month') {
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
  if (scale !== 'calendar_month' && start > end) {
    throw fieldError('invalid_date_range', 'startDate', `startDate ${quote(startDate)} is after endDate ${quote(endDate)}.`);
  }
  const keys = enumeratePeriods(scale, start, end).map((o) => periodKey(scale, o));
  return { scale, start, end, keys };
}

/** The SQL literal form of an ordinal for station tables (TIMESTAMP or DATE text). */
export function sqlTimeOf(scale: 'hourly' | 'daily' | 'monthly', ordinal: Ordinal): string {
  const key = periodKey(scale, ordinal);
  return scale === 'hourly' ? key.replace('T', ' ') : key;
}
