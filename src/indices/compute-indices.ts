/**
 * Each index over one period of an {@link HourSeries}: the value, or null
 * with the reason, and the hours behind it (docs/indices.md). Pure.
 *
 * Hours still unknown after gap filling are left out, as chillR's
 * `tempResponse` drops NA hours: sums run over the known hours, and the
 * Dynamic Model runs over them as one sequence. A period whose known hours
 * are fewer than `minCompleteness` of its hours answers null.
 */
import { periodKey } from '../contract/periods.ts';
import type { IndexPeriod, StationIndexName } from '../contract/station-indices.ts';
import type { HourSeries } from './hour-series.ts';
import { chillingHour, degreeDays, dynamicModelPortions, growingDegreeHours, utahUnits } from './hourly-models.ts';

/** Parameters of the computation. */
export interface IndexParameters {
  gddBase: number;
  minCompleteness: number;
}

/** Frost-day thresholds (°C, a day's minimum strictly below) per index. */
const FROST_DAYS: Partial<Record<StationIndexName, number>> = { frost_days: 0, frost_days_1: -1, frost_days_2: -2 };

/** Sums rounded to this many decimals: below any thermometer's resolution, and free of float noise (12.2227 not 12.222700000000001). */
const DECIMALS = 4;
const round = (v: number) => Math.round(v * 10 ** DECIMALS) / 10 ** DECIMALS;

/** The hours of days [a, b] (inclusive) in the series, as indices into `values`. */
function hourSpan(series: HourSeries, a: number, b: number): [number, number] {
  return [(a - series.firstDay) * 24, (b - series.firstDay + 1) * 24];
}

/** Counts of the hours [from, to). */
function counts(series: HourSeries, from: number, to: number) {
  let used = 0;
  let filled = 0;
  for (let i = from; i < to; i++) {
    if (!Number.isNaN(series.values[i]!)) used++;
    if (series.filled[i]) filled++;
  }
  return { hours_expected: to - from, hours_used: used, hours_missing: to - from - used, hours_filled: filled };
}

/** A day's minimum and maximum: the station's own for a series from daily extremes, else over its 24 hours (NaN unless all 24 are known). */
function dayExtremes(series: HourSeries, day: number): [number, number] {
  const d = day - series.firstDay;
  if (series.tmin && series.tmax) return [series.tmin[d]!, series.tmax[d]!];
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = d * 24; i < d * 24 + 24; i++) {
    const v = series.values[i]!;
    if (Number.isNaN(v)) return [NaN, NaN];
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  return [lo, hi];
}

/** The index's raw total over days [a, b] (no completeness check). */
function total(name: StationIndexName, series: HourSeries, a: number, b: number, p: IndexParameters): number {
  const [from, to] = hourSpan(series, a, b);
  const known: number[] = [];
  for (let i = from; i < to; i++) if (!Number.isNaN(series.values[i]!)) known.push(series.values[i]!);
  let sum = 0;
  switch (name) {
    case 'chill_portions':
      for (const v of dynamicModelPortions(known)) sum += v;
      return sum;
    case 'utah_chill_units':
      for (const t of known) sum += utahUnits(t);
      return sum;
    case 'chilling_hours':
      for (const t of known) sum += chillingHour(t);
      return sum;
    case 'gdh':
      for (const t of known) sum += growingDegreeHours(t);
      return sum;
    case 'frost_hours':
      for (const t of known) if (t < 0) sum++;
      return sum;
    case 'dpcu':
      // Linsley-Noakes et al. (1995): each calendar day's Utah sum, floored at zero.
      for (let day = a; day <= b; day++) {
        let daySum = 0;
        const [f, t] = hourSpan(series, day, day);
        for (let i = f; i < t; i++) if (!Number.isNaN(series.values[i]!)) daySum += utahUnits(series.values[i]!);
        sum += Math.max(0, daySum);
      }
      return sum;
    case 'gdd':
    case 'winkler': {
      const base = name === 'winkler' ? 10 : p.gddBase;
      for (let day = a; day <= b; day++) {
        const [lo, hi] = dayExtremes(series, day);
        if (!Number.isNaN(lo)) sum += degreeDays(lo, hi, base);
      }
      return sum;
    }
    case 'frost_days':
    case 'frost_days_1':
    case 'frost_days_2': {
      const below = FROST_DAYS[name]!;
      for (let day = a; day <= b; day++) {
        const [lo] = dayExtremes(series, day);
        if (!Number.isNaN(lo) && lo < below) sum++;
        else if (Number.isNaN(lo)) {
          // An incomplete day with a known hour below the threshold was a frost day.
          const [f, t] = hourSpan(series, day, day);
          for (let i = f; i < t; i++)
            if (series.values[i]! < below) {
              sum++;
              break;
            }
        }
      }
      return sum;
    }
  }
}

/** The index over days [a, b] (inclusive, inside the series): value or null with the reason, and the hours behind it. */
export function computeIndex(
  name: StationIndexName,
  series: HourSeries,
  a: number,
  b: number,
  p: IndexParameters,
): IndexPeriod {
  const [from, to] = hourSpan(series, a, b);
  const c = counts(series, from, to);
  const out: IndexPeriod = { value: null, ...c };
  if (c.hours_used < p.minCompleteness * c.hours_expected) {
    const pct = (x: number) => `${Math.floor((1000 * x) / c.hours_expected) / 10} %`;
    out.reason =
      c.hours_used === 0
        ? 'The station has no temperature in this period.'
        : `Only ${c.hours_used} of ${c.hours_expected} hours (${pct(c.hours_used)}) have a temperature; an answer needs ${Math.round(p.minCompleteness * 100)} % (options.minCompleteness).`;
  } else {
    out.value = round(total(name, series, a, b, p));
  }
  if (name.startsWith('frost')) {
    out.months = {};
    for (const [ma, mb] of monthsOf(a, b)) {
      const [f, t] = hourSpan(series, ma, mb);
      const m = counts(series, f, t);
      out.months[periodKey('daily', ma).slice(0, 7)] =
        m.hours_used < p.minCompleteness * m.hours_expected ? null : round(total(name, series, ma, mb, p));
    }
  }
  return out;
}

/** Days [a, b] split at month boundaries. */
function monthsOf(a: number, b: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let s = a; s <= b; ) {
    const d = new Date(s * 86_400_000);
    const monthEnd = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0) / 86_400_000;
    const e = Math.min(monthEnd, b);
    out.push([s, e]);
    s = e + 1;
  }
  return out;
}
