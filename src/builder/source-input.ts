/**
 * A published store as a raster build's input: a Zarr store (v2 or v3, sharded or not), a
 * kerchunk reference (JSON or Parquet) or a COG collection's static STAC JSON, a folder or file
 * anywhere on this machine or at an http(s) URL. It is described as `layers add` describes it (its own metadata, CF time and
 * packing, a CRS it states or `--crs`; nothing guessed), then the years asked and the window of
 * the extent asked are read through the engine's own reader of that layout, a strip of chunks at a
 * time (never the whole store), into one raw Float32 stack in the build's work folder with a VRT
 * dating its bands, NaN where the store holds no value. The build then reads it as it reads any
 * input, with every check it makes of a file.
 *
 * This is the way for a store whose chunking does not suit point series (one date × the whole
 * grid, as ERA5's ARCO store): the own `zarr` layout it writes reads a point-year in one chunk.
 */
import { open, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { endianness } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { RasterTimeScale } from '../contract/raster-layers.ts';
import { ClimateQueryError } from '../contract/errors.ts';
import type { RasterLayerEntry } from '../dataset/catalog.ts';
import { directForeign, isForeignPath, withForeign } from '../dataset/foreign.ts';
import { runLimited } from '../io/run-limited.ts';
import { fileLocation } from '../node/file-location.ts';
import { isKerchunkReference } from '../rasters/kerchunk-refs.ts';
import { createReaderContext } from '../rasters/reader-context.ts';
import { BuildError } from './build-error.ts';
import { describeCogLayer, STAC_TYPES } from './dataset/cog-add.ts';
import { describeStoreLayer, isReferenceSource } from './dataset/layer-add.ts';
import { unitConversion } from './netcdf-input.ts';

/** [west, south, east, north], degrees. */
type Bbox = [number, number, number, number];

/** Files that mark a folder as a Zarr store (v2's, consolidated or not, and v3's). */
export const ZARR_MARKERS = ['.zmetadata', 'zmetadata', '.zgroup', '.zarray', 'zarr.json'];

/**
 * Most bytes of stacks one build writes from a store (8 GiB: a daily year of a 2,400 × 2,400 px
 * window). Over it the build is refused before anything is read, naming `--extent` and `--years`.
 */
export const MAX_STACK_BYTES = 8 * 2 ** 30;

/** Most bytes of values one strip of the window holds in memory (256 MiB), and one chunk may decode to. */
const MAX_BATCH_BYTES = 256 * 2 ** 20;

/** Chunks read at once: each decodes to at most {@link MAX_BATCH_BYTES}. */
const READS_AT_ONCE = 4;

/** What the build asks of the store. */
export interface SourceReadOptions {
  dataType: string;
  subDataType?: string | undefined;
  timeScale: RasterTimeScale | null;
  /** The layer's unit, when stated: values are converted into it from the store's where a rule is known. */
  unit?: string | undefined;
  crs?: string | undefined;
  /** The store's data array, when it holds more than one (time, lat, lon) array. */
  variable?: string | undefined;
  /** A COG collection whose files state no nodata value: the value that marks missing data, or `none`. */
  nodata?: number | 'none' | undefined;
  /** First and last year of the dates copied (default: every date of the store). */
  years?: [number, number] | undefined;
  /** The extent asked, [west, south, east, north]: only the store's pixels that meet it are copied. */
  bbox?: Bbox | undefined;
  log: (line: string) => void;
}

/** The stacks a store became, and what it says of itself. */
export interface SourceStacks {
  stacks: Array<{ path: string; periods: string[] }>;
  /** The unit of the stacks' values (the layer's when one was stated, else the store's). */
  unit?: string;
  longName?: string;
  summary: string;
}

/**
 * Whether `path` names a published store rather than a file GDAL opens: an http(s) URL that is not
 * a GeoTIFF or NetCDF file, a folder holding Zarr metadata, or a JSON file that is a kerchunk reference.
 */
export async function isPublishedSource(path: string): Promise<boolean> {
  if (isForeignPath(path)) return !/\.(tiff?|nc4?|cdf)$/i.test(new URL(path).pathname);
  const st = await stat(path).catch(() => null);
  if (st?.isDirectory()) {
    for (const m of ZARR_MARKERS) if ((await stat(join(path, m)).catch(() => null))?.isFile()) return true;
    return false;
  }
  if (!st?.isFile() || !/\.json$/i.test(path) || st.size > 64 * 2 ** 20) return false;
  try {
    const json = JSON.parse(await readFile(path, 'utf8')) as { type?: unknown };
    return isKerchunkReference(json) || STAC_TYPES.includes(String(json?.type));
  } catch {
    return false;
  }
}

/**
 * Reads the dates and window `o` asks of the store `source` into raw stacks in `work` (named by
 * `n`, the input's place among the build's inputs).
 */
export async function sourceToStacks(
  source: string,
  work: string,
  n: number,
  o: SourceReadOptions,
): Promise<SourceStacks> {
  const remote = isForeignPath(source);
  // A local store is read where it is: its own folder is the root its path is relative to.
  const real = remote ? source : await realpath(source);
  const root = remote ? work : dirname(real);
  if (o.timeScale === null)
    throw new BuildError('invalid_option', `${source} is dated: pass --time-scale daily, monthly, …`, {
      option: 'timeScale',
      file: source,
    });
  const asked = {
    dir: work,
    root,
    source: real,
    dataType: o.dataType,
    ...(o.subDataType !== undefined ? { subDataType: o.subDataType } : {}),
    ...(o.unit !== undefined ? { unit: o.unit } : {}),
    timeScale: o.timeScale,
    ...(o.crs !== undefined ? { crs: o.crs } : {}),
    step: 1,
    extent: 'build-source',
  };
  // A STAC JSON names a COG collection; its files may lie in any folder here (the root is the file
  // system's), or at URLs. Any other source is a Zarr store or a kerchunk reference.
  const stac = /\.json$/i.test(source) && !(await isReferenceSource(asked));
  const base = stac && !remote ? '/' : root;
  const { layer, storeUnit } = stac
    ? {
        layer: await describeCogLayer({
          ...asked,
          root: base,
          ...(o.nodata !== undefined ? { nodata: o.nodata } : {}),
        }),
        storeUnit: undefined,
      }
    : await describeStoreLayer({ ...asked, ...(o.variable !== undefined ? { variable: o.variable } : {}) });
  const conv = conversion(source, storeUnit, o.unit);
  const unit = o.unit ?? storeUnit;
  const periods = layer.files[0]!.periods;
  const chosen = chosenBands(source, periods, o.years);
  const win = windowOf(source, layer, o.bbox);
  const pixels = win.width * win.height;
  const total = pixels * chosen.length * 4;
  if (total > MAX_STACK_BYTES)
    throw new BuildError(
      'invalid_option',
      `${source}: ${chosen.length} dates × ${win.width} × ${win.height} px would be ${gib(total)} of values to copy, more than the ${gib(MAX_STACK_BYTES)} one build takes from a store: ask fewer years (--years 2020-2024) or a smaller extent (--extent sa), and build the rest in later runs (each adds its years).`,
      { option: 'years', file: source },
    );

  const dataset = withForeign(fileLocation(base), directForeign());
  const reader = createReaderContext({ catalog: { files: [] }, dataset, concurrency: READS_AT_ONCE });
  const started = Date.now();
  try {
    const file = await reader.ctx.file(layer, 0);
    // One raw band-sequential file for every date copied, written a strip of tile rows at a time: each
    // chunk is read once for all the dates a strip's memory bound holds (a store chunked a year × a few
    // dozen pixels: once in all; docs/performance.md, "Building from a published store").
    const name = `source-${n}`;
    const handle = await open(join(work, `${name}.f32`), 'w');
    try {
      // A COG collection is read a tile of its files at a time (its engine tiles are 32-px windows
      // of them, made for points: copied that way, each file tile would be decoded 256 times).
      const cog = layer.cog !== undefined;
      const span: Span = layer.cog
        ? { width: layer.cog.tile[0], height: layer.cog.tile[1], rowOffset: 0 }
        : { width: file.tileWidth, height: file.tileHeight, rowOffset: file.rowOffset ?? 0 };
      const readPart = (p: Part, bands: number[]) =>
        cog ? file.readWindow!(p.x0, p.y0, p.x1, p.y1, bands) : file.readTile(p.tx, p.ty, bands);
      const strips = windowStrips(span, win);
      for (const [k, strip] of strips.entries()) {
        const stripPixels = strip.height * win.width;
        // The strip's values, and the parts decoded at once (8 bytes a value at most), within the bound.
        const perBatch = Math.max(
          1,
          Math.min(
            chosen.length,
            Math.floor(MAX_BATCH_BYTES / (stripPixels * 4)),
            Math.floor(MAX_BATCH_BYTES / (READS_AT_ONCE * span.width * span.height * 8)),
          ),
        );
        for (let b = 0; b < chosen.length; b += perBatch) {
          const bands = chosen.slice(b, b + perBatch);
          for (const { tx, ty } of cog ? [] : strip.parts) {
            const cost = file.readCost?.(tx, ty, bands);
            if (cost && cost.bytes > MAX_BATCH_BYTES)
              throw new BuildError(
                'invalid_input',
                `${source}: one of its chunks decodes to ${mib(cost.bytes)}, more than the ${mib(MAX_BATCH_BYTES)} a build holds at once; rechunk it with xarray first (ds.chunk({"time": 365, "lat": 256, "lon": 256}).to_zarr(…)).`,
                { file: source },
              );
          }
          const values = new Float32Array(bands.length * stripPixels).fill(Number.NaN);
          const part = { ...win, y0: strip.y0, height: strip.height };
          await runLimited(
            strip.parts.map((p) => async () => {
              place(await readPart(p, bands), values, part, bands.length, layer, conv);
            }),
            READS_AT_ONCE,
          );
          // Each date's rows of the strip are contiguous in its plane of the file.
          for (let s = 0; s < bands.length; s++) {
            const at = ((b + s) * pixels + (strip.y0 - win.y0) * win.width) * 4;
            await handle.write(
              new Uint8Array(values.buffer, s * stripPixels * 4, stripPixels * 4),
              0,
              stripPixels * 4,
              at,
            );
          }
        }
        o.log(
          `read ${basename(source)}: rows ${strip.y0 - win.y0 + 1}–${strip.y0 - win.y0 + strip.height} of ${win.height} (${k + 1} of ${strips.length}), ${((Date.now() - started) / 1000).toFixed(1)} s`,
        );
      }
    } finally {
      await handle.close();
    }
    const datesCopied = chosen.map((i) => periods[i]!);
    await writeFile(join(work, `${name}.vrt`), stackVrt(`${name}.f32`, win, datesCopied));
    const stacks = [{ path: join(work, `${name}.vrt`), periods: datesCopied }];
    const variable = layer.storeArray?.variable ?? 'a COG per date';
    // What was read: chunk objects (stores, references) and byte blocks (files), as the engine counts them.
    // (A store's file counts in the shared object cache: each counter once.)
    const counters = [...new Set([reader.ctx.objects.stats, file.stats])];
    const reads = counters.reduce((n, c) => n + c.reads, 0);
    const bytes = counters.reduce((n, c) => n + c.bytes, 0);
    const unitNote = storeUnit && unit !== storeUnit ? `, ${storeUnit} → ${unit}` : unit ? `, ${unit}` : '';
    return {
      stacks,
      ...(unit !== undefined ? { unit } : {}),
      ...(layer.description && layer.description !== layer.dataType ? { longName: layer.description } : {}),
      summary: `${source}: ${variable}, ${chosen.length} dates (${periods[chosen[0]!]} … ${periods[chosen.at(-1)!]}), ${win.width} × ${win.height} px of its ${layer.width} × ${layer.height}${unitNote}${reads > 0 ? `; ${reads} reads, ${(bytes / 1e6).toFixed(1)} MB` : ''}`,
    };
  } catch (err) {
    // What the reader refuses (a chunk missing or damaged, a host that fails) names the store.
    if (err instanceof ClimateQueryError)
      throw new BuildError('unreadable_input', `${source}: ${err.message}`, { file: source });
    throw err;
  } finally {
    await reader.close();
  }
}

/** The window of the store's grid a build copies, in its pixels: columns [x0, x0 + width), rows [y0, y0 + height). */
interface Window {
  x0: number;
  y0: number;
  width: number;
  height: number;
  /** The window's west edge and north edge, and the store's pixel size. */
  west: number;
  north: number;
  resX: number;
  resY: number;
}

const gib = (n: number) => `${(n / 2 ** 30).toFixed(1)} GiB`;
const mib = (n: number) => `${Math.round(n / 2 ** 20).toLocaleString('en')} MiB`;

/** value_in_layer = stored × a + b, from the store's unit into the layer's (refused where no rule is known). */
function conversion(source: string, from: string | undefined, to: string | undefined): { a: number; b: number } {
  if (from === undefined || to === undefined) return { a: 1, b: 0 };
  const c = unitConversion(from, to);
  if (!c)
    throw new BuildError(
      'invalid_option',
      `${source} is in ${from}, and the layer's unit is ${to}; the build converts only K ↔ °C. Build it in the store's unit (--unit "${from}"), or convert it first.`,
      { option: 'unit', file: source },
    );
  return c;
}

/** The store's bands (0-based) of the years asked, in order; refused when none is. */
function chosenBands(source: string, periods: readonly string[], years: [number, number] | undefined): number[] {
  const all = periods.map((_, i) => i);
  if (!years) return all;
  const out = all.filter((i) => {
    const y = Number(periods[i]!.slice(0, 4));
    return /^\d{4}/.test(periods[i]!) && y >= years[0] && y <= years[1];
  });
  if (out.length === 0)
    throw new BuildError(
      'invalid_option',
      `${source} holds no date in ${years[0]}${years[1] !== years[0] ? `–${years[1]}` : ''} (its dates run ${periods[0]} … ${periods.at(-1)}).`,
      { option: 'years', file: source },
    );
  return out;
}

/** The store's pixels that meet `bbox` (all of them without one), snapped outwards to whole pixels. */
function windowOf(source: string, layer: RasterLayerEntry, bbox: Bbox | undefined): Window {
  const [resX, resY] = layer.resolution ?? [
    (layer.bbox[2] - layer.bbox[0]) / layer.width,
    (layer.bbox[3] - layer.bbox[1]) / layer.height,
  ];
  const west = layer.bbox[0];
  const north = layer.bbox[3];
  const whole = { x0: 0, y0: 0, width: layer.width, height: layer.height, west, north, resX, resY };
  if (!bbox) return whole;
  // A store on 0 … 360 counts western longitudes from the antimeridian east.
  const shift = layer.bbox[2] > 180 + 1e-9 && bbox[2] <= 0 ? 360 : 0;
  if (layer.bbox[2] > 180 + 1e-9 && bbox[0] < 0 && bbox[2] > 0)
    throw new BuildError(
      'invalid_option',
      `${source} runs 0 … 360° and the extent asked crosses 0°; roll its longitudes to −180 … 180 first (xarray: ds.assign_coords(lon=((ds.lon + 180) % 360) - 180).sortby("lon")).`,
      { option: 'extent', file: source },
    );
  const x0 = Math.max(0, Math.floor((bbox[0] + shift - west) / resX + 1e-9));
  const x1 = Math.min(layer.width, Math.ceil((bbox[2] + shift - west) / resX - 1e-9));
  const y0 = Math.max(0, Math.floor((north - bbox[3]) / resY + 1e-9));
  const y1 = Math.min(layer.height, Math.ceil((north - bbox[1]) / resY - 1e-9));
  if (x1 <= x0 || y1 <= y0)
    throw new BuildError(
      'invalid_option',
      `${source} covers [${layer.bbox.map((v) => Number(v.toFixed(6))).join(', ')}], which does not meet the extent asked [${bbox.join(', ')}].`,
      { option: 'extent', file: source },
    );
  return { x0, y0, width: x1 - x0, height: y1 - y0, west: west + x0 * resX, north: north - y0 * resY, resX, resY };
}

/** How a copy reads a layer's grid: in cells of `width` × `height` px, rows counted from `rowOffset` above it. */
interface Span {
  width: number;
  height: number;
  rowOffset: number;
}

/** A rectangle of the window inside one cell of the span: pixels [x0, x1) × [y0, y1). */
interface Part {
  tx: number;
  ty: number;
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** The window by rows of cells: each strip's rows and its parts, one a cell. */
function windowStrips(span: Span, w: Window): Array<{ y0: number; height: number; parts: Part[] }> {
  const out: Array<{ y0: number; height: number; parts: Part[] }> = [];
  const end = w.y0 + w.height;
  const rowOf = (row: number) => Math.floor((row + span.rowOffset) / span.height);
  for (let ty = rowOf(w.y0); ty <= rowOf(end - 1); ty++) {
    const y0 = Math.max(w.y0, ty * span.height - span.rowOffset);
    const y1 = Math.min(end, (ty + 1) * span.height - span.rowOffset);
    const parts: Part[] = [];
    for (let tx = Math.floor(w.x0 / span.width); tx <= Math.floor((w.x0 + w.width - 1) / span.width); tx++)
      parts.push({
        tx,
        ty,
        x0: Math.max(w.x0, tx * span.width),
        x1: Math.min(w.x0 + w.width, (tx + 1) * span.width),
        y0,
        y1,
      });
    out.push({ y0, height: y1 - y0, parts });
  }
  return out;
}

/** Copies the window's pixels of tile `t` into `values` (band after band), in the layer's unit. */
function place(
  t: { x0: number; y0: number; width: number; height: number; samples: number; data: ArrayLike<number> },
  values: Float32Array,
  w: Window,
  bands: number,
  layer: Pick<RasterLayerEntry, 'scale' | 'offset' | 'nodata'>,
  conv: { a: number; b: number },
): void {
  const plane = w.width * w.height;
  const r0 = Math.max(t.y0, w.y0);
  const r1 = Math.min(t.y0 + t.height, w.y0 + w.height);
  const c0 = Math.max(t.x0, w.x0);
  const c1 = Math.min(t.x0 + t.width, w.x0 + w.width);
  for (let r = r0; r < r1; r++) {
    for (let c = c0; c < c1; c++) {
      const from = ((r - t.y0) * t.width + (c - t.x0)) * t.samples;
      const to = (r - w.y0) * w.width + (c - w.x0);
      for (let s = 0; s < bands; s++) {
        const raw = t.data[from + s]!;
        values[s * plane + to] =
          raw === layer.nodata || Number.isNaN(raw) ? Number.NaN : (raw * layer.scale + layer.offset) * conv.a + conv.b;
      }
    }
  }
}

/** A VRT over a raw band-sequential Float32 file: WGS 84 longitude/latitude, north up, NaN for no value, each band dated. */
function stackVrt(raw: string, w: Window, periods: readonly string[]): string {
  const lineBytes = w.width * 4;
  const bands = periods.map(
    (p, i) => `  <VRTRasterBand dataType="Float32" band="${i + 1}" subClass="VRTRawRasterBand">
    <Description>${p}</Description>
    <NoDataValue>nan</NoDataValue>
    <SourceFilename relativeToVRT="1">${raw}</SourceFilename>
    <ImageOffset>${i * lineBytes * w.height}</ImageOffset>
    <PixelOffset>4</PixelOffset>
    <LineOffset>${lineBytes}</LineOffset>
    <ByteOrder>${endianness() === 'LE' ? 'LSB' : 'MSB'}</ByteOrder>
  </VRTRasterBand>`,
  );
  return `<VRTDataset rasterXSize="${w.width}" rasterYSize="${w.height}">
  <SRS dataAxisToSRSAxisMapping="2,1">EPSG:4326</SRS>
  <GeoTransform>${w.west}, ${w.resX}, 0, ${w.north}, 0, ${-w.resY}</GeoTransform>
${bands.join('\n')}
</VRTDataset>
`;
}
