/**
 * The plan of a raster layer build, made before any value is read: from
 * what the inputs say about themselves (band count, band descriptions,
 * whether they carry a CRS), the options and the dataset's catalog, which
 * layer this is, the date of every band, the files it writes and which
 * dates each holds, the layout, tile size, storage offset (and step, when
 * it needs no values), the target grid when one is known, and which layer
 * already in the dataset it adds to. Pure: no GDAL, no file system, so
 * every rule here is unit-tested on its own (test/builder/raster-plan.test.ts);
 * raster-build.ts executes the plan with GDAL.
 */
import { CALENDARS } from '../contract/calendars.ts';
import type { TimeScale } from '../contract/periods.ts';
import { TIME_SCALES } from '../contract/time-scales.ts';
import { type Catalog, layoutOf, RASTER_LAYOUTS, type RasterLayerEntry } from '../dataset/catalog.ts';
import type { GridSpec } from '../rasters/coverage.ts';
import { gridOf } from '../rasters/layer-plan.ts';
import { ZARR_CHUNK } from '../rasters/zarr-layout.ts';
import { BuildError } from './build-error.ts';
import { fileGroup } from './dataset/layer-merge.ts';
import { DEFAULT_SCALE, declareLayer, type LayerStatement, type PendingDeclaration } from './raster-build-declare.ts';
import { type DatedInput, datesOfInputs } from './raster-build-dates.ts';
import { chooseLayout, chooseTileSize } from './raster-tiling.ts';

/** A target grid in EPSG:4326. */
export interface TargetGrid {
  /** [west, south, east, north] in degrees; snapped outward to whole pixels from west/north. */
  bbox: [number, number, number, number];
  /** Pixel size in degrees, one number or [x, y]. */
  resolution: number | [number, number];
}

/** What the plan reads of an input: GDAL's answer about it, before any value. */
export interface RasterInputMeta extends DatedInput {
  /** Whether the file carries a coordinate reference system. */
  hasCrs: boolean;
}

/** The options that shape the plan (a subset of the build's). */
export interface RasterPlanOptions extends LayerStatement {
  dates?: string[];
  datePattern?: string;
  scale?: number;
  offset?: number;
  grid?: TargetGrid;
  crs?: string;
  tileSize?: number;
  layout?: 'map' | 'zarr';
  replace?: boolean;
}

/** One file the build writes: its name in the layer's folder and the period keys it holds, in order. */
export interface PlannedFile {
  name: string;
  keys: string[];
}

/** What the build will write, decided before any value is read. */
export interface LayerPlan {
  layer: PendingDeclaration;
  /** The layer's folder in the dataset. */
  dir: string;
  /** Each input's band keys, in input order ('' for an undated layer). */
  periods: string[][];
  /** The files, by name, with the keys each holds (sorted). */
  files: PlannedFile[];
  layout: 'map' | 'zarr';
  /** Tile edge of a map layout (a zarr layout's chunk is {@link ZARR_CHUNK}). */
  tileSize: number;
  offset: number;
  /** The storage step when it needs no values (stated, the kept layer's, the family's); null: fitted to the values. */
  scale: number | null;
  /** The grid everything is put on when it is known before reading: stated, or the kept layer's; null: the first input's. */
  grid: GridSpec | null;
  /** The layer the dataset holds that this build adds years to (its files outside this build stay). */
  kept: RasterLayerEntry | undefined;
}

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

/** The options checked on their own, before any file is opened. */
export function checkRasterOptions(options: RasterPlanOptions & { inputs?: readonly unknown[] }): void {
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
  if (options.inputs?.length === 0) throw new BuildError('invalid_option', 'No input files.', { option: 'inputs' });
  if (options.grid) gridFromTarget(options.grid);
}

/**
 * Plans a build of `inputs` into the dataset whose catalog is `catalog`.
 * Throws the build error a user can act on: an option that contradicts
 * another, an input without a CRS, dates that cannot be stated, a period
 * given twice.
 */
export function planRasterLayer(
  inputs: readonly RasterInputMeta[],
  options: RasterPlanOptions,
  catalog: Catalog,
): LayerPlan {
  checkRasterOptions({ ...options, inputs });
  // A CRS is stated, never guessed: without one GDAL takes the coordinates as degrees (a UTM grid
  // became 1000° pixels, every query null).
  const bare = inputs.find((i) => !i.hasCrs);
  if (bare && !options.crs) {
    throw new BuildError(
      'invalid_option',
      `Input ${bare.path} has no coordinate reference system. Say which it is with --crs (e.g. --crs EPSG:32734 for UTM 34S, --crs EPSG:4326 for longitude/latitude); the build never guesses one.`,
      { option: 'crs' },
    );
  }
  const layer = declareLayer(options);
  const { timeScale, subDataType } = layer;
  const periods = datesOfInputs(timeScale, inputs, {
    ...(options.dates ? { dates: options.dates } : {}),
    ...(options.datePattern ? { datePattern: options.datePattern } : {}),
  });
  const byFile = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const key of periods.flat().sort()) {
    if (seen.has(key))
      throw new BuildError('invalid_option', `Period ${key || '(undated)'} appears in more than one input band.`, {
        option: 'inputs',
      });
    seen.add(key);
    const name = rasterFileName(timeScale, key);
    byFile.set(name, [...(byFile.get(name) ?? []), key]);
  }
  const files = [...byFile].map(([name, keys]) => ({ name, keys })).sort((a, b) => (a.name < b.name ? -1 : 1));
  const maxBands = Math.max(1, ...files.map((f) => f.keys.length));
  // A layer the dataset holds already is added to (docs/layers.md, "Adding years"): its new files take
  // its grid, storage step and layout, so they sit beside the ones it has (layer-merge.ts checks).
  // Only when some of its files stay (a year this build does not give): a layer rebuilt whole takes its inputs' own.
  const sameName = catalog.rasters.filter(
    (l) =>
      l.dataType === options.dataType &&
      l.subDataType === subDataType &&
      (layer.extent === undefined || l.extent === layer.extent),
  );
  const groups = new Set(files.map((f) => fileGroup(f.name)));
  const kept =
    options.replace || sameName.length !== 1 || sameName[0]!.files.every((f) => groups.has(fileGroup(f.path)))
      ? undefined
      : sameName[0];
  // Long daily stacks are Zarr stores (a point reads 8 × 8 px × its dates), the rest maps (raster-tiling.ts).
  const layout =
    options.layout ??
    (kept && RASTER_LAYOUTS[layoutOf(kept)].built
      ? ((kept.layout as 'map' | 'zarr' | undefined) ?? 'map')
      : options.tileSize !== undefined || timeScale === null
        ? 'map'
        : chooseLayout(maxBands));
  const familyScale = (DEFAULT_SCALE as Record<string, number | undefined>)[options.dataType];
  return {
    layer,
    dir: rasterLayerDir(options.dataType, subDataType),
    periods,
    files,
    layout,
    tileSize: options.tileSize ?? kept?.tileSize?.[0] ?? chooseTileSize(maxBands),
    offset: options.offset ?? kept?.offset ?? 0,
    scale: options.scale ?? kept?.scale ?? familyScale ?? null,
    grid: options.grid ? gridFromTarget(options.grid) : kept ? gridOf(kept) : null,
    kept,
  };
}

/** The whole-pixel grid of a stated target. */
export function gridFromTarget(t: TargetGrid): GridSpec {
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

/** Whether two grids are the same, to a billionth of a pixel. */
export function sameGrid(a: GridSpec, b: GridSpec): boolean {
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
