/**
 * What the form keeps when the station time scale changes: each chosen data
 * type becomes its counterpart at the new scale (hourly `rain` ↔ daily and
 * monthly `rain_sum`, by the build's derive rules), and the dates cover the
 * same days in the new scale's format. A type with no counterpart, or one
 * the dataset does not hold there, is named, never silently dropped. No DOM.
 */
import { CALENDARS } from '../contract/calendars.ts';
import { MAX_PERIODS, parseDate, periodKey, requestDateOf, type TimeScale } from '../contract/periods.ts';
import { TIME_SCALES } from '../contract/time-scales.ts';
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
  // The first and last hour the old range covers (contract/calendars.ts), in the new scale's periods:
  // whole days, dekads or months become the periods they hold; hours become the days they fall in.
  const [was, now] = [CALENDARS[TIME_SCALES[from].calendar], CALENDARS[TIME_SCALES[to].calendar]];
  const start = now.ordinalOfMs(was.startMs(a));
  let end = now.ordinalOfMs(was.startMs(b + 1) - 3_600_000);
  const shortened = end - start + 1 > MAX_PERIODS;
  if (shortened) end = start + MAX_PERIODS - 1;
  return {
    startDate: requestDateOf(to, periodKey(to as TimeScale, start)),
    endDate: requestDateOf(to, periodKey(to as TimeScale, end)),
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
  const [first, last] = held.map((k) => requestDateOf(scale, k)) as [string, string];
  if (dates.endDate < first || dates.startDate > last) return dates;
  return {
    startDate: dates.startDate < first ? first : dates.startDate,
    endDate: dates.endDate > last ? last : dates.endDate,
  };
}
