/**
 * `climate-query build` for raster layers (Node): turns a user's GeoTIFFs
 * of one layer (one data type and sub-type) into the layout the engine
 * reads fast, and registers the layer in catalog.json. It executes a plan:
 * GDAL is asked what the inputs are, raster-plan.ts decides from that alone
 * what to write (dates, files, layout, the layer it adds to), and this
 * module reads, regrids and writes the values, then publishes them through
 * dataset-writer.ts.
 *
 * The layer is what the user declares (raster-build-declare.ts): name,
 * sub-type, unit, time scale, extent, description; the contract families
 * supply defaults under their own names. Dates are stated, never guessed
 * (raster-build-dates.ts): explicit dates, a file-name pattern, or band
 * descriptions that are dates. Undated layers take one single-band file.
 *
 * Output layout (docs/layers.md): a Cloud-Optimized GeoTIFF, 32 × 32 px tiles,
 * pixel-interleaved (all dates of a pixel next to each other, so one tile
 * read serves a whole date range at a point), Int16 with scale/offset and
 * nodata −32768, DEFLATE + horizontal predictor, overviews only on grids
 * wider or taller than a map preview, each band's statistics, BIGTIFF only
 * if needed, empty (all-nodata) tiles left out (raster-tiling.ts). One file per year for daily
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
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { fromFile } from 'geotiff';
import { BuildError } from './build-error.ts';
import { appendTileDigests } from './map-file-claims.ts';
import { NO_SUB_TYPE, RASTER_FAMILIES, contractLayer, type RasterTimeScale } from '../contract/raster-layers.ts';
import type { RasterLayerEntry } from '../dataset/catalog.ts';
import { placeInto, readCatalogOrEmpty, updateCatalog } from './dataset/dataset-writer.ts';
import { withDatasetLock } from './dataset/dataset-lock.ts';
import { DEFAULT_SCALE, declareLayer, knownExtents, settleExtent } from './raster-build-declare.ts';
import { closeDataset, gdalStep, openDataset, type GdalInfo, type Mount } from './raster-build-gdal.ts';
import type { GridSpec } from '../rasters/coverage.ts';
import { BUILD_ID_KEY, newBuildId } from './build-id.ts';
import { mapFileOptions } from './raster-tiling.ts';
import {
  checkRasterOptions,
  type LayerPlan,
  planRasterLayer,
  type RasterInputMeta,
  sameGrid,
  type TargetGrid,
} from './raster-plan.ts';
import {
  describeInputs,
  type InputFiles,
  type OpenedInput,
  inputFiles,
  type RasterBuildInput,
  type ResolvedInput,
  resolveInputs,
} from './raster-inputs.ts';
import { type BandSource, nanMarkedVrt, stackVrt } from './raster-build-vrt.ts';
import { writeZarrGroups, zarrGroupRanges } from './raster-build-zarr.ts';
import { builtFileName, mergeLayer } from './dataset/layer-merge.ts';
import { previewFactor, variableName, ZARR_CHUNK, type ZarrArrays } from '../rasters/zarr-layout.ts';
import { workFolder } from './work-folder.ts';
import { markerAtEnds } from './missing-markers.ts';

/** Stored value meaning "no data" in every built layer. */
export const STORED_NODATA = -32768;

export { DEFAULT_SCALE } from './raster-build-declare.ts';
export { normalisePeriod } from './raster-build-dates.ts';
export { rasterFileName, rasterLayerDir, type TargetGrid } from './raster-plan.ts';
export type { RasterBuildInput } from './raster-inputs.ts';

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
  /** A published store among the inputs: the first and last year of its dates to copy (CLI --years; default all). */
  years?: [number, number];
  /** Storage step; defaults to {@link DEFAULT_SCALE} for the families, else the finest power of ten that fits Int16. */
  scale?: number;
  offset?: number;
  /** Resample everything onto this grid; default: the first input's grid (after reprojection if needed). */
  grid?: TargetGrid;
  /** gdalwarp resampling when reprojecting or regridding. */
  resampling?: 'near' | 'bilinear' | 'cubic' | 'average';
  /**
   * The value that marks missing data in inputs that state none (CLI --nodata; CHIRPS's GeoTIFFs
   * write −9999 with no nodata tag), or `none`: the inputs' values that look like markers
   * (missing-markers.ts) are values. Left out, such a value in an input without a tag is refused.
   */
  nodata?: number | 'none';
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

/**
 * Builds one raster layer into `dir` and registers it in catalog.json,
 * replacing any earlier build of the same layer. Throws BuildError
 * for bad inputs (unknown layer, undatable bands, values that do not fit
 * the storage step) and Error for GDAL failures.
 */
export function buildRasterLayer(options: RasterBuildOptions): Promise<RasterBuildResult> {
  const name = `${options.dataType}${options.subDataType ? `/${options.subDataType}` : ''}`;
  return withDatasetLock(resolve(options.dir), `build --layer ${name}`, () => buildLocked(options));
}

/** {@link buildRasterLayer}, holding the dataset's lock. */
async function buildLocked(options: RasterBuildOptions): Promise<RasterBuildResult> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  // NetCDF inputs may state the unit; the name and time scale are checked before any file is read.
  const family = (RASTER_FAMILIES as Record<string, { defaultSubType: string } | undefined>)[options.dataType];
  const statedUnit =
    options.unit ?? contractLayer(options.dataType, options.subDataType ?? family?.defaultSubType ?? NO_SUB_TYPE)?.unit;
  const pending = declareLayer({ ...options, unit: statedUnit ?? 'from the files' });
  const label = `${options.dataType}${pending.subDataType === '-' ? '' : `/${pending.subDataType}`}`;
  checkRasterOptions(options);

  const dir = resolve(options.dir);
  await mkdir(dir, { recursive: true });
  const work = await workFolder('raster');
  const opener = inputFiles();
  try {
    const workMount = await opener.mountOf(work);
    // NetCDF inputs (any name; recognised by their first bytes) become GeoTIFFs dated by their CF time axis.
    const before = await readCatalogOrEmpty(dir, options.datasetName ?? basename(dir));
    // A published store is copied only where it meets the extent asked (a known one: tc, sa, the dataset's).
    const askedBbox = options.extent !== undefined ? knownExtents(before.rasters).get(options.extent) : undefined;
    const { inputs, fileUnit, fileLongName } = await resolveInputs(options, {
      timeScale: pending.timeScale,
      ...(statedUnit !== undefined ? { unit: statedUnit } : {}),
      work,
      log,
      dataType: options.dataType,
      subDataType: pending.subDataType,
      ...(askedBbox ? { bbox: askedBbox } : {}),
    });
    const { open, hostOf } = opener;

    // 1. What the inputs say about themselves (bands, their descriptions, a CRS), then the plan:
    // every band's date, the files, the layout, the layer it adds to (raster-plan.ts).
    const metas = await describeInputs(inputs, open);
    const plan = planRasterLayer(
      metas,
      {
        ...options,
        ...(statedUnit === undefined && fileUnit !== undefined ? { unit: fileUnit } : {}),
        ...(options.description === undefined && fileLongName !== undefined && !family
          ? { description: fileLongName }
          : {}),
      },
      before,
    );
    const { layer: decl, kept, layout, offset } = plan;
    const { subDataType, timeScale } = decl;

    // 2. Settle the target grid, reprojecting what is not north-up EPSG:4326, and (for maps) find each band's value range.
    const bands = await readBands(inputs, metas, plan, { open, workMount, options, log });
    const { sources, ranges, where } = bands;
    let grid: Grid | null = bands.grid;
    if (!grid) throw new BuildError('invalid_input', 'No grid could be determined from the inputs.');
    // Extents other layers declare bind this one; the layer being rebuilt may redefine an extent only it has.
    const others = before.rasters.filter((l) => !(l.dataType === decl.dataType && l.subDataType === subDataType));
    const { extent, extentBbox } = settleExtent(decl.extent, grid, knownExtents(others), label);
    // One output file per group of periods (a year of days or months, all years, all months, one grid), as planned.
    sources.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const byKey = new Map(sources.map((b) => [b.key, b]));
    const groups = new Map(plan.files.map((f) => [f.name, f.keys.map((k) => byKey.get(k)!)]));
    const layerDir = plan.dir;
    const stagingHost = join(work, 'out');
    await mkdir(stagingHost, { recursive: true });
    const whereOf = (b: BandSource) => `${where.get(b.file) ?? b.file} band ${b.band}${b.key ? ` (${b.key})` : ''}`;
    const zarrJob = { groups, grid, workDir: work, work: workMount, where: whereOf, log };
    if (layout === 'zarr' && plan.scale === null) {
      ranges.push(...(await zarrGroupRanges(zarrJob)));
    }
    // A marker at an end of an input's values that states no nodata is refused, not stored (missing-markers.ts).
    if (options.nodata === undefined) refuseMarkers(ranges);
    let scale = plan.scale ?? fittingScale(ranges, offset);
    // A layer grows: when its own step (taken from the files it keeps) cannot hold these inputs and no
    // --scale was asked for, the new files are stored at the finest step that holds them, and the
    // layer's other files keep theirs (each file's step is in the catalog). Nothing is rebuilt or lost.
    const stepFromLayer = options.scale === undefined && kept !== undefined && scale === kept.scale;
    const ownStep = (why: string) => {
      const own = fittingScale(ranges, offset);
      log(
        `${label}: ${why}, beyond what the layer's storage step ${scale} holds in Int16; these files are stored at step ${own}, the layer's other files keep theirs`,
      );
      return own;
    };
    if (stepFromLayer && ranges.some((r) => !fitsInt16(r, scale, offset))) {
      const widest = ranges.reduce((a, r) =>
        Math.max(Math.abs(r.lo - offset), Math.abs(r.hi - offset)) >
        Math.max(Math.abs(a.lo - offset), Math.abs(a.hi - offset))
          ? r
          : a,
      );
      scale = ownStep(`${widest.where} spans ${widest.lo} to ${widest.hi}`);
    }
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
    const { tileSize } = plan;
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
    const fileOf = (name: string) => `${layerDir}/${builtFileName(name, buildId, layout)}`;
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
    const writeStores = () =>
      writeZarrGroups({
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
      });
    let stores: Awaited<ReturnType<typeof writeZarrGroups>> = [];
    if (layout === 'zarr') {
      try {
        stores = await writeStores();
      } catch (err) {
        // A store's ranges are only read when the step is chosen from the values (a second pass over
        // the inputs): on a layer's own step, only a value it cannot hold costs that pass.
        if (!(stepFromLayer && err instanceof BuildError && err.option === 'scale' && ranges.length === 0)) throw err;
        ranges.push(...(await zarrGroupRanges(zarrJob)));
        scale = ownStep('these inputs hold values');
        await rm(stagingHost, { recursive: true, force: true });
        await mkdir(stagingHost, { recursive: true });
        stores = await writeStores();
      }
    }
    const fileEntries: RasterLayerEntry['files'] = stores.map((s) => s.entry);
    if (layout === 'map')
      fileEntries.push(
        ...(await writeMaps(groups, grid, {
          work,
          workMount,
          layerDir,
          tileSize,
          scale,
          offset,
          buildId,
          timeScale,
          log,
        })),
      );

    // 4. Read back the exact grid and tiling from the written files (gdalinfo's JSON rounds doubles).
    const written = zarrGrid ?? (await checkWritten(stagingHost, fileEntries, tileSize));
    // Each map file's tiles get their digests now, while nothing lists the file (src/rasters/tile-digests.ts).
    if (layout === 'map') for (const f of fileEntries) await appendTileDigests(join(stagingHost, basename(f.path)));

    // 5. Move the new files in beside the layer's others (each has a new, build-named name), switch the
    //    catalog to them in one rename, then delete what it no longer lists.
    const merged = mergeLayer(existing, entryFor(written, fileEntries), {
      replace: options.replace ?? false,
      where: dir,
    });
    const target = join(dir, layerDir);
    await mkdir(target, { recursive: true });
    for (const f of fileEntries) await placeInto(join(stagingHost, basename(f.path)), join(dir, f.path));
    const layer = merged.layer;
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
    for (const p of merged.dropped) await rm(join(dir, p), { recursive: true, force: true });
    if (merged.replacedGroups.length > 0 || merged.dropped.length > 0 || existing) {
      const kept2 = layer.files.length - fileEntries.length;
      log(
        `${label}: ${merged.addedGroups.length} file group(s) added, ${merged.replacedGroups.length} rebuilt (${merged.replacedGroups.join(', ') || 'none'}), ${Math.max(0, kept2)} kept as they were${merged.dropped.length ? `, ${merged.dropped.length} file(s) no longer listed deleted` : ''}`,
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
    await opener.close();
    await rm(work, { recursive: true, force: true });
  }
}

/** The bands of every input, on one grid, with (for maps) each band's value range. */
interface BandsRead {
  sources: BandSource[];
  ranges: Array<{ where: string; lo: number; hi: number }>;
  /** The input each (possibly warped) GDAL file stands for, for messages. */
  where: Map<string, string>;
  grid: Grid | null;
}

/**
 * Opens each input, warps what is not north-up EPSG:4326 on the plan's grid (or the first input's),
 * and lists every band as a source of its planned period; for a `map` layout also reads each
 * band's exact min/max (a `zarr` layout gets them from the stores' own read).
 */
async function readBands(
  inputs: readonly ResolvedInput[],
  metas: readonly RasterInputMeta[],
  plan: LayerPlan,
  ctx: {
    open: InputFiles['open'];
    workMount: Mount;
    options: Pick<RasterBuildOptions, 'crs' | 'resampling' | 'nodata'>;
    log: (line: string) => void;
  },
): Promise<BandsRead> {
  const { open, workMount, options, log } = ctx;
  /** `at` with each band's marker turned into NaN (raster-build-vrt.ts), or `at` when no band has one. */
  const markedAsNaN = async (shown: string, at: OpenedInput, n: number, markers: Array<number | null>) => {
    if (markers.every((m) => m === null)) return at;
    await writeFile(join(workMount.host, `nodata-${n}.vrt`), nanMarkedVrt(at.file, at.info, markers));
    await closeDataset(at.ds);
    let file = `${workMount.virtual}/nodata-${n}.vrt`;
    let { ds, info } = await openDataset(file);
    if (plan.layout === 'map') {
      // A map's value ranges come from GDAL's min/max, which over a VRT of one source reports the
      // source's own (the marker included, GDAL 3.6 and 3.8): the values are written out once.
      const copy = await gdalStep(`Marking nodata in ${shown}`, (g) =>
        g.gdal_translate(ds, ['-of', 'GTiff', '-co', 'INTERLEAVE=BAND'], `${workMount.outputName}/nodata-${n}`),
      );
      await closeDataset(ds);
      file = copy.local;
      ({ ds, info } = await openDataset(file));
    }
    return { file, ds, info };
  };
  /**
   * The markers of an input: --nodata for bands that state none or state NaN (a file stating
   * another value is refused), else, for a map, a float band's own non-NaN nodata, so that its NaN
   * pixels stay missing too (a `zarr` stack always takes NaN as missing).
   */
  const markersOf = (shown: string, info: GdalInfo): Array<number | null> => {
    const stated = options.nodata;
    return info.bands.map((b) => {
      const tag = b.noDataValue === undefined || b.noDataValue === null ? null : Number(b.noDataValue);
      if (typeof stated === 'number') {
        if (tag !== null && !Number.isNaN(tag) && tag !== stated)
          throw new BuildError(
            'invalid_option',
            `${shown} states its own nodata value ${tag}, and --nodata says ${stated}: leave --nodata out for files that state theirs, or build them apart.`,
            { file: shown, option: 'nodata' },
          );
        return stated;
      }
      return plan.layout === 'map' && /Float/.test(b.type) && tag !== null && !Number.isNaN(tag) ? tag : null;
    });
  };
  const sources: BandSource[] = [];
  const ranges: BandsRead['ranges'] = [];
  const where = new Map<string, string>();
  let grid: Grid | null = plan.grid;
  for (const [n, input] of inputs.entries()) {
    let { file, ds, info } = await open(input.path);
    ({ file, ds, info } = await markedAsNaN(input.shown, { file, ds, info }, n, markersOf(input.shown, info)));
    const keys = plan.periods[n]!;
    const bandScales = info.bands.map((b) => b as { scale?: number; offset?: number });
    // The plan refused an input without a CRS unless --crs names one (raster-plan.ts).
    const hasCrs = metas[n]!.hasCrs;
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
    if (plan.layout === 'zarr') {
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
  return { sources, ranges, where, grid };
}

/** Writes one map GeoTIFF per group from a VRT that stacks, scales and marks nodata; returns their entries. */
async function writeMaps(
  groups: ReadonlyMap<string, BandSource[]>,
  grid: Grid,
  ctx: {
    work: string;
    workMount: Mount;
    layerDir: string;
    tileSize: number;
    scale: number;
    offset: number;
    buildId: string;
    timeScale: RasterLayerEntry['timeScale'];
    log: (line: string) => void;
  },
): Promise<RasterLayerEntry['files']> {
  const { work, workMount, layerDir, tileSize, scale, offset, buildId, timeScale, log } = ctx;
  const written: RasterLayerEntry['files'] = [];
  for (const [name, bands] of groups) {
    const vrtName = `${name}.vrt`;
    await writeFile(
      join(work, vrtName),
      stackVrt(grid, bands, { type: 'Int16', scale, offset, nodata: STORED_NODATA }),
    );
    const { ds } = await openDataset(`${workMount.virtual}/${vrtName}`);
    const file = builtFileName(name, buildId, 'map');
    log(`writing ${layerDir}/${file} (${bands.length} band${bands.length === 1 ? '' : 's'})`);
    await gdalStep(
      `Writing ${layerDir}/${file}`,
      (g) =>
        g.gdal_translate(
          ds,
          [
            '-a_srs',
            'EPSG:4326',
            ...mapFileOptions(tileSize, grid.width, grid.height),
            '-mo',
            `${BUILD_ID_KEY.toUpperCase()}=${buildId}`,
          ],
          `${workMount.outputName}/out/${file.replace(/\.tif$/, '')}`,
        ),
      'internal',
    );
    await closeDataset(ds);
    written.push({ path: `${layerDir}/${file}`, periods: timeScale === null ? [''] : bands.map((b) => b.key) });
  }

  return written;
}

/**
 * The finest power-of-ten storage step (0.001 … 1000) at which every value
 * fits Int16 with `offset`; the build prints it, and --scale overrides it.
 */
function fitsInt16(r: { lo: number; hi: number }, scale: number, offset: number): boolean {
  return (r.lo - offset) / scale >= -32767 && (r.hi - offset) / scale <= 32767;
}

function fittingScale(ranges: ReadonlyArray<{ lo: number; hi: number }>, offset: number): number {
  const span = Math.max(0, ...ranges.map((r) => Math.max(Math.abs(r.lo - offset), Math.abs(r.hi - offset))));
  for (let k = -3; k <= 3; k++) {
    const step = Number(`1e${k}`);
    if (span / step <= 32767) return step;
  }
  return 1000;
}

/** The grid of a dataset when it is north-up EPSG:4326 (WGS 84 lon/lat), else null. */
function nativeGrid(info: GdalInfo): Grid | null {
  const wkt = info.coordinateSystem?.wkt ?? '';
  const gt = info.geoTransform;
  const wgs84 = /^GEOG(CRS|CS)\["WGS 84"/.test(wkt) && !/PROJCRS|PROJCS/.test(wkt);
  if (!wgs84 || !gt || gt.length !== 6 || gt[2] !== 0 || gt[4] !== 0 || !(gt[1]! > 0) || !(gt[5]! < 0)) return null;
  return { west: gt[0]!, north: gt[3]!, resX: gt[1]!, resY: -gt[5]!, width: info.size[0], height: info.size[1] };
}

/** Throws when a range of values begins or ends at a missing-data marker (see missing-markers.ts). */
function refuseMarkers(ranges: ReadonlyArray<{ where: string; lo: number; hi: number }>): void {
  for (const r of ranges) {
    const v = markerAtEnds(r.lo, r.hi);
    if (v === null) continue;
    throw new BuildError(
      'invalid_input',
      `${r.where} holds ${v}, a value publishers write for missing data, and no nodata value it states covers it: pass --nodata=${v} if it marks missing values (CHIRPS's GeoTIFFs write -9999 so), or --nodata none if it is a value. It is never guessed.`,
      { option: 'nodata' },
    );
  }
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
