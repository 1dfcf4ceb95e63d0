/**
 * Table 2.4 of the contract: which station data type names are valid at
 * which time scale. Names are exact, including the contract's spellings
 * `solar_radation` (hourly) and `leaf_wetnes_min` (daily, monthly).
 */

/** Station time scales. */
export const STATION_TIME_SCALES = ['hourly', 'daily', 'monthly'] as const;
/** One station time scale. */
export type StationTimeScale = (typeof STATION_TIME_SCALES)[number];

/** Data types valid at the hourly time scale, in table order. */
export const HOURLY_TYPES = [
  'temperature_mean', 'temperature_min', 'temperature_max',
  'rain',
  'solar_radation',
  'sunshine_duration',
  'wind_direction',
  'leaf_wetness',
  'wind_speed', 'wind_speed_max',
  'evaporation',
  'dew_point',
  'humidity', 'humidity_min', 'humidity_max',
] as const;

/** Data types valid at the daily time scale, in table order. */
export const DAILY_TYPES = [
  'temperature_mean', 'temperature_min', 'temperature_max', 'temperature_median',
  'rain_sum', 'rain_mean', 'rain_min', 'rain_max',
  'solar_radiation_sum',
  'solar_rad_std_sum', 'solar_rad_std_mean', 'solar_rad_std_min', 'solar_rad_std_max',
  'sunshine_duration_sum',
  'wind_direction_mean', 'wind_direction_median',
  'leaf_wetness_mean', 'leaf_wetness_median', 'leaf_wetnes_min', 'leaf_wetness_max',
  'wind_speed_max', 'wind_speed_mean', 'wind_speed_min',
  'evaporation_sum',
  'dew_point_mean', 'dew_point_median', 'dew_point_min', 'dew_point_max',
  'humidity_mean', 'humidity_min', 'humidity_max', 'humidity_median',
  'et0',
] as const;

/** Data types valid at the monthly time scale, in table order. */
export const MONTHLY_TYPES = [
  'temperature_mean', 'temperature_min', 'temperature_max', 'temperature_median',
  'rain_sum', 'rain_mean', 'rain_min', 'rain_max',
  'solar_radiation_sum',
  'solar_rad_std',
  'sunshine_duration_sum',
  'wind_direction_mean', 'wind_direction_median',
  'leaf_wetness_mean', 'leaf_wetness_median', 'leaf_wetnes_min', 'leaf_wetness_max',
  'wind_speed_max', 'wind_speed_mean', 'wind_speed_min',
  'evaporation_sum',
  'dew_point_mean', 'dew_point_median', 'dew_point_min', 'dew_point_max',
  'humidity_mean', 'humidity_min', 'humidity_max', 'humidity_median',
] as const;

/** Every valid name per time scale. */
export const STATION_TYPES: Record<StationTimeScale, readonly string[]> = {
  hourly: HOURLY_TYPES,
  daily: DAILY_TYPES,
  monthly: MONTHLY_TYPES,
};

/** True when `name` is valid at `scale` (exact, case-sensitive). */
export function isStationType(scale: StationTimeScale, name: string): boolean {
  return STATION_TYPES[scale].includes(name);
}

/** The time scales at which `name` is valid, for error messages. */
export function scalesOf(name: string): StationTimeScale[] {
  return STATION_TIME_SCALES.filter((s) => isStationType(s, name));
}
