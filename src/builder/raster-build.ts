/**
 * `climate-query build` for raster layers (Node): turns a user's GeoTIFFs
 * of one layer (one data type and sub-type) into the layout the engine
 * reads fast, and registers the layer in catalog.json.
 *
 * The layer is what the user declares (raster-build-declare.ts): name,
 * sub-type, unit, time scale, extent, description; the contract families
 * supply defaults under their own names. Dates are stated, never guessed
 * (raster-build-dates.ts): explicit dates, a file-name pattern, or band
 * descriptions that are dates. Undated layers take one single-band file.
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
import { CALENDARS } from '../contract/calendars.ts';
import { mkdir, mkdtemp, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fromFile } from 'geotiff';
import { BuildError } from './build-error.ts';
import type { TimeScale } from '../contract/periods.ts';
import { TIME_SCALES } from '../contract/time-scales.ts';
import { NO_SUB_TYPE, RASTER_FAMILIES, contractLayer, type RasterTimeScale } from '../contract/raster-layers.ts';
import type { RasterLayerEntry } from '../dataset/catalog.ts';
import { placeInto, readCatalogOrEmpty, updateCatalog } from './dataset-writer.ts';
import { datesOfInputs, type DatedInput } from './raster-build-dates.ts';
import { netcdfToGeoTiff, parseNetcdfSyntax, sniffNetcdf } from './netcdf-input.ts';
import { DEFAULT_SCALE, declareLayer, knownExtents, settleExtent } from './raster-build-declare.ts';
import { closeDataset, gdalStep, mount, openDataset, unmount, type GdalInfo, type Mount } from './raster-build-gdal.ts';
import type { GridSpec } from '../rasters/coverage.ts';
import { BUILD_ID_KEY, newBuildId } from './build-id.ts';
import { chooseLayout, chooseTileSize, storedTiffOptions } from './raster-tiling.ts';
import { type BandSource, stackVrt } from './raster-build-vrt.ts';
import { storeName, writeZarrGroups, zarrGroupRanges } from './raster-build-zarr.ts';
import { fileGroup, mergeLayer } from './layer-merge.ts';
import { gridOf } from '../rasters/layer-plan.ts';
import { previewFactor, variableName, ZARR_CHUNK, type ZarrArrays } from '../rasters/zarr-layout.ts';

/** Stored value meaning "no data" in every built layer. */
export const STORED_NODATA = -32768;

export { DEFAULT_SCALE } from './raster-build-declare.ts';
export { normalisePeriod } from './raster-build-dates.ts';

/** One input file, optionally with the period of each band given explicitly. */
export interface RasterBuildInput {
  path: string;
  /** Period of each band (any accepted date form); overrides band descriptions. */
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
  /** Layer name: a contract family (temp, gdd, …) or any name of the user's (letters, digits, "_", "."). */
  dataType: string;
  /** Sub-type; defaults to the family's default (frost "-", rain "monthly_median"), else "-" (none). */
  subDataType?: string;
  /** Unit of the values; required unless the layer is a contract family. */
  unit?: string;
  /** Time scale of the bands, null for undated; required unless the layer is a contract family. */
  timeScale?: RasterTimeScale | null;
  /** One line for people; default: the family's title, else name and unit. */
  description?: string;
  /** Where the values come from, for people (stored with the layer). */
  attribution?: string;
  /** Extent name: a known one (tc, sa, or one the dataset has) is checked against the grid; a new one takes the grid's bounds. */
  extent?: string;
  inputs: Array<string | RasterBuildInput>;
  /** One date per band over all inputs, in order (CLI --dates). */
  dates?: string[];
  /** File-name pattern with {yyyy}, {mm}, {dd}, * (CLI --date-pattern). */
  datePattern?: string;
  /** Storage step; defaults to {@link DEFAULT_SCALE} for the families, else the finest power of ten that fits Int16. */
  scale?: number;
  offset?: number;
  /** Resample everything onto this grid; default: the first input's grid (after reprojection if needed). */
  grid?: TargetGrid;
  /** gdalwarp resampling when reprojecting or regridding. */
  resampling?: 'near' | 'bilinear' | 'cubic' | 'average';
  /**
   * The inputs' CRS when they carry none (anything GDAL's -s_srs takes, e.g. EPSG:32734). A grid
   * without a CRS is refused unless this names one: GDAL would take its coordinates as degrees.
   */
  crs?: string;
  /** NetCDF inputs: the variable to read (CLI --variable); may be left out when a file has one gridded variable. */
  variable?: string;
  /** NetCDF inputs: the level to read, by its coordinate value (CLI --level, e.g. 850). */
  level?: string;
  /** Tile edge in pixels of a `map` layout, a multiple of 16 (default: chosen from the files' band count, raster-tiling.ts). */
  tileSize?: number;
  /**
   * How the files arrange pixels and dates (docs/layers.md, section 2). Default: `zarr` for files
   * of more than 32 bands (daily years: src/rasters/zarr-layout.ts), else `map` (raster-tiling.ts);
   * `tileSize` alone implies `map`.
   */
  layout?: 'map' | 'zarr';
  /**
   * Replace the layer whole: its files the build does not write are deleted, and its grid, step and
   * layout are not carried over. Without it a build adds to a layer the dataset holds (its other
   * years are kept) and refuses what would drop dates or could not sit beside its files.
   */
  replace?: boolean;
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

/** The folder of a layer inside a dataset: rasters/<dataType>-<subDataType> ("-" sub-types drop the suffix). */
export function rasterLayerDir(dataType: string, subDataType: string): string {
  return subDataType === '-' ? `rasters/${dataType}` : `rasters/${dataType}-${subDataType}`;
}

/** Output file name (without folder) holding `key` for a layer of `scale`. */
export function rasterFileName(scale: TimeScale | null, key: string): string {
  if (scale === null) return 'layer.tif';
  if (!TIME_SCALES[scale].raster)
    throw new BuildError('invalid_option', `Raster layers have no ${scale} time scale.`, { option: 'timeScale' });
  // By the scale's calendar (contract/calendars.ts): a file per year of days, dekads or months, one of years, one of months.
  return `${CALENDARS[TIME_SCALES[scale].calendar].fileGroup(key)}.tif`;
}

/**
 * Builds one raster layer into `dir` and registers it in catalog.json,
 * replacing any earlier build of the same layer. Throws BuildError
 * for bad inputs (unknown layer, undatable bands, values that do not fit
 * the storage step) and Error for GDAL failures.
 */
export async function buildRasterLayer(options: RasterBuildOptions): Promise<RasterBuildResult> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  // NetCDF inputs may state the unit; the name and time scale are checked before any file is read.
  const family = (RASTER_FAMILIES as Record<string, { defaultSubType: string } | undefined>)[options.dataType];
  const statedUnit =
    options.unit ?? contractLayer(options.dataType, options.subDataType ?? family?.defaultSubType ?? NO_SUB_TYPE)?.unit;
  const pending = declareLayer({ ...options, unit: statedUnit ?? 'from the files' });
  const label = `${options.dataType}${pending.subDataType === '-' ? '' : `/${pending.subDataType}`}`;
  const familyScale = (DEFAULT_SCALE as Record<string, number | undefined>)[options.dataType];
  if ((options.scale !== undefined && !(options.scale > 0)) || !Number.isFinite(options.offset ?? 0)) {
    throw new BuildError('invalid_option', 'scale must be > 0 and offset finite.', { option: 'scale' });
  }
  if (
    options.tileSize !== undefined &&
    !(Number.isInteger(options.tileSize) && options.tileSize >= 16 && options.tileSize % 16 === 0)
  ) {
    throw new BuildError(
      'invalid_option',
      `tileSize must be a multiple of 16 pixels (TIFF tiles), not ${options.tileSize}.`,
      { option: 'tileSize' },
    );
  }
  if (options.layout !== undefined && options.layout !== 'map' && options.layout !== 'zarr') {
    throw new BuildError('invalid_option', `layout must be "map" or "zarr", not ${JSON.stringify(options.layout)}.`, {
      option: 'layout',
    });
  }
  if (options.layout === 'zarr' && options.tileSize !== undefined) {
    throw new BuildError(
      'invalid_option',
      `tileSize sets a map layout's tiles; a zarr layout is written in ${ZARR_CHUNK} × ${ZARR_CHUNK} px chunks. Leave out one of the two.`,
      { option: 'tileSize' },
    );
  }
  if (options.layout === 'zarr' && options.timeScale === null) {
    throw new BuildError('invalid_option', 'An undated layer is one map; the zarr layout is for dated layers.', {
      option: 'layout',
    });
  }
  if (options.inputs.length === 0) throw new BuildError('invalid_option', 'No input files.', { option: 'inputs' });

  const dir = resolve(options.dir);
  await mkdir(dir, { recursive: true });
  const work = await mkdtemp(join(tmpdir(), 'climate-query-raster-'));
  const mounts = new Map<string, Mount>();
  const mountOf = async (hostDir: string) => {
    let m = mounts.get(hostDir);
    if (!m) mounts.set(hostDir, (m = await mount(hostDir)));
    return m;
  };
  /** The host path of a file GDAL sees under one of this build's mounts (null when it is not one). */
  const hostOf = (virtual: string): string | null => {
    for (const m of mounts.values())
      if (virtual.startsWith(`${m.virtual}/`)) return m.host + virtual.slice(m.virtual.length);
    return null;
  };
  try {
    const workMount = await mountOf(work);
    // NetCDF inputs (any name; recognised by their first bytes) become GeoTIFFs dated by their CF time axis.
    const inputs: Array<RasterBuildInput & { shown: string }> = [];
    let fileUnit: string | undefined;
    /** The first NetCDF variable's CF long_name: the layer's description unless one is given. */
    let fileLongName: string | undefined;
    for (const [n, raw] of options.inputs.entries()) {
      const given = typeof raw === 'string' ? { path: raw } : raw;
      const { path, variable } = parseNetcdfSyntax(given.path);
      const missing = await stat(path).then(
        (st) => (st.isFile() ? null : 'is not a file'),
        () => 'does not exist',
      );
      if (missing) throw new BuildError('unreadable_input', `Input ${given.path} ${missing}.`, { file: given.path });
      if (!(await sniffNetcdf(path))) {
        inputs.push({ ...given, shown: given.path });
        continue;
      }
      const nc = await netcdfToGeoTiff(path, given.path, work, n, {
        timeScale: pending.timeScale,
        ...(statedUnit !== undefined ? { unit: statedUnit } : {}),
        ...((variable ?? options.variable) ? { variable: (variable ?? options.variable)! } : {}),
        ...(options.level !== undefined ? { level: options.level } : {}),
        ...(options.crs !== undefined ? { crs: options.crs } : {}),
        datesStated: Boolean(options.dates || options.datePattern || given.periods),
      });
      log(`read ${nc.summary}`);
      if (nc.unit !== undefined && fileUnit !== undefined && nc.unit !== fileUnit) {
        throw new BuildError(
          'invalid_input',
          `The NetCDF inputs are in different units (${fileUnit}, ${nc.unit}); a layer has one. Pass --unit to convert them where a rule is known, or convert them first.`,
          { file: given.path, option: 'unit' },
        );
      }
      fileUnit ??= nc.unit;
      fileLongName ??= nc.longName;
      inputs.push({ path: nc.tif, shown: given.path, ...(given.periods ? { periods: given.periods } : {}) });
    }
    if (options.level !== undefined && inputs.every((i) => i.shown === i.path)) {
      throw new BuildError(
        'invalid_option',
        '--level chooses a level of a NetCDF variable; none of the inputs is NetCDF.',
        { option: 'level' },
      );
    }
    const decl = declareLayer({
      ...options,
      ...(statedUnit === undefined && fileUnit !== undefined ? { unit: fileUnit } : {}),
      ...(options.description === undefined && fileLongName !== undefined && !family
        ? { description: fileLongName }
        : {}),
    });
    const { subDataType, timeScale } = decl;
    const open = async (path: string) => {
      const host = resolve(path);
      // Before mounting its folder: a missing folder failed there as a bare "FS error".
      const missing = await stat(host).then(
        (st) => (st.isFile() ? null : 'is not a file'),
        () => 'does not exist',
      );
      if (missing) throw new BuildError('unreadable_input', `Input ${path} ${missing}.`);
      // GDAL sees the folder mounted, not the host's links: a link to a file in another folder was "not
      // a raster" until the build handed GDAL the file where it really is.
      const real = await realpath(host);
      const m = await mountOf(dirname(real));
      const file = `${m.virtual}/${basename(real)}`;
      const opened = await openDataset(file).catch((err: unknown) => {
        throw new BuildError(
          'unreadable_input',
          `GDAL cannot read input ${path} (${gdalMessage(err)}). ${unreadableAdvice(path)}`,
          { cause: err },
        );
      });
      return { file, ...opened };
    };

    // 1. Date every band of every input, as stated (explicit dates, a pattern, or band descriptions).
    const dated: DatedInput[] = [];
    for (const input of inputs) {
      const { ds, info } = await open(input.path);
      dated.push({
        path: input.shown,
        name: basename(parseNetcdfSyntax(input.shown).path),
        bands: info.bands.length,
        descriptions: info.bands.map((b) => b.description ?? ''),
        ...(input.periods ? { periods: input.periods } : {}),
      });
      await closeDataset(ds);
    }
    const periods = datesOfInputs(timeScale, dated, {
      ...(options.dates ? { dates: options.dates } : {}),
      ...(options.datePattern ? { datePattern: options.datePattern } : {}),
    });

    // Long daily stacks are Zarr stores (a point reads 8 × 8 px × its dates), the rest maps (raster-tiling.ts).
    const perFile = new Map<string, number>();
    for (const keys of periods) {
      for (const key of keys) {
        const name = rasterFileName(timeScale, key);
        perFile.set(name, (perFile.get(name) ?? 0) + 1);
      }
    }
    const maxBands = Math.max(1, ...perFile.values());
    // A layer the dataset holds already is added to (docs/layers.md, "Adding years"): its new files take
    // its grid, storage step and layout, so they sit beside the ones it has (layer-merge.ts checks).
    const before = await readCatalogOrEmpty(dir, options.datasetName ?? basename(dir));
    const sameName = before.rasters.filter(
      (l) =>
        l.dataType === options.dataType &&
        l.subDataType === subDataType &&
        (decl.extent === undefined || l.extent === decl.extent),
    );
    // Only when some of its files stay (a year this build does not give): a layer rebuilt whole takes its inputs' own.
    const buildGroups = new Set([...perFile.keys()].map(fileGroup));
    const kept =
      options.replace || sameName.length !== 1 || sameName[0]!.files.every((f) => buildGroups.has(fileGroup(f.path)))
        ? undefined
        : sameName[0];
    const layout =
      options.layout ??
      (kept
        ? (kept.layout ?? 'map')
        : options.tileSize !== undefined || timeScale === null
          ? 'map'
          : chooseLayout(maxBands));
    const offset = options.offset ?? kept?.offset ?? 0;

    // 2. Settle the target grid, reprojecting what is not north-up EPSG:4326, and (for maps) find each band's value range.
    const sources: BandSource[] = [];
    const ranges: Array<{ where: string; lo: number; hi: number }> = [];
    /** The input each (possibly warped) GDAL file stands for, for messages. */
    const where = new Map<string, string>();
    let grid: Grid | null = options.grid ? gridFromTarget(options.grid) : kept ? gridOf(kept) : null;
    for (const [n, input] of inputs.entries()) {
      let { file, ds, info } = await open(input.path);
      const keys = periods[n]!;
      const bandScales = info.bands.map((b) => b as { scale?: number; offset?: number });
      // A CRS is stated, never guessed: without one GDAL takes the coordinates as degrees (a UTM grid
      // became 1000° pixels, every query null).
      const hasCrs = Boolean(info.coordinateSystem?.wkt?.trim());
      if (!hasCrs && !options.crs) {
        throw new BuildError(
          'invalid_option',
          `Input ${input.shown} has no coordinate reference system. Say which it is with --crs (e.g. --crs EPSG:32734 for UTM 34S, --crs EPSG:4326 for longitude/latitude); the build never guesses one.`,
          { option: 'crs' },
        );
      }
      const native = hasCrs ? nativeGrid(info) : null;
      if (!native || !grid || !sameGrid(native, grid)) {
        if (native && !grid) {
          grid = native;
        } else {
          // Reproject or regrid: GDAL warps onto the target grid (or picks one for the first input).
          const out = `${workMount.outputName}/warp-${n}`;
          const args = [
            '-of',
            'GTiff',
            ...(hasCrs ? [] : ['-s_srs', options.crs!]),
            '-t_srs',
            'EPSG:4326',
            '-r',
            options.resampling ?? 'bilinear',
            '-ot',
            'Float32',
            '-dstnodata',
            'nan',
            '-co',
            'INTERLEAVE=BAND',
          ];
          if (grid)
            args.push(
              '-te',
              ...[grid.west, grid.north - grid.height * grid.resY, grid.west + grid.width * grid.resX, grid.north].map(
                String,
              ),
              '-ts',
              String(grid.width),
              String(grid.height),
            );
          log(`reprojecting ${input.shown} to EPSG:4326${grid ? ' on the layer grid' : ''}`);
          const warped = await gdalStep(`gdalwarp ${input.shown}`, (g) => g.gdalwarp(ds, args, out));
          await closeDataset(ds);
          file = warped.local;
          ({ ds, info } = await openDataset(file));
          grid ??= nativeGrid(info);
          if (!grid)
            throw new BuildError('invalid_input', `gdalwarp of ${input.shown} gave no north-up EPSG:4326 grid.`, {
              file: input.shown,
            });
        }
      }
      const nd = info.bands.map((b) => nodataText(b.noDataValue, b.type));
      const structure = (info as { metadata?: Record<string, Record<string, string>> }).metadata?.IMAGE_STRUCTURE;
      const pixelInterleaved = info.bands.length > 1 && structure?.INTERLEAVE === 'PIXEL';
      keys.forEach((key, b) =>
        sources.push({
          key,
          file,
          band: b + 1,
          nodata: nd[b] ?? null,
          inScale: bandScales[b]?.scale ?? 1,
          inOffset: bandScales[b]?.offset ?? 0,
          pixelInterleaved,
        }),
      );
      where.set(file, input.shown);
      if (layout === 'zarr') {
        // The values' range comes from the stores' own read (a pixel-interleaved stack read band by
        // band here decoded every block once per band: 39 minutes for a 365-band year).
        await closeDataset(ds);
        continue;
      }
      // Exact min/max per band (reads the data once), to check the values fit Int16 at the storage step.
      const mm = await gdalStep(`Computing min/max of ${input.shown}`, (g) => g.gdalinfo(ds, ['-mm']));
      mm.bands.forEach((b, i) => {
        if (b.computedMin === undefined || b.computedMax === undefined) return;
        const s = bandScales[i]?.scale ?? 1;
        const o = bandScales[i]?.offset ?? 0;
        const [lo, hi] = [b.computedMin * s + o, b.computedMax * s + o].sort((x, y) => x - y) as [number, number];
        ranges.push({ where: `${input.shown} band ${i + 1}${keys[i] ? ` (${keys[i]})` : ''}`, lo, hi });
      });
      await closeDataset(ds);
    }
    if (!grid) throw new BuildError('invalid_input', 'No grid could be determined from the inputs.');
    // Extents other layers declare bind this one; the layer being rebuilt may redefine an extent only it has.
    const others = before.rasters.filter((l) => !(l.dataType === decl.dataType && l.subDataType === subDataType));
    const { extent, extentBbox } = settleExtent(decl.extent, grid, knownExtents(others), label);
    const seen = new Map<string, BandSource>();
    for (const s of sources) {
      if (seen.has(s.key))
        throw new BuildError('invalid_option', `Period ${s.key || '(undated)'} appears in more than one input band.`, {
          option: 'inputs',
        });
      seen.set(s.key, s);
    }
    // One output file per group of periods (a year of days or months, all years, all months, one grid).
    sources.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const groups = new Map<string, BandSource[]>();
    for (const s of sources) {
      const name = rasterFileName(timeScale, s.key);
      groups.set(name, [...(groups.get(name) ?? []), s]);
    }
    const layerDir = rasterLayerDir(options.dataType, subDataType);
    const stagingHost = join(work, 'out');
    await mkdir(stagingHost, { recursive: true });
    const whereOf = (b: BandSource) => `${where.get(b.file) ?? b.file} band ${b.band}${b.key ? ` (${b.key})` : ''}`;
    const zarrJob = { groups, grid, workDir: work, work: workMount, where: whereOf, log };
    if (layout === 'zarr' && options.scale === undefined && familyScale === undefined && !kept) {
      ranges.push(...(await zarrGroupRanges(zarrJob)));
    }
    const scale = options.scale ?? kept?.scale ?? familyScale ?? fittingScale(ranges, offset);
    for (const r of ranges) {
      if ((r.lo - offset) / scale < -32767 || (r.hi - offset) / scale > 32767) {
        throw new BuildError(
          'invalid_option',
          `${r.where} spans ${r.lo} to ${r.hi}, which does not fit Int16 at scale ${scale}, offset ${offset}; pass a larger --scale (or an --offset near the middle of the values).`,
          { option: 'scale' },
        );
      }
    }

    // 3. The files: Zarr stores, or one map GeoTIFF per group written from a VRT that stacks, scales and marks nodata.
    const buildId = newBuildId();
    const arrays: ZarrArrays = {
      variable: variableName(options.dataType, subDataType),
      chunk: ZARR_CHUNK,
      previewFactor: previewFactor(grid.width, grid.height),
    };
    // A store's grid is the one its lat/lon arrays were written from: the exact one, read from a GeoTIFF
    // input, or the layer's own when years are added to it.
    const zarrGrid = layout === 'zarr' ? (kept ? grid : await exactGrid(grid, hostOf(sources[0]!.file))) : null;
    if (zarrGrid) grid = zarrGrid;
    const tileSize = options.tileSize ?? kept?.tileSize?.[0] ?? chooseTileSize(maxBands);
    const existing = before.rasters.find(
      (l) => l.dataType === options.dataType && l.subDataType === subDataType && l.extent === extent,
    );
    const entryFor = (g: Grid, files: RasterLayerEntry['files']): RasterLayerEntry => ({
      dataType: options.dataType,
      subDataType,
      ...(decl.isDefault ? { isDefault: true } : {}),
      extent,
      extentBbox,
      timeScale,
      unit: decl.unit,
      description: decl.description,
      ...(options.attribution ? { attribution: options.attribution } : {}),
      crs: 'EPSG:4326',
      bbox: [g.west, g.north - g.height * g.resY, g.west + g.width * g.resX, g.north],
      width: g.width,
      height: g.height,
      scale,
      offset,
      nodata: STORED_NODATA,
      files,
      resolution: [g.resX, g.resY],
      ...(layout === 'zarr'
        ? { tileSize: [ZARR_CHUNK, ZARR_CHUNK] as [number, number], layout: 'zarr' as const, zarr: arrays }
        : { tileSize: [tileSize, tileSize] as [number, number] }),
    });
    // Refused before anything is written when the files could not join the layer the dataset holds.
    const fileOf = (name: string) => `${layerDir}/${layout === 'zarr' ? storeName(name, buildId) : name}`;
    mergeLayer(
      existing,
      entryFor(
        grid,
        [...groups].map(([name, bands]) => ({
          path: fileOf(name),
          periods: timeScale === null ? [''] : bands.map((b) => b.key),
        })),
      ),
      { replace: options.replace ?? false, where: dir },
    );
    const stores =
      layout === 'zarr'
        ? await writeZarrGroups({
            ...zarrJob,
            arrays,
            scale,
            offset,
            nodata: STORED_NODATA,
            unit: decl.unit,
            description: decl.description,
            ...(options.attribution ? { attribution: options.attribution } : {}),
            buildId,
            stagingDir: stagingHost,
            layerDir,
          })
        : [];
    const fileEntries: RasterLayerEntry['files'] = stores.map((s) => s.entry);
    for (const [name, bands] of layout === 'map' ? groups : []) {
      const vrtName = `${name}.vrt`;
      await writeFile(
        join(work, vrtName),
        stackVrt(grid, bands, { type: 'Int16', scale, offset, nodata: STORED_NODATA }),
      );
      const { ds } = await openDataset(`${workMount.virtual}/${vrtName}`);
      log(`writing ${layerDir}/${name} (${bands.length} band${bands.length === 1 ? '' : 's'})`);
      await gdalStep(
        `Writing ${layerDir}/${name}`,
        (g) =>
          g.gdal_translate(
            ds,
            [
              '-a_srs',
              'EPSG:4326',
              ...storedTiffOptions(tileSize, tileSize),
              '-co',
              'INTERLEAVE=PIXEL',
              '-mo',
              `${BUILD_ID_KEY.toUpperCase()}=${buildId}`,
            ],
            `${workMount.outputName}/out/${name.replace(/\.tif$/, '')}`,
          ),
        'internal',
      );
      await closeDataset(ds);
      fileEntries.push({ path: `${layerDir}/${name}`, periods: timeScale === null ? [''] : bands.map((b) => b.key) });
    }

    // 4. Read back the exact grid and tiling from the written files (gdalinfo's JSON rounds doubles).
    const written = zarrGrid ?? (await checkWritten(stagingHost, fileEntries, tileSize));

    // 5. Move the new files in beside the layer's others (a year's map file replaces its old one by a
    //    rename; a store has a new name), register the layer, then delete what it no longer lists.
    const plan = mergeLayer(existing, entryFor(written, fileEntries), {
      replace: options.replace ?? false,
      where: dir,
    });
    const target = join(dir, layerDir);
    await mkdir(target, { recursive: true });
    for (const f of fileEntries) await placeInto(join(stagingHost, basename(f.path)), join(dir, f.path));
    const layer = plan.layer;
    await updateCatalog(dir, options.datasetName ?? basename(dir), (c) => {
      const others = c.rasters.filter(
        (l) => !(l.dataType === layer.dataType && l.subDataType === layer.subDataType && l.extent === layer.extent),
      );
      // One default sub-type per name: the layer built last as the default wins.
      if (layer.isDefault)
        for (const l of others)
          if (l.dataType === layer.dataType && l.subDataType !== layer.subDataType) delete l.isDefault;
      c.rasters = [...others, layer];
      c.rasters.sort((a, b) => (a.dataType + a.subDataType).localeCompare(b.dataType + b.subDataType));
    });
    for (const p of plan.dropped) await rm(join(dir, p), { recursive: true, force: true });
    if (plan.replacedGroups.length > 0 || plan.dropped.length > 0 || existing) {
      const kept2 = layer.files.length - fileEntries.length;
      log(
        `${label}: ${plan.addedGroups.length} file group(s) added, ${plan.replacedGroups.length} rebuilt (${plan.replacedGroups.join(', ') || 'none'}), ${Math.max(0, kept2)} kept as they were${plan.dropped.length ? `, ${plan.dropped.length} file(s) no longer listed deleted` : ''}`,
      );
    }
    const files =
      layout === 'zarr'
        ? stores.map((s) => ({ path: s.entry.path, bytes: s.bytes }))
        : await Promise.all(
            fileEntries.map(async (f) => ({ path: f.path, bytes: (await stat(join(dir, f.path))).size })),
          );
    return { layer, files, seconds: (Date.now() - started) / 1000 };
  } finally {
    for (const m of mounts.values()) await unmount(m);
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * The finest power-of-ten storage step (0.001 … 1000) at which every value
 * fits Int16 with `offset`; the build prints it, and --scale overrides it.
 */
function fittingScale(ranges: ReadonlyArray<{ lo: number; hi: number }>, offset: number): number {
  const span = Math.max(0, ...ranges.map((r) => Math.max(Math.abs(r.lo - offset), Math.abs(r.hi - offset))));
  for (let k = -3; k <= 3; k++) {
    const step = Number(`1e${k}`);
    if (span / step <= 32767) return step;
  }
  return 1000;
}

/** The text of a failed open, without the virtual path GDAL saw (the user knows the file by its own path). */
function gdalMessage(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  const why = m.replace(/^Opening \S+ failed: /, '');
  return !why || why.startsWith('GDAL gave no reason') ? 'none of its drivers recognised the file' : why;
}

/** What to do about an input GDAL cannot open, by its kind. */
function unreadableAdvice(path: string): string {
  if (/\.(nc|nc4|cdf|netcdf|h5|hdf5?|he5|hdf4?)$/i.test(path)) {
    return (
      'NetCDF (classic or NetCDF-4) is read directly, but this file does not start like one (no CDF or HDF5 signature): ' +
      'it may be HDF4, GRIB or damaged. Check it with `ncdump -h` or `gdalinfo`, and convert it to NetCDF-4 or GeoTIFF first (docs/layers.md).'
    );
  }
  return 'Give a raster GDAL reads (GeoTIFF, GRIB, …; docs/layers.md), or convert it to GeoTIFF first.';
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
  if (!(rx > 0 && ry > 0 && e > w && n > s))
    throw new BuildError('invalid_option', 'grid needs bbox [west, south, east, north] and a positive resolution.', {
      option: 'grid',
    });
  // Round away tiny float excess so 6.55 / 0.02 gives 328, not 328.00000000000006 → 329.
  return {
    west: w,
    north: n,
    resX: rx,
    resY: ry,
    width: Math.ceil((e - w) / rx - 1e-9),
    height: Math.ceil((n - s) / ry - 1e-9),
  };
}

function sameGrid(a: Grid, b: Grid): boolean {
  const tol = 1e-9 * Math.max(a.resX, a.resY);
  return (
    a.width === b.width &&
    a.height === b.height &&
    Math.abs(a.west - b.west) <= tol &&
    Math.abs(a.north - b.north) <= tol &&
    Math.abs(a.resX - b.resX) <= tol * 1e-3 &&
    Math.abs(a.resY - b.resY) <= tol * 1e-3
  );
}

function nodataText(v: number | string | undefined, type: string): string | null {
  if (v === undefined || v === null) return /Float/.test(type) ? 'nan' : null;
  if (typeof v === 'string') return /nan/i.test(v) ? 'nan' : v;
  return Number.isNaN(v) ? 'nan' : String(v);
}

/**
 * `grid` with the exact origin and pixel size of `file` when it is a GeoTIFF on that grid (gdalinfo's
 * JSON, which `grid` came from, rounds them), else `grid` as it is.
 */
async function exactGrid(grid: Grid, file: string | null): Promise<Grid> {
  if (!file) return grid;
  try {
    const tiff = await fromFile(file);
    try {
      const image = await tiff.getImage();
      const [west, north] = image.getOrigin() as [number, number];
      const [rx, ry] = image.getResolution() as [number, number];
      const exact: Grid = { west, north, resX: rx, resY: -ry, width: image.getWidth(), height: image.getHeight() };
      return sameGrid(exact, grid) ? exact : grid;
    } finally {
      tiff.close();
    }
  } catch {
    // Not a GeoTIFF (GRIB, Zarr …): gdalinfo's figures are all there is.
    return grid;
  }
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
      if (
        image.getSamplesPerPixel() !== f.periods.length ||
        image.getTileWidth() !== tileSize ||
        image.planarConfiguration !== 1
      ) {
        throw new BuildError(
          'internal',
          `${f.path} came out with ${image.getSamplesPerPixel()} bands, ${image.getTileWidth()} px tiles, planar ${image.planarConfiguration}.`,
          { file: f.path },
        );
      }
      if (grid && !sameGrid(grid, g))
        throw new BuildError('internal', `${f.path} is on a different grid from the layer's other files.`, {
          file: f.path,
        });
      grid ??= g;
    } finally {
      await tiff.close();
    }
  }
  if (!grid) throw new BuildError('internal', 'No file was written.');
  return grid;
}
