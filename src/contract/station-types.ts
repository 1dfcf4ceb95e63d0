/**
 * Every station data type of contract table 2.4, described once:
 * its name, the time scales it exists at, its plain words, unit and step,
 * its physical bounds, and how the build derives it from the next finer
 * scale. Adding a type is adding an entry here; the lists per scale
 * (station-data-types.ts), the words (station-type-info.ts), the bounds
 * (station-bounds.ts), the derive rules (derive-rules.ts), the OpenAPI
 * document, the app's option lists and the CLI help are views of it.
 *
 * Names are exact, including the contract's spellings `solar_radation`
 * (hourly) and `leaf_wetnes_min` (daily, monthly). A scale's types are
 * listed in this table's order, which is the contract's order per scale
 * (and the column order of the build's files).
 *
 * Bounds (docs/data.md, "Plausible values") are impossible values, not rare
 * ones: world records, not South African climate. Air and dew-point
 * temperatures −90 to 60 °C (records −89.2 and 56.7 °C), relative humidity
 * 0–100 %, directions 0–360°, amounts never below 0, and the few amounts
 * with a hard ceiling per hour: sunshine and leaf wetness at most 60
 * minutes, radiation at most 1,500 W/m² (the solar constant is 1,361).
 */
import { STATION_TIME_SCALES, type StationTimeScale, stationScaleSpec, TIME_SCALES } from './time-scales.ts';

/** [lowest, highest] allowed; null where there is no hard bound on that side. */
export type Bounds = readonly [number | null, number | null];

/** Aggregations a derive rule can use. `circmean`/`circmedian` are for directions in degrees. */
export type Agg = 'mean' | 'min' | 'max' | 'median' | 'sum' | 'std' | 'circmean' | 'circmedian';

/** How a type's values at a scale are made from the next finer scale's (docs/data.md explains each rule). */
export interface DeriveFrom {
  agg: Agg;
  /** Input column (a data type of the finer scale). */
  src: string;
  /** Multiplier applied to the result (unit change). */
  factor?: number;
  /** True when every finer period must have a value (sums); otherwise the completeness threshold applies. */
  complete?: boolean;
}

/** A type at one scale: what differs there from its base words, and how it is derived. */
export interface AtScale {
  /** Plain name at this scale, when it differs ("Rainfall, monthly total"). */
  name?: string;
  unit?: string;
  decimals?: number;
  /** The rule that derives it from the finer scale's values; absent for a type that is only ever given. */
  from?: DeriveFrom;
  /** True when the build computes it by its own code rather than a rule (et0: FAO-56, stations-build.ts). */
  computed?: boolean;
}

/** One station data type. */
export interface StationTypeSpec {
  /** Plain name, e.g. "Air temperature, daily maximum". */
  name: string;
  /** Unit of the values. */
  unit: string;
  /** Decimals of one reading (its step): 1 for 0.1 °C, 0 for whole percent. */
  decimals: number;
  bounds: Bounds;
  /**
   * The physical range, where instruments read past it: values between it and `bounds` are real
   * readings, kept as measured and counted in the build report (relative humidity above 100 %).
   */
  physical?: Bounds;
  /** The scales it exists at, each with what differs there. */
  at: Partial<Record<StationTimeScale, AtScale>>;
}

const TEMPERATURE: Bounds = [-90, 60];
/**
 * Relative humidity as sensors read it: capacitive sensors routinely give 100–103 % near saturation
 * (a real logger's hourly mean: 100.07 %), within their stated accuracy of ±2–3 % RH; quality
 * control flags or clamps such readings rather than discarding the record. Kept to 105 %; above
 * that no sensor reads.
 */
const HUMIDITY: Bounds = [0, 105];
const PERCENT: Bounds = [0, 100];
const DEGREES: Bounds = [0, 360];
const MINUTES_PER_HOUR: Bounds = [0, 60];
const IRRADIANCE: Bounds = [0, 1500];
const WIND: Bounds = [0, 150];
/** Rain, evaporation, radiation and sunshine totals, ET₀, the spread of radiation. */
const AMOUNT: Bounds = [0, null];

const T = (what: string) => ({ name: `Air temperature, ${what}`, unit: '°C', decimals: 1, bounds: TEMPERATURE });
const rule = (agg: Agg, src: string): { from: DeriveFrom } => ({ from: { agg, src } });
// Totals need every finer period (a total with gaps would be too small).
const total = (src: string, factor?: number): { from: DeriveFrom } => ({
  from: { agg: 'sum', src, ...(factor === undefined ? {} : { factor }), complete: true },
});

/**
 * A type as the table below writes it: `days` is its summary of the daily values, which every
 * scale made of days has (time-scales.ts: derived from daily; monthly and dekadal), its name's
 * {scale} and {period} filled in per scale ("Rainfall, dekadal total", "lowest of the month").
 */
interface WrittenType extends Omit<StationTypeSpec, 'at'> {
  at: Partial<Record<StationTimeScale, AtScale>> & { days?: AtScale };
}

/** Every scale whose periods are made of days: the scales the table's `days` entries exist at. */
const DAY_SUMMARY_SCALES = STATION_TIME_SCALES.filter((s) => stationScaleSpec(s).derivedFrom === 'daily');

function atEveryScale(w: WrittenType): StationTypeSpec {
  const { days, ...at } = w.at;
  const summaries = days
    ? Object.fromEntries(
        DAY_SUMMARY_SCALES.map((s) => {
          const name = days.name?.replace('{scale}', TIME_SCALES[s].name).replace('{period}', TIME_SCALES[s].period);
          return [s, name === undefined ? days : { ...days, name }];
        }),
      )
    : {};
  return { ...w, at: { ...at, ...summaries } };
}

/** The station data types, in the contract's order, as written (see {@link WrittenType}). */
const WRITTEN_TYPES: Record<string, WrittenType> = {
  temperature_mean: {
    ...T('daily mean'),
    at: {
      hourly: { name: 'Air temperature, hourly mean' },
      daily: rule('mean', 'temperature_mean'),
      days: { name: 'Air temperature, {scale} mean', ...rule('mean', 'temperature_mean') },
    },
  },
  temperature_min: {
    ...T('daily minimum'),
    at: {
      hourly: { name: 'Air temperature, hourly minimum' },
      daily: rule('min', 'temperature_min'),
      days: { name: 'Air temperature, lowest of the {period}', ...rule('min', 'temperature_min') },
    },
  },
  temperature_max: {
    ...T('daily maximum'),
    at: {
      hourly: { name: 'Air temperature, hourly maximum' },
      daily: rule('max', 'temperature_max'),
      days: { name: 'Air temperature, highest of the {period}', ...rule('max', 'temperature_max') },
    },
  },
  temperature_median: {
    ...T('daily median'),
    at: {
      daily: rule('median', 'temperature_mean'),
      days: { name: 'Air temperature, {scale} median', ...rule('median', 'temperature_mean') },
    },
  },
  rain: { name: 'Rainfall', unit: 'mm', decimals: 1, bounds: AMOUNT, at: { hourly: {} } },
  rain_sum: {
    name: 'Rainfall, daily total',
    unit: 'mm',
    decimals: 1,
    bounds: AMOUNT,
    at: { daily: total('rain'), days: { name: 'Rainfall, {scale} total', ...total('rain_sum') } },
  },
  // Monthly: statistics of daily totals, the mean, driest and wettest day of the month.
  rain_mean: {
    name: 'Rainfall, mean per hour',
    unit: 'mm',
    decimals: 1,
    bounds: AMOUNT,
    at: { daily: rule('mean', 'rain'), days: { name: 'Rainfall, mean per day', ...rule('mean', 'rain_sum') } },
  },
  rain_min: {
    name: 'Rainfall, driest hour',
    unit: 'mm',
    decimals: 1,
    bounds: AMOUNT,
    at: { daily: rule('min', 'rain'), days: { name: 'Rainfall, driest day', ...rule('min', 'rain_sum') } },
  },
  rain_max: {
    name: 'Rainfall, wettest hour',
    unit: 'mm',
    decimals: 1,
    bounds: AMOUNT,
    at: { daily: rule('max', 'rain'), days: { name: 'Rainfall, wettest day', ...rule('max', 'rain_sum') } },
  },
  solar_radation: {
    name: 'Solar radiation, hourly mean',
    unit: 'W/m²',
    decimals: 0,
    bounds: IRRADIANCE,
    at: { hourly: {} },
  },
  // W/m² averaged over an hour × 3600 s = J/m²; /1e6 → MJ/m².
  solar_radiation_sum: {
    name: 'Solar radiation, daily total',
    unit: 'MJ/m²',
    decimals: 1,
    bounds: AMOUNT,
    at: {
      daily: total('solar_radation', 0.0036),
      days: { name: 'Solar radiation, {scale} total', ...total('solar_radiation_sum') },
    },
  },
  solar_rad_std_sum: {
    name: 'Solar radiation, sum of hourly readings',
    unit: 'W/m²',
    decimals: 0,
    bounds: AMOUNT,
    at: { daily: total('solar_radation') },
  },
  solar_rad_std_mean: {
    name: 'Solar radiation, mean of hourly readings',
    unit: 'W/m²',
    decimals: 0,
    bounds: IRRADIANCE,
    at: { daily: rule('mean', 'solar_radation') },
  },
  solar_rad_std_min: {
    name: 'Solar radiation, lowest hourly reading',
    unit: 'W/m²',
    decimals: 0,
    bounds: IRRADIANCE,
    at: { daily: rule('min', 'solar_radation') },
  },
  solar_rad_std_max: {
    name: 'Solar radiation, highest hourly reading',
    unit: 'W/m²',
    decimals: 0,
    bounds: IRRADIANCE,
    at: { daily: rule('max', 'solar_radation') },
  },
  // Day-to-day variability of daily radiation (sample standard deviation, MJ/m²).
  solar_rad_std: {
    name: 'Solar radiation, day-to-day variation (std. dev.)',
    unit: 'MJ/m²',
    decimals: 1,
    bounds: AMOUNT,
    at: { days: rule('std', 'solar_radiation_sum') },
  },
  sunshine_duration: { name: 'Sunshine', unit: 'min', decimals: 0, bounds: MINUTES_PER_HOUR, at: { hourly: {} } },
  // Minutes of sunshine per hour → hours per day.
  sunshine_duration_sum: {
    name: 'Sunshine, daily total',
    unit: 'h',
    decimals: 1,
    bounds: AMOUNT,
    at: {
      daily: total('sunshine_duration', 1 / 60),
      days: { name: 'Sunshine, {scale} total', ...total('sunshine_duration_sum') },
    },
  },
  wind_direction: { name: 'Wind direction', unit: '° from north', decimals: 0, bounds: DEGREES, at: { hourly: {} } },
  wind_direction_mean: {
    name: 'Wind direction, mean',
    unit: '° from north',
    decimals: 0,
    bounds: DEGREES,
    at: { daily: rule('circmean', 'wind_direction'), days: rule('circmean', 'wind_direction_mean') },
  },
  wind_direction_median: {
    name: 'Wind direction, median',
    unit: '° from north',
    decimals: 0,
    bounds: DEGREES,
    at: { daily: rule('circmedian', 'wind_direction'), days: rule('circmedian', 'wind_direction_mean') },
  },
  leaf_wetness: { name: 'Leaf wetness', unit: 'min wet/h', decimals: 0, bounds: MINUTES_PER_HOUR, at: { hourly: {} } },
  leaf_wetness_mean: {
    name: 'Leaf wetness, mean',
    unit: 'min wet/h',
    decimals: 0,
    bounds: MINUTES_PER_HOUR,
    at: { daily: rule('mean', 'leaf_wetness'), days: rule('mean', 'leaf_wetness_mean') },
  },
  leaf_wetness_median: {
    name: 'Leaf wetness, median',
    unit: 'min wet/h',
    decimals: 0,
    bounds: MINUTES_PER_HOUR,
    at: { daily: rule('median', 'leaf_wetness'), days: rule('median', 'leaf_wetness_mean') },
  },
  leaf_wetnes_min: {
    name: 'Leaf wetness, lowest',
    unit: 'min wet/h',
    decimals: 0,
    bounds: MINUTES_PER_HOUR,
    at: { daily: rule('min', 'leaf_wetness'), days: rule('min', 'leaf_wetnes_min') },
  },
  leaf_wetness_max: {
    name: 'Leaf wetness, highest',
    unit: 'min wet/h',
    decimals: 0,
    bounds: MINUTES_PER_HOUR,
    at: { daily: rule('max', 'leaf_wetness'), days: rule('max', 'leaf_wetness_max') },
  },
  wind_speed: { name: 'Wind speed', unit: 'm/s', decimals: 1, bounds: WIND, at: { hourly: {} } },
  wind_speed_max: {
    name: 'Wind speed, strongest gust',
    unit: 'm/s',
    decimals: 1,
    bounds: WIND,
    at: { hourly: {}, daily: rule('max', 'wind_speed_max'), days: rule('max', 'wind_speed_max') },
  },
  wind_speed_mean: {
    name: 'Wind speed, mean',
    unit: 'm/s',
    decimals: 1,
    bounds: WIND,
    at: { daily: rule('mean', 'wind_speed'), days: rule('mean', 'wind_speed_mean') },
  },
  wind_speed_min: {
    name: 'Wind speed, lowest',
    unit: 'm/s',
    decimals: 1,
    bounds: WIND,
    at: { daily: rule('min', 'wind_speed'), days: rule('min', 'wind_speed_min') },
  },
  evaporation: { name: 'Evaporation (pan)', unit: 'mm', decimals: 1, bounds: AMOUNT, at: { hourly: {} } },
  evaporation_sum: {
    name: 'Evaporation (pan), daily total',
    unit: 'mm',
    decimals: 1,
    bounds: AMOUNT,
    at: {
      daily: total('evaporation'),
      days: { name: 'Evaporation (pan), {scale} total', ...total('evaporation_sum') },
    },
  },
  dew_point: { name: 'Dew point', unit: '°C', decimals: 1, bounds: TEMPERATURE, at: { hourly: {} } },
  dew_point_mean: {
    name: 'Dew point, mean',
    unit: '°C',
    decimals: 1,
    bounds: TEMPERATURE,
    at: { daily: rule('mean', 'dew_point'), days: rule('mean', 'dew_point_mean') },
  },
  dew_point_median: {
    name: 'Dew point, median',
    unit: '°C',
    decimals: 1,
    bounds: TEMPERATURE,
    at: { daily: rule('median', 'dew_point'), days: rule('median', 'dew_point_mean') },
  },
  dew_point_min: {
    name: 'Dew point, lowest',
    unit: '°C',
    decimals: 1,
    bounds: TEMPERATURE,
    at: { daily: rule('min', 'dew_point'), days: rule('min', 'dew_point_min') },
  },
  dew_point_max: {
    name: 'Dew point, highest',
    unit: '°C',
    decimals: 1,
    bounds: TEMPERATURE,
    at: { daily: rule('max', 'dew_point'), days: rule('max', 'dew_point_max') },
  },
  humidity: {
    name: 'Relative humidity',
    unit: '%',
    decimals: 0,
    bounds: HUMIDITY,
    physical: PERCENT,
    at: { hourly: {} },
  },
  humidity_mean: {
    name: 'Relative humidity, mean',
    unit: '%',
    decimals: 0,
    bounds: HUMIDITY,
    physical: PERCENT,
    at: { daily: rule('mean', 'humidity'), days: rule('mean', 'humidity_mean') },
  },
  humidity_min: {
    name: 'Relative humidity, lowest',
    unit: '%',
    decimals: 0,
    bounds: HUMIDITY,
    physical: PERCENT,
    at: { hourly: {}, daily: rule('min', 'humidity_min'), days: rule('min', 'humidity_min') },
  },
  humidity_max: {
    name: 'Relative humidity, highest',
    unit: '%',
    decimals: 0,
    bounds: HUMIDITY,
    physical: PERCENT,
    at: { hourly: {}, daily: rule('max', 'humidity_max'), days: rule('max', 'humidity_max') },
  },
  humidity_median: {
    name: 'Relative humidity, median',
    unit: '%',
    decimals: 0,
    bounds: HUMIDITY,
    physical: PERCENT,
    at: { daily: rule('median', 'humidity'), days: rule('median', 'humidity_mean') },
  },
  et0: {
    name: 'Reference evapotranspiration (ET₀, FAO-56)',
    unit: 'mm',
    decimals: 1,
    bounds: AMOUNT,
    at: { daily: { computed: true } },
  },
};

/** The station data types, in the contract's order. */
export const STATION_TYPE_TABLE: Record<string, StationTypeSpec> = Object.fromEntries(
  Object.entries(WRITTEN_TYPES).map(([name, w]) => [name, atEveryScale(w)]),
);

/** The description of `type`, or undefined for a name the table does not have. */
export function stationTypeSpec(type: string): StationTypeSpec | undefined {
  return Object.hasOwn(STATION_TYPE_TABLE, type) ? STATION_TYPE_TABLE[type] : undefined;
}

/** What `type` is at `scale` (its overrides and rule), or undefined when it does not exist there. */
export function stationTypeAt(scale: string, type: string): AtScale | undefined {
  const at = stationTypeSpec(type)?.at as Record<string, AtScale> | undefined;
  return at && Object.hasOwn(at, scale) ? at[scale] : undefined;
}

/** The types that exist at `scale`, in the table's order. */
export function typesAtScale(scale: StationTimeScale): string[] {
  return Object.keys(STATION_TYPE_TABLE).filter((t) => stationTypeAt(scale, t) !== undefined);
}
