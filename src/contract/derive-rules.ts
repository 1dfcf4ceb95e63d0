/**
 * How daily values are derived from hourly ones, and monthly from daily,
 * when a user brings no table for that scale (docs/data.md explains each
 * rule). The rules are part of each type's description (station-types.ts)
 * and the chain of scales is in time-scales.ts (`derivedFrom`); the build's
 * SQL and the documentation read these views, and the app reads them to
 * carry a chosen type across time scales.
 */
import { STATION_TYPES } from './station-data-types.ts';
import { stationTypeAt, typesAtScale, type Agg } from './station-types.ts';
import { stationScaleSpec, type StationTimeScale } from './time-scales.ts';

export type { Agg } from './station-types.ts';

/** One derived column. */
export interface DeriveRule {
  /** Output column (a data type of the coarser scale). */
  out: string;
  agg: Agg;
  /** Input column (a data type of the finer scale). */
  src: string;
  /** Multiplier applied to the result (unit change). */
  factor?: number;
  /** True when every finer period must have a value (sums); otherwise the completeness threshold applies. */
  complete?: boolean;
}

/** Hourly values a day needs for a non-sum statistic: 18 of 24 (75 %). */
export const DAILY_MIN_HOURS = 24 - stationScaleSpec('daily').maxMissing;
/** Days a month may miss for a non-sum statistic. */
export const MONTHLY_MAX_MISSING_DAYS = stationScaleSpec('monthly').maxMissing;

/** The rules that make `to`'s values from the scale it is derived from, in table order (none for a scale derived from none). */
export function deriveRulesInto(to: StationTimeScale): DeriveRule[] {
  return typesAtScale(to).flatMap((out) => {
    const from = stationTypeAt(to, out)?.from;
    return from ? [{ out, ...from }] : [];
  });
}

/** True when the build computes `type` at `scale` by its own code, not by a rule (et0). */
export function isComputedType(scale: StationTimeScale, type: string): boolean {
  return stationTypeAt(scale, type)?.computed === true;
}

/** Daily from hourly. `et0` is computed separately (FAO-56, needs several inputs). */
export const DAILY_FROM_HOURLY: DeriveRule[] = deriveRulesInto('daily');

/** Monthly from daily. */
export const MONTHLY_FROM_DAILY: DeriveRule[] = deriveRulesInto('monthly');

// A coarser type standing for a finer one: its total first (rain → rain_sum), then its mean.
const PREFERENCE: Agg[] = ['sum', 'mean', 'circmean', 'median', 'circmedian', 'max', 'min', 'std'];

/** One step along the scales: hourly ↔ daily or daily ↔ monthly. Rules connect a scale only with the one it is derived from. */
function counterpartStep(from: StationTimeScale, to: StationTimeScale, type: string): string | null {
  if (STATION_TYPES[to].includes(type)) return type;
  if (stationScaleSpec(to).derivedFrom === from) {
    const made = deriveRulesInto(to).filter((r) => r.src === type);
    made.sort((x, y) => PREFERENCE.indexOf(x.agg) - PREFERENCE.indexOf(y.agg));
    return made[0]?.out ?? null;
  }
  if (stationScaleSpec(from).derivedFrom !== to) return null;
  return deriveRulesInto(from).find((r) => r.out === type)?.src ?? null;
}

/** `scale` and the scales it is derived from, finest first (monthly, daily, hourly). */
function chainOf(scale: StationTimeScale): StationTimeScale[] {
  const out: StationTimeScale[] = [];
  for (
    let s: StationTimeScale | null = scale;
    s !== null;
    s = stationScaleSpec(s).derivedFrom as StationTimeScale | null
  )
    out.push(s);
  return out;
}

/**
 * The data type at `to` that stands for `type` at `from`, for a form that
 * switches time scale: the same name where `to` has it, else the type the
 * derive rules connect it with (hourly `rain` ↔ daily `rain_sum`; daily
 * `temperature_median` → hourly `temperature_mean`), step by step along the
 * scales each is derived from (dekadal → daily → monthly); null when there
 * is none (daily `et0` has no hourly values).
 */
export function counterpartType(from: StationTimeScale, to: StationTimeScale, type: string): string | null {
  // A name the target has is the same quantity there (dekadal and monthly share their list).
  if (STATION_TYPES[to].includes(type)) return type;
  const up = chainOf(from);
  const down = chainOf(to);
  const common = up.find((s) => down.includes(s))!;
  const path = [...up.slice(0, up.indexOf(common) + 1), ...down.slice(0, down.indexOf(common)).reverse()];
  let t: string | null = type;
  for (let i = 1; t !== null && i < path.length; i++) t = counterpartStep(path[i - 1]!, path[i]!, t);
  return t !== null && STATION_TYPES[to].includes(t) ? t : null;
}
