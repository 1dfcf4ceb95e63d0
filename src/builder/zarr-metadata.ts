/**
 * The metadata documents of one `zarr` store (src/rasters/zarr-layout.ts),
 * as plain JSON: Zarr v2 (`.zgroup`, `.zarray`, `.zattrs`, consolidated
 * `.zmetadata`) with CF-1.8 attributes, so that xarray decodes dates, scale
 * and nodata, and GDAL's Zarr driver finds the grid (regular `lat`/`lon`
 * pixel centres), the CRS (`_CRS`) and the nodata (`fill_value`). Pure: the
 * build writes what this returns, and the unit tests read it.
 */
import { dataChunkBytes, previewSize, type ZarrArrays } from '../rasters/zarr-layout.ts';

/** WKT of EPSG:4326, the CRS of every stored layer. */
export const WGS84_WKT =
  'GEOGCRS["WGS 84",DATUM["World Geodetic System 1984",ELLIPSOID["WGS 84",6378137,298.257223563,LENGTHUNIT["metre",1]]],PRIMEM["Greenwich",0,ANGLEUNIT["degree",0.0174532925199433]],CS[ellipsoidal,2],AXIS["geodetic latitude (Lat)",north,ORDER[1],ANGLEUNIT["degree",0.0174532925199433]],AXIS["geodetic longitude (Lon)",east,ORDER[2],ANGLEUNIT["degree",0.0174532925199433]],ID["EPSG",4326]]';

/** What a store describes. */
export interface ZarrStoreSpec {
  arrays: ZarrArrays;
  /** The grid: north-up EPSG:4326, pixel (c, r) centred at (west + (c + ½)·resX, north − (r + ½)·resY). */
  grid: { west: number; north: number; resX: number; resY: number; width: number; height: number };
  /** `yyyy-mm-dd` of each date, in order. */
  dates: string[];
  /** Stored value × scale + offset = value in `unit`. */
  scale: number;
  offset: number;
  nodata: number;
  unit: string;
  /** The layer's description (CF long_name). */
  description: string;
  attribution?: string;
  /** The build's id (docs/reliability.md): in the root attributes, so the hashed `.zmetadata` differs per build. */
  buildId: string;
  /** The store's own id (its catalog entry's `id`): every object's digest is bound to it (src/rasters/chunk-digest.ts). */
  id: string;
}

/** Zarr's delta + zlib codec of the data and preview arrays. */
const CODEC = {
  compressor: { id: 'zlib', level: 4 },
  filters: [{ id: 'delta', dtype: '<i2', astype: '<i2' }],
} as const;

/** Days since 1970-01-01 of a `yyyy-mm-dd` key (the time coordinate's unit). */
export function epochDay(key: string): number {
  return Math.round(Date.parse(`${key}T00:00:00Z`) / 86_400_000);
}

function zarray(
  shape: number[],
  chunks: number[],
  dtype: string,
  fill: number | null,
  codec: { compressor: unknown; filters: unknown } = { compressor: null, filters: null },
) {
  return { zarr_format: 2, shape, chunks, dtype, fill_value: fill, order: 'C', ...codec };
}

/** Pixel centres along one axis: `first + (i + ½)·step`, i = 0 … n − 1 (step negative for latitudes). */
export function centres(first: number, step: number, n: number): Float64Array {
  return Float64Array.from({ length: n }, (_, i) => first + (i + 0.5) * step);
}

/** Every metadata document of the store, keyed by its path inside the store, `.zmetadata` included. */
export function zarrStoreMetadata(spec: ZarrStoreSpec): Record<string, unknown> {
  const { arrays, grid, dates } = spec;
  const v = arrays.variable;
  const T = dates.length;
  const f = arrays.previewFactor;
  const p = previewSize(grid.width, grid.height, f);
  /** A CF coordinate axis of pixel centres. */
  const axis = (name: 'lat' | 'lon') => ({
    _ARRAY_DIMENSIONS: [name],
    standard_name: name === 'lat' ? 'latitude' : 'longitude',
    long_name: `${name === 'lat' ? 'latitude' : 'longitude'} of the pixel centre`,
    units: name === 'lat' ? 'degrees_north' : 'degrees_east',
    axis: name === 'lat' ? 'Y' : 'X',
  });
  const coords = (prefix: string, w: number, h: number) => ({
    [`${prefix}lat/.zarray`]: zarray([h], [h], '<f8', null),
    [`${prefix}lat/.zattrs`]: axis('lat'),
    [`${prefix}lon/.zarray`]: zarray([w], [w], '<f8', null),
    [`${prefix}lon/.zattrs`]: axis('lon'),
    [`${prefix}time/.zarray`]: zarray([T], [T], '<i4', null),
    [`${prefix}time/.zattrs`]: {
      _ARRAY_DIMENSIONS: ['time'],
      standard_name: 'time',
      units: 'days since 1970-01-01',
      calendar: 'proleptic_gregorian',
      axis: 'T',
    },
  });
  const valueAttrs = (what: string) => ({
    _ARRAY_DIMENSIONS: ['time', 'lat', 'lon'],
    long_name: what,
    units: spec.unit,
    scale_factor: spec.scale,
    add_offset: spec.offset,
    grid_mapping: 'crs',
    // GDAL's Zarr driver reads the CRS from this attribute (it does not follow grid_mapping).
    _CRS: { wkt: WGS84_WKT, url: 'http://www.opengis.net/def/crs/EPSG/0/4326' },
  });
  const docs: Record<string, unknown> = {
    '.zgroup': { zarr_format: 2 },
    '.zattrs': {
      Conventions: 'CF-1.8',
      title: spec.description,
      ...(spec.attribution ? { source: spec.attribution } : {}),
      history: `climate-query build ${spec.buildId}`,
      climate_query_build: spec.buildId,
    },
    [`${v}/.zarray`]: zarray([T, grid.height, grid.width], [T, arrays.chunk, arrays.chunk], '<i2', spec.nodata, CODEC),
    [`${v}/.zattrs`]: valueAttrs(spec.description),
    'crs/.zarray': zarray([], [], '<i4', null),
    'crs/.zattrs': {
      _ARRAY_DIMENSIONS: [],
      grid_mapping_name: 'latitude_longitude',
      crs_wkt: WGS84_WKT,
      spatial_ref: WGS84_WKT,
      semi_major_axis: 6_378_137,
      inverse_flattening: 298.257223563,
    },
    ...coords('', grid.width, grid.height),
    'preview/.zgroup': { zarr_format: 2 },
    'preview/.zattrs': {
      Conventions: 'CF-1.8',
      title: `${spec.description}: map preview`,
      comment: `Each pixel is the mean of the valid pixels of a ${f} × ${f} block of the full grid; range holds each date's smallest and largest stored value on the full grid.`,
      preview_factor: f,
    },
    [`preview/${v}/.zarray`]: zarray([T, p.height, p.width], [1, p.height, p.width], '<i2', spec.nodata, CODEC),
    [`preview/${v}/.zattrs`]: valueAttrs(`${spec.description} (preview, ${f} × ${f} block means)`),
    'preview/range/.zarray': zarray([T, 2], [T, 2], '<i2', spec.nodata),
    'preview/range/.zattrs': {
      _ARRAY_DIMENSIONS: ['time', 'stat'],
      long_name: 'smallest and largest value of the full grid at each date',
      units: spec.unit,
      scale_factor: spec.scale,
      add_offset: spec.offset,
    },
    ...coords('preview/', p.width, p.height),
  };
  docs['.zmetadata'] = { zarr_consolidated_format: 1, metadata: { ...docs } };
  return docs;
}

/** The coordinate chunks of a store (uncompressed little-endian), keyed by their path in the store. */
export function zarrCoordinateChunks(spec: ZarrStoreSpec): Record<string, Uint8Array> {
  const { grid, arrays } = spec;
  const f = arrays.previewFactor;
  const p = previewSize(grid.width, grid.height, f);
  const bytes = (a: Float64Array | Int32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const time = Int32Array.from(spec.dates, epochDay);
  return {
    'lat/0': bytes(centres(grid.north, -grid.resY, grid.height)),
    'lon/0': bytes(centres(grid.west, grid.resX, grid.width)),
    'time/0': bytes(time),
    'crs/0': bytes(Int32Array.of(0)),
    'preview/lat/0': bytes(centres(grid.north, -grid.resY * f, p.height)),
    'preview/lon/0': bytes(centres(grid.west, grid.resX * f, p.width)),
    'preview/time/0': bytes(time),
  };
}

/** Uncompressed bytes of one data chunk of this store. */
export function storeChunkBytes(spec: ZarrStoreSpec): number {
  return dataChunkBytes(spec.dates.length, spec.arrays.chunk);
}

/**
 * A metadata document as Zarr v2 wants it on disk: JSON in ASCII (zarr-python refuses other
 * bytes), every other character written as a `\uXXXX` escape, as Python's json writes it.
 */
export function zarrJson(doc: unknown): string {
  const text = JSON.stringify(doc, null, 1).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `${text}\n`;
}
