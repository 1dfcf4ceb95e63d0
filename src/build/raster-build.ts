/**
 * `climate-query build` for raster layers (Node): turns a user's GeoTIFFs
 * of one layer (one data type and sub-type) into the layout the engine
 * reads fast, and registers the layer in catalog.json.
 *
 * Inputs: one file per date (single band; the date comes from the band
 * description or else the file name), or multi-band files whose band
 * descriptions are the dates, or any mix. Undated layers (windspeed) take
 * one single-band file.
 *
 * Output layout (docs/layers.md): tiled GeoTIFF, 32 × 32 px tiles,
 * pixel-interleaved (all dates of a pixel next to each other, so one tile
 * read serves a whole date range at a point), Int16 with scale/offset and
 * nodata −32768, DEFLATE + horizontal predictor, no overviews, BIGTIFF only
 * if needed, empty (all-nodata) tiles left out. One file per year for daily
 * and monthly layers, one file for annual, calendar-month and undated
 * layers. Band descriptions are the period keys.
 *
 * CRS: everything is stored in EPSG:4326. Projected (or otherwise
 * non-WGS84) inputs are reprojected here with gdalwarp (bilinear by
 * default), because the engine, the WKT the API takes and the coverage
 * maths all work in lon/lat; doing it once at build time keeps proj out of
 * the browser and keeps queries exact on the stored grid.
 *
 * GDAL's COG driver refuses tiles below 128 px, and 128 px tiles make a
 * point read 16 × larger, so files are plain tiled GTiffs with the IFD at
 * the start (what GDAL writes by default), which is all a range reader needs.
 */
import { mkdir, mkdtemp, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fromFile } from 'geotiff';
import { ClimateQueryError } from '../contract/errors.ts';
import { parseDate, periodKey, type TimeScale } from '../contract/periods.ts';
import { EXTENT_BBOX, RASTER_FAMILIES, type Extent, type RasterDataType } from '../contract/raster-layers.ts';
import type { RasterLayerEntry } from '../dataset/catalog.ts';
import { updateCatalog } from './catalog-writer.ts';
import { closeDataset, gdalStep, mount, openDataset, unmount, type GdalInfo, type Mount } from './raster-build-gdal.ts';
import type { GridSpec } from '../rasters/coverage.ts';

/** Stored value meaning "no data" in every built layer. */
export const STORED_NODATA = -32768;

/** Default storage step per data type: value = stored × scale (+ offset 0). Int16 holds ±32767 steps. */
export const DEFAULT_SCALE: Record<RasterDataType, number> = {
  temp: 0.1,
  gdd: 1,
  chill: 1,
  frost: 1,
  rain: 0.1,
  windspeed: 0.01,
};

/** One input file, optionally with the period of each band given explicitly. */
export interface RasterBuildInput {
  path: string;
  /** Period of each band (any accepted date form); overrides band descriptions and the file name. */
  periods?: string[];
}

/** A target grid in EPSG:4326. */
export interface TargetGrid {
  /** [west, south, east, north] in degrees; snapped outward to whole pixels from west/north. */
  bbox: [number, number, number, number];
  /** Pixel size in degrees, one number or [x, y]. */
  resolution: number | [number, number];
}

/** Options of {@link buildRasterLayer}. */
export interface RasterBuildOptions {
  /** The dataset folder (holds catalog.json). */
  dir: string;
  /** Dataset name used when catalog.json does not exist yet. */
  datasetName?: string;
  dataType: RasterDataType;
  /** Sub-type; defaults to the family's default (frost "-", rain "monthly_median"). */
  subDataType?: string;
  /** Defaults to the family's extent. */
  extent?: Extent;
  inputs: Array<string | RasterBuildInput>;
  /** Storage step; defaults to {@link DEFAULT_SCALE}. */
  scale?: number;
  offset?: number;
  /** Resample everything onto this grid; default: the first input's grid (after reprojection if needed). */
  grid?: TargetGrid;
  /** gdalwarp resampling when reprojecting or regridding. */
  resampling?: 'near' | 'bilinear' | 'cubic' | 'average';
  /** Tile edge in pixels (default 32). */
  tileSize?: number;
  /** Progress lines. */
  log?: (line: string) => void;
}

/** What a build produced. */
export interface RasterBuildResult {
  layer: RasterLayerEntry;
  /** Files written, relative to `dir`, with sizes. */
  files: Array<{ path: string; bytes: number }>;
  seconds: number;
}

/** The output grid: the engine's own grid description. */
type Grid = GridSpec;

interface BandSource {
  key: string;
  /** GDAL virtual path of the (possibly warped) file. */
  file: string;
  band: number;
  nodata: string | null;
  inScale: number;
  inOffset: number;
}

/** The folder of a layer inside a dataset: rasters/<dataType>-<subDataType> ("-" sub-types drop the suffix). */
export function rasterLayerDir(dataType: string, subDataType: string): string {
  return subDataType === '-' ? `rasters/${dataType}` : `rasters/${dataType}-${subDataType}`;
}

/** Output file name (without folder) holding `key` for a layer of `scale`. */
export function rasterFileName(scale: TimeScale | null, key: string): string {
  switch (scale) {
    case 'daily':
    case 'monthly':
      return `${key.slice(0, 4)}.tif`;
    case 'annual':
      return 'years.tif';
    case 'calendar_month':
      return 'months.tif';
    case null:
      return 'layer.tif';
    default:
      throw new Error(`Raster layers have no ${scale} time scale.`);
  }
}

/**
 * Builds one raster layer into `dir` and registers it in catalog.json,
 * replacing any earlier build of the same layer. Throws ClimateQueryError
 * for bad inputs (unknown layer, undatable bands, values that do not fit
 * the storage step) and Error for GDAL failures.
 */
export async function buildRasterLayer(options: RasterBuildOptions): Promise<RasterBuildResult> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  const family = RASTER_FAMILIES[options.dataType];
  if (!family) throw new ClimateQueryError('unknown_data_type', `No raster data type "${options.dataType}".`, { field: 'dataType' });
  const subDataType = options.subDataType ?? family.defaultSubType;
  if (subDataType === null || !family.subTypes.includes(subDataType)) {
    throw new ClimateQueryError('unknown_data_type', `${options.dataType} takes sub-type ${family.subTypes.map((s) => `"${s}"`).join(', ')}; got ${JSON.stringify(subDataType)}.`, {
      field: 'subDataType',
    });
  }
  const extent = options.extent ?? family.extent;
  const scale = options.scale ?? DEFAULT_SCALE[options.dataType];
  const offset = options.offset ?? 0;
  if (!(scale > 0) || !Number.isFinite(offset)) throw new ClimateQueryError('invalid_field', 'scale must be > 0 and offset finite.', { field: 'scale' });
  const tileSize = options.tileSize ?? 32;
  if (options.inputs.length === 0) throw new ClimateQueryError('missing_field', 'No input files.', { field: 'inputs' });

  const dir = resolve(options.dir);
  await mkdir(dir, { recursive: true });
  const work = await mkdtemp(join(tmpdir(), 'climate-query-raster-'));
  const mounts = new Map<string, Mount>();
  const mountOf = async (hostDir: string) => {
    let m = mounts.get(hostDir);
    if (!m) mounts.set(hostDir, (m = await mount(hostDir)));
    return m;
  };
  try {
    const workMount = await mountOf(work);
    const inputs = options.inputs.map((i) => (typeof i === 'string' ? { path: i } : i));

    // 1. Inspect every input, date its bands, and settle the target grid.
    const sources: BandSource[] = [];
    let grid: Grid | null = options.grid ? gridFromTarget(options.grid) : null;
    for (const [n, input] of inputs.entries()) {
      const host = resolve(input.path);
      const m = await mountOf(dirname(host));
      let file = `${m.virtual}/${basename(host)}`;
      let { ds, info } = await openDataset(file).catch((err: unknown) => {
        throw new ClimateQueryError('dataset_unavailable', `Cannot read input ${input.path}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      });
      const keys = periodsOf(family.timeScale, input, info);
      const bandScales = info.bands.map((b) => b as { scale?: number; offset?: number });
      const native = nativeGrid(info);
      if (!native || !grid || !sameGrid(native, grid)) {
        if (native && !grid) {
          grid = native;
        } else {
          // Reproject or regrid: GDAL warps onto the target grid (or picks one for the first input).
          const out = `${workMount.outputName}/warp-${n}`;
          const args = ['-of', 'GTiff', '-t_srs', 'EPSG:4326', '-r', options.resampling ?? 'bilinear', '-ot', 'Float32', '-dstnodata', 'nan', '-co', 'INTERLEAVE=BAND'];
          if (grid) args.push('-te', ...[grid.west, grid.north - grid.height * grid.resY, grid.west + grid.width * grid.resX, grid.north].map(String), '-ts', String(grid.width), String(grid.height));
          log(`reprojecting ${input.path} to EPSG:4326${grid ? ' on the layer grid' : ''}`);
          const warped = await gdalStep(`gdalwarp ${input.path}`, (g) => g.gdalwarp(ds, args, out));
          await closeDataset(ds);
          file = warped.local;
          ({ ds, info } = await openDataset(file));
          grid ??= nativeGrid(info);
          if (!grid) throw new Error(`gdalwarp of ${input.path} gave no north-up EPSG:4326 grid.`);
        }
      }
      const nd = info.bands.map((b) => nodataText(b.noDataValue, b.type));
      keys.forEach((key, b) =>
        sources.push({ key, file, band: b + 1, nodata: nd[b] ?? null, inScale: bandScales[b]?.scale ?? 1, inOffset: bandScales[b]?.offset ?? 0 }),
      );
      // 2. Do the values fit Int16 at this step? Exact min/max per band (reads the data once).
      const mm = await gdalStep(`Computing min/max of ${input.path}`, (g) => g.gdalinfo(ds, ['-mm']));
      mm.bands.forEach((b, i) => {
        if (b.computedMin === undefined || b.computedMax === undefined) return;
        const s = bandScales[i]?.scale ?? 1;
        const o = bandScales[i]?.offset ?? 0;
        const lo = (Math.min(b.computedMin * s + o, b.computedMax * s + o) - offset) / scale;
        const hi = (Math.max(b.computedMin * s + o, b.computedMax * s + o) - offset) / scale;
        if (lo < -32767 || hi > 32767) {
          throw new ClimateQueryError(
            'invalid_field',
            `${input.path} band ${i + 1} (${keys[i]}) spans ${b.computedMin * s + o} to ${b.computedMax * s + o}, which does not fit Int16 at scale ${scale}, offset ${offset}; pass a larger scale.`,
            { field: 'scale' },
          );
        }
      });
      await closeDataset(ds);
    }
    if (!grid) throw new Error('No grid could be determined.');
    checkExtent(grid, extent, options);
    const seen = new Map<string, BandSource>();
    for (const s of sources) {
      if (seen.has(s.key)) throw new ClimateQueryError('invalid_field', `Period ${s.key || '(undated)'} appears in more than one input band.`, { field: 'inputs' });
      seen.set(s.key, s);
    }
    if (family.timeScale === null && sources.length !== 1) {
      throw new ClimateQueryError('invalid_field', `${options.dataType} is undated: give exactly one single-band input (got ${sources.length} bands).`, { field: 'inputs' });
    }

    // 3. One output file per group of periods, written from a VRT that stacks, scales and marks nodata.
    sources.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const groups = new Map<string, BandSource[]>();
    for (const s of sources) {
      const name = rasterFileName(family.timeScale, s.key);
      groups.set(name, [...(groups.get(name) ?? []), s]);
    }
    const layerDir = rasterLayerDir(options.dataType, subDataType);
    const stagingHost = join(work, 'out');
    await mkdir(stagingHost, { recursive: true });
    const fileEntries: RasterLayerEntry['files'] = [];
    for (const [name, bands] of groups) {
      const vrtName = `${name}.vrt`;
      await writeFile(join(work, vrtName), stackVrt(grid, bands, scale, offset));
      const { ds } = await openDataset(`${workMount.virtual}/${vrtName}`);
      log(`writing ${layerDir}/${name} (${bands.length} band${bands.length === 1 ? '' : 's'})`);
      await gdalStep(`Writing ${layerDir}/${name}`, (g) =>
        g.gdal_translate(
          ds,
          [
            '-of', 'GTiff', '-a_srs', 'EPSG:4326',
            '-co', 'TILED=YES', '-co', `BLOCKXSIZE=${tileSize}`, '-co', `BLOCKYSIZE=${tileSize}`,
            '-co', 'INTERLEAVE=PIXEL', '-co', 'COMPRESS=DEFLATE', '-co', 'PREDICTOR=2',
            '-co', 'BIGTIFF=IF_SAFER', '-co', 'SPARSE_OK=TRUE',
          ],
          `${workMount.outputName}/out/${name.replace(/\.tif$/, '')}`,
        ),
      );
      await closeDataset(ds);
      fileEntries.push({ path: `${layerDir}/${name}`, periods: family.timeScale === null ? [''] : bands.map((b) => b.key) });
    }

    // 4. Read back the exact grid and tiling from the written files (gdalinfo's JSON rounds doubles).
    const written = await checkWritten(stagingHost, fileEntries, tileSize);

    // 5. Swap the layer's folder in, then register it.
    const target = join(dir, layerDir);
    await rm(target, { recursive: true, force: true });
    await mkdir(dirname(target), { recursive: true });
    await moveDir(stagingHost, target);
    const layer: RasterLayerEntry = {
      dataType: options.dataType,
      subDataType,
      extent,
      timeScale: family.timeScale,
      unit: family.unit,
      crs: 'EPSG:4326',
      bbox: [written.west, written.north - written.height * written.resY, written.west + written.width * written.resX, written.north],
      width: written.width,
      height: written.height,
      scale,
      offset,
      nodata: STORED_NODATA,
      files: fileEntries,
      resolution: [written.resX, written.resY],
      tileSize: [tileSize, tileSize],
    };
    await updateCatalog(dir, options.datasetName ?? basename(dir), (c) => {
      c.rasters = [...c.rasters.filter((l) => !(l.dataType === layer.dataType && l.subDataType === layer.subDataType && l.extent === layer.extent)), layer];
      c.rasters.sort((a, b) => (a.dataType + a.subDataType).localeCompare(b.dataType + b.subDataType));
    });
    const files = await Promise.all(fileEntries.map(async (f) => ({ path: f.path, bytes: (await stat(join(dir, f.path))).size })));
    return { layer, files, seconds: (Date.now() - started) / 1000 };
  } finally {
    for (const m of mounts.values()) await unmount(m);
    await rm(work, { recursive: true, force: true });
  }
}

/** The period keys of an input's bands, from explicit periods, band descriptions or the file name. */
function periodsOf(scale: TimeScale | null, input: RasterBuildInput, info: GdalInfo): string[] {
  const n = info.bands.length;
  if (scale === null) return info.bands.map(() => '');
  const where = (b: number) => `${input.path} band ${b + 1}`;
  if (input.periods) {
    if (input.periods.length !== n) {
      throw new ClimateQueryError('invalid_field', `${input.path} has ${n} bands but ${input.periods.length} periods were given.`, { field: 'inputs' });
    }
    return input.periods.map((p, b) => normalisePeriod(scale, p, where(b)));
  }
  const descriptions = info.bands.map((b) => (b.description ?? '').trim());
  if (descriptions.every((d) => d !== '')) return descriptions.map((d, b) => normalisePeriod(scale, d, where(b)));
  if (n === 1) {
    const fromName = dateInFileName(scale, basename(input.path));
    if (fromName) return [normalisePeriod(scale, fromName, `${input.path} (file name)`)];
  }
  throw new ClimateQueryError(
    'invalid_date',
    `Cannot tell the dates of ${input.path}: give each band a description that is its date (${scale} form, e.g. ${example(scale)}), or use single-band files with the date in the file name.`,
    { field: 'inputs' },
  );
}

function example(scale: TimeScale): string {
  return { daily: '2024-01-31', monthly: '2024-01', annual: '2024', calendar_month: '01', hourly: '2024-01-31T13:00:00' }[scale];
}

/** Accepts the date forms people write for a time scale and returns the response key. */
export function normalisePeriod(scale: TimeScale, text: string, where: string): string {
  let t = text.trim();
  if (scale === 'daily' && /^\d{8}$/.test(t)) t = `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6)}`;
  if (scale === 'monthly' && /^\d{6}$/.test(t)) t = `${t.slice(0, 4)}-${t.slice(4)}`;
  if (scale === 'monthly' && /^\d{4}-\d{2}-01$/.test(t)) t = t.slice(0, 7);
  if (scale === 'calendar_month' && /^\d$/.test(t)) t = `0${t}`;
  try {
    return periodKey(scale, parseDate(scale, t, 'inputs'));
  } catch {
    throw new ClimateQueryError('invalid_date', `${where}: "${text}" is not a ${scale} date like ${example(scale)}.`, { field: 'inputs' });
  }
}

function dateInFileName(scale: TimeScale, name: string): string | null {
  const stem = name.replace(/\.[^.]*$/, '');
  const patterns: Record<string, RegExp> = {
    daily: /(?<!\d)(\d{4}-?\d{2}-?\d{2})(?!\d)/g,
    monthly: /(?<!\d)(\d{4}-?\d{2})(?![\d-])/g,
    annual: /(?<!\d)(\d{4})(?!\d)/g,
    calendar_month: /(?<!\d)(\d{1,2})(?!\d)/g,
  };
  const re = patterns[scale];
  if (!re) return null;
  const all = [...stem.matchAll(re)];
  return all.length ? all[all.length - 1]![1]! : null;
}

/** The grid of a dataset when it is north-up EPSG:4326 (WGS 84 lon/lat), else null. */
function nativeGrid(info: GdalInfo): Grid | null {
  const wkt = info.coordinateSystem?.wkt ?? '';
  const gt = info.geoTransform;
  const wgs84 = /^GEOG(CRS|CS)\["WGS 84"/.test(wkt) && !/PROJCRS|PROJCS/.test(wkt);
  if (!wgs84 || !gt || gt.length !== 6 || gt[2] !== 0 || gt[4] !== 0 || !(gt[1]! > 0) || !(gt[5]! < 0)) return null;
  return { west: gt[0]!, north: gt[3]!, resX: gt[1]!, resY: -gt[5]!, width: info.size[0], height: info.size[1] };
}

function gridFromTarget(t: TargetGrid): Grid {
  const [rx, ry] = typeof t.resolution === 'number' ? [t.resolution, t.resolution] : t.resolution;
  const [w, s, e, n] = t.bbox;
  if (!(rx > 0 && ry > 0 && e > w && n > s)) throw new ClimateQueryError('invalid_field', 'grid needs bbox [west, south, east, north] and a positive resolution.', { field: 'grid' });
  // Round away tiny float excess so 6.55 / 0.02 gives 328, not 328.00000000000006 → 329.
  return { west: w, north: n, resX: rx, resY: ry, width: Math.ceil((e - w) / rx - 1e-9), height: Math.ceil((n - s) / ry - 1e-9) };
}

function sameGrid(a: Grid, b: Grid): boolean {
  const tol = 1e-9 * Math.max(a.resX, a.resY);
  return (
    a.width === b.width && a.height === b.height && Math.abs(a.west - b.west) <= tol && Math.abs(a.north - b.north) <= tol &&
    Math.abs(a.resX - b.resX) <= tol * 1e-3 && Math.abs(a.resY - b.resY) <= tol * 1e-3
  );
}

function checkExtent(g: Grid, extent: Extent, o: RasterBuildOptions): void {
  const [w, s, e, n] = EXTENT_BBOX[extent];
  const east = g.west + g.width * g.resX;
  const south = g.north - g.height * g.resY;
  if (east <= w || g.west >= e || g.north <= s || south >= n) {
    throw new ClimateQueryError('invalid_field', `The ${o.dataType} inputs cover [${g.west}, ${south}, ${east}, ${g.north}], outside the "${extent}" extent [${w}, ${s}, ${e}, ${n}].`, {
      field: 'inputs',
    });
  }
}

function nodataText(v: number | string | undefined, type: string): string | null {
  if (v === undefined || v === null) return /Float/.test(type) ? 'nan' : null;
  if (typeof v === 'string') return /nan/i.test(v) ? 'nan' : v;
  return Number.isNaN(v) ? 'nan' : String(v);
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A VRT stacking `bands` as Int16 with (value − offset) / scale rounded, nodata → −32768. */
function stackVrt(g: Grid, bands: BandSource[], scale: number, offset: number): string {
  const lines = [
    `<VRTDataset rasterXSize="${g.width}" rasterYSize="${g.height}">`,
    '  <SRS dataAxisToSRSAxisMapping="2,1">EPSG:4326</SRS>',
    `  <GeoTransform>${g.west}, ${g.resX}, 0, ${g.north}, 0, ${-g.resY}</GeoTransform>`,
  ];
  bands.forEach((b, i) => {
    // stored = (raw·inScale + inOffset − offset) / scale; GDAL rounds to nearest when writing Int16.
    const ratio = b.inScale / scale;
    const shift = (b.inOffset - offset) / scale;
    lines.push(
      `  <VRTRasterBand dataType="Int16" band="${i + 1}">`,
      `    <Description>${xml(b.key)}</Description>`,
      `    <NoDataValue>${STORED_NODATA}</NoDataValue>`,
      `    <Scale>${scale}</Scale>`,
      `    <Offset>${offset}</Offset>`,
      '    <ComplexSource>',
      `      <SourceFilename relativeToVRT="0">${xml(b.file)}</SourceFilename>`,
      `      <SourceBand>${b.band}</SourceBand>`,
      `      <ScaleOffset>${shift}</ScaleOffset>`,
      `      <ScaleRatio>${ratio}</ScaleRatio>`,
      ...(b.nodata !== null ? [`      <NODATA>${b.nodata}</NODATA>`] : []),
      '    </ComplexSource>',
      '  </VRTRasterBand>',
    );
  });
  lines.push('</VRTDataset>');
  return `${lines.join('\n')}\n`;
}

/** Opens each written file with geotiff.js and returns the common grid; throws if anything is off. */
async function checkWritten(stagingHost: string, files: RasterLayerEntry['files'], tileSize: number): Promise<Grid> {
  let grid: Grid | null = null;
  for (const f of files) {
    const tiff = await fromFile(join(stagingHost, basename(f.path)));
    try {
      const image = await tiff.getImage();
      const [west, north] = image.getOrigin() as [number, number];
      const [rx, ry] = image.getResolution() as [number, number];
      const g: Grid = { west, north, resX: rx, resY: -ry, width: image.getWidth(), height: image.getHeight() };
      if (image.getSamplesPerPixel() !== f.periods.length || image.getTileWidth() !== tileSize || image.planarConfiguration !== 1) {
        throw new Error(`${f.path} came out with ${image.getSamplesPerPixel()} bands, ${image.getTileWidth()} px tiles, planar ${image.planarConfiguration}.`);
      }
      if (grid && !sameGrid(grid, g)) throw new Error(`${f.path} is on a different grid from the layer's other files.`);
      grid ??= g;
    } finally {
      await tiff.close();
    }
  }
  if (!grid) throw new Error('No file was written.');
  return grid;
}

async function moveDir(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch {
    // Across file systems (tmp on another disk): copy, then the finally-block removes the staging copy.
    const { cp } = await import('node:fs/promises');
    await cp(from, to, { recursive: true });
  }
}
