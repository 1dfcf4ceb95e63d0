/**
 * A raster build's inputs, before the plan: each path checked, NetCDF
 * files turned into dated GeoTIFFs (netcdf-input.ts), each file opened in
 * GDAL where it really is (its folder mounted, links resolved), and what
 * GDAL says of each — bands, their descriptions, a CRS — for the plan
 * (raster-plan.ts).
 */
import { realpath, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { RasterTimeScale } from '../contract/raster-layers.ts';
import { BuildError } from './build-error.ts';
import { netcdfToGeoTiff, parseNetcdfSyntax, sniffNetcdf } from './netcdf-input.ts';
import { isPublishedSource, sourceToStacks } from './source-input.ts';
import { isForeignPath } from '../dataset/foreign.ts';
import {
  closeDataset,
  type GdalDataset,
  type GdalInfo,
  type Mount,
  mount,
  openDataset,
  unmount,
} from './raster-build-gdal.ts';
import type { RasterInputMeta } from './raster-plan.ts';

/** One input file, optionally with the period of each band given explicitly. */
export interface RasterBuildInput {
  path: string;
  /** Period of each band (any accepted date form); overrides band descriptions. */
  periods?: string[];
}

/** An input as GDAL will read it: `path` (a GeoTIFF made from a NetCDF file, or the file itself) and the name the user gave. */
export type ResolvedInput = RasterBuildInput & { shown: string };

/** What the inputs option of a build holds, and how NetCDF files are read. */
export interface InputOptions {
  inputs: Array<string | RasterBuildInput>;
  variable?: string;
  level?: string;
  crs?: string;
  dates?: string[];
  datePattern?: string;
  /** Published stores: the first and last year of the dates to copy (source-input.ts). */
  years?: [number, number];
  /** A COG collection's missing-data value, when its files state none (or `none`). */
  nodata?: number | 'none';
}

/**
 * Checks every input exists and turns NetCDF ones (recognised by their first bytes, any name) into
 * GeoTIFFs dated by their CF time axis; returns the files with the unit and long name the NetCDF
 * files state (one unit for all, or a build error).
 */
export async function resolveInputs(
  options: InputOptions,
  context: {
    timeScale: RasterTimeScale | null;
    unit?: string;
    work: string;
    log: (line: string) => void;
    /** The layer's name and sub-type, as a published store is described under them. */
    dataType: string;
    subDataType?: string;
    /** The extent asked, [west, south, east, north]: a published store is copied only where it meets it. */
    bbox?: [number, number, number, number];
  },
): Promise<{ inputs: ResolvedInput[]; fileUnit?: string; fileLongName?: string }> {
  const inputs: ResolvedInput[] = [];
  let fileUnit: string | undefined;
  /** The first NetCDF variable's CF long_name: the layer's description unless one is given. */
  let fileLongName: string | undefined;
  let sources = 0;
  for (const [n, raw] of options.inputs.entries()) {
    const given = typeof raw === 'string' ? { path: raw } : raw;
    if (await isPublishedSource(given.path)) {
      // A Zarr store or kerchunk reference, here or at a URL: the dates and window asked, copied into dated stacks.
      sources++;
      const src = await sourceToStacks(given.path, context.work, n, {
        dataType: context.dataType,
        subDataType: context.subDataType,
        timeScale: context.timeScale,
        unit: context.unit ?? fileUnit,
        crs: options.crs,
        variable: options.variable,
        years: options.years,
        nodata: options.nodata,
        bbox: context.bbox,
        log: context.log,
      });
      context.log(`read ${src.summary}`);
      if (src.unit !== undefined && fileUnit !== undefined && src.unit !== fileUnit)
        throw new BuildError(
          'invalid_input',
          `The inputs are in different units (${fileUnit}, ${src.unit}); a layer has one. Pass --unit to convert them where a rule is known, or convert them first.`,
          { file: given.path, option: 'unit' },
        );
      fileUnit ??= src.unit;
      fileLongName ??= src.longName;
      for (const s of src.stacks) inputs.push({ path: s.path, periods: s.periods, shown: given.path });
      continue;
    }
    const { path, variable } = parseNetcdfSyntax(given.path);
    if (isForeignPath(path))
      throw new BuildError(
        'unreadable_input',
        `Input ${given.path} is a file at a URL: a build reads GeoTIFF and NetCDF files on this machine, so download it first; a collection of them is built from its STAC JSON (docs/layers.md, "Building from a published store").`,
        { file: given.path },
      );
    const missing = await whyNotAFile(path);
    if (missing) throw new BuildError('unreadable_input', `Input ${given.path} ${missing}.`, { file: given.path });
    if (!(await sniffNetcdf(path))) {
      inputs.push({ ...given, shown: given.path });
      continue;
    }
    const nc = await netcdfToGeoTiff(path, given.path, context.work, n, {
      timeScale: context.timeScale,
      ...(context.unit !== undefined ? { unit: context.unit } : {}),
      ...((variable ?? options.variable) ? { variable: (variable ?? options.variable)! } : {}),
      ...(options.level !== undefined ? { level: options.level } : {}),
      ...(options.crs !== undefined ? { crs: options.crs } : {}),
      datesStated: Boolean(options.dates || options.datePattern || given.periods),
    });
    context.log(`read ${nc.summary}`);
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
  if (options.years !== undefined && sources === 0)
    throw new BuildError(
      'invalid_option',
      '--years chooses the dates copied from a published store (a Zarr store or a kerchunk reference); files are chosen by naming them.',
      { option: 'years' },
    );
  if (options.level !== undefined && inputs.every((i) => i.shown === i.path)) {
    throw new BuildError(
      'invalid_option',
      '--level chooses a level of a NetCDF variable; none of the inputs is NetCDF.',
      {
        option: 'level',
      },
    );
  }
  return {
    inputs,
    ...(fileUnit !== undefined ? { fileUnit } : {}),
    ...(fileLongName !== undefined ? { fileLongName } : {}),
  };
}

/** A file opened in GDAL: its virtual path, the dataset and gdalinfo's answer. */
export interface OpenedInput {
  file: string;
  ds: GdalDataset;
  info: GdalInfo;
}

/** The folders a build mounts for GDAL, and the inputs it opens there. */
export interface InputFiles {
  mountOf(hostDir: string): Promise<Mount>;
  /** Opens `path` in GDAL, its folder mounted where the file really is; an unreadable file is a build error saying why. */
  open(path: string): Promise<OpenedInput>;
  /** The host path of a file GDAL sees under one of the mounts (null when it is not one). */
  hostOf(virtual: string): string | null;
  /** Unmounts every folder. */
  close(): Promise<void>;
}

export function inputFiles(): InputFiles {
  const mounts = new Map<string, Mount>();
  const mountOf = async (hostDir: string) => {
    let m = mounts.get(hostDir);
    if (!m) mounts.set(hostDir, (m = await mount(hostDir)));
    return m;
  };
  return {
    mountOf,
    hostOf(virtual) {
      for (const m of mounts.values())
        if (virtual.startsWith(`${m.virtual}/`)) return m.host + virtual.slice(m.virtual.length);
      return null;
    },
    async open(path) {
      const host = resolve(path);
      // Before mounting its folder: a missing folder failed there as a bare "FS error".
      const missing = await whyNotAFile(host);
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
    },
    async close() {
      for (const m of mounts.values()) await unmount(m);
      mounts.clear();
    },
  };
}

/** What GDAL says of each input before any value is read: the plan's view of them. */
export async function describeInputs(
  inputs: readonly ResolvedInput[],
  open: InputFiles['open'],
): Promise<RasterInputMeta[]> {
  const metas: RasterInputMeta[] = [];
  for (const input of inputs) {
    const { ds, info } = await open(input.path);
    metas.push({
      path: input.shown,
      name: basename(parseNetcdfSyntax(input.shown).path),
      bands: info.bands.length,
      descriptions: info.bands.map((b) => b.description ?? ''),
      hasCrs: Boolean(info.coordinateSystem?.wkt?.trim()),
      ...(input.periods ? { periods: input.periods } : {}),
    });
    await closeDataset(ds);
  }
  return metas;
}

const whyNotAFile = (path: string) =>
  stat(path).then(
    async (st) => (st.isFile() ? null : 'is not a file'),
    () => 'does not exist',
  );

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
  if (/\.json$/i.test(path)) {
    return (
      'It is neither a STAC catalog, collection or item (its "type") nor a kerchunk reference, the JSON files a build reads ' +
      '(docs/layers.md, "Building from a published store").'
    );
  }
  return 'Give a raster GDAL reads (GeoTIFF, GRIB, …; docs/layers.md), or convert it to GeoTIFF first.';
}
