/**
 * Period keys of decoded station times (a Date, or epoch milliseconds), as
 * responses write them, on the calendar of the scale (contract/time-scales.ts).
 * Hot: a cold hourly year of ten stations makes 87,600 of them.
 */
import type { StationTimeScale } from '../contract/station-data-types.ts';
import { CALENDARS } from '../contract/calendars.ts';
import { TIME_SCALES } from '../contract/time-scales.ts';

const DAY_MS = 86_400_000;
/** "Thh:00:00" by hour: a key is then one join of two shared strings (a template of five parts took 30 % more memory per key). */
const HOUR_SUFFIX = Array.from({ length: 24 }, (_, h) => `T${String(h).padStart(2, '0')}:00:00`);
/** "yyyy-mm-dd" of recent days, by day number: hourly keys share 24 per day. */
const dayKeys = new Map<number, string>();

/** Key of a decoded time value (a Date, or epoch milliseconds) on its scale, as responses write it. */
export function keyOfTime(scale: StationTimeScale, value: unknown): string | null {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : NaN;
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return null;
  const ofHour = ms % 3_600_000;
  // The key's form follows the scale's calendar unit (contract/time-scales.ts), as periodKey's does.
  const calendar = TIME_SCALES[scale].calendar;
  // Years 1970–9999: toISOString writes "+010000-…" from the year 10000 on.
  if (calendar === 'hour' && ofHour === 0 && ms >= 0 && ms < 253_402_300_800_000) {
    // Built from the day's key and the hour: same text as toISOString, a tenth of its cost.
    const day = Math.floor(ms / DAY_MS);
    let d = dayKeys.get(day);
    if (d === undefined) {
      if (dayKeys.size > 4096) dayKeys.clear();
      d = new Date(day * DAY_MS).toISOString().slice(0, 10);
      dayKeys.set(day, d);
    }
    return d + HOUR_SUFFIX[(ms - day * DAY_MS) / 3_600_000]!;
  }
  // A time off the hour keeps its minutes and seconds: no range key matches it (builds refuse such times).
  if (calendar === 'hour') return new Date(ms).toISOString().slice(0, 19);
  const c = CALENDARS[calendar];
  return c.keyOf(c.ordinalOfMs(ms));
}

/**
 * Period ordinal (contract/calendars.ts: hours, days, dekads or months since 1970-01, UTC calendar) of a
 * decoded time value on its scale; null when it is not a time. Floors, as keys truncate.
 */
export function ordinalOfTime(scale: StationTimeScale, value: unknown): number | null {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : NaN;
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return null;
  return CALENDARS[TIME_SCALES[scale].calendar].ordinalOfMs(ms);
}

/**
 * Period ordinal of a decoded row time (a Date, or epoch milliseconds) whose
 * key {@link keyOfTime} would give as one of a range's keys; NaN otherwise.
 * Days, dekads and months truncate, as their keys do; an hourly time must lie on
 * the hour to the second (the key keeps minutes and seconds, so no range
 * key matches one off the hour; builds refuse such times). Hot: one call
 * per row read.
 */
export function ordinalOfRowTime(scale: StationTimeScale, value: unknown): number {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : NaN;
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return NaN;
  switch (TIME_SCALES[scale].calendar) {
    case 'hour': {
      const s = Math.floor(ms / 1000);
      return s % 3600 === 0 ? s / 3600 : NaN;
    }
    default:
      return CALENDARS[TIME_SCALES[scale].calendar].ordinalOfMs(ms);
  }
}

/**
 * {@link ordinalOfRowTime} of every decoded time (epoch milliseconds, NaN for none), in one loop
 * per calendar: a cold hourly year maps some 120,000 times, and a call per time through the
 * scale's lookup ran mostly in the interpreter.
 */
export function ordinalsOfRowTimes(scale: StationTimeScale, times: Float64Array): Float64Array {
  const out = new Float64Array(times.length);
  const calendar = TIME_SCALES[scale].calendar;
  if (calendar === 'hour') {
    for (let i = 0; i < times.length; i++) {
      const ms = times[i]!;
      // NaN and out-of-range times fail the first test.
      const s = Math.abs(ms) <= 8.64e15 ? Math.floor(ms / 1000) : NaN;
      out[i] = s % 3600 === 0 ? s / 3600 : NaN;
    }
  } else if (calendar === 'day') {
    for (let i = 0; i < times.length; i++) {
      const ms = times[i]!;
      out[i] = Math.abs(ms) <= 8.64e15 ? Math.floor(ms / DAY_MS) : NaN;
    }
  } else for (let i = 0; i < times.length; i++) out[i] = ordinalOfRowTime(scale, times[i]);
  return out;
}

/** Period ordinal of a key as answers write it ("2024-01-01T05:00:00", "2024-01-02", "2024-03-01"); null when it does not parse. */
export function ordinalOfKey(scale: StationTimeScale, key: string): number | null {
  const o = CALENDARS[TIME_SCALES[scale].calendar].ordinalOfKey(key);
  return Number.isFinite(o) ? o : null;
}
