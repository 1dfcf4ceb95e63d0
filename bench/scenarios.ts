/**
 * The benchmark scenarios: each endpoint at the contract's maximum request
 * size (docs/contract.md), on the demo dataset.
 *
 * - point: 10 points (in 10 different 32 px tiles) × 365 daily dates;
 * - polygon: 5 orchard-sized polygons of ~1.9 km² (under the 2 km² limit;
 *   two turned 45°, one centred on a pixel corner) × 365 daily dates;
 * - the same points and polygons on the undated windspeed layer;
 * - nearest-station: 10 points × 5 data types × one year, hourly, daily
 *   and monthly;
 * - poly-aggregate: one polygon holding ≥ 20 stations × 5 types × one
 *   year daily;
 * - station-indices: every chill, heat and frost index by season for one
 *   point over the demo's whole hourly record (2023–2024: the seasons it
 *   holds), against nearest-station reading the same hours.
 */
import type { Endpoint } from '../src/contract/types.ts';

/** Where the answers come from; `indices` is the station-indices extension and the nearest-station query that reads the same hours. */
export type ScenarioFamily = 'raster' | 'station' | 'indices';

/** One benchmarked request. */
export interface Scenario {
  /** Stable id, used in results.json. */
  id: string;
  /** What it is, for the report. */
  title: string;
  family: ScenarioFamily;
  endpoint: Endpoint;
  /** The request body, exactly as a client sends it. */
  body: Record<string, unknown>;
  /** More bodies sent one after another once `body` is answered, timed and counted with it (a span no one request may ask for). */
  followedBy?: Array<Record<string, unknown>>;
  /** The dataset it runs on: the demo (default), or `seasons`, one station with twelve years of hours (bench/dataset.ts). */
  dataset?: 'seasons';
}

/** Fruit and wine towns of the Western Cape, each in a different 32 px tile of the tc grid (0.64°). */
export const POINTS: ReadonlyArray<readonly [number, number]> = [
  [19.03, -34.15], // Grabouw
  [19.31, -33.37], // Ceres
  [19.88, -33.8], // Robertson
  [18.86, -33.93], // Stellenbosch
  [22.2, -33.59], // Oudtshoorn
  [22.58, -32.35], // Beaufort West
  [18.89, -32.18], // Clanwilliam
  [18.5, -31.67], // Vredendal
  [20.66, -32.39], // Sutherland
  [19.78, -31.47], // Calvinia
];

/** Polygon centres and whether the square is turned 45°. (19.30, −33.38) is a pixel corner of the 0.02° grid. */
const FIELDS: ReadonlyArray<{ name: string; at: readonly [number, number]; turned: boolean }> = [
  { name: 'Elgin', at: [19.0355, -34.147], turned: false },
  { name: 'Ceres, centred on a pixel corner', at: [19.3, -33.38], turned: false },
  { name: 'Robertson', at: [19.884, -33.806], turned: false },
  { name: 'Stellenbosch', at: [18.873, -33.941], turned: true },
  { name: 'Citrusdal', at: [19.012, -32.594], turned: true },
];

/** A label per benchmark polygon, in request order. */
export const POLYGON_LABELS = FIELDS.map(
  (f) => `${f.name} (${f.turned ? 'square turned 45°' : 'axis-aligned square'})`,
);

/** Area of every benchmark polygon, km² (the contract's limit is 2). */
export const FIELD_AREA_KM2 = 1.9;

const f5 = (x: number) => x.toFixed(5);

/** A square of `areaKm2` centred on `at`, optionally turned 45°, as WKT. */
export function squareWkt(at: readonly [number, number], areaKm2: number, turned: boolean): string {
  const [lon, lat] = at;
  const half = Math.sqrt(areaKm2) / 2; // km
  const kmPerDegLat = 110.95;
  const kmPerDegLon = 111.32 * Math.cos((lat * Math.PI) / 180);
  const corners: Array<[number, number]> = turned
    ? [
        [0, -Math.SQRT2 * half],
        [Math.SQRT2 * half, 0],
        [0, Math.SQRT2 * half],
        [-Math.SQRT2 * half, 0],
      ]
    : [
        [-half, -half],
        [half, -half],
        [half, half],
        [-half, half],
      ];
  const ring = [...corners, corners[0]!].map(
    ([dx, dy]) => `${f5(lon + dx / kmPerDegLon)} ${f5(lat + dy / kmPerDegLat)}`,
  );
  return `POLYGON ((${ring.join(', ')}))`;
}

/** The 10 points as the `wkts` field. */
export const POINT_WKTS = POINTS.map(([x, y]) => `POINT (${x} ${y})`).join(';');
/** The 5 polygons as the `wkts` field. */
export const POLYGON_WKTS = FIELDS.map((f) => squareWkt(f.at, FIELD_AREA_KM2, f.turned)).join(';');

/** The polygon for poly-aggregate: the south-western Cape, ≥ 20 stations of the demo. */
export const STATION_REGION_WKT = 'POLYGON ((18.2 -34.5, 20.5 -34.5, 20.5 -32.5, 18.2 -32.5, 18.2 -34.5))';

/** Daily dates of the raster scenarios: 365 of them. */
export const RASTER_DATES = { startDate: '2024-01-01', endDate: '2024-12-30' } as const;

/** The daily layer benchmarked, and the undated one. */
export const DAILY_LAYER = { dataType: 'temp', subDataType: 'mean', extent: 'tc' } as const;
/** The undated layer benchmarked. */
export const UNDATED_LAYER = { dataType: 'windspeed', subDataType: '100', extent: 'sa' } as const;

/** Every scenario, rasters first. */
/** The ten chill, heat and frost indices the station-indices scenarios ask for. */
const SEASON_INDICES = [
  'chill_portions',
  'utah_chill_units',
  'dpcu',
  'chilling_hours',
  'gdh',
  'gdd',
  'winkler',
  'frost_hours',
  'frost_days',
  'frost_days_2',
];

export const SCENARIOS: readonly Scenario[] = [
  {
    id: 'point-daily',
    title: 'point: 10 points × 365 days (temp mean)',
    family: 'raster',
    endpoint: 'point',
    body: {
      wkts: POINT_WKTS,
      dataType: 'temp',
      options: { subDataType: 'mean', timeScale: 'daily', dataExtent: 'tc' },
      ...RASTER_DATES,
    },
  },
  {
    id: 'polygon-daily',
    title: 'polygon: 5 × 1.9 km² × 365 days (temp mean, mean)',
    family: 'raster',
    endpoint: 'polygon',
    body: {
      wkts: POLYGON_WKTS,
      dataType: 'temp',
      options: { subDataType: 'mean', timeScale: 'daily', dataExtent: 'tc', aggregationMethod: 'mean' },
      ...RASTER_DATES,
    },
  },
  {
    id: 'point-undated',
    title: 'point: 10 points, undated (windspeed 100 m)',
    family: 'raster',
    endpoint: 'point',
    body: { wkts: POINT_WKTS, dataType: 'windspeed', options: { subDataType: '100', dataExtent: 'sa' } },
  },
  {
    id: 'polygon-undated',
    title: 'polygon: 5 × 1.9 km², undated (windspeed 100 m, mean)',
    family: 'raster',
    endpoint: 'polygon',
    body: {
      wkts: POLYGON_WKTS,
      dataType: 'windspeed',
      options: { subDataType: '100', dataExtent: 'sa', aggregationMethod: 'mean' },
    },
  },
  {
    id: 'nearest-hourly',
    title: 'nearest-station: 10 points × 5 types × 8,784 hours (2024)',
    family: 'station',
    endpoint: 'nearest-station',
    body: {
      wkts: POINT_WKTS,
      dataTypes: ['temperature_mean', 'rain', 'humidity', 'wind_speed', 'solar_radation'],
      options: { timeScale: 'hourly' },
      startDate: '2024-01-01T00:00:00',
      endDate: '2024-12-31T23:00:00',
    },
  },
  {
    id: 'nearest-daily',
    title: 'nearest-station: 10 points × 5 types × 366 days (2024)',
    family: 'station',
    endpoint: 'nearest-station',
    body: {
      wkts: POINT_WKTS,
      dataTypes: ['temperature_min', 'temperature_max', 'rain_sum', 'et0', 'humidity_mean'],
      options: { timeScale: 'daily' },
      startDate: '2024-01-01',
      endDate: '2024-12-31',
    },
  },
  {
    id: 'nearest-monthly',
    title: 'nearest-station: 10 points × 5 types × 12 months (2024)',
    family: 'station',
    endpoint: 'nearest-station',
    body: {
      wkts: POINT_WKTS,
      dataTypes: ['temperature_mean', 'rain_sum', 'solar_radiation_sum', 'wind_speed_mean', 'humidity_mean'],
      options: { timeScale: 'monthly' },
      startDate: '2024-01',
      endDate: '2024-12',
    },
  },
  {
    id: 'poly-aggregate-daily',
    title: 'poly-aggregate: 1 polygon (≥ 20 stations) × 5 types × 366 days',
    family: 'station',
    endpoint: 'poly-aggregate',
    body: {
      wkts: STATION_REGION_WKT,
      dataTypes: ['temperature_mean', 'rain_sum', 'et0', 'humidity_min', 'wind_speed_max'],
      options: { timeScale: 'daily' },
      startDate: '2024-01-01',
      endDate: '2024-12-31',
    },
  },
  {
    id: 'indices-seasons',
    title: 'station-indices: 1 point × 10 indices by season over 17,544 hours (2023–2024)',
    family: 'indices',
    endpoint: 'station-indices',
    body: {
      wkts: 'POINT (19.31 -33.37)',
      indices: SEASON_INDICES,
      startDate: '2023-01-01',
      endDate: '2024-12-31',
      options: { by: 'season' },
    },
  },
  {
    id: 'indices-same-hours',
    title: 'nearest-station: the same point × temperature_mean × 17,544 hours (2023–2024)',
    family: 'indices',
    endpoint: 'nearest-station',
    body: hoursOf(2023),
  },
  {
    id: 'indices-10-seasons',
    title: 'station-indices: 1 point × 10 indices by season over 10 years of hours (2014–2023, 87,648 hours)',
    family: 'indices',
    endpoint: 'station-indices',
    dataset: 'seasons',
    body: {
      wkts: 'POINT (19.31 -33.37)',
      indices: SEASON_INDICES,
      startDate: '2014-01-01',
      endDate: '2023-12-31',
      options: { by: 'season' },
    },
  },
  {
    id: 'indices-10-same-hours',
    title:
      'nearest-station: the same point × temperature_mean × the same 87,648 hours, as 5 requests of 2 years (the most one may ask)',
    family: 'indices',
    endpoint: 'nearest-station',
    dataset: 'seasons',
    body: hoursOf(2014),
    followedBy: [2016, 2018, 2020, 2022].map(hoursOf),
  },
];

/** The scenario with `id`; throws for an unknown id. */
export function scenario(id: string): Scenario {
  const s = SCENARIOS.find((x) => x.id === id);
  if (!s) throw new Error(`No bench scenario "${id}".`);
  return s;
}

/** Path of the endpoint, as the engine's router takes it. */
export function pathOf(s: Scenario): string {
  return `/api/${s.endpoint}/`;
}

/**
 * A point in the sea on both grids, in a tile that holds no data (sparse):
 * querying it makes the engine read a file's header and nothing else.
 */
export const SEA_POINT = 'POINT (17.75 -34.85)';

/** nearest-station for temperature_mean at the indices scenarios' point over the two years from `year`. */
function hoursOf(year: number): Record<string, unknown> {
  return {
    wkts: 'POINT (19.31 -33.37)',
    dataTypes: ['temperature_mean'],
    options: { timeScale: 'hourly' },
    startDate: `${year}-01-01T00:00:00`,
    endDate: `${year + 1}-12-31T23:00:00`,
  };
}
