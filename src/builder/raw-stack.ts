/**
 * A layer's year of values as one raw Float32 file in the build's work
 * folder: what GDAL writes from the stacked inputs (ENVI, no compression,
 * NaN for nodata), read back here a strip of rows at a time. It lets the
 * build read the inputs once, in the order their own interleave makes
 * cheap, and hold one strip in memory whatever the grid or the years:
 *
 * - `BSQ` (each band whole, then the next) for band-interleaved inputs and
 *   stacks of single-band files: GDAL copies band after band, each input
 *   block read once;
 * - `BIP` (every band of a pixel together) for pixel-interleaved inputs: GDAL
 *   copies swaths of rows with every band, each input strip read once.
 *   (GDAL reading a pixel-interleaved stack band by band decodes every
 *   block once per band: measured 112.7 s against 5.1 s for 80 bands of the
 *   real-size grid, docs/decisions/0001-daily-layers-as-zarr.md.)
 */
import { open, type FileHandle } from 'node:fs/promises';
import { gdalStep, type GdalDataset, type Mount } from './raster-build-gdal.ts';
import { BuildError } from './build-error.ts';

/** Band order of a raw stack. */
export type RawInterleave = 'BSQ' | 'BIP';

/** Shape of a raw stack. */
export interface RawShape {
  width: number;
  height: number;
  bands: number;
  interleave: RawInterleave;
}

/**
 * Writes the open dataset `ds` (one input file, of which `bands` are taken in that order, or a VRT
 * stacking the year's bands) as a raw ENVI Float32 file `<name>` in the mounted work folder;
 * returns its host path.
 */
export async function translateToRaw(
  ds: GdalDataset,
  work: Mount,
  name: string,
  interleave: RawInterleave,
  bands?: readonly number[],
): Promise<string> {
  const pick = (bands ?? []).flatMap((b) => ['-b', String(b)]);
  const out = await gdalStep(`Reading the inputs of ${name}`, (g) =>
    g.gdal_translate(
      ds,
      [...pick, '-of', 'ENVI', '-ot', 'Float32', '-co', `INTERLEAVE=${interleave}`],
      `${work.outputName}/${name}`,
    ),
  );
  // gdal3.js answers the virtual path it wrote; the same file on the host is under the mounted folder.
  if (!out.local.startsWith(`${work.virtual}/`))
    throw new BuildError('internal', `GDAL wrote ${out.local}, outside the work folder.`);
  return `${work.host}${out.local.slice(work.virtual.length)}`;
}

/** Reads strips of a raw stack, as (band, row, column) Float32 values. */
export class RawStackReader {
  private constructor(
    private readonly fh: FileHandle,
    readonly shape: RawShape,
  ) {}

  /** Opens `path`, refusing a file whose size is not the shape's. */
  static async open(path: string, shape: RawShape): Promise<RawStackReader> {
    const fh = await open(path, 'r');
    const want = shape.width * shape.height * shape.bands * 4;
    const { size } = await fh.stat();
    if (size !== want) {
      await fh.close();
      throw new BuildError(
        'internal',
        `${path} holds ${size} bytes, not the ${want} of ${shape.bands} bands of ${shape.width} × ${shape.height} Float32.`,
      );
    }
    return new RawStackReader(fh, shape);
  }

  /**
   * Rows `y0` … `y0 + rows − 1` of every band into `out` (at least bands × rows × width values):
   * `out[(b · rows + r) · width + c]`.
   */
  async readStrip(y0: number, rows: number, out: Float32Array, scratch?: Float32Array): Promise<void> {
    const { width: W, height: H, bands: T, interleave } = this.shape;
    if (y0 < 0 || rows < 1 || y0 + rows > H)
      throw new BuildError('internal', `Rows ${y0}…${y0 + rows - 1} of the raw stack are outside 0…${H - 1}.`);
    if (interleave === 'BSQ') {
      const plane = rows * W;
      for (let b = 0; b < T; b++) {
        const view = new Uint8Array(out.buffer, out.byteOffset + b * plane * 4, plane * 4);
        await this.readFully(view, (b * H + y0) * W * 4);
      }
      return;
    }
    // BIP: one contiguous read, then every band's values moved to its own plane.
    const n = rows * W * T;
    const buf = scratch && scratch.length >= n ? scratch : new Float32Array(n);
    await this.readFully(new Uint8Array(buf.buffer, buf.byteOffset, n * 4), y0 * W * T * 4);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < W; c++) {
        const from = (r * W + c) * T;
        const to = r * W + c;
        for (let b = 0; b < T; b++) out[b * rows * W + to] = buf[from + b]!;
      }
    }
  }

  private async readFully(view: Uint8Array, position: number): Promise<void> {
    let done = 0;
    while (done < view.length) {
      const { bytesRead } = await this.fh.read(view, done, view.length - done, position + done);
      if (bytesRead === 0) throw new BuildError('internal', `The raw stack ended at byte ${position + done}.`);
      done += bytesRead;
    }
  }

  close(): Promise<void> {
    return this.fh.close();
  }
}
