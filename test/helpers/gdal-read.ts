/**
 * Reads one pixel of a raster file with GDAL itself, for tests that compare
 * answers with "what GDAL reads": the pixel containing (x, y) in the file's
 * own CRS by gdallocationinfo's rule. A GeoTIFF through gdal3.js (cut out
 * with `gdal_translate -srcwin col row 1 1 -of XYZ`, nodata from gdalinfo,
 * scale and offset applied as GDAL reports them); a zarr store (a folder)
 * through Debian's native GDAL (`gdallocationinfo` on `ZARR:"store":/var:date`,
 * the way a GIS user opens it; gdal3.js takes no `ZARR:` names). Shares
 * nothing with src/rasters or geotiff.js.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { closeDataset, gdalStep, mount, openDataset, unmount } from '../../src/builder/raster-build-gdal.ts';

/** The value in units at (x, y) of 1-based `band`, or null at nodata or off the raster. */
export async function gdalPixel(path: string, band: number, x: number, y: number): Promise<number | null> {
  if (statSync(path).isDirectory()) return nativeZarrPixel(path, band, x, y);
  const host = resolve(path);
  const inMount = await mount(dirname(host));
  const work = await mkdtemp(join(tmpdir(), 'cq-gdal-read-'));
  const outMount = await mount(work);
  try {
    const { ds, info } = await openDataset(`${inMount.virtual}/${basename(host)}`);
    try {
      const gt = info.geoTransform!;
      const [width, height] = info.size;
      const col = Math.floor((x - gt[0]!) / gt[1]!);
      const row = Math.floor((y - gt[3]!) / gt[5]!);
      if (col < 0 || row < 0 || col >= width! || row >= height!) return null;
      const window = ['-srcwin', String(col), String(row), '1', '1', '-b', String(band)];
      await gdalStep('gdal_translate -srcwin', (g) =>
        g.gdal_translate(ds, [...window, '-of', 'XYZ'], `${outMount.outputName}/px`),
      );
      const file = (await readdir(work)).find((f) => f.startsWith('px'));
      if (!file) throw new Error('gdal_translate wrote no XYZ file');
      const z = Number((await readFile(join(work, file), 'utf8')).trim().split(/\s+/)[2]);
      const b = info.bands[band - 1] as { noDataValue?: number | string; scale?: number; offset?: number };
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

/**
 * Date `band` (1-based) of a zarr store at (lon, lat), read by native GDAL's Zarr driver as a GIS user
 * would: the store's data array is the one its `.zmetadata` gives dimensions time, lat, lon; the
 * value is scaled by the array's own scale_factor and add_offset; its fill value is null.
 */
function nativeZarrPixel(store: string, band: number, lon: number, lat: number): number | null {
  const meta = JSON.parse(readFileSync(join(store, '.zmetadata'), 'utf8')) as {
    metadata: Record<string, { _ARRAY_DIMENSIONS?: string[]; scale_factor?: number; add_offset?: number }>;
  };
  const entry = Object.entries(meta.metadata).find(
    ([k, v]) => /^[^/]+\/\.zattrs$/.test(k) && v._ARRAY_DIMENSIONS?.join() === 'time,lat,lon',
  );
  if (!entry) throw new Error(`${store} has no (time, lat, lon) array`);
  const variable = entry[0].split('/')[0]!;
  const name = `ZARR:"${store}":/${variable}:${band - 1}`;
  const info = JSON.parse(execFileSync('gdalinfo', ['-json', name], { encoding: 'utf8' })) as {
    size: [number, number];
    geoTransform: number[];
    bands: Array<{ noDataValue?: number }>;
  };
  const gt = info.geoTransform;
  const col = Math.floor((lon - gt[0]!) / gt[1]!);
  const row = Math.floor((lat - gt[3]!) / gt[5]!);
  if (col < 0 || row < 0 || col >= info.size[0] || row >= info.size[1]) return null;
  const out = execFileSync('gdallocationinfo', ['-valonly', name, String(col), String(row)], { encoding: 'utf8' });
  const z = Number(out.trim());
  if (info.bands[0]?.noDataValue !== undefined && z === Number(info.bands[0].noDataValue)) return null;
  return z * (entry[1].scale_factor ?? 1) + (entry[1].add_offset ?? 0);
}
