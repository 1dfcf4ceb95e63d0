/**
 * Contract table 2.5 with the choices it leaves open (docs/contract.md):
 * every raster layer family, its sub-types, time scale and extent. Which
 * dates each layer holds is data, not contract: it comes from catalog.json.
 */
import type { TimeScale } from './periods.ts';

/** Raster data types (contract 4.3). */
export const RASTER_DATA_TYPES = ['temp', 'gdd', 'chill', 'frost', 'rain', 'windspeed'] as const;
/** One raster data type. */
export type RasterDataType = (typeof RASTER_DATA_TYPES)[number];

/** The service's own extent ("tc", the Western Cape) and South Africa ("sa"). */
export type Extent = 'tc' | 'sa';

/** The two extents as [west, south, east, north] in degrees (docs/layers.md). */
export const EXTENT_BBOX: Record<Extent, [number, number, number, number]> = {
  // Mainland Western Cape (Natural Earth 10m) with a small margin.
  tc: [17.7, -34.9, 24.25, -30.4],
  // Mainland South Africa with Lesotho and Eswatini.
  sa: [16.4, -34.9, 32.95, -22.1],
};

/** What the contract and this service say about one layer family. */
export interface RasterFamily {
  dataType: RasterDataType;
  /** Allowed subDataType values. */
  subTypes: readonly string[];
  /** The subDataType used when the request leaves it out; null when it is mandatory. */
  defaultSubType: string | null;
  /** The one time scale of the family; null for undated layers. */
  timeScale: TimeScale | null;
  extent: Extent;
  /** Unit of the values. */
  unit: string;
  /** One line for people. */
  title: string;
}

/** Every layer family, keyed by data type. */
export const RASTER_FAMILIES: Record<RasterDataType, RasterFamily> = {
  temp: { dataType: 'temp', subTypes: ['min', 'mean', 'max'], defaultSubType: null, timeScale: 'daily', extent: 'tc', unit: '°C', title: 'Daily air temperature' },
  gdd: { dataType: 'gdd', subTypes: ['apples', 'citrus', 'grapes'], defaultSubType: null, timeScale: 'annual', extent: 'tc', unit: '°C·day', title: 'Growing degree days per growing season' },
  chill: { dataType: 'chill', subTypes: ['dpcu', 'dpcui', 'ucu', 'ucui'], defaultSubType: null, timeScale: 'annual', extent: 'tc', unit: 'chill units', title: 'Winter chill per season' },
  frost: { dataType: 'frost', subTypes: ['-'], defaultSubType: '-', timeScale: 'monthly', extent: 'tc', unit: 'days', title: 'Frost days per month (Tmin ≤ 0 °C)' },
  rain: { dataType: 'rain', subTypes: ['monthly_median'], defaultSubType: 'monthly_median', timeScale: 'calendar_month', extent: 'sa', unit: 'mm', title: 'Long-term median monthly rainfall' },
  windspeed: { dataType: 'windspeed', subTypes: ['20', '50', '100', '150'], defaultSubType: null, timeScale: null, extent: 'sa', unit: 'm/s', title: 'Mean wind speed at height (m)' },
};

/** Aggregation methods of /api/polygon/. */
export const AGGREGATION_METHODS = ['min', 'mean', 'max'] as const;
/** One aggregation method. */
export type AggregationMethod = (typeof AGGREGATION_METHODS)[number];

/** Area limit of one polygon sent to /api/polygon/, in m². */
export const MAX_POLYGON_AREA_M2 = 2_000_000;
