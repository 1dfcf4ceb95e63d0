/**
 * POST /api/station-indices/ — an extension beside the contract's four
 * endpoints (docs/contract.md, docs/indices.md): chill and heat indices
 * computed from station temperatures. This module holds the names, units,
 * defaults and the validator; the computation is in `indices/`.
 */
import { fieldError } from './errors.ts';
import { parseDate, periodKey } from './periods.ts';
import { quote } from './quote.ts';
import { isObject, LIMITS, oneOf, rejectUnknown, requireField, requireObject } from './validate.ts';
import { parseWkts, type ParsedGeometry } from './wkt.ts';

/** The indices a request can name, with their unit and the season family whose window `by: "season"` uses. */
export const STATION_INDICES = {
  chill_portions: {
    unit: 'chill portions',
    family: 'chill',
    words: 'Chill portions (Dynamic Model)',
    definition:
      "Fishman and Erez's Dynamic Model, hour by hour, with chillR's constants: chill builds up between about 0 and 13 °C and warm spells undo only the part not yet fixed as a portion.",
  },
  utah_chill_units: {
    unit: 'chill units',
    family: 'chill',
    words: 'Utah chill units',
    definition:
      "Richardson's Utah model: each hour counts from −1 to 1 by temperature (best 2.5–9.1 °C; above 15.9 °C it subtracts).",
  },
  dpcu: {
    unit: 'chill units',
    family: 'chill',
    words: 'Daily positive Utah chill units',
    definition:
      "Linsley-Noakes's South African variant: each day's Utah sum, set to zero when negative, so a warm day cancels only its own chill.",
  },
  chilling_hours: {
    unit: 'hours',
    family: 'chill',
    words: 'Chilling hours (0–7.2 °C)',
    definition: 'Hours from 0 to 7.2 °C.',
  },
  gdh: {
    unit: '°C·h',
    family: 'heat',
    words: 'Growing degree hours',
    definition: "Anderson's growing degree hours: heat above 4 °C, most at 25 °C, none above 36 °C.",
  },
  gdd: {
    unit: '°C·d',
    family: 'heat',
    words: 'Growing degree days',
    definition: "Each day's mean of minimum and maximum above the base (10 °C for grapes, 4.5 °C for apples), summed.",
  },
  winkler: {
    unit: '°C·d',
    family: 'winkler',
    words: 'Winkler index (base 10 °C, 1 October – 30 April)',
    definition: "Growing degree days above 10 °C from 1 October to 30 April, the wine regions' scale.",
  },
  frost_hours: { unit: 'hours', family: 'frost', words: 'Hours below 0 °C', definition: 'Hours below 0 °C.' },
  frost_days: {
    unit: 'days',
    family: 'frost',
    words: 'Days with a minimum below 0 °C',
    definition: 'Days whose lowest temperature is below 0 °C.',
  },
  frost_days_1: {
    unit: 'days',
    family: 'frost',
    words: 'Days with a minimum below −1 °C',
    definition: 'Days whose lowest temperature is below −1 °C.',
  },
  frost_days_2: {
    unit: 'days',
    family: 'frost',
    words: 'Days with a minimum below −2 °C',
    definition: 'Days whose lowest temperature is below −2 °C.',
  },
} as const;

/** One index name. */
export type StationIndexName = keyof typeof STATION_INDICES;
/** Every index name, in documentation order. */
export const STATION_INDEX_NAMES = Object.keys(STATION_INDICES) as StationIndexName[];
/** A season family: which default window an index accumulates over by season. */
export type SeasonFamily = (typeof STATION_INDICES)[StationIndexName]['family'];

/** Base temperatures (°C) of growing degree days per crop (docs/indices.md gives the sources). */
export const CROP_GDD_BASE = { grapes: 10, apples: 4.5 } as const;
/** A crop with a documented degree-day base. */
export type Crop = keyof typeof CROP_GDD_BASE;

/** Defaults of `options` (docs/indices.md says why each). */
export const INDEX_DEFAULTS = {
  by: 'window',
  /** Southern-hemisphere winter chill season, as the demo's chill layers accumulate it. */
  chillSeason: '05-01/08-31',
  /** The fruit and vine growing season, as the demo's gdd layers accumulate it. */
  heatSeason: '09-01/03-31',
  /** Winter and spring, blossom included. */
  frostSeason: '05-01/10-31',
  gddBase: CROP_GDD_BASE.grapes,
  maxGapHours: 6,
  minCompleteness: 0.9,
} as const;

/** The Winkler index's own season in the southern hemisphere: 1 October – 30 April. */
export const WINKLER_SEASON: SeasonWindow = { start: [10, 1], end: [4, 30] };

/** Most days one request may span: twenty years. */
export const MAX_INDEX_DAYS = 7305;
/** Most indices one request may name. */
export const MAX_INDICES = STATION_INDEX_NAMES.length;
/** Longest gap a request may fill (hours): three days. */
export const MAX_FILL_HOURS = 72;

/** A season window as month-day pairs; `end` before `start` wraps into the next year. */
export interface SeasonWindow {
  start: [number, number];
  end: [number, number];
}

/** A validated station-indices request. */
export interface StationIndicesQuery {
  geometries: ParsedGeometry[];
  indices: StationIndexName[];
  /** Days since 1970-01-01 (local standard time), inclusive. */
  firstDay: number;
  lastDay: number;
  by: 'window' | 'season';
  seasons: Record<SeasonFamily, SeasonWindow>;
  gddBase: number;
  maxGapHours: number;
  minCompleteness: number;
}

/** Body of POST /api/station-indices/. */
export interface StationIndicesRequest {
  wkts: string;
  indices: string[];
  startDate: string;
  endDate: string;
  options?: {
    by?: 'window' | 'season';
    chillSeason?: string;
    heatSeason?: string;
    frostSeason?: string;
    crop?: Crop;
    gddBase?: number;
    maxGapHours?: number;
    minCompleteness?: number;
  };
}

/** One index over one period: the value or null with the reason, and the hours behind it. */
export interface IndexPeriod {
  value: number | null;
  /** Why `value` is null; absent when it is a number. */
  reason?: string;
  hours_expected: number;
  hours_used: number;
  hours_missing: number;
  hours_filled: number;
  /** Frost indices: the value per month of the period (`yyyy-mm`), null for a month below the completeness threshold. */
  months?: Record<string, number | null>;
  /** Polygons: the stations whose value is in the mean. */
  station_count?: number;
}

/** One index's answer: its unit and a value per period, keyed `startDate/endDate`. */
export interface IndexAnswer {
  unit: string;
  periods: Record<string, IndexPeriod>;
}

/** Station metadata of a point's answer: nearest-station's, and where the hours came from. */
export interface IndexStationMetadata {
  station_lat: number;
  station_lon: number;
  station_elevation: number | null;
  distance_from_point_m: number;
  actual_nearest: boolean;
  /** `hourly`: measured hours; `daily`: hours reconstructed from daily minimum and maximum (docs/indices.md); null when no station has temperatures in the window. */
  hours_from: 'hourly' | 'daily' | null;
}

/** Response of POST /api/station-indices/ for points (keyed by WKT) or for one polygon. */
export type StationIndicesResponse =
  | Record<string, { metadata: IndexStationMetadata; indices: Record<string, IndexAnswer> }>
  | {
      stations_metadata: Record<
        string,
        { station_lat: number; station_lon: number; station_elevation: number | null; hours_from: 'hourly' | 'daily' }
      >;
      indices: Record<string, IndexAnswer>;
    };

const OPTION_KEYS = [
  'by',
  'chillSeason',
  'heatSeason',
  'frostSeason',
  'crop',
  'gddBase',
  'maxGapHours',
  'minCompleteness',
] as const;

function seasonWindow(value: unknown, field: string): SeasonWindow {
  const m = typeof value === 'string' ? /^(\d{2})-(\d{2})\/(\d{2})-(\d{2})$/.exec(value) : null;
  const bad = (why: string) =>
    fieldError(
      'invalid_field',
      field,
      `${field} ${why}; send "mm-dd/mm-dd", e.g. "04-01/08-31" (1 April to 31 August) or "10-01/04-30" (across the new year).`,
    );
  if (!m) throw bad(`${quote(value)} is not a season`);
  const [sm, sd, em, ed] = m.slice(1).map(Number) as [number, number, number, number];
  for (const [mo, d] of [
    [sm, sd],
    [em, ed],
  ] as const) {
    // 2024 is a leap year: 02-29 is a valid season end (it ends on 02-28 in other years).
    if (mo < 1 || mo > 12 || d < 1 || d > new Date(Date.UTC(2024, mo, 0)).getUTCDate())
      throw bad(`${quote(value)} holds no date ${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`);
  }
  return { start: [sm, sd], end: [em, ed] };
}

function numberIn(value: unknown, field: string, min: number, max: number, integer = false): number {
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < min ||
    value > max ||
    (integer && !Number.isInteger(value))
  ) {
    throw fieldError(
      'invalid_field',
      field,
      `${field} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}; got ${quote(value)}.`,
      { min, max, got: quote(value) },
    );
  }
  return value;
}

function indexNames(value: unknown): StationIndexName[] {
  const field = 'indices';
  if (!Array.isArray(value))
    throw fieldError('invalid_field', field, 'indices must be an array of index names, even for one.');
  if (value.length < 1 || value.length > MAX_INDICES)
    throw fieldError('limit_exceeded', field, `indices holds ${value.length} names; send 1 to ${MAX_INDICES}.`, {
      of: 'indices',
      min: 1,
      max: MAX_INDICES,
      got: value.length,
    });
  const seen = new Set<string>();
  return value.map((name, i) => {
    const f = `indices[${i}]`;
    if (typeof name !== 'string' || !(STATION_INDEX_NAMES as string[]).includes(name)) {
      throw fieldError(
        'unknown_data_type',
        f,
        `${f} ${quote(name)} is not an index; the indices are ${STATION_INDEX_NAMES.map((n) => `"${n}"`).join(', ')}.`,
        { got: quote(name), allowed: STATION_INDEX_NAMES },
      );
    }
    if (seen.has(name)) throw fieldError('invalid_field', f, `${f} ${quote(name)} is listed twice.`);
    seen.add(name);
    return name as StationIndexName;
  });
}

/** Validates a body for POST /api/station-indices/; throws a 400 naming the field. */
export function validateStationIndices(body: unknown): StationIndicesQuery {
  const b = requireObject(body);
  rejectUnknown(b, ['wkts', 'indices', 'startDate', 'endDate', 'options'], '');
  const indices = indexNames(requireField(b, 'indices'));
  const firstDay = parseDate('daily', requireField(b, 'startDate'), 'startDate');
  const lastDay = parseDate('daily', requireField(b, 'endDate'), 'endDate');
  if (firstDay > lastDay)
    throw fieldError(
      'invalid_date_range',
      'startDate',
      `startDate ${quote(b.startDate)} is after endDate ${quote(b.endDate)}.`,
      { reason: 'start after end', startDate: String(b.startDate), endDate: String(b.endDate) },
    );
  if (lastDay - firstDay + 1 > MAX_INDEX_DAYS) {
    throw fieldError(
      'too_many_periods',
      'endDate',
      `The window holds ${lastDay - firstDay + 1} days; one request may span at most ${MAX_INDEX_DAYS} (twenty years). Split it.`,
      { got: lastDay - firstDay + 1, max: MAX_INDEX_DAYS, timeScale: 'daily' },
    );
  }
  const o = b.options === undefined ? {} : b.options;
  if (!isObject(o)) throw fieldError('invalid_field', 'options', 'options must be a JSON object.');
  rejectUnknown(o, OPTION_KEYS, 'options.');
  const by = o.by === undefined ? INDEX_DEFAULTS.by : oneOf(o.by, ['window', 'season'] as const, 'options.by');
  const crop = o.crop === undefined ? undefined : oneOf(o.crop, Object.keys(CROP_GDD_BASE) as Crop[], 'options.crop');
  if (crop !== undefined && o.gddBase !== undefined)
    throw fieldError(
      'invalid_field',
      'options.gddBase',
      'options.gddBase and options.crop both set a degree-day base; send one.',
    );
  const gddBase =
    o.gddBase !== undefined
      ? numberIn(o.gddBase, 'options.gddBase', -10, 30)
      : crop
        ? CROP_GDD_BASE[crop]
        : INDEX_DEFAULTS.gddBase;
  // Polygons: one, as poly-aggregate; points: up to ten, as nearest-station.
  const wkts = requireField(b, 'wkts');
  const geometries =
    typeof wkts === 'string' && /^\s*(multi)?polygon\b/i.test(wkts)
      ? parseWkts(wkts, 'polygon', 1, LIMITS.polygonsPerPolyAggregate)
      : parseWkts(wkts, 'point', 1, LIMITS.pointsPerQuery);
  return {
    geometries,
    indices,
    firstDay,
    lastDay,
    by,
    seasons: {
      chill: seasonWindow(o.chillSeason ?? INDEX_DEFAULTS.chillSeason, 'options.chillSeason'),
      heat: seasonWindow(o.heatSeason ?? INDEX_DEFAULTS.heatSeason, 'options.heatSeason'),
      frost: seasonWindow(o.frostSeason ?? INDEX_DEFAULTS.frostSeason, 'options.frostSeason'),
      // The Winkler index is defined on its season (Amerine & Winkler 1944, southern-hemisphere dates).
      winkler: WINKLER_SEASON,
    },
    gddBase,
    maxGapHours:
      o.maxGapHours === undefined
        ? INDEX_DEFAULTS.maxGapHours
        : numberIn(o.maxGapHours, 'options.maxGapHours', 0, MAX_FILL_HOURS, true),
    minCompleteness:
      o.minCompleteness === undefined
        ? INDEX_DEFAULTS.minCompleteness
        : numberIn(o.minCompleteness, 'options.minCompleteness', 0.5, 1),
  };
}

/** The periods an index accumulates over: the whole window, or each season of `season` that overlaps it, clipped to it. Days since 1970, inclusive. */
export function indexPeriods(
  q: Pick<StationIndicesQuery, 'firstDay' | 'lastDay' | 'by'>,
  season: SeasonWindow,
): Array<[number, number]> {
  if (q.by === 'window') return [[q.firstDay, q.lastDay]];
  const out: Array<[number, number]> = [];
  const y0 = new Date(q.firstDay * 86_400_000).getUTCFullYear() - 1;
  const y1 = new Date(q.lastDay * 86_400_000).getUTCFullYear();
  const wraps = season.end[0] * 100 + season.end[1] < season.start[0] * 100 + season.start[1];
  for (let y = y0; y <= y1; y++) {
    const a = dayOf(y, season.start);
    const b = dayOf(wraps ? y + 1 : y, season.end);
    const s = Math.max(a, q.firstDay);
    const e = Math.min(b, q.lastDay);
    if (s <= e) out.push([s, e]);
  }
  return out;
}

/** A season's month-day in year `y` (29 February is the 28th in other years). */
function dayOf(y: number, [m, d]: [number, number]): number {
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return Date.UTC(y, m - 1, Math.min(d, last)) / 86_400_000;
}

/** The key of a period: its first and last day, `yyyy-mm-dd/yyyy-mm-dd`. */
export function seasonLabel([a, b]: [number, number]): string {
  return `${periodKey('daily', a)}/${periodKey('daily', b)}`;
}
