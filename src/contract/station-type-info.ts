/**
 * What each station data type of contract table 2.4 is, for a person and
 * for the numbers: a plain name, its unit and its step (how many decimals a
 * reading carries). One table, so the app's headers, the CSV, the OpenAPI
 * document and the build's rounding read the same facts (docs/data.md,
 * "Units and precision").
 *
 * Precision (docs/data.md): a type is shown at its step (temperatures to
 * 0.1 °C, humidity to 1 %); a value the build derives (a daily mean of 24
 * hourly readings, a monthly total) is written one decimal finer than the
 * step, so a mean keeps what many readings tell without binary float noise
 * (5.4, never 5.3999999999999995); a mean over stations that poly-aggregate
 * computes at query time is answered two decimals finer than the step.
 */
import type { StationTimeScale } from './station-data-types.ts';

/** A station data type at one time scale as a person reads it, and its step. */
export interface StationTypeInfo {
  /** Plain name, e.g. "Air temperature, daily maximum". */
  name: string;
  /** Unit of the values ("" for an unknown name). */
  unit: string;
  /** Decimals of one reading (its step): 1 for 0.1 °C, 0 for whole percent. */
  decimals: number;
}

type Entry = { name: string; unit: string; decimals: number; hourly?: Partial<StationTypeInfo>; monthly?: Partial<StationTypeInfo> };
const T = (what: string): Entry => ({ name: `Air temperature, ${what}`, unit: '°C', decimals: 1 });

// Per data type, with per-scale overrides where the same contract name means another thing hourly,
// daily or monthly (docs/data.md).
const STATION_TYPE_TABLE: Record<string, Entry> = {
  temperature_mean: { ...T('daily mean'), hourly: { name: 'Air temperature, hourly mean' }, monthly: { name: 'Air temperature, monthly mean' } },
  temperature_min: { ...T('daily minimum'), hourly: { name: 'Air temperature, hourly minimum' }, monthly: { name: 'Air temperature, lowest of the month' } },
  temperature_max: { ...T('daily maximum'), hourly: { name: 'Air temperature, hourly maximum' }, monthly: { name: 'Air temperature, highest of the month' } },
  temperature_median: { ...T('daily median'), monthly: { name: 'Air temperature, monthly median' } },
  rain: { name: 'Rainfall', unit: 'mm', decimals: 1 },
  rain_sum: { name: 'Rainfall, daily total', unit: 'mm', decimals: 1, monthly: { name: 'Rainfall, monthly total' } },
  rain_mean: { name: 'Rainfall, mean per hour', unit: 'mm', decimals: 1, monthly: { name: 'Rainfall, mean per day' } },
  rain_min: { name: 'Rainfall, driest hour', unit: 'mm', decimals: 1, monthly: { name: 'Rainfall, driest day' } },
  rain_max: { name: 'Rainfall, wettest hour', unit: 'mm', decimals: 1, monthly: { name: 'Rainfall, wettest day' } },
  solar_radation: { name: 'Solar radiation, hourly mean', unit: 'W/m²', decimals: 0 },
  solar_radiation_sum: { name: 'Solar radiation, daily total', unit: 'MJ/m²', decimals: 1, monthly: { name: 'Solar radiation, monthly total' } },
  solar_rad_std_sum: { name: 'Solar radiation, sum of hourly readings', unit: 'W/m²', decimals: 0 },
  solar_rad_std_mean: { name: 'Solar radiation, mean of hourly readings', unit: 'W/m²', decimals: 0 },
  solar_rad_std_min: { name: 'Solar radiation, lowest hourly reading', unit: 'W/m²', decimals: 0 },
  solar_rad_std_max: { name: 'Solar radiation, highest hourly reading', unit: 'W/m²', decimals: 0 },
  solar_rad_std: { name: 'Solar radiation, day-to-day variation (std. dev.)', unit: 'MJ/m²', decimals: 1 },
  sunshine_duration: { name: 'Sunshine', unit: 'min', decimals: 0 },
  sunshine_duration_sum: { name: 'Sunshine, daily total', unit: 'h', decimals: 1, monthly: { name: 'Sunshine, monthly total' } },
  wind_direction: { name: 'Wind direction', unit: '° from north', decimals: 0 },
  wind_direction_mean: { name: 'Wind direction, mean', unit: '° from north', decimals: 0 },
  wind_direction_median: { name: 'Wind direction, median', unit: '° from north', decimals: 0 },
  leaf_wetness: { name: 'Leaf wetness', unit: 'min wet/h', decimals: 0 },
  leaf_wetness_mean: { name: 'Leaf wetness, mean', unit: 'min wet/h', decimals: 0 },
  leaf_wetness_median: { name: 'Leaf wetness, median', unit: 'min wet/h', decimals: 0 },
  leaf_wetnes_min: { name: 'Leaf wetness, lowest', unit: 'min wet/h', decimals: 0 },
  leaf_wetness_max: { name: 'Leaf wetness, highest', unit: 'min wet/h', decimals: 0 },
  wind_speed: { name: 'Wind speed', unit: 'm/s', decimals: 1 },
  wind_speed_max: { name: 'Wind speed, strongest gust', unit: 'm/s', decimals: 1 },
  wind_speed_mean: { name: 'Wind speed, mean', unit: 'm/s', decimals: 1 },
  wind_speed_min: { name: 'Wind speed, lowest', unit: 'm/s', decimals: 1 },
  evaporation: { name: 'Evaporation (pan)', unit: 'mm', decimals: 1 },
  evaporation_sum: { name: 'Evaporation (pan), daily total', unit: 'mm', decimals: 1, monthly: { name: 'Evaporation (pan), monthly total' } },
  dew_point: { name: 'Dew point', unit: '°C', decimals: 1 },
  dew_point_mean: { name: 'Dew point, mean', unit: '°C', decimals: 1 },
  dew_point_median: { name: 'Dew point, median', unit: '°C', decimals: 1 },
  dew_point_min: { name: 'Dew point, lowest', unit: '°C', decimals: 1 },
  dew_point_max: { name: 'Dew point, highest', unit: '°C', decimals: 1 },
  humidity: { name: 'Relative humidity', unit: '%', decimals: 0 },
  humidity_min: { name: 'Relative humidity, lowest', unit: '%', decimals: 0 },
  humidity_max: { name: 'Relative humidity, highest', unit: '%', decimals: 0 },
  humidity_mean: { name: 'Relative humidity, mean', unit: '%', decimals: 0 },
  humidity_median: { name: 'Relative humidity, median', unit: '%', decimals: 0 },
  et0: { name: 'Reference evapotranspiration (ET₀, FAO-56)', unit: 'mm', decimals: 1 },
};

/** Decimals an unknown name is shown at (the build refuses such names; a hand-made catalog may still list one). */
const UNKNOWN_DECIMALS = 2;

/**
 * A station data type at a time scale: plain name, unit and step. An unknown
 * name is returned as it is, without a unit, at {@link UNKNOWN_DECIMALS}.
 */
export function stationTypeInfo(scale: StationTimeScale | string, type: string): StationTypeInfo {
  const e = STATION_TYPE_TABLE[type];
  if (!e) return { name: type, unit: '', decimals: UNKNOWN_DECIMALS };
  const over = scale === 'hourly' ? e.hourly : scale === 'monthly' ? e.monthly : undefined;
  return { name: over?.name ?? e.name, unit: over?.unit ?? e.unit, decimals: over?.decimals ?? e.decimals };
}

/** Every station data type the table describes (tests check it covers contract table 2.4). */
export const STATION_TYPE_INFO_NAMES: readonly string[] = Object.keys(STATION_TYPE_TABLE);

/** Decimals a derived value (daily from hourly, monthly from daily, ET₀) is written at: one finer than the step. */
export function derivedDecimals(scale: StationTimeScale | string, type: string): number {
  return stationTypeInfo(scale, type).decimals + 1;
}

/** Decimals poly-aggregate answers a mean over stations at: two finer than the step. */
export function stationMeanDecimals(scale: StationTimeScale | string, type: string): number {
  return stationTypeInfo(scale, type).decimals + 2;
}

/** Places every value is first rounded to, so binary noise cannot decide a half (see {@link roundValue}). */
export const NOISE_DECIMALS = 9;

/**
 * `x` rounded to `decimals` places, halves away from zero, after a first
 * rounding to {@link NOISE_DECIMALS} places. The first step makes a half
 * that binary arithmetic left at 0.12499999999999999 in one summing order
 * and 0.12500000000000001 in another round the same way (to 0.13); the
 * second is what DuckDB's `round(DOUBLE, n)` does (`std::round(x·10ⁿ)/10ⁿ`),
 * so the build's SQL `round(round(x, 9), n)` and this function agree to the bit.
 */
export function roundValue(x: number, decimals: number): number {
  return halfAway(halfAway(x, NOISE_DECIMALS), decimals);
}

/** The SQL expression that rounds `expr` as {@link roundValue} does. */
export function roundValueSql(expr: string, decimals: number): string {
  return `round(round(${expr}, ${NOISE_DECIMALS}), ${decimals})`;
}

function halfAway(x: number, decimals: number): number {
  const m = 10 ** decimals;
  const r = Math.round(Math.abs(x) * m) / m;
  return x < 0 ? -r : r;
}
