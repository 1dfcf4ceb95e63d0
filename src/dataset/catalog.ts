/**
 * `catalog.json`, the one file at a dataset's root that says what the
 * dataset holds. The engine reads nothing the catalog does not list, so a
 * dataset is any static folder (or URL prefix) with this file in it.
 * Written by `climate-query build`; format described in docs/data.md.
 */
import type { StationTimeScale } from '../contract/station-data-types.ts';
import type { Extent, RasterDataType } from '../contract/raster-layers.ts';
import type { TimeScale } from '../contract/periods.ts';
import { ClimateQueryError } from '../contract/errors.ts';

/** Current catalog format version. */
export const CATALOG_VERSION = 1;

/** One file of the dataset, relative to the catalog. */
export interface CatalogFile {
  path: string;
  /** Size in bytes: every read checks the size the host reports against it. */
  bytes: number;
  /** Lower-case hex SHA-256 of the file, checked whenever a whole file is downloaded (docs/reliability.md). */
  sha256?: string;
  /** What the file is for, e.g. "station-store", "station-parquet", "raster", "raster-preview". */
  role: string;
}

/** [first, last] period keys of one run of consecutive periods that have a value. */
export type CoverageRun = [string, string];

/** One weather station as listed in the catalog. */
export interface CatalogStation {
  id: string;
  name: string;
  lat: number;
  lon: number;
  /** Metres above sea level; null when unknown. */
  elevation: number | null;
  /** Per time scale: which periods have a value, grouped by data types that share the same runs. */
  coverage: Partial<Record<StationTimeScale, CoverageGroup[]>>;
}

/** Data types of one station and time scale that have values in exactly the same runs of periods. */
export interface CoverageGroup {
  types: string[];
  runs: CoverageRun[];
}

/** The station part of a dataset. */
export interface StationsSection {
  /** The DuckDB database file (tables hourly, daily, monthly) the engine queries. */
  store: string;
  /** Parquet files of the same observations, for download and native tools. */
  parquet: Partial<Record<StationTimeScale, string>>;
  /** Data types present per time scale. */
  dataTypes: Partial<Record<StationTimeScale, string[]>>;
  stations: CatalogStation[];
}

/** One GeoTIFF of a raster layer: its bands are the listed periods, in order. */
export interface RasterFileEntry {
  path: string;
  /** Period keys (as in responses) of bands 1..n; one empty string for an undated layer. */
  periods: string[];
}

/** One raster layer: a data type and sub-type, on one grid, in one or more files. */
export interface RasterLayerEntry {
  dataType: RasterDataType;
  subDataType: string;
  extent: Extent;
  /** Null for undated layers. */
  timeScale: TimeScale | null;
  unit: string;
  crs: string;
  /** [west, south, east, north] of the grid in its CRS. */
  bbox: [number, number, number, number];
  width: number;
  height: number;
  /** Stored value × scale + offset = value in `unit`. */
  scale: number;
  offset: number;
  /** Stored value meaning "no data". */
  nodata: number | null;
  files: RasterFileEntry[];
  /** Optional small preview image for the map. */
  preview?: string;
  /**
   * Exact pixel size [x, y] in degrees (both positive), as stored in the
   * files; bbox-derived sizes can differ in the last bit, which moves
   * points that lie exactly on a pixel line. Absent: derived from bbox.
   */
  resolution?: [number, number];
  /** Tile size [width, height] in pixels of every file of the layer. */
  tileSize?: [number, number];
}

/** The whole catalog. */
export interface Catalog {
  format: 'climate-query-dataset';
  version: number;
  name: string;
  created: string;
  attribution: string[];
  files: CatalogFile[];
  stations: StationsSection | null;
  rasters: RasterLayerEntry[];
}

/** Checks the parts of a parsed catalog the engine relies on. */
export function checkCatalog(value: unknown, where: string): Catalog {
  const c = value as Partial<Catalog> | null;
  if (!c || c.format !== 'climate-query-dataset') {
    throw new ClimateQueryError('dataset_unavailable', `${where} is not a climate-query catalog (no "format": "climate-query-dataset"). Build one with \`climate-query build\`.`);
  }
  if (c.version !== CATALOG_VERSION) {
    throw new ClimateQueryError('dataset_unavailable', `${where} has catalog version ${String(c.version)}; this engine reads version ${CATALOG_VERSION}. Rebuild the dataset.`);
  }
  if (!Array.isArray(c.files) || !Array.isArray(c.rasters)) {
    throw new ClimateQueryError('dataset_unavailable', `${where} lacks "files" or "rasters"; rebuild the dataset.`);
  }
  return c as Catalog;
}
