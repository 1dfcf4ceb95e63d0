/**
 * `catalog.json`, the one file at a dataset's root that says what the
 * dataset holds. The engine reads nothing the catalog does not list, so a
 * dataset is any static folder (or URL prefix) with this file in it.
 * Written by `climate-query build`; format described in docs/data.md.
 */
import type { StationTimeScale } from '../contract/station-data-types.ts';
import type { RasterLayerDeclaration } from '../contract/raster-layers.ts';
import { DEFAULT_UTC_OFFSET } from '../contract/utc-offset.ts';

/** Current catalog format version. */
export const CATALOG_VERSION = 1;

/** One file of the dataset, relative to the catalog. */
export interface CatalogFile {
  path: string;
  /** Size in bytes: every read checks the size the host reports against it. */
  bytes: number;
  /** Lower-case hex SHA-256 of the file, checked whenever a whole file is downloaded (docs/reliability.md). */
  sha256?: string;
  /** What the file is for, "station-index", "station-coverage", "raster", "raster-store" (a zarr store's `.zmetadata`), "raster-preview". */
  role: string;
  /**
   * A raster file's leading bytes up to its first tile (TIFF header, IFDs, tile index, metadata
   * with the build's id) and their SHA-256: read anyway when the file is opened, so checking
   * them costs no request and catches a file rewritten at the same size (docs/reliability.md).
   */
  header?: { bytes: number; sha256: string };
  /**
   * Where a `map` GeoTIFF's tile digests lie (a table its build appended after the tiles) and the
   * table's SHA-256: read beside the header, they let the reader check every tile before it is
   * decoded (src/rasters/tile-digests.ts). Absent for files built before tiles had digests.
   */
  tiles?: { offset: number; bytes: number; sha256: string };
}

/** Bytes of one digest of a stored object, a store's chunk or a `map` file's tile: 64 bits, so a wrong object passes one in 1.8 × 10¹⁹. */
export const OBJECT_DIGEST_BYTES = 8;

/** Most bytes a catalog may say a file's tile table holds: 524,288 tiles (a build writes a few thousand). */
export const MAX_TILE_DIGEST_BYTES = 4 * 1024 * 1024;

/**
 * [first, last] of one run of consecutive periods that have a value, as
 * period ordinals (src/contract/periods.ts: hours, days or months since
 * 1970-01, UTC calendar): numbers keep the coverage lines a third of the
 * size of ISO keys.
 */
export type CoverageRun = [number, number];

/** Data types of one station and time scale that have values in exactly the same runs of periods. */
export interface CoverageGroup {
  types: string[];
  runs: CoverageRun[];
  /**
   * Present where gaps shorter than this many periods were merged into the runs (an hourly file's
   * scattered missing hours: {@link COVERAGE_MERGED_GAP}): a range of at least this many periods,
   * or one holding a run's first or last period, has a value exactly as the runs say; a shorter
   * range inside a run may fall in a merged gap, and its rows tell.
   */
  merged?: number;
}

/**
 * Gaps shorter than this many periods are merged into an hourly file's coverage runs, which keeps
 * a line to a few KiB: a decade of hourly reports with a gap at every missing hour made lines of
 * 436 KB (12 KB merged). Other scales keep exact runs.
 */
export const COVERAGE_MERGED_GAP: Readonly<Record<string, number>> = { hourly: 24 };

/** Most periods a coverage group may say it merged (a hostile line claims more; a year of hours is plenty). */
export const MAX_COVERAGE_MERGED_GAP = 8784;

/** Which periods of one station and time scale have a value, grouped by data types that share the same runs. */
export type StationCoverage = CoverageGroup[];

/**
 * Where a station file's column chunks lie, row group by row group: read
 * from its footer by indexing and kept in its coverage line, so a reader that
 * has the line plans its reads before the footer arrives and fetches footer
 * and chunks in the same round trip (docs/data.md).
 */
export interface StationFileChunks {
  /** Column names, in the order their chunks follow one another in every row group. */
  columns: string[];
  /**
   * Per row group, in file order: [first period ordinal, last period ordinal, byte start of
   * each column's chunk …, byte end of the last chunk] (ordinals as {@link CoverageRun}'s).
   */
  groups: number[][];
}

/**
 * A station file's footer hash: the first 16 hex digits (64 bits) of the SHA-256 of its footer
 * and last 8 bytes, recorded in the index and repeated in its coverage line. Enough to tell two
 * builds of a file apart (not a defence against a host that lies on purpose: that host could
 * serve any index), at a tenth of what full digests of 2,000 stations × 3 scales would add to
 * the index every cold station query downloads.
 */
export const FOOTER_HASH_DIGITS = 16;

/** Name of the station archive layout this engine reads (docs/data.md, "Station archive"). */
export const STATION_LAYOUT = 'station-parquet-1';

/**
 * The station part of a dataset: only pointers, so raster queries, which
 * read catalog.json, download nothing that grows with the station network.
 * The station list itself is the index; per-station detail is fetched only
 * for the stations a query considers.
 */
export interface StationsSection {
  /** Layout of the archive; the engine refuses one it does not know. */
  layout: typeof STATION_LAYOUT;
  /** The station index (Parquet, one row per station; docs/data.md). */
  index: string;
  /** Its size: read whole in one request, no HEAD. */
  indexBytes: number;
  /** Per-station, per-scale coverage detail: JSON lines at byte offsets the index gives. */
  coverage: string;
  /** Its size, to refuse offsets past its end. */
  coverageBytes: number;
  /** How many stations the index lists. */
  count: number;
  /** Data types present per time scale. */
  dataTypes: Partial<Record<StationTimeScale, string[]>>;
  /**
   * The local standard time every station time is in, as a fixed offset ("+03:00"). Absent in
   * catalogs written before datasets stated it: those are in the contract's SAST, +02:00.
   */
  utcOffset?: string;
}

/** The fixed UTC offset of a dataset's station times ("+02:00" when its catalog names none). */
export function stationsUtcOffset(catalog: Pick<Catalog, 'stations'>): string {
  return catalog.stations?.utcOffset ?? DEFAULT_UTC_OFFSET;
}

/** One file of a raster layer (a GeoTIFF, or a `zarr` layer's store folder): its dates are the listed periods, in order. */
export interface RasterFileEntry {
  path: string;
  /** Period keys (as in responses) of bands 1..n; one empty string for an undated layer. */
  periods: string[];
  /**
   * A `zarr` store's own id, which the digest of each of its objects is bound to (its
   * `chunk-digests`: src/rasters/chunk-digest.ts). Absent for stores written before stores had
   * digests: their objects are read unchecked (rebuild the layer to check them).
   */
  id?: string;
  /**
   * The file's own storage step, where it is not the layer's: a year added whose values the
   * layer's step could not hold (or stored at a `--scale` asked for then). value = stored × scale
   * + offset, with the file's step where it has one ({@link fileStep}).
   */
  scale?: number;
  offset?: number;
}

/** The storage step of a layer's file: its own where it has one, else the layer's. */
export function fileStep(
  layer: Pick<RasterLayerEntry, 'scale' | 'offset'>,
  file: Pick<RasterFileEntry, 'scale' | 'offset'>,
): { scale: number; offset: number } {
  return { scale: file.scale ?? layer.scale, offset: file.offset ?? layer.offset };
}

/**
 * One raster layer: what it is (the {@link RasterLayerDeclaration} fields:
 * dataType, subDataType, isDefault, extent, extentBbox, timeScale, unit,
 * description), on one grid, in one or more files. Requests are validated
 * against these entries, and the app builds its layer list from them.
 */
export interface RasterLayerEntry extends RasterLayerDeclaration {
  /** Where the values come from (source, licence), for people. */
  attribution?: string;
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
  /**
   * Tile size [width, height] in grid pixels of every file of the layer: a
   * `map` file's tile edge, a `zarr` store's chunk (docs/layers.md).
   */
  tileSize?: [number, number];
  /**
   * How the files arrange pixels and dates (docs/layers.md, section 2):
   * `zarr` (each file a Zarr v2 store: chunks of 8 × 8 px × every date, a
   * preview per date; src/rasters/zarr-layout.ts) or `map` (a north-up tiled
   * GeoTIFF, pixel-interleaved). Absent: `map`. What each is on disk: {@link RASTER_LAYOUTS}.
   */
  layout?: RasterLayout;
  /** A `zarr` layer's arrays: names, chunk edge and preview factor, so a reader reads no store metadata first. */
  zarr?: ZarrArrays;
  /** A `zarr-store` or `kerchunk` layer's array, as its store (or reference) describes it. */
  storeArray?: StoreArray;
  /** A `cog-collection` layer's files: one GeoTIFF per date, named by a template. */
  cog?: CogCollection;
  /** A `kerchunk` layer's reference: the files it reads from. */
  kerchunk?: KerchunkReference;
}

/** Most files one kerchunk reference may read from. */
export const KERCHUNK_MAX_TARGETS = 64;

/** What the catalog keeps of a kerchunk reference besides its array. */
export interface KerchunkReference {
  /**
   * The files its chunks are ranges of, as dataset paths or http(s) URLs: the only ones a chunk is
   * read from (a reference that names another is refused), and, inside the dataset, listed in
   * `files[]` so a host serves them.
   */
  targets: string[];
}

/**
 * A collection of Cloud-Optimized GeoTIFFs, one per date (CHIRPS's, Digital Earth Africa's),
 * referenced in place: each date's file is the layer file's folder + the template with the
 * date's parts filled in. Every file has the grid, tiling and type of the first, checked as each
 * is opened.
 */
export interface CogCollection {
  /** The file of a date, relative to the layer file's folder: `{yyyy}`, `{mm}`, `{dd}` are its parts. */
  template: string;
  /** The files' own tile size, px. */
  tile: [number, number];
  /** The value that means no data (stated with --nodata when the files carry none), or null. */
  nodata: number | null;
}

/** The tokens a COG collection's template may hold. */
export const COG_TOKENS = ['yyyy', 'mm', 'dd'] as const;

/** The path, relative to its folder, of the date `period` (a daily, monthly or annual key) of `template`. */
export function cogPath(template: string, period: string): string {
  const [yyyy = '', mm = '01', dd = '01'] = period.split('-');
  return template.replaceAll('{yyyy}', yyyy).replaceAll('{mm}', mm).replaceAll('{dd}', dd);
}

/**
 * The layouts a raster layer's files may have, and what each file entry is on disk: the one place
 * a layout is described to the dataset's readers and writers (its reader is in
 * src/rasters/layouts/registry.ts). A store that is a folder owns every path under its own; the
 * catalog lists one object of it, whose size and hash stand for the store.
 */
export const RASTER_LAYOUTS = {
  /** A north-up tiled GeoTIFF (a COG) per file group, pixel-interleaved (docs/layers.md, section 2). */
  map: { folder: false, suffix: 'tif', listed: null, role: 'raster', built: true },
  /** A Zarr v2 store per year: chunks of every date × a few pixels, a preview per date (section 2.1). */
  zarr: { folder: true, suffix: 'zarr', listed: '.zmetadata', role: 'raster-store', built: true },
  /**
   * A Zarr v2 store as another tool published it (xarray, zarr-python), referenced in place by
   * `climate-query layers add` and read by its own metadata, which the catalog copies
   * ({@link StoreArray}). Not the build's: removing the layer leaves its files alone.
   */
  'zarr-store': { folder: true, suffix: 'zarr', listed: 'array', role: 'raster-store', built: false },
  /**
   * One Cloud-Optimized GeoTIFF per date in a folder, as CHIRPS and Digital Earth Africa publish
   * them, referenced in place ({@link CogCollection}); the catalog lists the first date's file.
   */
  'cog-collection': { folder: true, suffix: '', listed: 'first', role: 'raster-store', built: false },
  /**
   * A kerchunk reference (JSON) to a NetCDF-4/HDF5 file's chunks, referenced in place: the array
   * is described as a published store's ({@link StoreArray}); each chunk is a range of the file the
   * reference names (src/rasters/kerchunk-refs.ts). The catalog lists the reference itself.
   */
  kerchunk: { folder: false, suffix: 'json', listed: null, role: 'raster-store', built: false },
  /** The same reference in kerchunk's Parquet form: a folder of `.zmetadata` and record files. */
  'kerchunk-parquet': { folder: true, suffix: '', listed: '.zmetadata', role: 'raster-store', built: false },
} as const satisfies Record<
  string,
  {
    folder: boolean;
    suffix: string;
    /** What of the file the catalog lists: itself (null), an object in it, or its array's metadata ('array'). */
    listed: string | null;
    role: 'raster' | 'raster-store';
    /** Whether the build wrote its files (and a remove may delete them). */
    built: boolean;
  }
>;

/** Compressors a published store's array may have (numcodecs ids; src/rasters/zarr-codecs.ts decodes them). */
export const STORE_COMPRESSORS = ['zlib', 'gzip', 'blosc', 'zstd', 'lz4'] as const;
/**
 * Filters a published store's array may have. `shuffle` (HDF5's and numcodecs' byte shuffle, as
 * kerchunk describes a NetCDF-4 chunk) works on the stored bytes, so it is the last filter.
 */
export const STORE_FILTERS = ['delta', 'fixedscaleoffset', 'shuffle'] as const;
/** dtypes a published store's array may have: numpy's kind and size in bytes, any byte order (no 1- or 2-byte floats). */
export const STORE_DTYPE = /^[<>|]([iuf])([1248])$/;
/** Most bytes one chunk of a published store may hold decoded: 64 MiB. */
export const STORE_MAX_CHUNK_BYTES = 64 * 1024 * 1024;

/** Most inner chunks one shard may hold: its index (16 bytes a chunk) is read whole, at most 1 MiB. */
export const STORE_MAX_SHARD_CHUNKS = 65_536;
/** Most shards of a sharded array the catalog lists the sizes of. */
export const STORE_MAX_SHARDS = 20_000;

/**
 * How a Zarr v3 array's chunks sit inside its shards (`sharding_indexed`): the array's `chunks`
 * are then its shards' shape, and each shard file holds these inner chunks, found by its index.
 */
export interface StoreShard {
  /** An inner chunk's shape (time, lat, lon); divides the shard's. */
  chunks: [number, number, number];
  /** Where the index is: after the chunks (the default) or before them. */
  indexAt: 'start' | 'end';
  /** Whether the index ends with its CRC-32C. */
  indexChecksum: boolean;
  /**
   * Each shard's size in bytes, in C order over the grid of shards, null where the store has none
   * (every chunk its fill value). An index at the end is read by its offset from these, in one
   * request; a shard of another size has been rewritten since the layer was added.
   */
  sizes: Array<number | null>;
}

/**
 * One array of a published Zarr store (v2, or v3 with or without sharding), as its metadata says
 * (copied into the catalog so a point reads its chunk first, nothing before it). Dimensions are
 * (time, lat, lon).
 */
export interface StoreArray {
  /** 3 for a Zarr v3 array (metadata in `zarr.json`); absent for v2. */
  zarrFormat?: 3;
  /** What a chunk's key starts with after the array's path: `c/` for v3's default encoding; absent (none) for v2's. */
  keyPrefix?: string;
  /** Whether each stored chunk ends with its CRC-32C (a v3 `crc32c` codec). */
  checksum?: boolean;
  /** A v3 array's shards (`sharding_indexed`); absent when each chunk is its own object. */
  shard?: StoreShard;
  /** The array's path in the store (`tas`). */
  variable: string;
  /** numpy's type string: `<f4`, `>i2`, `|u1`, … */
  dtype: string;
  shape: [number, number, number];
  chunks: [number, number, number];
  /** `.` or `/` between a chunk key's indexes. */
  separator: '.' | '/';
  /** The compressor's config (`{"id": "blosc", "cname": "lz4", …}`), or null. */
  compressor: { id: string; [k: string]: unknown } | null;
  /** Filters, applied on writing in this order, or null. */
  filters: Array<{ id: string; [k: string]: unknown }> | null;
  /** Stored values that mean no value: fill_value, CF `_FillValue` and `missing_value`; `NaN` as null. */
  missing: Array<number | null>;
  /** CF `valid_range`: values outside are no value. */
  validRange?: [number, number];
  /** CF packing: value = stored × scaleFactor + addOffset (before the layer's own step). */
  scaleFactor: number;
  addOffset: number;
  /** Whether the store's first latitude row is the southernmost (the engine's grids run north to south). */
  latAscending: boolean;
}

/** A layout's name. */
export type RasterLayout = keyof typeof RASTER_LAYOUTS;

/** Whether `value` names a layout. */
export function isRasterLayout(value: unknown): value is RasterLayout {
  return typeof value === 'string' && Object.hasOwn(RASTER_LAYOUTS, value);
}

/** The layout of `layer` (absent: `map`). */
export function layoutOf(layer: Pick<RasterLayerEntry, 'layout'>): RasterLayout {
  return layer.layout ?? 'map';
}

/** The path and role under which the catalog's `files[]` lists file `path` of `layer`. */
export function listedFile(
  layer: Pick<RasterLayerEntry, 'layout' | 'storeArray' | 'cog'> & Partial<Pick<RasterLayerEntry, 'files'>>,
  path: string,
): [string, string] {
  const d = RASTER_LAYOUTS[layoutOf(layer)];
  if (d.listed === null) return [path, d.role];
  if (d.listed === 'first') return [`${path}/${cogPath(layer.cog!.template, layer.files![0]!.periods[0]!)}`, d.role];
  if (d.listed === 'array') {
    const a = layer.storeArray!;
    return [`${path}/${a.variable}/${a.zarrFormat === 3 ? 'zarr.json' : '.zarray'}`, d.role];
  }
  return [`${path}/${d.listed}`, d.role];
}

/** Whether dataset path `rel` is file `path` of a layer of `layout`, or inside it. */
export function layoutOwns(layout: RasterLayout, path: string, rel: string): boolean {
  return rel === path || (RASTER_LAYOUTS[layout].folder && rel.startsWith(`${path}/`));
}

/** Where a `zarr` layer's arrays are in each of its stores (src/rasters/zarr-layout.ts). */
export interface ZarrArrays {
  /** Name of the data array (and of the preview array under `preview/`). */
  variable: string;
  /** Chunk edge of the data array, pixels; a chunk holds every date of its store. */
  chunk: number;
  /** The preview grid is the layer's grid reduced by this factor (1: the full grid). */
  previewFactor: number;
}

/** Variable names a store may use: what Zarr keys, xarray and GDAL take without quoting. */
export const ZARR_VARIABLE_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** Largest chunk edge and date count a catalog may claim: they bound what a reader allocates for one chunk (3 MiB). */
export const ZARR_MAX_CHUNK_EDGE = 64;
export const ZARR_MAX_DATES = 400;

/** Every period key a layer holds, in order (empty for an undated layer). */
export function layerPeriods(layer: RasterLayerEntry): string[] {
  return layer.timeScale === null ? [] : layer.files.flatMap((f) => f.periods);
}

/** The whole catalog. */
export interface Catalog {
  format: 'climate-query-dataset';
  version: number;
  name: string;
  created: string;
  attribution: string[];
  /**
   * One sentence every view of the dataset shows beside its answers, when the
   * data need a warning no answer can carry (the demo: "synthetic weather, not
   * measurements"). Optional.
   */
  notice?: string;
  files: CatalogFile[];
  stations: StationsSection | null;
  rasters: RasterLayerEntry[];
}
