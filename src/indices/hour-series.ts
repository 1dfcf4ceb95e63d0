/**
 * A station's hourly temperatures over a run of whole days, as the indices
 * read them: measured hours with their gaps, short gaps filled by linear
 * interpolation, or hours reconstructed from daily extremes. Pure.
 */
import { hourlyFromDaily } from './hourly-from-daily.ts';

/** Where a series' hours come from. */
export type HourSource = 'hourly' | 'daily';

/**
 * Consecutive hours from 00:00 of day `firstDay` (days since 1970-01-01,
 * local standard time): NaN where unknown. `filled` marks hours set by gap
 * filling; for a series from daily extremes, `tmin`/`tmax` hold each day's
 * (NaN where unknown).
 */
export interface HourSeries {
  source: HourSource;
  firstDay: number;
  values: Float64Array;
  filled: Uint8Array;
  tmin?: Float64Array;
  tmax?: Float64Array;
}

/**
 * Fills every inner run of at most `maxGap` unknown values linearly between
 * its neighbours, in place; runs at either end and longer runs stay unknown
 * (no extrapolation: a guess past the data is not a value). Returns a mask
 * of the values filled.
 */
export function fillGaps(values: Float64Array, maxGap: number): Uint8Array {
  const filled = new Uint8Array(values.length);
  let i = 0;
  while (i < values.length) {
    if (!Number.isNaN(values[i]!)) {
      i++;
      continue;
    }
    let j = i;
    while (j < values.length && Number.isNaN(values[j]!)) j++;
    const length = j - i;
    if (i > 0 && j < values.length && length <= maxGap) {
      const a = values[i - 1]!;
      const b = values[j]!;
      for (let k = 1; k <= length; k++) {
        values[i + k - 1] = a + ((b - a) * k) / (length + 1);
        filled[i + k - 1] = 1;
      }
    }
    i = j;
  }
  return filled;
}

/** A series from measured hours (`values`: one per hour from 00:00 of `firstDay`, NaN where none), gaps of up to `maxGap` hours filled. */
export function measuredSeries(firstDay: number, values: Float64Array, maxGap: number): HourSeries {
  return { source: 'hourly', firstDay, values, filled: fillGaps(values, maxGap) };
}

/**
 * A series reconstructed from daily extremes (NaN where unknown; a day
 * needs both). Missing extremes are filled linearly when the gap is
 * at most `maxGapDays` days, as chillR's `fix_weather` does for any length;
 * each run of known days is reconstructed on its own, so a long gap never
 * bends the hours beside it. Hours of filled days count as filled.
 */
export function reconstructedSeries(
  firstDay: number,
  tmin: Float64Array,
  tmax: Float64Array,
  latitude: number,
  maxGapDays: number,
): HourSeries {
  const days = tmin.length;
  // Each extreme is filled on its own, as fix_weather does: a day missing only its minimum keeps its maximum.
  const lo = Float64Array.from(tmin);
  const hi = Float64Array.from(tmax);
  const loFilled = fillGaps(lo, maxGapDays);
  const hiFilled = fillGaps(hi, maxGapDays);
  for (let i = 0; i < days; i++) {
    if (Number.isNaN(hi[i]!)) lo[i] = NaN;
    if (Number.isNaN(lo[i]!)) hi[i] = NaN;
  }
  const dayFilled = Uint8Array.from(loFilled, (f, i) => f | hiFilled[i]!);
  const values = new Float64Array(days * 24).fill(NaN);
  const filled = new Uint8Array(days * 24);
  let d = 0;
  while (d < days) {
    if (Number.isNaN(lo[d]!)) {
      d++;
      continue;
    }
    let e = d;
    const run = [];
    for (; e < days && !Number.isNaN(lo[e]!); e++)
      run.push({ dayOfYear: dayOfYear(firstDay + e), tmin: lo[e]!, tmax: hi[e]! });
    hourlyFromDaily(run, latitude).forEach((hours, k) => {
      values.set(hours, (d + k) * 24);
      if (dayFilled[d + k]) filled.fill(1, (d + k) * 24, (d + k + 1) * 24);
    });
    d = e;
  }
  return { source: 'daily', firstDay, values, filled, tmin: lo, tmax: hi };
}

/** Day of the year (1-based) of a day counted from 1970-01-01. */
export function dayOfYear(day: number): number {
  const date = new Date(day * 86_400_000);
  return Math.round((day * 86_400_000 - Date.UTC(date.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
}
