/**
 * How daily values are derived from hourly ones, and monthly from daily,
 * when a user brings no table for that scale (docs/data.md explains each
 * rule). Declarative, so the build's SQL and the documentation come from
 * one list; the app reads them too, to carry a chosen type across time scales.
 */
import { STATION_TYPES, type StationTimeScale } from './station-data-types.ts';

/** Aggregations a rule can use. `circmean`/`circmedian` are for directions in degrees. */
export type Agg = 'mean' | 'min' | 'max' | 'median' | 'sum' | 'std' | 'circmean' | 'circmedian';

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
export const DAILY_MIN_HOURS = 18;
/** Days a month may miss for a non-sum statistic. */
export const MONTHLY_MAX_MISSING_DAYS = 5;

/** Daily from hourly. `et0` is computed separately (FAO-56, needs several inputs). */
export const DAILY_FROM_HOURLY: DeriveRule[] = [
  { out: 'temperature_mean', agg: 'mean', src: 'temperature_mean' },
  { out: 'temperature_min', agg: 'min', src: 'temperature_min' },
  { out: 'temperature_max', agg: 'max', src: 'temperature_max' },
  { out: 'temperature_median', agg: 'median', src: 'temperature_mean' },
  { out: 'rain_sum', agg: 'sum', src: 'rain', complete: true },
  { out: 'rain_mean', agg: 'mean', src: 'rain' },
  { out: 'rain_min', agg: 'min', src: 'rain' },
  { out: 'rain_max', agg: 'max', src: 'rain' },
  // W/m² averaged over an hour × 3600 s = J/m²; /1e6 → MJ/m².
  { out: 'solar_radiation_sum', agg: 'sum', src: 'solar_radation', factor: 0.0036, complete: true },
  { out: 'solar_rad_std_sum', agg: 'sum', src: 'solar_radation', complete: true },
  { out: 'solar_rad_std_mean', agg: 'mean', src: 'solar_radation' },
  { out: 'solar_rad_std_min', agg: 'min', src: 'solar_radation' },
  { out: 'solar_rad_std_max', agg: 'max', src: 'solar_radation' },
  // Minutes of sunshine per hour → hours per day.
  { out: 'sunshine_duration_sum', agg: 'sum', src: 'sunshine_duration', factor: 1 / 60, complete: true },
  { out: 'wind_direction_mean', agg: 'circmean', src: 'wind_direction' },
  { out: 'wind_direction_median', agg: 'circmedian', src: 'wind_direction' },
  { out: 'leaf_wetness_mean', agg: 'mean', src: 'leaf_wetness' },
  { out: 'leaf_wetness_median', agg: 'median', src: 'leaf_wetness' },
  { out: 'leaf_wetnes_min', agg: 'min', src: 'leaf_wetness' },
  { out: 'leaf_wetness_max', agg: 'max', src: 'leaf_wetness' },
  { out: 'wind_speed_max', agg: 'max', src: 'wind_speed_max' },
  { out: 'wind_speed_mean', agg: 'mean', src: 'wind_speed' },
  { out: 'wind_speed_min', agg: 'min', src: 'wind_speed' },
  { out: 'evaporation_sum', agg: 'sum', src: 'evaporation', complete: true },
  { out: 'dew_point_mean', agg: 'mean', src: 'dew_point' },
  { out: 'dew_point_median', agg: 'median', src: 'dew_point' },
  { out: 'dew_point_min', agg: 'min', src: 'dew_point' },
  { out: 'dew_point_max', agg: 'max', src: 'dew_point' },
  { out: 'humidity_mean', agg: 'mean', src: 'humidity' },
  { out: 'humidity_min', agg: 'min', src: 'humidity_min' },
  { out: 'humidity_max', agg: 'max', src: 'humidity_max' },
  { out: 'humidity_median', agg: 'median', src: 'humidity' },
];

/** Monthly from daily. */
export const MONTHLY_FROM_DAILY: DeriveRule[] = [
  { out: 'temperature_mean', agg: 'mean', src: 'temperature_mean' },
  { out: 'temperature_min', agg: 'min', src: 'temperature_min' },
  { out: 'temperature_max', agg: 'max', src: 'temperature_max' },
  { out: 'temperature_median', agg: 'median', src: 'temperature_mean' },
  { out: 'rain_sum', agg: 'sum', src: 'rain_sum', complete: true },
  // Statistics of daily totals: the mean, driest and wettest day of the month.
  { out: 'rain_mean', agg: 'mean', src: 'rain_sum' },
  { out: 'rain_min', agg: 'min', src: 'rain_sum' },
  { out: 'rain_max', agg: 'max', src: 'rain_sum' },
  { out: 'solar_radiation_sum', agg: 'sum', src: 'solar_radiation_sum', complete: true },
  // Day-to-day variability of daily radiation (sample standard deviation, MJ/m²).
  { out: 'solar_rad_std', agg: 'std', src: 'solar_radiation_sum' },
  { out: 'sunshine_duration_sum', agg: 'sum', src: 'sunshine_duration_sum', complete: true },
  { out: 'wind_direction_mean', agg: 'circmean', src: 'wind_direction_mean' },
  { out: 'wind_direction_median', agg: 'circmedian', src: 'wind_direction_mean' },
  { out: 'leaf_wetness_mean', agg: 'mean', src: 'leaf_wetness_mean' },
  { out: 'leaf_wetness_median', agg: 'median', src: 'leaf_wetness_mean' },
  { out: 'leaf_wetnes_min', agg: 'min', src: 'leaf_wetnes_min' },
  { out: 'leaf_wetness_max', agg: 'max', src: 'leaf_wetness_max' },
  { out: 'wind_speed_max', agg: 'max', src: 'wind_speed_max' },
  { out: 'wind_speed_mean', agg: 'mean', src: 'wind_speed_mean' },
  { out: 'wind_speed_min', agg: 'min', src: 'wind_speed_min' },
  { out: 'evaporation_sum', agg: 'sum', src: 'evaporation_sum', complete: true },
  { out: 'dew_point_mean', agg: 'mean', src: 'dew_point_mean' },
  { out: 'dew_point_median', agg: 'median', src: 'dew_point_mean' },
  { out: 'dew_point_min', agg: 'min', src: 'dew_point_min' },
  { out: 'dew_point_max', agg: 'max', src: 'dew_point_max' },
  { out: 'humidity_mean', agg: 'mean', src: 'humidity_mean' },
  { out: 'humidity_min', agg: 'min', src: 'humidity_min' },
  { out: 'humidity_max', agg: 'max', src: 'humidity_max' },
  { out: 'humidity_median', agg: 'median', src: 'humidity_mean' },
];

/** The rules that make `to`'s values from the next finer scale's ("daily" from "hourly", "monthly" from "daily"). */
function rulesInto(to: 'daily' | 'monthly'): DeriveRule[] {
  return to === 'daily' ? DAILY_FROM_HOURLY : MONTHLY_FROM_DAILY;
}

// A coarser type standing for a finer one: its total first (rain → rain_sum), then its mean.
const PREFERENCE: Agg[] = ['sum', 'mean', 'circmean', 'median', 'circmedian', 'max', 'min', 'std'];

/** One step along the scales: hourly ↔ daily or daily ↔ monthly. */
function counterpartStep(from: StationTimeScale, to: StationTimeScale, type: string): string | null {
  if (STATION_TYPES[to].includes(type)) return type;
  if (SCALE_ORDER.indexOf(to) > SCALE_ORDER.indexOf(from)) {
    const made = rulesInto(to as 'daily' | 'monthly').filter((r) => r.src === type);
    made.sort((x, y) => PREFERENCE.indexOf(x.agg) - PREFERENCE.indexOf(y.agg));
    return made[0]?.out ?? null;
  }
  return rulesInto(from as 'daily' | 'monthly').find((r) => r.out === type)?.src ?? null;
}

const SCALE_ORDER: readonly StationTimeScale[] = ['hourly', 'daily', 'monthly'];

/**
 * The data type at `to` that stands for `type` at `from`, for a form that
 * switches time scale: the same name where `to` has it, else the type the
 * derive rules connect it with (hourly `rain` ↔ daily `rain_sum`; daily
 * `temperature_median` → hourly `temperature_mean`), step by step across
 * two scales; null when there is none (daily `et0` has no hourly values).
 */
export function counterpartType(from: StationTimeScale, to: StationTimeScale, type: string): string | null {
  let t: string | null = type;
  let at = SCALE_ORDER.indexOf(from);
  const goal = SCALE_ORDER.indexOf(to);
  while (t !== null && at !== goal) {
    const next = at + Math.sign(goal - at);
    t = counterpartStep(SCALE_ORDER[at]!, SCALE_ORDER[next]!, t);
    at = next;
  }
  return t !== null && STATION_TYPES[to].includes(t) ? t : null;
}
