/**
 * The build of a `zarr` layer's stores (src/rasters/zarr-layout.ts), one per
 * file group (a daily layer's year): GDAL stacks the group's bands from the
 * inputs, as they are, into a raw Float32 file in the work folder (each
 * input's scale, offset and nodata are applied here, raster-build-vrt.ts), read once in the order
 * the inputs' interleave makes cheap (raw-stack.ts), and the store is
 * written from it a strip at a time (zarr-write.ts); the raw file goes
 * before the next group starts, so the work folder holds one group's raw
 * values (3.0 GB for a year of the 1,800 × 1,150 px real-size grid) and
 * memory one strip, whatever the number of years.
 */
import { builtFileName } from './dataset/layer-merge.ts';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RasterFileEntry } from '../dataset/catalog.ts';
import type { GridSpec } from '../rasters/coverage.ts';
import { closeDataset, openDataset, type Mount } from './raster-build-gdal.ts';
import { type BandSource, bandTransform, stackVrt } from './raster-build-vrt.ts';
import { RawStackReader, type RawInterleave, translateToRaw } from './raw-stack.ts';
import type { ZarrStoreSpec } from './zarr-metadata.ts';
import { writeZarrStore } from './zarr-write.ts';

/** What {@link writeZarrGroups} needs: what every store of the layer shares, and where its inputs are. */
export interface ZarrGroupsJob
  extends Pick<
    ZarrStoreSpec,
    'arrays' | 'scale' | 'offset' | 'nodata' | 'unit' | 'description' | 'attribution' | 'buildId'
  > {
  /** Output name (`2024.tif`, from rasterFileName) → its bands in date order. */
  groups: Map<string, BandSource[]>;
  grid: GridSpec;
  /** The build's work folder, on the host and mounted for GDAL. */
  workDir: string;
  work: Mount;
  /** Where the stores are written (the layer's staging folder) and their path in the dataset. */
  stagingDir: string;
  layerDir: string;
  /** Names the inputs in messages ("tmean_2024.tif band 32"). */
  where(source: BandSource): string;
  log(line: string): void;
}

/** The raw order GDAL copies a group in most cheaply: pixel-interleaved inputs row by row, the rest band by band. */
export function rawInterleave(bands: readonly BandSource[]): RawInterleave {
  return bands.length > 0 && bands.every((b) => b.pixelInterleaved && b.file === bands[0]!.file) ? 'BIP' : 'BSQ';
}

let rawCounter = 0;

/** Raw stacks of the groups one at a time, handed to `use` and deleted after. */
async function eachRawStack<T>(
  job: Pick<ZarrGroupsJob, 'groups' | 'grid' | 'workDir' | 'work' | 'log'>,
  use: (name: string, bands: BandSource[], reader: RawStackReader) => Promise<T>,
): Promise<T[]> {
  const out: T[] = [];
  for (const [name, bands] of job.groups) {
    // A name never used before in this build: GDAL (in WebAssembly) could not create a file again at
    // the path of one it wrote and the build deleted (the range pass, then the stores).
    const base = `raw-${name.replace(/\.tif$/, '')}-${rawCounter++}`;
    await writeFile(join(job.workDir, `${base}.vrt`), stackVrt(job.grid, bands, { type: 'raw' }));
    const interleave = rawInterleave(bands);
    // Every band from one file (a year's stack, a warped input): GDAL reads the file itself, bands
    // picked with -b. Through the VRT, gdal3.js took 60 s for a pixel-interleaved real-size year that
    // it reads in 12 s this way (native GDAL: 10 s either way).
    const one = bands.every((b) => b.file === bands[0]!.file);
    const started = Date.now();
    job.log(
      `reading ${bands.length} dates of ${name.replace(/\.tif$/, '')} from the inputs (GDAL, ${interleave === 'BIP' ? 'pixel' : 'band'} order)`,
    );
    const { ds } = await openDataset(one ? bands[0]!.file : `${job.work.virtual}/${base}.vrt`);
    let raw: string;
    try {
      raw = await translateToRaw(ds, job.work, base, interleave, one ? bands.map((b) => b.band) : undefined);
    } finally {
      await closeDataset(ds);
    }
    job.log(`  read in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const shape = { width: job.grid.width, height: job.grid.height, bands: bands.length, interleave };
    const reader = await RawStackReader.open(raw, shape);
    try {
      out.push(await use(name, bands, reader));
    } finally {
      await reader.close();
      await rm(raw, { force: true });
      await rm(`${raw}.hdr`, { force: true });
      await rm(`${raw}.aux.xml`, { force: true });
      await rm(join(job.workDir, `${base}.vrt`), { force: true });
    }
  }
  return out;
}

/**
 * The smallest and largest value of every group's bands, for a layer whose storage step must be
 * chosen from its values (no --scale, not a family): one more read of the inputs, said in the log.
 */
export async function zarrGroupRanges(
  job: Pick<ZarrGroupsJob, 'groups' | 'grid' | 'workDir' | 'work' | 'where' | 'log'>,
): Promise<Array<{ where: string; lo: number; hi: number }>> {
  job.log('reading the inputs once for their range of values (pass --scale to skip this read)');
  const found = await eachRawStack(job, async (_name, bands, reader) => {
    const { width: W, height: H } = reader.shape;
    const rows = 8;
    const strip = new Float32Array(bands.length * rows * W);
    const lo = new Float64Array(bands.length).fill(Infinity);
    const hi = new Float64Array(bands.length).fill(-Infinity);
    const transforms = bands.map(bandTransform);
    for (let y0 = 0; y0 < H; y0 += rows) {
      const n = Math.min(rows, H - y0);
      await reader.readStrip(y0, n, strip);
      for (let b = 0; b < bands.length; b++) {
        const none = transforms[b]!.nodata ?? Number.NaN;
        for (let i = b * n * W; i < (b + 1) * n * W; i++) {
          const v = strip[i]!;
          if (v === none) continue;
          if (v < lo[b]!) lo[b] = v;
          if (v > hi[b]!) hi[b] = v;
        }
      }
    }
    // In the layer's unit: the input's own scale (which may be negative) and offset applied.
    return bands.flatMap((s, b) => {
      if (!(lo[b]! <= hi[b]!)) return [];
      const { scale, offset } = transforms[b]!;
      const [a, z] = [lo[b]! * scale + offset, hi[b]! * scale + offset].sort((x, y) => x - y) as [number, number];
      return [{ where: job.where(s), lo: a, hi: z }];
    });
  });
  return found.flat();
}

/** Writes every group's store into the staging folder; returns the layer's file entries and each store's bytes. */
export async function writeZarrGroups(job: ZarrGroupsJob): Promise<Array<{ entry: RasterFileEntry; bytes: number }>> {
  const entries = await eachRawStack(job, async (name, bands, reader) => {
    const store = builtFileName(name, job.buildId, 'zarr');
    // The store's own id: its name as built (a merge may rename the folder; the id stays in its entry).
    const storeId = store.replace(/\.zarr$/, '');
    job.log(`writing ${job.layerDir}/${store} (${bands.length} dates)`);
    const started = Date.now();
    let shown = started;
    const result = await writeZarrStore({
      spec: {
        arrays: job.arrays,
        grid: job.grid,
        dates: bands.map((b) => b.key),
        scale: job.scale,
        offset: job.offset,
        nodata: job.nodata,
        unit: job.unit,
        description: job.description,
        ...(job.attribution ? { attribution: job.attribution } : {}),
        buildId: job.buildId,
        id: storeId,
      },
      reader,
      transforms: bands.map(bandTransform),
      storeDir: join(job.stagingDir, store),
      workDir: job.workDir,
      where: (b) => job.where(bands[b]!),
      progress: (done, rows) => {
        if (Date.now() - shown < 5000) return;
        shown = Date.now();
        job.log(`  ${job.layerDir}/${store}: row ${done} of ${rows}, ${((shown - started) / 1000).toFixed(0)} s`);
      },
    });
    job.log(
      `wrote ${job.layerDir}/${store} (${bands.length} dates, ${result.objects} objects, ${(result.bytes / 1e6).toFixed(1)} MB) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    return {
      entry: { path: `${job.layerDir}/${store}`, periods: bands.map((b) => b.key), id: storeId },
      bytes: result.bytes,
    };
  });
  return entries;
}
