/**
 * What the form keeps when the station time scale changes: each chosen data
 * type becomes its counterpart at the new scale (hourly `rain` ↔ daily and
 * monthly `rain_sum`, by the build's derive rules), and the dates cover the
 * same days in the new scale's format. A type with no counterpart, or one
 * the dataset does not hold there, is named, never silently dropped. No DOM.
 */
import { MAX_PERIODS, parseDate, periodKey, type TimeScale } from '../contract/periods.ts';
import { counterpartType } from '../contract/derive-rules.ts';
import type { StationTimeScale } from '../contract/station-data-types.ts';

/** The form's choices after a switch, and what could not come along. */
export interface ScaleSwitch {
  dataTypes: string[];
  /** Types chosen before that have no counterpart held at the new scale. */
  dropped: string[];
  /** The same days at the new scale; null when the old dates did not parse (the caller offers defaults). */
  dates: { startDate: string; endDate: string } | null;
  /** True when the range was cut to what one request may hold at the new scale. */
  shortened: boolean;
}

/** Most data types one station request takes (contract: 1 to 5). */
const MAX_TYPES = 5;

/**
 * Carries `dataTypes` and the range from `from` to `to`. `held` lists the
 * types the dataset has at `to` (its catalog); without it every contract
 * name of that scale counts as held.
 */
export function switchScale(
  from: StationTimeScale,
  to: StationTimeScale,
  dataTypes: readonly string[],
  range: { startDate: string; endDate: string },
  held?: readonly string[],
): ScaleSwitch {
  const kept: string[] = [];
  const dropped: string[] = [];
  for (const t of dataTypes) {
    const c = counterpartType(from, to, t);
    if (c !== null && (!held || held.includes(c))) {
      if (!kept.includes(c) && kept.length < MAX_TYPES) kept.push(c);
    } else dropped.push(t);
  }
  const dates = convertRange(from, to, range);
  return {
    dataTypes: kept,
    dropped,
    dates: dates && { startDate: dates.startDate, endDate: dates.endDate },
    shortened: dates?.shortened ?? false,
  };
}

/** The request date of a period key at a station scale ("2024-06-01T00:00:00", "2024-06-01", "2024-06"). */
function requestDate(scale: StationTimeScale, key: string): string {
  return scale === 'monthly' ? key.slice(0, 7) : key;
}

/**
 * The range `from`'s dates cover, written for `to`: whole days or months
 * (a daily week becomes its 168 hours; hours become the days they fall in),
 * cut at the end to the most periods one request may hold.
 */
export function convertRange(
  from: StationTimeScale,
  to: StationTimeScale,
  range: { startDate: string; endDate: string },
): { startDate: string; endDate: string; shortened: boolean } | null {
  let a: number;
  let b: number;
  try {
    a = parseDate(from as TimeScale, range.startDate, 'startDate');
    b = parseDate(from as TimeScale, range.endDate, 'endDate');
  } catch {
    return null;
  }
  if (a > b) return null;
  // First and last day (UTC day numbers) the old range covers.
  const dayOf = (o: number, last: boolean): number => {
    if (from === 'daily') return o;
    if (from === 'hourly') return Math.floor(o / 24);
    const y = 1970 + Math.floor(o / 12);
    const m = ((o % 12) + 12) % 12;
    return Date.UTC(y, m + (last ? 1 : 0), last ? 0 : 1) / 86_400_000;
  };
  const [d0, d1] = [dayOf(a, false), dayOf(b, true)];
  const toOrdinal = (day: number, last: boolean): number => {
    if (to === 'daily') return day;
    if (to === 'hourly') return day * 24 + (last ? 23 : 0);
    const d = new Date(day * 86_400_000);
    return (d.getUTCFullYear() - 1970) * 12 + d.getUTCMonth();
  };
  const start = toOrdinal(d0, false);
  let end = toOrdinal(d1, true);
  const shortened = end - start + 1 > MAX_PERIODS;
  if (shortened) end = start + MAX_PERIODS - 1;
  return {
    startDate: requestDate(to, periodKey(to as TimeScale, start)),
    endDate: requestDate(to, periodKey(to as TimeScale, end)),
    shortened,
  };
}

/**
 * The converted range cut to what the records hold at the new scale (`held`:
 * first and last period key, from the station index) when the two overlap:
 * June as days, for records of 3–23 June, becomes 3–23 June, never a start
 * before the data begin. A range that misses the records is kept as typed
 * (the answer then says what the records hold).
 */
export function clipToHeld(
  scale: StationTimeScale,
  dates: { startDate: string; endDate: string },
  held: readonly [string, string] | null,
): { startDate: string; endDate: string } {
  if (!held) return dates;
  const [first, last] = held.map((k) => requestDate(scale, k)) as [string, string];
  if (dates.endDate < first || dates.startDate > last) return dates;
  return {
    startDate: dates.startDate < first ? first : dates.startDate,
    endDate: dates.endDate > last ? last : dates.endDate,
  };
}
