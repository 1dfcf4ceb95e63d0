/**
 * Writes one `zarr` store (src/rasters/zarr-layout.ts) from a raw stack of
 * the store's dates (raw-stack.ts), a strip of rows at a time: each strip is
 * quantised to the layer's Int16 step, cut into its data chunks (every date
 * × 8 × 8 px), each delta-filtered and zlib-compressed on libuv's thread
 * pool while the next is cut, and its preview rows are reduced into a
 * scratch file, compressed date by date at the end. Memory is one strip
 * (dates × max(8, preview factor) rows × width), whatever the grid's height
 * or how many stores a build writes.
 */
import { closeSync, openSync, readSync, writeFileSync, writeSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  dataChunkKey,
  deltaEncode,
  previewChunkKey,
  previewSize,
  RANGE_CHUNK_KEY,
  ZARR_ZLIB_LEVEL,
} from '../rasters/zarr-layout.ts';
import {
  DIGESTS_KEY,
  type DigestSlot,
  digestPrefix,
  digestShape,
  digestSlot,
  digestsFileBytes,
  objectDigest,
} from '../rasters/chunk-digest.ts';
import { BuildError } from './build-error.ts';
import { MISSING_MARKERS } from './missing-markers.ts';
import { ChunkWriters } from './chunk-writers.ts';
import type { BandTransform } from './raster-build-vrt.ts';
import type { RawStackReader } from './raw-stack.ts';
import { type ZarrStoreSpec, zarrCoordinateChunks, zarrJson, zarrStoreMetadata } from './zarr-metadata.ts';

/** What {@link writeZarrStore} needs. */
export interface ZarrWriteJob {
  spec: ZarrStoreSpec;
  /** The store's dates as a raw stack: its bands are `spec.dates`, its grid `spec.grid`. */
  reader: RawStackReader;
  /** Per band, what turns a raw value into the layer's unit (the input's own scale, offset and nodata). */
  transforms: BandTransform[];
  /** The store's folder on the host (created; must not exist yet). */
  storeDir: string;
  /** A scratch folder for the preview planes (removed again). */
  workDir: string;
  /** Names band `b` (0-based) of the store in messages: "tmean_2024.tif band 32 (2024-02-01)". */
  where(band: number): string;
  /** Progress, at most every few seconds. */
  progress?(rowsDone: number, rows: number): void;
}

/** What a store holds once written. */
export interface ZarrWriteResult {
  /** Objects (files) written and their bytes. */
  objects: number;
  bytes: number;
  /** Each date's smallest and largest stored value (null for a date with no value). */
  range: Array<[number, number] | null>;
}

/** Writes the store; throws BuildError when a value does not fit Int16 at the layer's step. */
export async function writeZarrStore(job: ZarrWriteJob): Promise<ZarrWriteResult> {
  const { spec, reader, storeDir } = job;
  const { width: W, height: H } = spec.grid;
  const T = spec.dates.length;
  const { chunk, previewFactor: f, variable } = spec.arrays;
  if (reader.shape.width !== W || reader.shape.height !== H || reader.shape.bands !== T) {
    throw new BuildError(
      'internal',
      `The raw stack is ${reader.shape.width} × ${reader.shape.height} × ${reader.shape.bands}, not ${W} × ${H} × ${T}.`,
    );
  }
  const p = previewSize(W, H, f);
  const stripRows = Math.max(chunk, f);
  await mkdir(storeDir, { recursive: false });
  for (const folder of [variable, `preview/${variable}`, 'preview/range', 'crs', 'lat', 'lon', 'time']) {
    await mkdir(join(storeDir, folder), { recursive: true });
  }
  for (const folder of ['lat', 'lon', 'time']) await mkdir(join(storeDir, 'preview', folder));
  // Each object's digest, bound to the store's id and the object's key, in one file (rasters/chunk-digest.ts).
  const shape = digestShape(T, W, H, chunk);
  const digests = new Uint8Array(digestsFileBytes(shape));
  const digestOf = (key: string, slot: DigestSlot) => ({
    slot: digestSlot(shape, slot),
    prefix: digestPrefix(spec.id, key),
  });
  const writers = new ChunkWriters(ZARR_ZLIB_LEVEL, 2, digests);
  const previewScratch = join(job.workDir, `preview-${variable}-${process.pid}-${Date.now()}.i16`);
  const scratch = openSync(previewScratch, 'w+');
  try {
    const strip = new Float32Array(T * stripRows * W);
    const bip = reader.shape.interleave === 'BIP' ? new Float32Array(T * stripRows * W) : undefined;
    const q = new Int16Array(T * stripRows * W);
    const range = { lo: new Int32Array(T).fill(32_767), hi: new Int32Array(T).fill(-32_768) };
    const previewRows = new Int16Array(T * (stripRows / f) * p.width);
    for (let y0 = 0; y0 < H; y0 += stripRows) {
      const rows = Math.min(stripRows, H - y0);
      await reader.readStrip(y0, rows, strip, bip);
      const bad = quantise(strip, q, T * rows * W, spec, range, rows * W, job.transforms);
      if (bad) {
        const t = Math.floor(bad.at / (rows * W));
        const i = bad.at - t * rows * W;
        throw new BuildError(
          'invalid_option',
          `${job.where(t)} holds ${bad.value} at pixel ${i % W}, ${y0 + Math.floor(i / W)}, which does not fit Int16 at scale ${spec.scale}, offset ${spec.offset}; ${MISSING_MARKERS.includes(bad.value) ? `if ${bad.value} marks missing data (the input states no nodata value), pass --nodata=${bad.value}; else ` : ''}pass a larger --scale (or an --offset near the middle of the values).`,
          { option: 'scale' },
        );
      }
      for (let cy = 0; cy * chunk < rows; cy++) {
        const ty = (y0 + cy * chunk) / chunk;
        cutChunkRow(q, { T, W, rows, rowInStrip: cy * chunk, chunk, nodata: spec.nodata }, (tx, data) => {
          const key = dataChunkKey(variable, tx, ty);
          writers.add(join(storeDir, key), data, digestOf(key, { kind: 'data', tx, ty }));
        });
      }
      await writers.send();
      const pRows = Math.ceil(rows / f);
      reduceStrip(q, previewRows, { T, W, rows, f, pWidth: p.width, nodata: spec.nodata });
      const rowBytes = p.width * 2;
      for (let t = 0; t < T; t++) {
        writeSync(scratch, previewRows, t * pRows * p.width * 2, pRows * rowBytes, (t * p.height + y0 / f) * rowBytes);
      }
      job.progress?.(y0 + rows, H);
    }
    // Preview chunks, one per date, and each date's range on the full grid.
    const planeBytes = p.width * p.height * 2;
    for (let t = 0; t < T; t++) {
      const plane = new Int16Array(p.width * p.height);
      if (readSync(scratch, plane, 0, planeBytes, t * planeBytes) !== planeBytes) {
        throw new BuildError('internal', 'The preview scratch file is short.');
      }
      deltaEncode(plane);
      const key = previewChunkKey(variable, t);
      writers.add(join(storeDir, key), new Uint8Array(plane.buffer), digestOf(key, { kind: 'preview', date: t }));
      if (t % 32 === 31) await writers.send();
    }
    await writers.finish();
    let objects = writers.objects;
    let bytes = writers.bytes;
    const put = (key: string, data: Uint8Array) => {
      writeFileSync(join(storeDir, key), data);
      objects++;
      bytes += data.length;
    };
    const ranges = new Int16Array(T * 2);
    const out: ZarrWriteResult['range'] = [];
    for (let t = 0; t < T; t++) {
      const has = range.lo[t]! <= range.hi[t]!;
      ranges[2 * t] = has ? range.lo[t]! : spec.nodata;
      ranges[2 * t + 1] = has ? range.hi[t]! : spec.nodata;
      out.push(has ? [range.lo[t]!, range.hi[t]!] : null);
    }
    put(RANGE_CHUNK_KEY, new Uint8Array(ranges.buffer));
    digests.set(await objectDigest(spec.id, RANGE_CHUNK_KEY, new Uint8Array(ranges.buffer)), 0);
    put(DIGESTS_KEY, digests);
    for (const [key, data] of Object.entries(zarrCoordinateChunks(spec))) put(key, data);
    // Metadata last: a store whose writing stopped part-way has no .zmetadata, so nothing lists it.
    const docs = zarrStoreMetadata(spec);
    const text = (doc: unknown) => new TextEncoder().encode(zarrJson(doc));
    for (const [key, doc] of Object.entries(docs)) if (key !== '.zmetadata') put(key, text(doc));
    put('.zmetadata', text(docs['.zmetadata']));
    return { objects, bytes, range: out };
  } finally {
    await writers.close();
    closeSync(scratch);
    await rm(previewScratch, { force: true });
  }
}

/**
 * Quantises `n` values of `strip` into `q`: round((value − offset) / scale), half away from zero
 * as GDAL rounds; NaN → nodata. Widens each band's range (`plane` values per band). Returns the
 * first value that does not fit Int16, or null.
 */
function quantise(
  strip: Float32Array,
  q: Int16Array,
  n: number,
  spec: Pick<ZarrStoreSpec, 'scale' | 'offset' | 'nodata'>,
  range: { lo: Int32Array; hi: Int32Array },
  plane: number,
  transforms: readonly BandTransform[],
): { at: number; value: number } | null {
  const inv = 1 / spec.scale;
  const { offset, nodata } = spec;
  for (let t = 0; t * plane < n; t++) {
    let lo = range.lo[t]!;
    let hi = range.hi[t]!;
    const end = (t + 1) * plane;
    const band = transforms[t]!;
    const none = band.nodata ?? Number.NaN;
    // stored = (raw × inScale + inOffset − offset) / scale, in one multiply-add.
    const ratio = band.scale * inv;
    const shift = (band.offset - offset) * inv;
    for (let i = t * plane; i < end; i++) {
      const v = strip[i]!;
      if (Number.isNaN(v) || v === none) {
        q[i] = nodata;
        continue;
      }
      const x = v * ratio + shift;
      if (!(x > -32_767.5 && x < 32_767.5)) return { at: i, value: v * band.scale + band.offset };
      // ⌊|x| + ½⌋ with its sign: half away from zero (|x| < 2³¹, so `| 0` truncates exactly).
      const s = x < 0 ? -((0.5 - x) | 0) : (x + 0.5) | 0;
      q[i] = s;
      if (s < lo) lo = s;
      if (s > hi) hi = s;
    }
    range.lo[t] = lo;
    range.hi[t] = hi;
  }
  return null;
}

/**
 * Cuts the chunks of one row of chunks out of a quantised strip (band, row, column) and hands each
 * to `emit` as delta-encoded bytes: every band × `chunk` × `chunk` px, padded with nodata past the
 * grid's east and south edges.
 */
function cutChunkRow(
  q: Int16Array,
  g: { T: number; W: number; rows: number; rowInStrip: number; chunk: number; nodata: number },
  emit: (tx: number, data: Uint8Array) => void,
): void {
  const { T, W, rows, rowInStrip, chunk, nodata } = g;
  const h = Math.min(chunk, rows - rowInStrip);
  for (let tx = 0; tx * chunk < W; tx++) {
    const c = new Int16Array(T * chunk * chunk);
    if (h < chunk || (tx + 1) * chunk > W) c.fill(nodata);
    const x0 = tx * chunk;
    const w = Math.min(chunk, W - x0);
    for (let t = 0; t < T; t++) {
      for (let r = 0; r < h; r++) {
        const from = (t * rows + rowInStrip + r) * W + x0;
        const to = (t * chunk + r) * chunk;
        for (let k = 0; k < w; k++) c[to + k] = q[from + k]!;
      }
    }
    deltaEncode(c);
    emit(tx, new Uint8Array(c.buffer));
  }
}

/**
 * The preview rows of a quantised strip: each `f` × `f` block's mean of its valid pixels, rounded
 * half away from zero, nodata when it has none; `out[(band · pRows + row) · pWidth + col]`.
 */
function reduceStrip(
  q: Int16Array,
  out: Int16Array,
  g: { T: number; W: number; rows: number; f: number; pWidth: number; nodata: number },
): void {
  const { T, W, rows, f, pWidth, nodata } = g;
  const pRows = Math.ceil(rows / f);
  if (f === 1) {
    out.set(q.subarray(0, T * rows * W));
    return;
  }
  const column = Int32Array.from({ length: W }, (_, c) => Math.floor(c / f));
  const sum = new Float64Array(pWidth);
  const count = new Int32Array(pWidth);
  for (let t = 0; t < T; t++) {
    for (let pr = 0; pr < pRows; pr++) {
      sum.fill(0);
      count.fill(0);
      for (let r = pr * f; r < Math.min(rows, (pr + 1) * f); r++) {
        const row = (t * rows + r) * W;
        for (let c = 0; c < W; c++) {
          const v = q[row + c]!;
          if (v !== nodata) {
            const pc = column[c]!;
            sum[pc] = sum[pc]! + v;
            count[pc] = count[pc]! + 1;
          }
        }
      }
      const at = (t * pRows + pr) * pWidth;
      for (let pc = 0; pc < pWidth; pc++) {
        const n = count[pc]!;
        const m = sum[pc]! / n;
        out[at + pc] = n === 0 ? nodata : m < 0 ? -Math.round(-m) : Math.round(m);
      }
    }
  }
}
