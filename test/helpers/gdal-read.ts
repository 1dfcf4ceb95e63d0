/**
 * Reads one pixel of a raster file with GDAL itself (gdal3.js), for tests
 * that compare answers with "what GDAL reads": the pixel containing
 * (x, y) in the file's own CRS by gdallocationinfo's rule, cut out with
 * `gdal_translate -srcwin col row 1 1 -of XYZ`, nodata from gdalinfo,
 * scale and offset applied as GDAL reports them. Shares nothing with
 * src/rasters or geotiff.js.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { seriesColumnOf, seriesMetadata } from './raster-oracle.ts';
import { closeDataset, gdalStep, mount, openDataset, unmount } from '../../src/builder/raster-build-gdal.ts';

/** The value in units at (x, y) of 1-based `band`, or null at nodata or off the raster. */
export async function gdalPixel(path: string, band: number, x: number, y: number): Promise<number | null> {
  const host = resolve(path);
  const inMount = await mount(dirname(host));
  const work = await mkdtemp(join(tmpdir(), 'cq-gdal-read-'));
  const outMount = await mount(work);
  try {
    const { ds, info } = await openDataset(`${inMount.virtual}/${basename(host)}`);
    try {
      // A series file (docs/layers.md) states its grid in metadata; its pixel's dates are one column.
      const meta = (info as { metadata?: Record<string, Record<string, string>> }).metadata?.['']?.CLIMATE_QUERY_SERIES;
      const series = seriesMetadata(meta);
      const gt = series ? [series.west, series.resX, 0, series.north, 0, -series.resY] : info.geoTransform!;
      const [width, height] = series ? [series.width, series.height] : info.size;
      const col = Math.floor((x - gt[0]!) / gt[1]!);
      const row = Math.floor((y - gt[3]!) / gt[5]!);
      if (col < 0 || row < 0 || col >= width! || row >= height!) return null;
      const window = series
        ? ['-srcwin', String(seriesColumnOf(series, col, row)), String(band - 1), '1', '1', '-b', '1']
        : ['-srcwin', String(col), String(row), '1', '1', '-b', String(band)];
      await gdalStep('gdal_translate -srcwin', (g) =>
        g.gdal_translate(ds, [...window, '-of', 'XYZ'], `${outMount.outputName}/px`),
      );
      const file = (await readdir(work)).find((f) => f.startsWith('px'));
      if (!file) throw new Error('gdal_translate wrote no XYZ file');
      const z = Number((await readFile(join(work, file), 'utf8')).trim().split(/\s+/)[2]);
      const b = info.bands[series ? 0 : band - 1] as { noDataValue?: number | string; scale?: number; offset?: number };
      if (b.noDataValue !== undefined && Number(b.noDataValue) === z) return null;
      return z * (b.scale ?? 1) + (b.offset ?? 0);
    } finally {
      await closeDataset(ds);
    }
  } finally {
    await unmount(outMount);
    await unmount(inMount);
    await rm(work, { recursive: true, force: true });
  }
}
