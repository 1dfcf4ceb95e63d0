/**
 * Rewrites a built `map` file of a layer as its `series` layout
 * (src/rasters/raster-layout.ts): one Int16 band whose columns are the
 * grid's pixels, block after block, and whose rows are the dates. The map
 * file is read back one row of blocks at a time, its values are placed in a
 * raw image on disk, and GDAL writes the tiled TIFF from that (a VRT raw
 * band), so memory stays one row of blocks whatever the grid's size; the
 * raw image takes the stack's uncompressed size on disk in the work folder
 * while GDAL writes (55 MB for the demo's 328 × 225 px daily year).
 */
import { open, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fromFile } from 'geotiff';
import {
  blockColumns,
  blockFirstColumn,
  blocksAcross,
  blocksDown,
  type SeriesGeometry,
  seriesColumn,
  seriesImageWidth,
  seriesTileHeight,
} from '../rasters/raster-layout.ts';
import { storedTiffOptions } from './raster-tiling.ts';
import { closeDataset, gdalStep, type Mount, openDataset } from './raster-build-gdal.ts';

/** The block a `series` layer is written with: 8 × 8 pixels (the measured choice, docs/layers.md). */
export const SERIES_BLOCK = 8;

/** The metadata item in which a `series` file describes its grid and block, so it is read without the catalog. */
export const SERIES_METADATA_KEY = 'CLIMATE_QUERY_SERIES';

/** The metadata item listing a `series` file's dates, one per row, comma-separated. */
export const SERIES_DATES_KEY = 'CLIMATE_QUERY_DATES';

/** What {@link writeSeriesFile} needs. */
export interface SeriesFileJob {
  /** The `map` file to rewrite (host path). */
  mapFile: string;
  /** A work folder on the host, mounted for GDAL as `work`. */
  workDir: string;
  work: Mount;
  /** Output name under the work folder, without `.tif`. */
  outName: string;
  block: { width: number; height: number };
  nodata: number;
  /** Extra `-mo` items (the build id). */
  metadata: string[];
  /** The layer's period keys, one per row (written as the CLIMATE_QUERY_DATES item). */
  dates: string[];
  /** Stored value × scale + offset = value in the layer's unit (GDAL's band scale and offset). */
  scale: number;
  offset: number;
  /** The grid, for the metadata: west, north, pixel sizes. */
  origin: { west: number; north: number; resX: number; resY: number };
}

/** Writes `job.outName`.tif under the work folder; returns its host path. */
export async function writeSeriesFile(job: SeriesFileJob): Promise<string> {
  const tiff = await fromFile(job.mapFile);
  const raw = join(job.workDir, `${job.outName}.series.raw`);
  const vrt = join(job.workDir, `${job.outName}.series.vrt`);
  try {
    const image = await tiff.getImage();
    const W = image.getWidth();
    const H = image.getHeight();
    const dates = image.getSamplesPerPixel();
    if (job.dates.length !== dates) throw new Error(`${job.mapFile} has ${dates} bands for ${job.dates.length} dates.`);
    const g: SeriesGeometry = {
      gridWidth: W,
      gridHeight: H,
      blockWidth: job.block.width,
      blockHeight: job.block.height,
    };
    const width = seriesImageWidth(g);
    const per = blockColumns(g);
    const across = blocksAcross(g);
    // Columns of one row of blocks, every date: filled, then written as one segment per date.
    const rowCols = across * per;
    const fh = await open(raw, 'w');
    try {
      await fh.truncate(width * dates * 2);
      for (let by = 0; by < blocksDown(g); by++) {
        const y0 = by * g.blockHeight;
        const y1 = Math.min(y0 + g.blockHeight, H);
        const values = (await image.readRasters({ window: [0, y0, W, y1], interleave: true })) as unknown as Int16Array;
        const seg = new Int16Array(rowCols * dates).fill(job.nodata);
        const rowFirst = blockFirstColumn(g, 0, by);
        for (let y = y0; y < y1; y++) {
          for (let x = 0; x < W; x++) {
            const col = seriesColumn(g, x, y) - rowFirst;
            const at = ((y - y0) * W + x) * dates;
            for (let d = 0; d < dates; d++) seg[d * rowCols + col] = values[at + d]!;
          }
        }
        for (let d = 0; d < dates; d++) {
          const bytes = new Uint8Array(seg.buffer, d * rowCols * 2, rowCols * 2);
          await fh.write(bytes, 0, bytes.length, (d * width + by * rowCols) * 2);
        }
      }
    } finally {
      await fh.close();
    }
    // Int16 little-endian on every platform Node runs on; the VRT says so.
    await writeFile(
      vrt,
      `<VRTDataset rasterXSize="${width}" rasterYSize="${dates}">\n` +
        `  <VRTRasterBand dataType="Int16" band="1" subClass="VRTRawRasterBand">\n` +
        `    <NoDataValue>${job.nodata}</NoDataValue>\n` +
        `    <SourceFilename relativeToVRT="1">${job.outName}.series.raw</SourceFilename>\n` +
        `    <ImageOffset>0</ImageOffset><PixelOffset>2</PixelOffset><LineOffset>${width * 2}</LineOffset>\n` +
        `    <ByteOrder>LSB</ByteOrder>\n` +
        `  </VRTRasterBand>\n</VRTDataset>\n`,
    );
    const { ds } = await openDataset(`${job.work.virtual}/${job.outName}.series.vrt`);
    try {
      const o = job.origin;
      await gdalStep(`Writing the series layout of ${job.outName}`, (gdal) =>
        gdal.gdal_translate(
          ds,
          [
            ...storedTiffOptions(per, seriesTileHeight(dates)),
            '-a_scale',
            String(job.scale),
            '-a_offset',
            String(job.offset),
            '-mo',
            `${SERIES_DATES_KEY}=${job.dates.join(',')}`,
            '-mo',
            `${SERIES_METADATA_KEY}=grid ${W}x${H} block ${g.blockWidth}x${g.blockHeight} origin ${o.west} ${o.north} pixel ${o.resX} ${o.resY} EPSG:4326`,
            ...job.metadata.flatMap((m) => ['-mo', m]),
          ],
          `${job.work.outputName}/${job.outName}`,
        ),
      );
    } finally {
      await closeDataset(ds);
    }
    const out = join(job.workDir, `${job.outName}.tif`);
    await checkSeries(out, width, dates, per);
    return out;
  } finally {
    await tiff.close();
    await rm(raw, { force: true });
    await rm(vrt, { force: true });
  }
}

/** Reads the written file's shape back; throws when GDAL wrote anything else. */
async function checkSeries(path: string, width: number, dates: number, per: number): Promise<void> {
  const tiff = await fromFile(path);
  try {
    const image = await tiff.getImage();
    if (
      image.getWidth() !== width ||
      image.getHeight() !== dates ||
      image.getSamplesPerPixel() !== 1 ||
      image.getTileWidth() !== per
    ) {
      throw new Error(
        `${path} came out ${image.getWidth()}×${image.getHeight()} with ${image.getSamplesPerPixel()} band(s) in ${image.getTileWidth()} px tiles, not ${width}×${dates}, 1 band, ${per} px tiles.`,
      );
    }
  } finally {
    await tiff.close();
  }
}
