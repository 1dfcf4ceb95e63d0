/**
 * Every time scale, described once: how a request writes its
 * dates, an example, the app's date field, the words a person reads, and,
 * for the scales stations have records at, what the build needs. The
 * validators (periods.ts), the OpenAPI document, the app's option lists
 * (ui/form-options.ts), the CLI help and the build read this table; adding
 * a scale is adding an entry here. Its `calendar` must be one the period
 * arithmetic knows (periods.ts); the station types that exist at a new
 * station scale are named in station-types.ts.
 */

import type { Calendar } from './calendars.ts';

/**
 * The calendar unit of a scale's periods, which fixes their arithmetic,
 * keys, SQL and file grouping (calendars.ts): hours, days, dekads or months
 * since 1970, years, or a month of any year (1–12, ranges wrap).
 */
export type { Calendar } from './calendars.ts';

/** What the build and the app need of a scale stations have records at. */
export interface StationScaleSpec {
  /** The finer station scale whose values this one's are derived from when a station has none of its own (rules: station-types.ts); null for none. */
  derivedFrom: string | null;
  /** How an observation file writes its times, for the build's messages. */
  fileTime: string;
  /** Rows per Parquet row group of a station file (see stations-build.ts). */
  rowGroupSize: number;
  /**
   * Finer values a derived period may miss for a statistic other than a total (totals need every
   * one): 6 of a day's 24 hours, 5 days of a month (docs/data.md, "Given and derived").
   */
  maxMissing: number;
}

/** One time scale. */
export interface TimeScaleSpec {
  calendar: Calendar;
  /** Its name as the app's menu shows it: "hourly". */
  name: string;
  /** Its values in words: "hourly values". */
  words: string;
  /** One period in words: "hour" (as in "each (station, hour)"). */
  period: string;
  /** How a request writes its dates, for people: "yyyy-mm-dd". */
  format: string;
  /** A request date of this scale. */
  example: string;
  /**
   * A request date, with named groups `year`, `month`, `day`, `hour`,
   * `minute`, `second` as the calendar needs; the validators then check the
   * calendar (days of the month, minutes 00) and the years.
   */
  parse: RegExp;
  /** The shape of a request date as a JSON Schema pattern (the OpenAPI document). */
  pattern: string;
  /** The app's From and To fields: hint and HTML pattern (ui/date-input.ts turns what is typed into a request date). */
  input: { placeholder: string; pattern: string };
  /** Present when stations have records at this scale. */
  station: StationScaleSpec | null;
  /** True when a raster layer may have this scale. */
  raster: boolean;
}

/** The time scales, in the order lists show them. */
export const TIME_SCALES = {
  hourly: {
    calendar: 'hour',
    name: 'hourly',
    words: 'hourly values',
    period: 'hour',
    format: 'yyyy-mm-ddThh:00:00',
    example: '2024-01-31T13:00:00',
    parse: /^(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})T(?<hour>\d{2}):(?<minute>\d{2}):(?<second>\d{2})$/,
    pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:00:00$',
    input: { placeholder: 'yyyy-mm-dd hh:mm', pattern: '\\d{4}-\\d{2}-\\d{2}[ T]\\d{2}:\\d{2}(:\\d{2})?' },
    station: { derivedFrom: null, fileTime: 'yyyy-mm-dd hh:00:00', rowGroupSize: 4096, maxMissing: 0 },
    raster: false,
  },
  daily: {
    calendar: 'day',
    name: 'daily',
    words: 'daily values',
    period: 'day',
    format: 'yyyy-mm-dd',
    example: '2024-01-31',
    parse: /^(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})$/,
    pattern: '^\\d{4}-\\d{2}-\\d{2}$',
    input: { placeholder: 'yyyy-mm-dd', pattern: '\\d{4}-\\d{2}-\\d{2}' },
    station: { derivedFrom: 'hourly', fileTime: 'yyyy-mm-dd', rowGroupSize: 2048, maxMissing: 6 },
    raster: true,
  },
  // Agrometeorology's unit (FAO/WMO bulletins, CHIRPS): days 1–10, 11–20, 21 to the month's end,
  // keyed by the first day. A dekad may miss 1 day, the month's 5 scaled to its length (5 × 10/30).
  dekadal: {
    calendar: 'dekad',
    name: 'dekadal',
    words: 'dekadal values',
    period: 'dekad',
    format: 'yyyy-mm-dd (day 01, 11 or 21)',
    example: '2024-01-11',
    parse: /^(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})$/,
    pattern: '^\\d{4}-\\d{2}-(01|11|21)$',
    input: { placeholder: 'yyyy-mm-dd (01, 11, 21)', pattern: '\\d{4}-\\d{2}-\\d{2}' },
    station: { derivedFrom: 'daily', fileTime: 'yyyy-mm-dd on day 01, 11 or 21', rowGroupSize: 2048, maxMissing: 1 },
    raster: true,
  },
  monthly: {
    calendar: 'month',
    name: 'monthly',
    words: 'monthly values',
    period: 'month',
    format: 'yyyy-mm',
    example: '2024-01',
    parse: /^(?<year>\d{4})-(?<month>\d{2})$/,
    pattern: '^\\d{4}-\\d{2}$',
    input: { placeholder: 'yyyy-mm', pattern: '\\d{4}-\\d{2}' },
    station: { derivedFrom: 'daily', fileTime: 'yyyy-mm or yyyy-mm-01', rowGroupSize: 2048, maxMissing: 5 },
    raster: true,
  },
  annual: {
    calendar: 'year',
    name: 'annual',
    words: 'annual values',
    period: 'year',
    format: 'yyyy',
    example: '2024',
    parse: /^(?<year>\d{4})$/,
    pattern: '^\\d{4}$',
    input: { placeholder: 'yyyy', pattern: '\\d{4}' },
    station: null,
    raster: true,
  },
  calendar_month: {
    calendar: 'month_of_year',
    name: 'calendar month',
    words: 'long-term monthly values',
    period: 'calendar month',
    format: 'mm',
    example: '06',
    // "--06" (the response key form) is accepted too, so keys can be sent back.
    parse: /^(?:--)?(?<month>\d{2})$/,
    pattern: '^(--)?\\d{2}$',
    input: { placeholder: 'mm (01–12)', pattern: '(--)?\\d{2}' },
    station: null,
    raster: true,
  },
} as const satisfies Record<string, TimeScaleSpec>;

type Table = typeof TIME_SCALES;

/** Every time scale a request can name. */
export type TimeScale = keyof Table;

/** A scale stations have records at. */
export type StationTimeScale = { [K in TimeScale]: Table[K]['station'] extends null ? never : K }[TimeScale];

/** A scale a raster layer may have. */
export type RasterTimeScale = { [K in TimeScale]: Table[K]['raster'] extends true ? K : never }[TimeScale];

/** Every time scale, in the table's order. */
export const TIME_SCALE_NAMES = Object.keys(TIME_SCALES) as TimeScale[];

/** The station time scales, finest first (the table's order). */
export const STATION_TIME_SCALES: readonly StationTimeScale[] = TIME_SCALE_NAMES.filter(
  (s): s is StationTimeScale => TIME_SCALES[s].station !== null,
);

/** The raster time scales, in the table's order. */
export const RASTER_TIME_SCALES: readonly RasterTimeScale[] = TIME_SCALE_NAMES.filter(
  (s): s is RasterTimeScale => TIME_SCALES[s].raster,
);

/** The description of `scale`, or undefined when no scale has that name. */
export function timeScaleSpec(scale: string): TimeScaleSpec | undefined {
  return Object.hasOwn(TIME_SCALES, scale) ? TIME_SCALES[scale as TimeScale] : undefined;
}

/** The station part of a station scale's description. */
export function stationScaleSpec(scale: StationTimeScale): StationScaleSpec {
  return TIME_SCALES[scale].station as StationScaleSpec;
}

/** The calendar unit of `scale`'s periods. */
export function calendarOf(scale: TimeScale): Calendar {
  return TIME_SCALES[scale].calendar;
}
