/**
 * `climate-query layers add`: a Zarr store another tool wrote (xarray, zarr-python, v2 or v3)
 * becomes a layer where it is — a folder inside the dataset, or an http(s) URL — nothing copied. Its own metadata is read — consolidated `.zmetadata` or each
 * array's `.zarray` and `.zattrs` — and checked as the engine would read it: the data array's
 * dimensions (time, lat, lon), dtype, codecs and chunks; its coordinates (a regular lat/lon grid,
 * north-up or south-up); its CF time (`<unit> since <date>`, standard calendars) and packing
 * (`scale_factor`, `add_offset`, `_FillValue`, `missing_value`, `valid_range`). What the store does
 * not say (a CRS, a unit, the time scale) is asked for, never guessed. The catalog entry copies what
 * a reader needs, so a point reads its chunk with nothing before it.
 */
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { RasterTimeScale } from '../../contract/raster-layers.ts';
import {
  type Catalog,
  KERCHUNK_MAX_TARGETS,
  type KerchunkReference,
  type RasterLayerEntry,
  STORE_MAX_SHARDS,
  type StoreArray,
} from '../../dataset/catalog.ts';
import { endsWithCrc32c } from '../../io/crc32c.ts';
import { checkDataset } from '../../dataset/catalog-check.ts';
import {
  decompress,
  dtypeBytes,
  elements,
  storedDtype,
  unfilter,
  unshuffle,
  ZARR_COMPRESSORS,
  ZARR_DTYPE,
  ZARR_FILTERS,
} from '../../rasters/zarr-codecs.ts';
import { BuildError } from '../build-error.ts';
import { parseCfTime, isRealDate, isoDate } from '../cf-time.ts';
import { periodKey } from '../netcdf-input.ts';
import { normalisePeriod } from '../raster-build-dates.ts';
import { declareLayer, knownExtents, settleExtent } from '../raster-build-declare.ts';
import { withDatasetLock } from './dataset-lock.ts';
import { readCatalogOrEmpty, updateCatalog } from './dataset-writer.ts';
import { type ArrayMeta, readStoreMeta } from './store-metadata.ts';
import { folderKeys, referenceKeys, referenceTargets, type SourceKeys, urlKeys } from './source-keys.ts';
import { directForeign, foreignUrlProblem, isForeignPath, withForeign } from '../../dataset/foreign.ts';
import { checkDatasetPath } from '../../dataset/dataset-path.ts';
import { MAX_TEXT_BYTES } from '../../dataset/location.ts';
import { isKerchunkReference, type KerchunkRefs, parseKerchunk } from '../../rasters/kerchunk-refs.ts';
import { isParquetReference, parseParquetKerchunk } from '../../rasters/kerchunk-parquet.ts';
import { fileLocation } from '../../node/file-location.ts';
import { runLimited } from '../../io/run-limited.ts';
import { DEFAULT_READ_TIMEOUTS, timedFetch } from '../../io/timed-fetch.ts';

/** What `layers add` takes of any source referenced in place (a store, a COG collection). */
export interface ReferencedLayerOptions {
  /** The dataset folder. */
  dir: string;
  /** The source: a store, a STAC JSON or a file name template, inside the dataset folder or at an http(s) URL. */
  source: string;
  dataType: string;
  subDataType?: string;
  unit?: string;
  timeScale?: RasterTimeScale;
  /** The step values are answered at (default: the CF packing step, 1 for other integers, 0.001 for floats). */
  step?: number;
  description?: string;
  extent?: string;
  /** The CRS, when the source states none: only EPSG:4326 (WGS 84 longitude/latitude). */
  crs?: string;
  /** Replace a layer of the same name, sub-type and extent. */
  replace?: boolean;
  name?: string;
  /**
   * The folder a local source must lie in and its path is written relative to (default: the
   * dataset folder, where it is published); a build that copies a store names the store's own.
   */
  root?: string;
}

export interface LayerAddOptions extends ReferencedLayerOptions {
  /** The data array, when the store holds more than one (time, lat, lon) array. */
  variable?: string;
}

const TIME = /^(time|t|date|valid_time)$/i;
const LAT = /^(lat|latitude|y)$/i;
const LON = /^(lon|long|longitude|x)$/i;

/** Most bytes a coordinate array may hold when read whole (a million values). */
const MAX_COORDINATE_BYTES = 8 * 1024 * 1024;

/** Adds the store as a layer; returns its entry. */
export async function addStoreLayer(o: LayerAddOptions): Promise<RasterLayerEntry> {
  const { layer } = await describeStoreLayer(o);
  return saveReferencedLayer(o, layerLabel(o), layer);
}

/** `NAME[/SUB]` as the user named the layer, for messages. */
function layerLabel(o: Pick<ReferencedLayerOptions, 'dataType' | 'subDataType'>): string {
  return `${o.dataType}${o.subDataType ? `/${o.subDataType}` : ''}`;
}

/**
 * The catalog entry of the store `o.source` (a Zarr store or a kerchunk reference), checked as the
 * engine reads it, and the unit the store states (its array's `units`); nothing is written.
 * Extents are settled against the catalog in `o.dir`.
 */
export async function describeStoreLayer(o: LayerAddOptions): Promise<{ layer: RasterLayerEntry; storeUnit?: string }> {
  const label = layerLabel(o);
  const bad = (why: string, option = 'source') =>
    new BuildError('invalid_input', `${o.source}: ${why}`, { file: o.source, option });
  const { keys, kerchunk, layout } = await storeSource(o);
  const path = keys.root;
  // The store's metadata: v2 or v3, consolidated or array by array.
  const store3 = await readStoreMeta(keys, bad, o.variable ? [o.variable] : []);
  const arrays = store3.arrays;
  const meta = {
    array: (name: string) => store3.array(name),
    attrs: (name: string) => store3.attrs(name),
  };
  if (arrays.length === 0 && ((await keys.size('.zarray')) !== null || (await store3.array('.'))))
    throw bad('is a single array; add the group (folder) that holds it with its coordinates.');
  if (arrays.length === 0 && keys.remote)
    throw bad(
      'is at a URL, where a store cannot be listed, and has no consolidated metadata (.zmetadata, or zarr.json with consolidated_metadata): name its data array with --variable.',
      'variable',
    );
  if (arrays.length === 0)
    throw bad(
      'holds no Zarr arrays (no .zmetadata or zarr.json, no <array>/.zarray or <array>/zarr.json): is it a Zarr store?',
    );
  const dimsOf = async (a: string) => ((await meta.attrs(a))?._ARRAY_DIMENSIONS as string[] | undefined) ?? [];
  const candidates: string[] = [];
  for (const a of arrays) {
    const d = await dimsOf(a);
    if (d.length === 3 && TIME.test(d[0]!) && LAT.test(d[1]!) && LON.test(d[2]!)) candidates.push(a);
  }
  const variable = o.variable ?? (candidates.length === 1 ? candidates[0] : undefined);
  if (!variable) {
    throw bad(
      candidates.length === 0
        ? `holds no array with dimensions (time, lat, lon) (its arrays: ${arrays.join(', ')}); name it with --variable, in that dimension order.`
        : `holds ${candidates.length} (time, lat, lon) arrays (${candidates.join(', ')}): name one with --variable.`,
      'variable',
    );
  }
  if (!arrays.includes(variable))
    throw bad(`has no array "${variable}" (its arrays: ${arrays.join(', ')}).`, 'variable');
  const z = (await meta.array(variable))!;
  const attrs = (await meta.attrs(variable)) ?? {};
  const dims = await dimsOf(variable);
  if (!(dims.length === 3 && TIME.test(dims[0]!) && LAT.test(dims[1]!) && LON.test(dims[2]!)))
    throw bad(
      `array ${variable} has dimensions (${dims.join(', ')}); this reads (time, lat, lon) in that order (xarray: ds.transpose("time", "lat", "lon")).`,
    );
  checkArray(z, variable, bad);

  // Coordinates, read whole (small): a regular grid, its rows north to south or south to north.
  const coord = async (name: string): Promise<Float64Array> => {
    const c = await meta.array(name);
    if (!c) throw bad(`has no coordinate array "${name}" for dimension ${name}.`);
    checkArray(c, name, bad);
    if (c.shape.length !== 1)
      throw bad(`coordinate ${name} has ${c.shape.length} dimensions; curvilinear grids must be regridded first.`);
    const n = c.shape[0]!;
    const out = new Float64Array(n);
    const dt = storedDtype(c.dtype, c.filters);
    if (n * dtypeBytes(dt) > MAX_COORDINATE_BYTES)
      throw bad(`coordinate ${name} holds ${n} values, more than this reads.`);
    // A chunk's (or a shard's inner chunk's) values; its stored size bounded by what they can take.
    const inner = c.shard?.chunks[0] ?? c.chunks[0]!;
    const innerBytes = inner * dtypeBytes(dt);
    const storedMax = innerBytes + 1024 + Math.ceil(innerBytes / 16) + 4;
    if (innerBytes > MAX_COORDINATE_BYTES)
      throw bad(`coordinate ${name} has chunks of ${inner} values, more than this reads.`);
    const decode = async (stored: Uint8Array, at: number, what: string) => {
      let raw = stored;
      if (c.checksum) {
        if (!endsWithCrc32c(raw)) throw bad(`coordinate chunk ${what} fails its CRC-32C.`);
        raw = raw.subarray(0, raw.length - 4);
      }
      const bytes = await decompress(c.compressor, raw, innerBytes, `${o.source}/${what}`);
      const v = elements(unshuffle(bytes, c.filters), dt);
      unfilter(v, c.filters);
      if (at < n) out.set(v.subarray(0, Math.min(inner, n - at)), at);
    };
    for (let k = 0; k * c.chunks[0]! < n; k++) {
      const key = store3.chunkKey(name, c, [k]);
      if (!c.shard) {
        const got = await keys.bytes(key, storedMax);
        if (got === undefined) throw bad(`coordinate chunk ${key} is missing.`);
        await decode(got, k * c.chunks[0]!, key);
        continue;
      }
      // A sharded coordinate (dynamical.org shards its time axis): the shard whole, its index, each inner chunk.
      const per = Math.ceil(c.chunks[0]! / inner);
      const indexBytes = 16 * per + (c.shard.indexChecksum ? 4 : 0);
      const shard = await keys.bytes(key, per * storedMax + indexBytes);
      if (shard === undefined) throw bad(`coordinate shard ${key} is missing.`);
      if (shard.length < indexBytes) throw bad(`coordinate shard ${key} is shorter than its index.`);
      const index =
        c.shard.indexAt === 'end' ? shard.subarray(shard.length - indexBytes) : shard.subarray(0, indexBytes);
      if (c.shard.indexChecksum && !endsWithCrc32c(index))
        throw bad(`coordinate shard ${key}'s index fails its CRC-32C.`);
      const view = new DataView(index.buffer, index.byteOffset, index.byteLength);
      for (let j = 0; j < per && k * c.chunks[0]! + j * inner < n; j++) {
        const offset = view.getBigUint64(16 * j, true);
        const length = view.getBigUint64(16 * j + 8, true);
        if (offset === 0xffffffffffffffffn && length === 0xffffffffffffffffn)
          throw bad(`coordinate shard ${key} leaves out chunk ${j}: a coordinate has a value at every step.`);
        if (offset + length > BigInt(shard.length) || length > BigInt(storedMax))
          throw bad(
            `coordinate shard ${key}'s index places chunk ${j} at ${offset}+${length}, outside its ${shard.length} bytes.`,
          );
        await decode(
          shard.subarray(Number(offset), Number(offset + length)),
          k * c.chunks[0]! + j * inner,
          `${key} chunk ${j}`,
        );
      }
    }
    return out;
  };
  const [tName, yName, xName] = dims as [string, string, string];
  const [lat, lon, time] = await Promise.all([coord(yName), coord(xName), coord(tName)]);
  const regular = (v: Float64Array, name: string) => {
    if (v.length < 2) throw bad(`coordinate ${name} holds ${v.length} value; a grid needs two at least.`);
    // The mean step: a float32 coordinate (NetCDF's, CHIRPS's) rounds each value to 1 part in 2²⁴,
    // so its steps differ by up to a few millionths of the value; no more is allowed.
    const d = (v[v.length - 1]! - v[0]!) / (v.length - 1);
    // Each value against the grid's (v₀ + i·d), so steps within their precision cannot drift off it.
    for (let i = 1; i < v.length; i++)
      if (Math.abs(v[i]! - (v[0]! + i * d)) > Math.abs(d) * 1e-4 + Math.max(Math.abs(v[i]!), Math.abs(v[0]!)) * 5e-7)
        throw bad(
          `coordinate ${name} is not evenly spaced (mean step ${d}, ${v[i]! - v[i - 1]!} at ${i}); regrid it first.`,
        );
    return d;
  };
  const dy = regular(lat, yName);
  const dx = regular(lon, xName);
  if (dx <= 0) throw bad(`longitudes run east to west; flip them first (xarray: ds.sortby("${xName}")).`);
  // −180 … 180, or 0 … 360 as ERA5 and many CF stores publish (the engine counts western longitudes at +360).
  if (lon[0]! < -180 - 1e-9 || lon.at(-1)! > 360 + 1e-9 || (lon[0]! < 0 && lon.at(-1)! > 180 + 1e-9))
    throw bad(
      `longitudes run ${lon[0]} … ${lon.at(-1)}; this reads −180 … 180 or 0 … 360 (xarray: ds.assign_coords(${xName}=((ds.${xName} + 180) % 360) - 180).sortby("${xName}")).`,
    );
  // The CRS: stated by the store (CF grid_mapping of latitude_longitude, or CF degree units), or by the user.
  const gm = typeof attrs.grid_mapping === 'string' ? await meta.attrs(attrs.grid_mapping) : undefined;
  const latUnits = String((await meta.attrs(yName))?.units ?? '');
  const lonUnits = String((await meta.attrs(xName))?.units ?? '');
  if (gm && gm.grid_mapping_name !== 'latitude_longitude')
    throw bad(
      `its grid mapping is ${String(gm.grid_mapping_name)}; this reads longitude/latitude grids (WGS 84): reproject it first, or build from it.`,
    );
  const cfDegrees = /^degrees?_?n(orth)?$/i.test(latUnits) && /^degrees?_?e(ast)?$/i.test(lonUnits);
  if (o.crs !== undefined && !/^EPSG:4326$/i.test(o.crs))
    throw new BuildError(
      'invalid_option',
      `--crs ${o.crs}: a store is referenced on its own grid, which must be EPSG:4326 (longitude/latitude); reproject it, or build from it.`,
      { option: 'crs' },
    );
  if (!gm && !cfDegrees && o.crs === undefined)
    throw bad(
      'states no CRS (no grid_mapping, no degrees_north/degrees_east units on its coordinates): pass --crs EPSG:4326 if its coordinates are WGS 84 longitude/latitude; it is never guessed.',
      'crs',
    );

  // Dates: CF time, the layer's time scale.
  const decl = declareLayer({
    dataType: o.dataType,
    ...(o.subDataType !== undefined ? { subDataType: o.subDataType } : {}),
    ...(o.unit !== undefined ? { unit: o.unit } : typeof attrs.units === 'string' ? { unit: attrs.units } : {}),
    ...(o.timeScale !== undefined ? { timeScale: o.timeScale } : {}),
    ...(o.description !== undefined
      ? { description: o.description }
      : typeof attrs.long_name === 'string'
        ? { description: attrs.long_name }
        : {}),
    ...(o.extent !== undefined ? { extent: o.extent } : {}),
  });
  if (decl.timeScale === null) throw bad('a store is dated: pass --time-scale daily, monthly, …', 'timeScale');
  const tAttrs = (await meta.attrs(tName)) ?? {};
  if (typeof tAttrs.units !== 'string' || !/\ssince\s/.test(tAttrs.units))
    throw bad(`its time coordinate ${tName} has no "<unit> since <date>" units.`);
  const axis = parseCfTime(
    tAttrs.units,
    typeof tAttrs.calendar === 'string' ? tAttrs.calendar : undefined,
    `${o.source} ${tName}`,
  );
  const periods = Array.from(time, (t, i) => {
    const d = axis.dateOf(t);
    if (!isRealDate(d))
      throw bad(`time step ${i} is ${isoDate(d)} in its ${axis.calendar} calendar, a day real calendars have not.`);
    return normalisePeriod(decl.timeScale!, periodKey(d, decl.timeScale), `${o.source} ${tName}[${i}]`);
  });
  const seen = new Map<string, number>();
  periods.forEach((p, i) => {
    const j = seen.get(p);
    if (j !== undefined)
      throw bad(
        `time steps ${j} and ${i} are the same ${decl.timeScale} period ${p}: the store is finer than the layer's time scale; aggregate it first (xarray: resample).`,
      );
    seen.set(p, i);
  });

  // CF packing and missing values.
  const num = (v: unknown) =>
    typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : undefined;
  const missing: Array<number | null> = [];
  for (const m of [z.fill_value, attrs._FillValue, attrs.missing_value].flat()) {
    if (m === 'NaN' || (typeof m === 'number' && Number.isNaN(m))) missing.push(null);
    else if (num(m) !== undefined && Number.isFinite(num(m))) missing.push(num(m)!);
  }
  const scaleFactor = num(attrs.scale_factor) ?? 1;
  const addOffset = num(attrs.add_offset) ?? 0;
  const validRange = Array.isArray(attrs.valid_range) ? (attrs.valid_range.map(Number) as [number, number]) : undefined;
  const float = /f/.test(z.dtype);
  const step = o.step ?? (!float && attrs.scale_factor !== undefined ? Math.abs(scaleFactor) : float ? 0.001 : 1);
  if (!(step > 0 && Number.isFinite(step)))
    throw new BuildError('invalid_option', `--step must be > 0; got ${step}.`, { option: 'step' });

  const [T, H, W] = z.shape as [number, number, number];
  const resX = Math.abs(dx);
  const resY = Math.abs(dy);
  const north = Math.max(lat[0]!, lat.at(-1)!) + resY / 2;
  const west = lon[0]! - resX / 2;
  const grid = { west, north, resX, resY, width: W, height: H };
  const before = await readCatalogOrEmpty(o.dir, o.name ?? 'dataset');
  const others = before.rasters.filter((l) => !(l.dataType === decl.dataType && l.subDataType === decl.subDataType));
  const { extent, extentBbox } = settleExtent(decl.extent, grid, knownExtents(others), label);
  if (kerchunk && z.shard) throw bad('describes a sharded array; a kerchunk reference lists each chunk itself.');
  const shard = z.shard
    ? {
        chunks: z.shard.chunks as [number, number, number],
        indexAt: z.shard.indexAt,
        indexChecksum: z.shard.indexChecksum,
        sizes: await shardSizes(keys, z, (idx) => store3.chunkKey(variable, z, idx), bad),
      }
    : undefined;
  const storeArray: StoreArray = {
    ...(z.zarr_format === 3 ? { zarrFormat: 3 as const, keyPrefix: z.keyPrefix ?? '' } : {}),
    ...(z.checksum ? { checksum: true } : {}),
    ...(shard ? { shard } : {}),
    variable,
    dtype: z.dtype,
    shape: [T, H, W],
    chunks: z.chunks as [number, number, number],
    separator: z.dimension_separator === '/' ? '/' : '.',
    compressor: z.compressor,
    filters: z.filters,
    missing,
    ...(validRange && validRange.length === 2 && validRange.every(Number.isFinite) ? { validRange } : {}),
    scaleFactor,
    addOffset,
    latAscending: dy > 0,
  };
  const layer: RasterLayerEntry = {
    dataType: decl.dataType,
    subDataType: decl.subDataType,
    ...(decl.isDefault ? { isDefault: true } : {}),
    extent,
    extentBbox,
    timeScale: decl.timeScale,
    unit: decl.unit,
    description: decl.description,
    crs: 'EPSG:4326',
    bbox: [west, north - H * resY, west + W * resX, north],
    width: W,
    height: H,
    resolution: [resX, resY],
    scale: step,
    offset: 0,
    nodata: null,
    files: [{ path, periods }],
    layout,
    storeArray,
    ...(kerchunk ? { kerchunk } : {}),
    tileSize: [(z.shard?.chunks ?? z.chunks)[2]!, (z.shard?.chunks ?? z.chunks)[1]!],
  };
  return { layer, ...(typeof attrs.units === 'string' ? { storeUnit: attrs.units } : {}) };
}

/**
 * Writes `layer` (a source referenced in place) into the dataset's catalog under the dataset's
 * lock: a layer of the same name and extent is refused unless `replace`; the catalog is checked as
 * every reader will check it before it is written.
 */
export function saveReferencedLayer(
  o: { dir: string; name?: string; replace?: boolean },
  label: string,
  layer: RasterLayerEntry,
): Promise<RasterLayerEntry> {
  const extent = layer.extent;
  return withDatasetLock(o.dir, `layers add ${label}`, async () => {
    const now = await readCatalogOrEmpty(o.dir, o.name ?? 'dataset');
    const same = (l: RasterLayerEntry) =>
      l.dataType === layer.dataType && l.subDataType === layer.subDataType && l.extent === layer.extent;
    if (now.rasters.some(same) && !o.replace) {
      throw new BuildError(
        'conflict',
        `${o.dir} has a layer ${label} (${extent}) already: take it out first (climate-query layers remove ${label}), or pass --replace.`,
        { option: 'replace' },
      );
    }
    const next: Catalog = { ...now, rasters: [...now.rasters.filter((l) => !same(l)), layer] };
    // Checked as every reader will check it, before it is written.
    checkDataset(next, `${o.dir}/catalog.json`);
    await updateCatalog(o.dir, o.name ?? 'dataset', (c) => {
      c.rasters = [...c.rasters.filter((l) => !same(l)), layer].sort((a, b) =>
        (a.dataType + a.subDataType).localeCompare(b.dataType + b.subDataType),
      );
    });
    return layer;
  });
}

/** Whether `source` (a path or URL) is a kerchunk reference (a JSON file of keys, not a STAC document). */
export async function isReferenceSource(o: Pick<ReferencedLayerOptions, 'dir' | 'source' | 'root'>): Promise<boolean> {
  if (!/\.json$/i.test(o.source)) return false;
  return isKerchunkReference(await referenceJson(o).catch(() => null));
}

/** The JSON of the reference `o.source` (bounded), as read from its place. */
async function referenceJson(o: Pick<ReferencedLayerOptions, 'dir' | 'source' | 'root'>): Promise<unknown> {
  const place = await sourcePlace(o);
  const bytes =
    place.url !== undefined
      ? await urlKeys(place.url).bytes('', MAX_TEXT_BYTES)
      : await folderKeys(place.dir, place.rel).bytes('', MAX_TEXT_BYTES);
  if (bytes === undefined) throw new BuildError('unreadable_input', `${o.source} is not there.`, { file: o.source });
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (err) {
    throw new BuildError('invalid_input', `${o.source} is not JSON (${(err as Error).message}).`, { file: o.source });
  }
}

/**
 * The store `o.source` names, as keys: a Zarr store (a folder or URL), or a kerchunk reference (a
 * `.json` file or URL) whose chunks are ranges of the files it names, then listed as its targets.
 */
async function storeSource(
  o: Pick<ReferencedLayerOptions, 'dir' | 'source' | 'root'>,
): Promise<{ keys: SourceKeys; kerchunk?: KerchunkReference; layout: 'zarr-store' | 'kerchunk' | 'kerchunk-parquet' }> {
  const bad = (why: string) => new BuildError('invalid_input', `${o.source}: ${why}`, { file: o.source });
  let refs: KerchunkRefs;
  let layout: 'kerchunk' | 'kerchunk-parquet';
  if (await isReferenceSource(o)) {
    refs = parseKerchunk(await referenceJson(o), bad);
    layout = 'kerchunk';
  } else {
    // A folder whose .zmetadata says its record_size: kerchunk's Parquet form; else a Zarr store.
    const keys = await sourceKeys(o);
    const meta = await keys.bytes('.zmetadata', MAX_TEXT_BYTES).catch(() => undefined);
    let json: unknown = null;
    try {
      json = meta ? JSON.parse(new TextDecoder().decode(meta)) : null;
    } catch {
      json = null;
    }
    if (!isParquetReference(json)) return { keys, layout: 'zarr-store' };
    refs = parseParquetKerchunk(json, (rel, max) => keys.bytes(rel, max), bad);
    layout = 'kerchunk-parquet';
  }
  const place = await sourcePlace(o);
  const root = (place.url ?? place.rel).replace(/\/+$/, '');
  const targets = await referenceTargets(refs, root);
  if (targets.length === 0) throw bad('names no file its chunks are read from.');
  if (targets.length > KERCHUNK_MAX_TARGETS)
    throw bad(
      `reads from ${targets.length} files, more than the ${KERCHUNK_MAX_TARGETS} a layer lists; reference fewer files in each.`,
    );
  for (const t of targets) {
    if (isForeignPath(t)) continue;
    try {
      checkDatasetPath(t, o.source);
    } catch {
      throw bad(
        `reads from ${t}, outside the dataset folder: put the file beside the reference, or give its http(s) URL.`,
      );
    }
  }
  // Each chunk is one range of its file: a host that answers a range with the whole file would
  // send all of it for every chunk.
  for (const t of targets.filter(isForeignPath)) {
    const answer = await timedFetch(
      globalThis.fetch.bind(globalThis),
      t,
      { headers: { Range: 'bytes=0-0' } },
      DEFAULT_READ_TIMEOUTS,
    );
    await answer.discard();
    if (answer.response.status !== 206)
      throw bad(
        `reads from ${t}, whose host answers a range request with ${answer.response.status}, not 206: a reference is read a range at a time.`,
      );
  }
  const files = withForeign(fileLocation(o.root ?? o.dir), directForeign());
  return { keys: referenceKeys(refs, root, files), kerchunk: { targets }, layout };
}

/** Where `o.source` is: an http(s) URL, or a path inside the dataset folder (where it is, and relative to it). */
async function sourcePlace(
  o: Pick<ReferencedLayerOptions, 'dir' | 'source' | 'root'>,
): Promise<{ url: string; dir?: undefined; rel?: undefined } | { url?: undefined; dir: string; rel: string }> {
  if (/^[a-z][a-z0-9+.-]*:/i.test(o.source) && !/^[a-z]:[\\/]/i.test(o.source)) {
    const problem = foreignUrlProblem(o.source.replace(/\/+$/, ''));
    if (problem)
      throw new BuildError(
        'invalid_option',
        `${o.source} ${problem}: a source is a path inside the dataset folder or an http(s) URL.`,
        { option: 'source' },
      );
    return { url: o.source.replace(/\/+$/, '') };
  }
  const root = await realpath(o.root ?? o.dir).catch(() => {
    throw new BuildError('unreadable_input', `${o.root ?? o.dir} is not a dataset folder here.`, {
      file: o.root ?? o.dir,
    });
  });
  const store = await realpath(isAbsolute(o.source) ? o.source : resolve(o.source)).catch(() => {
    throw new BuildError('unreadable_input', `${o.source} is not there.`, { file: o.source });
  });
  const rel = relative(root, store);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new BuildError(
      'invalid_option',
      `${o.source} is not inside the dataset folder ${o.dir}: a source is referenced where the dataset is published, so put it (or a copy) inside it, or give its http(s) URL.`,
      { option: 'source' },
    );
  }
  return { dir: store, rel: rel.split(sep).join('/') };
}

/**
 * The keys of `o.source`: an http(s) URL where it is published, or a folder inside the dataset
 * (named in the catalog by its path there). A folder elsewhere is refused: the dataset is what is
 * published, and a reader resolves every local path inside it.
 */
export async function sourceKeys(o: Pick<ReferencedLayerOptions, 'dir' | 'source' | 'root'>): Promise<SourceKeys> {
  const place = await sourcePlace(o);
  return place.url !== undefined ? urlKeys(place.url) : folderKeys(place.dir, place.rel);
}

/** Refuses an array this version cannot read, naming what. */
function checkArray(z: ArrayMeta, name: string, bad: (why: string, option?: string) => BuildError): void {
  if (z.zarr_format !== 2 && z.zarr_format !== 3)
    throw bad(`array ${name} is Zarr format ${z.zarr_format}; this reads versions 2 and 3.`);
  if (z.order !== 'C')
    throw bad(`array ${name} is in ${z.order} order; this reads C order (rewrite it with order="C").`);
  if (!ZARR_DTYPE.test(z.dtype) || /f[12]$/.test(z.dtype))
    throw bad(`array ${name} has dtype ${z.dtype}; this reads ints, uints (1–8 bytes) and floats (4, 8).`);
  if (z.compressor !== null && !(ZARR_COMPRESSORS as readonly string[]).includes(z.compressor.id))
    throw bad(`array ${name} is compressed with "${z.compressor.id}"; this reads ${ZARR_COMPRESSORS.join(', ')}.`);
  for (const f of z.filters ?? [])
    if (!(ZARR_FILTERS as readonly string[]).includes(f.id))
      throw bad(`array ${name} has a filter "${f.id}"; this reads ${ZARR_FILTERS.join(', ')}.`);
  const shuffles = (z.filters ?? []).map((f) => f.id).indexOf('shuffle');
  if (shuffles !== -1 && shuffles !== z.filters!.length - 1)
    throw bad(`array ${name} shuffles its bytes before another filter; this reads shuffle as the last filter.`);
  if (z.shape.length !== z.chunks.length || z.chunks.some((c) => !(Number.isInteger(c) && c >= 1)))
    throw bad(`array ${name} has chunks ${JSON.stringify(z.chunks)} for shape ${JSON.stringify(z.shape)}.`);
}

/** Each shard's size in C order over the grid of shards (null: the store has none). */
async function shardSizes(
  keys: SourceKeys,
  z: ArrayMeta,
  key: (indexes: number[]) => string,
  bad: (why: string, option?: string) => BuildError,
): Promise<Array<number | null>> {
  const grid = z.shape.map((d, k) => Math.ceil(d / z.chunks[k]!));
  const count = grid.reduce((n, g) => n * g, 1);
  if (count > STORE_MAX_SHARDS)
    throw bad(`has ${count} shards, more than the ${STORE_MAX_SHARDS} a layer lists; rechunk it into larger shards.`);
  const idx = (i: number) => [Math.floor(i / (grid[1]! * grid[2]!)), Math.floor(i / grid[2]!) % grid[1]!, i % grid[2]!];
  // Over HTTP a HEAD request each: a few at once, as a browser would.
  const sizes: Array<number | null> = new Array(count).fill(null);
  await runLimited(
    Array.from({ length: count }, (_, i) => async () => {
      sizes[i] = await keys.size(key(idx(i)));
    }),
    keys.remote ? 6 : 1,
  );
  return sizes;
}
