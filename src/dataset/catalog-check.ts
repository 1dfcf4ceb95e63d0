/**
 * Checks every field of a parsed catalog.json before the engine relies on
 * it. A catalog is data, maybe damaged or written by someone else: a width
 * of −1 or a file size of "12" must end as `dataset_unavailable` naming the
 * field, never as a 500 `internal` deep in a reader. Paths are checked
 * separately (dataset-path.ts), where they are resolved.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import { contractLayer, RASTER_TIME_SCALES } from '../contract/raster-layers.ts';
import { STATION_TIME_SCALES } from '../contract/station-data-types.ts';
import { isStoredUtcOffset } from '../contract/utc-offset.ts';
import { truncate } from '../contract/quote.ts';
import { isSha256Hex } from '../io/digest.ts';
import { checkFileOwners } from './catalog-owners.ts';
import { expandPeriods } from './period-runs.ts';
import { checkCatalogPaths, checkDatasetPath } from './dataset-path.ts';
import { foreignUrlProblem, isForeignPath } from './foreign.ts';
import {
  CATALOG_VERSION,
  type Catalog,
  STORE_COMPRESSORS,
  STORE_DTYPE,
  STORE_FILTERS,
  COG_TOKENS,
  STORE_MAX_CHUNK_BYTES,
  STORE_MAX_SHARD_CHUNKS,
  STORE_MAX_SHARDS,
  isRasterLayout,
  KERCHUNK_MAX_TARGETS,
  layoutOf,
  MAX_TILE_DIGEST_BYTES,
  RASTER_LAYOUTS,
  type RasterLayerEntry,
  OBJECT_DIGEST_BYTES,
  ZARR_MAX_CHUNK_EDGE,
  ZARR_MAX_DATES,
  ZARR_VARIABLE_NAME,
} from './catalog.ts';

/** Layouts whose source is referenced in place, not built: only theirs may be an http(s) URL. */
const REFERENCED = Object.entries(RASTER_LAYOUTS)
  .filter(([, d]) => !d.built)
  .map(([k]) => k);

/** Why `path` is not a plain relative path inside a dataset, or null. */
function pathProblem(path: string): string | null {
  try {
    checkDatasetPath(path, 'catalog.json');
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Largest raster side the engine accepts: 1 M pixels (a 1 m grid of 1,000 km). */
const MAX_SIDE = 1_000_000;

/**
 * Most pixels a layer's grid may claim: 2³¹, Africa at 0.0025° (≈ 1.1 × 10⁹) or the globe at 0.005°
 * fit; a claim of 10⁶ × 10⁶ px is refused before any query plans over it (docs/reliability.md).
 */
export const MAX_LAYER_PIXELS = 2 ** 31;

/**
 * A catalog as every reader takes it, the engine and each build alike: its fields
 * ({@link checkCatalog}), every path it lists (confined to the dataset, dataset-path.ts) and who
 * owns each (one layer per file, none on the catalog or the station archive: catalog-owners.ts).
 */
export function checkDataset(value: unknown, where: string): Catalog {
  const catalog = checkCatalog(value, where);
  // A referenced layer's source at a URL was checked as one (checkCatalog); every other path is confined.
  checkCatalogPaths(
    {
      ...catalog,
      rasters: catalog.rasters.map((l) => ({ ...l, files: l.files.filter((f) => !isForeignPath(f.path)) })),
    },
    where,
  );
  checkFileOwners(catalog, where);
  return catalog;
}

/** Checks a parsed catalog; returns it with older layer entries completed. Throws `dataset_unavailable` naming the first bad field. */
export function checkCatalog(value: unknown, where: string): Catalog {
  const c = value as Partial<Catalog> | null;
  if (!c || typeof c !== 'object' || c.format !== 'climate-query-dataset') {
    throw new ClimateQueryError(
      'dataset_unavailable',
      `${where} is not a climate-query catalog (no "format": "climate-query-dataset"). Build one with \`climate-query build\`.`,
    );
  }
  if (c.version !== CATALOG_VERSION) {
    throw new ClimateQueryError(
      'dataset_unavailable',
      `${where} has catalog version ${String(c.version)}; this engine reads version ${CATALOG_VERSION}. Rebuild the dataset.`,
    );
  }
  if (!Array.isArray(c.files) || !Array.isArray(c.rasters)) {
    throw new ClimateQueryError('dataset_unavailable', `${where} lacks "files" or "rasters"; rebuild the dataset.`);
  }
  const bad = (field: string, value: unknown, rule: string) =>
    new ClimateQueryError(
      'dataset_unavailable',
      `${where}: ${field} is ${describe(value)}, which ${rule}; rebuild the dataset or correct catalog.json.`,
    );
  const check = (ok: boolean, field: string, value: unknown, rule: string) => {
    if (!ok) throw bad(field, value, rule);
  };

  if (c.notice !== undefined && typeof c.notice !== 'string')
    throw new ClimateQueryError(
      'dataset_unavailable',
      `${where}: "notice" must be a string; rebuild the dataset or correct catalog.json.`,
    );
  check(
    c.attribution === undefined || (Array.isArray(c.attribution) && c.attribution.every((a) => typeof a === 'string')),
    'attribution',
    c.attribution,
    'must be a list of strings',
  );

  c.files.forEach((f, i) => {
    const at = `files[${i}]`;
    check(isObject(f), at, f, 'must be an object');
    check(typeof f.path === 'string', `${at}.path`, f.path, 'must be a path');
    check(isCount(f.bytes), `${at}.bytes`, f.bytes, 'must be a file size (a whole number ≥ 0)');
    check(
      f.sha256 === undefined || isSha256Hex(f.sha256),
      `${at}.sha256`,
      f.sha256,
      'must be 64 lower-case hex digits',
    );
    if (f.header !== undefined) {
      check(isObject(f.header), `${at}.header`, f.header, 'must be an object');
      check(
        isCount(f.header.bytes) && f.header.bytes >= 8 && f.header.bytes <= f.bytes,
        `${at}.header.bytes`,
        f.header.bytes,
        `must be a length between 8 and the file's ${String(f.bytes)} bytes`,
      );
      check(isSha256Hex(f.header.sha256), `${at}.header.sha256`, f.header.sha256, 'must be 64 lower-case hex digits');
    }
    if (f.tiles !== undefined) {
      // The table is read whole when its file is opened: bounded before anything is sized by it.
      check(
        isObject(f.tiles) && isObject(f.header),
        `${at}.tiles`,
        f.tiles,
        "must be an object, beside the file's header",
      );
      check(
        isCount(f.tiles.bytes) && f.tiles.bytes % OBJECT_DIGEST_BYTES === 0 && f.tiles.bytes <= MAX_TILE_DIGEST_BYTES,
        `${at}.tiles.bytes`,
        f.tiles.bytes,
        `must be a whole number of ${OBJECT_DIGEST_BYTES}-byte digests, at most ${MAX_TILE_DIGEST_BYTES}`,
      );
      check(
        isCount(f.tiles.offset) && f.tiles.offset >= f.header!.bytes && f.tiles.offset + f.tiles.bytes <= f.bytes,
        `${at}.tiles.offset`,
        f.tiles.offset,
        `must lie after the header and within the file's ${String(f.bytes)} bytes`,
      );
      check(isSha256Hex(f.tiles.sha256), `${at}.tiles.sha256`, f.tiles.sha256, 'must be 64 lower-case hex digits');
    }
  });

  const s = c.stations;
  if (s !== null && s !== undefined) {
    check(isObject(s), 'stations', s, 'must be an object or null');
    check(
      typeof s.index === 'string' && typeof s.coverage === 'string',
      'stations.index/coverage',
      `${String(s.index)}/${String(s.coverage)}`,
      'must be paths',
    );
    // A Parquet file is at least "PAR1", a footer, its length and "PAR1".
    check(
      isCount(s.indexBytes) && s.indexBytes >= 12,
      'stations.indexBytes',
      s.indexBytes,
      'must be the size of a Parquet file',
    );
    check(
      isCount(s.coverageBytes),
      'stations.coverageBytes',
      s.coverageBytes,
      'must be a file size (a whole number ≥ 0)',
    );
    check(s.count === undefined || isCount(s.count), 'stations.count', s.count, 'must be a whole number ≥ 0');
    check(isObject(s.dataTypes), 'stations.dataTypes', s.dataTypes, 'must be an object of time scale → type names');
    for (const [scale, types] of Object.entries(s.dataTypes)) {
      check(
        (STATION_TIME_SCALES as readonly string[]).includes(scale),
        `stations.dataTypes.${truncate(scale)}`,
        scale,
        `must be one of ${STATION_TIME_SCALES.join(', ')}`,
      );
      check(
        Array.isArray(types) && types.every((t) => typeof t === 'string'),
        `stations.dataTypes.${scale}`,
        types,
        'must be a list of type names',
      );
    }
    if (s.utcOffset !== undefined && !isStoredUtcOffset(s.utcOffset)) {
      throw new ClimateQueryError(
        'dataset_unavailable',
        `${where}: stations.utcOffset is ${JSON.stringify(truncate(String(s.utcOffset)))}, not an offset such as "+02:00"; rebuild the dataset or correct catalog.json.`,
      );
    }
  } else {
    c.stations = null;
  }

  c.rasters = c.rasters.map((l, i) => {
    const at = `rasters[${i}]`;
    check(isObject(l), at, l, 'must be an object');
    for (const k of ['dataType', 'subDataType', 'extent', 'crs'] as const)
      check(typeof l[k] === 'string' && l[k] !== '', `${at}.${k}`, l[k], 'must be a non-empty string');
    check(
      l.timeScale === null || (RASTER_TIME_SCALES as readonly unknown[]).includes(l.timeScale),
      `${at}.timeScale`,
      l.timeScale,
      `must be null or one of ${RASTER_TIME_SCALES.join(', ')}`,
    );
    // A file's run of periods (period-runs.ts) stands for its list: expanded first, bounded before it is.
    for (const [j, f] of (Array.isArray(l.files) ? l.files : []).entries()) {
      if (!isObject(f) || !isObject(f.periods) || Array.isArray(f.periods)) continue;
      const list = expandPeriods(l.timeScale, f.periods);
      check(Array.isArray(list), `${at}.files[${j}].periods`, f.periods, Array.isArray(list) ? '' : list.why);
      f.periods = list as string[];
    }
    check(isBox(l.bbox), `${at}.bbox`, l.bbox, 'must be [west, south, east, north] with west < east and south < north');
    check(
      l.extentBbox === undefined || isBox(l.extentBbox),
      `${at}.extentBbox`,
      l.extentBbox,
      'must be [west, south, east, north] with west < east and south < north',
    );
    for (const k of ['width', 'height'] as const)
      check(
        isCount(l[k]) && l[k] >= 1 && l[k] <= MAX_SIDE,
        `${at}.${k}`,
        l[k],
        `must be a whole number from 1 to ${MAX_SIDE}`,
      );
    check(
      l.width * l.height <= MAX_LAYER_PIXELS,
      `${at}.width × height`,
      l.width * l.height,
      `must be at most ${MAX_LAYER_PIXELS.toLocaleString('en')} pixels`,
    );
    // A lon/lat grid lies on the globe (longitudes to 360 for grids stored 0…360); a grid whose
    // pixel centres lie on the poles (ERA5's) reaches half a pixel past them.
    const halfRow = (l.bbox[3] - l.bbox[1]) / l.height / 2;
    check(
      l.crs !== 'EPSG:4326' ||
        (l.bbox[0] >= -360 &&
          l.bbox[2] <= 360 &&
          halfRow <= 5 &&
          l.bbox[1] >= -90 - halfRow &&
          l.bbox[3] <= 90 + halfRow),
      `${at}.bbox`,
      l.bbox,
      'must lie within longitudes −360…360 and latitudes −90…90 (and half a pixel) for EPSG:4326',
    );
    check(Number.isFinite(l.scale) && l.scale !== 0, `${at}.scale`, l.scale, 'must be a finite number other than 0');
    check(Number.isFinite(l.offset), `${at}.offset`, l.offset, 'must be a finite number');
    check(l.nodata === null || Number.isFinite(l.nodata), `${at}.nodata`, l.nodata, 'must be a number or null');
    check(l.unit === undefined || typeof l.unit === 'string', `${at}.unit`, l.unit, 'must be a string');
    check(
      l.resolution === undefined ||
        (Array.isArray(l.resolution) &&
          l.resolution.length === 2 &&
          l.resolution.every((r) => Number.isFinite(r) && r > 0)),
      `${at}.resolution`,
      l.resolution,
      'must be two positive pixel sizes',
    );
    check(
      l.tileSize === undefined ||
        (Array.isArray(l.tileSize) && l.tileSize.length === 2 && l.tileSize.every((t) => isCount(t) && t >= 1)),
      `${at}.tileSize`,
      l.tileSize,
      'must be two positive whole numbers',
    );
    check(
      l.layout === undefined || isRasterLayout(l.layout),
      `${at}.layout`,
      l.layout,
      (l.layout as unknown) === 'series'
        ? 'is "series", a layout this version no longer reads: rebuild the layer with `climate-query build` (it is written as "zarr" now)'
        : `must be ${Object.keys(RASTER_LAYOUTS)
            .map((k) => `"${k}"`)
            .join(' or ')}`,
    );
    if (l.layout === 'zarr') {
      const z = l.zarr;
      check(
        isObject(z) && typeof z.variable === 'string' && ZARR_VARIABLE_NAME.test(z.variable),
        `${at}.zarr.variable`,
        isObject(z) ? z.variable : z,
        'must name the data array (a letter, then letters, digits or _)',
      );
      check(
        isObject(z) && isCount(z.chunk) && z.chunk >= 1 && z.chunk <= ZARR_MAX_CHUNK_EDGE,
        `${at}.zarr.chunk`,
        isObject(z) ? z.chunk : z,
        `must be a whole number of pixels from 1 to ${ZARR_MAX_CHUNK_EDGE}`,
      );
      check(
        isObject(z) &&
          isCount(z.previewFactor) &&
          z.previewFactor >= 1 &&
          z.previewFactor <= 1024 &&
          (z.previewFactor & (z.previewFactor - 1)) === 0,
        `${at}.zarr.previewFactor`,
        isObject(z) ? z.previewFactor : z,
        'must be a power of two from 1 to 1024',
      );
      check(l.timeScale !== null, `${at}.timeScale`, l.timeScale, 'must be a time scale: a zarr layer is dated');
    }
    const reference = l.layout === 'kerchunk' || l.layout === 'kerchunk-parquet';
    if (l.layout === 'zarr-store' || reference) checkStoreArray(l, at, check);
    if (reference) {
      check(
        !l.storeArray?.shard,
        `${at}.storeArray.shard`,
        l.storeArray?.shard,
        'must be absent: a reference is not sharded',
      );
      const t = l.kerchunk?.targets;
      check(
        Array.isArray(t) &&
          t.length >= 1 &&
          t.length <= KERCHUNK_MAX_TARGETS &&
          t.every(
            (p) =>
              typeof p === 'string' && (isForeignPath(p) ? foreignUrlProblem(p) === null : pathProblem(p) === null),
          ),
        `${at}.kerchunk.targets`,
        t,
        `must list the 1 to ${KERCHUNK_MAX_TARGETS} files the reference reads, each a path inside the dataset or an http(s) URL`,
      );
    }
    if (l.layout === 'cog-collection') checkCogCollection(l, at, check);
    check(l.preview === undefined || typeof l.preview === 'string', `${at}.preview`, l.preview, 'must be a path');
    check(Array.isArray(l.files) && l.files.length > 0, `${at}.files`, l.files, 'must list at least one file');
    l.files.forEach((f, j) => {
      check(
        isObject(f) && typeof f.path === 'string',
        `${at}.files[${j}].path`,
        isObject(f) ? f.path : f,
        'must be a path',
      );
      if (isForeignPath(f.path)) {
        const problem = foreignUrlProblem(f.path);
        check(
          !RASTER_LAYOUTS[layoutOf(l)].built && problem === null,
          `${at}.files[${j}].path`,
          f.path,
          problem
            ? `must be a path inside the dataset or an http(s) URL; this URL ${problem}`
            : `must be a path inside the dataset: only a layer referenced in place (${REFERENCED.join(', ')}) may name a URL`,
        );
      }
      check(
        f.scale === undefined || (typeof f.scale === 'number' && Number.isFinite(f.scale) && f.scale !== 0),
        `${at}.files[${j}].scale`,
        f.scale,
        'must be a finite number other than 0',
      );
      check(
        f.offset === undefined || (typeof f.offset === 'number' && Number.isFinite(f.offset)),
        `${at}.files[${j}].offset`,
        f.offset,
        'must be a finite number',
      );
      check(
        f.id === undefined || (typeof f.id === 'string' && /^[A-Za-z0-9._:-]{1,64}$/.test(f.id)),
        `${at}.files[${j}].id`,
        f.id,
        'must be a store id (1 to 64 letters, digits, ".", "_", ":" or "-")',
      );
      check(
        Array.isArray(f.periods) && f.periods.length > 0 && f.periods.every((p) => typeof p === 'string'),
        `${at}.files[${j}].periods`,
        f.periods,
        'must be a list of period keys',
      );
      // A store's chunk holds every date: its length bounds what one chunk read decodes.
      if (l.layout === 'zarr') {
        check(
          f.periods.length <= ZARR_MAX_DATES,
          `${at}.files[${j}].periods`,
          f.periods.length,
          `must hold at most ${ZARR_MAX_DATES} dates in a zarr store`,
        );
      }
    });
    return completeLayer(l, where);
  });
  return c as Catalog;
}

/**
 * A layer entry with every declaration field. Catalogs written before
 * layers declared themselves lack description and extentBbox; their
 * layers can only be the contract's families, whose declarations fill the gap.
 */
function completeLayer(l: RasterLayerEntry, where: string): RasterLayerEntry {
  if (typeof l.description === 'string' && Array.isArray(l.extentBbox)) return l;
  const known = contractLayer(l.dataType, l.subDataType);
  if (!known || known.extent !== l.extent) {
    throw new ClimateQueryError(
      'dataset_unavailable',
      `${where}: raster layer ${l.dataType}/${l.subDataType} lacks its description or extentBbox; rebuild it with \`climate-query build --layer\`.`,
    );
  }
  return {
    ...known,
    ...l,
    description: l.description ?? known.description,
    extentBbox: l.extentBbox ?? known.extentBbox,
  };
}

/** Fields of the result are checked one by one, so they may be read as anything. */
// biome-ignore lint/suspicious/noExplicitAny: each field is checked before it is used, one by one.
function isObject(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function isBox(v: unknown): boolean {
  return Array.isArray(v) && v.length === 4 && v.every((x) => Number.isFinite(x)) && v[0] < v[2] && v[1] < v[3];
}

/** A field's value for a message: short, never a whole nested structure. */
function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (typeof value === 'string') return JSON.stringify(truncate(value));
  if (Array.isArray(value))
    return value.length <= 4 && value.every((v) => typeof v !== 'object')
      ? `[${value.map(String).join(', ')}]`
      : `a list of ${value.length}`;
  if (typeof value === 'object' && value !== null) return 'an object';
  return String(value);
}

/** A published store's array as the catalog copies it: bounded before a reader sizes anything by it. */
/** A `cog-collection` layer's description: a template that names one file per date inside its folder. */
function checkCogCollection(
  l: RasterLayerEntry,
  at: string,
  check: (ok: boolean, field: string, value: unknown, why: string) => void,
): void {
  const c = l.cog;
  check(isObject(c), `${at}.cog`, c, 'must describe the collection');
  if (!isObject(c)) return;
  const t = c.template;
  const tokens = typeof t === 'string' ? [...t.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]) : [];
  const needs = l.timeScale === 'annual' ? ['yyyy'] : l.timeScale === 'monthly' ? ['yyyy', 'mm'] : ['yyyy', 'mm', 'dd'];
  check(
    typeof t === 'string' &&
      t.length <= 256 &&
      !t.startsWith('/') &&
      !/\\|(^|\/)\.\.?(\/|$)|:/.test(t) &&
      tokens.every((k) => (COG_TOKENS as readonly string[]).includes(k!)) &&
      needs.every((k) => tokens.includes(k)),
    `${at}.cog.template`,
    t,
    `must be a relative file name holding ${needs.map((k) => `{${k}}`).join(', ')} (tokens ${COG_TOKENS.map((k) => `{${k}}`).join(', ')} only), with no ".." or absolute part`,
  );
  check(
    l.timeScale === 'daily' || l.timeScale === 'dekadal' || l.timeScale === 'monthly' || l.timeScale === 'annual',
    `${at}.timeScale`,
    l.timeScale,
    'must be daily, dekadal, monthly or annual for a COG collection',
  );
  check(
    Array.isArray(c.tile) && c.tile.length === 2 && c.tile.every((n) => isCount(n) && n >= 16 && n <= 4096),
    `${at}.cog.tile`,
    c.tile,
    "must be the files' tile width and height, 16 to 4096 px",
  );
  check(c.nodata === null || Number.isFinite(c.nodata), `${at}.cog.nodata`, c.nodata, 'must be a number or null');
  check(
    Array.isArray(l.files) && l.files.length === 1,
    `${at}.files`,
    l.files?.length,
    'must be the one folder of the collection',
  );
}

function checkStoreArray(
  l: RasterLayerEntry,
  at: string,
  check: (ok: boolean, field: string, value: unknown, why: string) => void,
): void {
  const a = l.storeArray;
  check(isObject(a), `${at}.storeArray`, a, "must describe the store's array");
  if (!isObject(a)) return;
  check(
    typeof a.variable === 'string' && /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/.test(a.variable) && !a.variable.includes('..'),
    `${at}.storeArray.variable`,
    a.variable,
    'must name the array (letters, digits, "_", "." and "-")',
  );
  const m = typeof a.dtype === 'string' ? STORE_DTYPE.exec(a.dtype) : null;
  check(
    m !== null && !(m[1] === 'f' && Number(m[2]) < 4),
    `${at}.storeArray.dtype`,
    a.dtype,
    'must be an int, uint or float dtype (e.g. "<f4")',
  );
  const dims = (v: unknown) => Array.isArray(v) && v.length === 3 && v.every((n) => isCount(n) && n >= 1);
  check(dims(a.shape), `${at}.storeArray.shape`, a.shape, 'must be three sizes (time, lat, lon)');
  check(dims(a.chunks), `${at}.storeArray.chunks`, a.chunks, 'must be three chunk sizes (time, lat, lon)');
  if (dims(a.shape)) {
    check(
      a.shape[1] === l.height && a.shape[2] === l.width,
      `${at}.storeArray.shape`,
      a.shape,
      `must match the layer's ${l.height} × ${l.width} grid`,
    );
    check(
      l.files.length === 1 && l.files[0]!.periods.length === a.shape[0],
      `${at}.files`,
      l.files.length,
      'must be the one store, with one period per time step',
    );
  }
  check(
    a.zarrFormat === undefined || a.zarrFormat === 3,
    `${at}.storeArray.zarrFormat`,
    a.zarrFormat,
    'must be 3 or absent',
  );
  check(
    a.keyPrefix === undefined || ['', 'c/', 'c.'].includes(a.keyPrefix),
    `${at}.storeArray.keyPrefix`,
    a.keyPrefix,
    'must be "c/", "c." or absent',
  );
  check(
    a.checksum === undefined || typeof a.checksum === 'boolean',
    `${at}.storeArray.checksum`,
    a.checksum,
    'must be true or false',
  );
  const sh = a.shard;
  check(sh === undefined || isObject(sh), `${at}.storeArray.shard`, sh, 'must describe the shards');
  if (isObject(sh) && dims(a.chunks) && dims(a.shape)) {
    check(
      dims(sh.chunks) && sh.chunks.every((c, k) => a.chunks[k]! % c === 0),
      `${at}.storeArray.shard.chunks`,
      sh.chunks,
      "must be three inner chunk sizes that divide the shard's",
    );
    check(
      sh.indexAt === 'start' || sh.indexAt === 'end',
      `${at}.storeArray.shard.indexAt`,
      sh.indexAt,
      'must be "start" or "end"',
    );
    check(
      typeof sh.indexChecksum === 'boolean',
      `${at}.storeArray.shard.indexChecksum`,
      sh.indexChecksum,
      'must be true or false',
    );
    const shards = a.shape.reduce((n, d, k) => n * Math.ceil(d / a.chunks[k]!), 1);
    const inner = dims(sh.chunks) ? a.chunks.reduce((n, c, k) => n * (c / sh.chunks[k]!), 1) : 0;
    check(
      inner <= STORE_MAX_SHARD_CHUNKS,
      `${at}.storeArray.shard.chunks`,
      sh.chunks,
      `must make at most ${STORE_MAX_SHARD_CHUNKS} chunks a shard (its index is read whole)`,
    );
    check(
      Array.isArray(sh.sizes) &&
        shards <= STORE_MAX_SHARDS &&
        sh.sizes.length === shards &&
        sh.sizes.every((n) => n === null || (isCount(n) && n >= inner * 16)),
      `${at}.storeArray.shard.sizes`,
      Array.isArray(sh.sizes) ? `${sh.sizes.length} sizes` : sh.sizes,
      `must give each of the ${shards} shards' bytes (at most ${STORE_MAX_SHARDS}), or null`,
    );
  }
  const chunk = isObject(sh) && dims(sh.chunks) ? sh.chunks : a.chunks;
  if (dims(chunk) && m) {
    const bytes = chunk[0] * chunk[1] * chunk[2] * Number(m[2]);
    check(
      bytes <= STORE_MAX_CHUNK_BYTES,
      `${at}.storeArray.chunks`,
      chunk,
      `must hold at most ${STORE_MAX_CHUNK_BYTES} bytes decoded (these hold ${bytes})`,
    );
  }
  check(a.separator === '.' || a.separator === '/', `${at}.storeArray.separator`, a.separator, 'must be "." or "/"');
  check(
    a.compressor === null ||
      (isObject(a.compressor) && (STORE_COMPRESSORS as readonly unknown[]).includes(a.compressor.id)),
    `${at}.storeArray.compressor`,
    a.compressor,
    `must be null or one of ${STORE_COMPRESSORS.join(', ')}`,
  );
  check(
    a.filters === null ||
      (Array.isArray(a.filters) &&
        a.filters.every((f) => isObject(f) && (STORE_FILTERS as readonly unknown[]).includes(f.id))),
    `${at}.storeArray.filters`,
    a.filters,
    `must be null or a list of ${STORE_FILTERS.join(', ')}`,
  );
  check(
    Array.isArray(a.missing) && a.missing.length <= 8 && a.missing.every((v) => v === null || Number.isFinite(v)),
    `${at}.storeArray.missing`,
    a.missing,
    'must be a short list of numbers (null for NaN)',
  );
  check(
    Number.isFinite(a.scaleFactor) && a.scaleFactor !== 0,
    `${at}.storeArray.scaleFactor`,
    a.scaleFactor,
    'must be a finite number other than 0',
  );
  check(Number.isFinite(a.addOffset), `${at}.storeArray.addOffset`, a.addOffset, 'must be a finite number');
  check(typeof a.latAscending === 'boolean', `${at}.storeArray.latAscending`, a.latAscending, 'must be true or false');
}
