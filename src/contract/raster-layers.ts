/**
 * What a raster layer is, as a dataset declares it, and the contract's own
 * six families (table 2.5, docs/contract.md) as such declarations. Which
 * layers exist is data, not contract: a dataset's catalog.json declares
 * them (unit, time scale, extent, dates); the six families are the
 * declarations the demo dataset writes and the defaults a build takes when
 * a user builds a layer under one of their names.
 */
import type { RasterTimeScale } from './time-scales.ts';

/** Raster data types (contract 4.3). */
export const RASTER_DATA_TYPES = ['temp', 'gdd', 'chill', 'frost', 'rain', 'windspeed'] as const;
/** One raster data type. */
export type RasterDataType = (typeof RASTER_DATA_TYPES)[number];

// Time scales a raster layer can have (never hourly), from the scales' one description; a layer's
// `timeScale` is one of them or null (undated).
export { RASTER_TIME_SCALES, type RasterTimeScale } from './time-scales.ts';

/** [west, south, east, north] in degrees. */
export type Bbox = [number, number, number, number];

/** The subDataType of a layer that has none (contract: frost's "-"). */
export const NO_SUB_TYPE = '-';

/** The contract's extents: the service's own ("tc", the Western Cape) and South Africa ("sa"). */
export type Extent = 'tc' | 'sa';

/** The two contract extents as [west, south, east, north] in degrees (docs/layers.md). */
export const EXTENT_BBOX: Record<Extent, Bbox> = {
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
  timeScale: RasterTimeScale | null;
  extent: Extent;
  /** Unit of the values. */
  unit: string;
  /** One line for people. */
  title: string;
}

/** Every layer family, keyed by data type. */
export const RASTER_FAMILIES: Record<RasterDataType, RasterFamily> = {
  temp: {
    dataType: 'temp',
    subTypes: ['min', 'mean', 'max'],
    defaultSubType: null,
    timeScale: 'daily',
    extent: 'tc',
    unit: '°C',
    title: 'Daily air temperature',
  },
  gdd: {
    dataType: 'gdd',
    subTypes: ['apples', 'citrus', 'grapes'],
    defaultSubType: null,
    timeScale: 'annual',
    extent: 'tc',
    unit: '°C·day',
    title: 'Growing degree days per growing season',
  },
  chill: {
    dataType: 'chill',
    subTypes: ['dpcu', 'dpcui', 'ucu', 'ucui'],
    defaultSubType: null,
    timeScale: 'annual',
    extent: 'tc',
    unit: 'chill units',
    title: 'Winter chill per season',
  },
  frost: {
    dataType: 'frost',
    subTypes: ['-'],
    defaultSubType: '-',
    timeScale: 'monthly',
    extent: 'tc',
    unit: 'days',
    title: 'Frost days per month (Tmin < 0 °C)',
  },
  rain: {
    dataType: 'rain',
    subTypes: ['monthly_median'],
    defaultSubType: 'monthly_median',
    timeScale: 'calendar_month',
    extent: 'sa',
    unit: 'mm',
    title: 'Long-term median monthly rainfall',
  },
  windspeed: {
    dataType: 'windspeed',
    subTypes: ['20', '50', '100', '150'],
    defaultSubType: null,
    timeScale: null,
    extent: 'sa',
    unit: 'm/s',
    title: 'Mean wind speed',
  },
};

/**
 * What a request needs to know about one layer: what a dataset's catalog
 * says of it (RasterLayerEntry in src/dataset/catalog.ts adds grid and
 * files). One layer per (dataType, subDataType, extent).
 */
export interface RasterLayerDeclaration {
  dataType: string;
  /** {@link NO_SUB_TYPE} ("-") for a layer without sub-types. */
  subDataType: string;
  /** True when a request that leaves out options.subDataType gets this layer (frost "-", rain "monthly_median"). */
  isDefault?: boolean;
  /** Extent name (options.dataExtent). */
  extent: string;
  /** The extent's [west, south, east, north] in degrees; the layer's grid lies within it. */
  extentBbox: Bbox;
  /** Null for undated layers (no dates in requests or responses). */
  timeScale: RasterTimeScale | null;
  unit: string;
  /** One line for people. */
  description: string;
}

/** The six contract families as layer declarations, the ones the demo dataset writes (16 layers). */
export const CONTRACT_RASTER_LAYERS: readonly RasterLayerDeclaration[] = Object.values(RASTER_FAMILIES).flatMap((f) =>
  f.subTypes.map((sub) => ({
    dataType: f.dataType,
    subDataType: sub,
    ...(f.defaultSubType === sub ? { isDefault: true } : {}),
    extent: f.extent,
    extentBbox: EXTENT_BBOX[f.extent],
    timeScale: f.timeScale,
    unit: f.unit,
    description: f.title,
  })),
);

/** The contract's declaration of `dataType`/`subDataType`, if it is one of the six families. */
export function contractLayer(dataType: string, subDataType: string): RasterLayerDeclaration | undefined {
  return CONTRACT_RASTER_LAYERS.find((l) => l.dataType === dataType && l.subDataType === subDataType);
}

/** Aggregation methods of /api/polygon/. */
export const AGGREGATION_METHODS = ['min', 'mean', 'max'] as const;
/** One aggregation method. */
export type AggregationMethod = (typeof AGGREGATION_METHODS)[number];

/** Area limit of one polygon sent to /api/polygon/, in m². */
export const MAX_POLYGON_AREA_M2 = 2_000_000;
