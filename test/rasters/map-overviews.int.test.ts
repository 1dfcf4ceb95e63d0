/**
 * A `map` layer is written as a Cloud-Optimized GeoTIFF (GDAL's own validator passes it), with
 * overviews where its grid is wider or taller than a map preview's longest edge. Its map preview
 * then reads the overview and no full-resolution tile: its values are GDAL's own overview values,
 * its legend the full grid's range as GDAL computes it, and the overviews' tiles prove they are the
 * build's as the full grid's do. Points still read the full grid, equal to GDAL.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromFile } from 'geotiff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRasterLayer } from '../../src/builder/raster-build.ts';
import type { Catalog, RasterLayerEntry } from '../../src/dataset/catalog.ts';
import { urlLocation } from '../../src/dataset/location.ts';
import { createRasterEngine } from '../../src/rasters/raster-engine.ts';
import { PREVIEW_MAX_EDGE } from '../../src/rasters/zarr-layout.ts';
import { catalogJson } from '../helpers/catalog-json.ts';
import { gdalPixel } from '../helpers/gdal-read.ts';
import { pointSeries } from '../helpers/point-series.ts';
import { writeGridInput } from '../helpers/grid-inputs.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';

/** Wider than a preview may be, so the build writes overviews; three months, the last all missing. */
const G = { west: 18, north: -33, res: 0.002, width: 1100, height: 70 };
const MONTHS = ['2024-01', '2024-02', '2024-03'];
// A bay, and open sea east of column 700: whole overview tiles of sea, which the file leaves out.
const SEA = (c: number, r: number) => (c - 300) ** 2 + (r - 35) ** 2 < 20 ** 2 || c >= 700;
const value = (c: number, r: number, b: number) =>
  b === 2 || SEA(c, r)
    ? Number.NaN
    : 10 + b * 3 + Math.sin(c / 37) * 4 + Math.cos(r / 11) * 2 + ((c * 7 + r * 13) % 5) / 10;

let root: string;
let dataset: string;
let layer: RasterLayerEntry;
let file: string;
let server: RangeServer;
let catalog: Catalog;
const catalogFile = (path: string) => catalog.files.find((f) => f.path === path)!;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-map-overviews-'));
  dataset = join(root, 'ds');
  await writeGridInput(join(root, 'tmon.tif'), G, MONTHS, value);
  await buildRasterLayer({
    dir: dataset,
    dataType: 'tmon',
    subDataType: '-',
    unit: '°C',
    timeScale: 'monthly',
    extent: 'tc',
    inputs: [join(root, 'tmon.tif')],
  });
  catalog = (await catalogJson(join(dataset, 'catalog.json'))) as Catalog;
  layer = catalog.rasters[0]!;
  file = join(dataset, layer.files[0]!.path);
  server = await startRangeServer(dataset);
}, 300_000);
afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

/** GDAL's CLI (Debian's gdal-bin, not the build's gdal3.js) on `args`. */
const gdal = (tool: string, args: string[]) => execFileSync(tool, args, { encoding: 'utf8' });

/** Band `band` (1-based) of overview `ovr` (0 = largest) as GDAL reads it: rows of numbers, null at nodata. */
function gdalOverview(ovr: number, band: number): { width: number; height: number; values: Array<number | null> } {
  const out = join(root, `ovr${ovr}-${band}.asc`);
  gdal('gdal_translate', ['-q', '-ovr', String(ovr), '-b', String(band), '-of', 'AAIGrid', file, out]);
  const lines = execFileSync('cat', [out], { encoding: 'utf8' }).trim().split('\n');
  const head = new Map(lines.slice(0, 6).map((l) => l.trim().split(/\s+/) as [string, string]));
  const nodata = Number(head.get('NODATA_value') ?? Number.NaN);
  const rows = lines.filter((l) => !/^[a-zA-Z]/.test(l.trim()));
  const values = rows.flatMap((l) => l.trim().split(/\s+/).map(Number)).map((v) => (v === nodata ? null : v));
  return { width: Number(head.get('ncols')), height: Number(head.get('nrows')), values };
}

describe('a map layer wider than a preview', () => {
  it('is a Cloud-Optimized GeoTIFF with overviews, as GDAL validates and reads it', async () => {
    const validator = '/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_cloud_optimized_geotiff.py';
    const said = execFileSync('/usr/bin/python3', [validator, file], { encoding: 'utf8' });
    expect(said).toContain('is a valid cloud optimized GeoTIFF');
    const info = JSON.parse(gdal('gdalinfo', ['-json', file])) as {
      bands: Array<{ overviews?: Array<{ size: [number, number] }>; block: [number, number] }>;
    };
    expect(info.bands[0]!.block).toEqual(layer.tileSize);
    expect(info.bands[0]!.overviews![0]!.size).toEqual([550, 35]);
    // Left out (byte count 0) tiles of sea in the overview too: read as nodata, never as 0.
    const tiff = await fromFile(file);
    try {
      const counts = (await (await tiff.getImage(1)).fileDirectory.loadValue('TileByteCounts')) as ArrayLike<number>;
      expect(Array.from(counts, Number).filter((n) => n === 0).length).toBeGreaterThan(0);
    } finally {
      tiff.close();
    }
  });

  it('previews a month from its overview alone: GDAL’s overview values, the full grid’s range', async () => {
    const engine = createRasterEngine({ catalog, dataset: urlLocation(server.url) });
    try {
      server.reset();
      const grid = await engine.grid({
        dataType: 'tmon',
        subDataType: '-',
        period: layer.files[0]!.periods[2 - 1]!,
        extent: 'tc',
      });
      expect([grid.width, grid.height]).toEqual([550, 35]);
      expect(Math.max(grid.width, grid.height)).toBeLessThanOrEqual(PREVIEW_MAX_EDGE);
      const oracle = gdalOverview(0, 2);
      expect([oracle.width, oracle.height]).toEqual([550, 35]);
      const scale = layer.scale!;
      let compared = 0;
      for (let i = 0; i < oracle.values.length; i++) {
        const want = oracle.values[i]!;
        if (want === null) expect(grid.values[i]).toBeNaN();
        else expect(grid.values[i]).toBeCloseTo(want * scale, 4);
        compared += want === null ? 0 : 1;
      }
      expect(compared).toBeGreaterThan(8_000);
      expect(compared).toBeLessThan(oracle.values.length - 5_000);
      // The legend's range is the full grid's (gdalinfo -mm), not the overview's narrower one.
      const mm = JSON.parse(gdal('gdalinfo', ['-json', '-mm', file])) as {
        bands: Array<{ computedMin: number; computedMax: number }>;
      };
      expect(grid.min).toBeCloseTo(mm.bands[1]!.computedMin * scale, 4);
      expect(grid.max).toBeCloseTo(mm.bands[1]!.computedMax * scale, 4);
      const ovr = oracle.values.filter((v): v is number => v !== null);
      expect(Math.min(...ovr) * scale).toBeGreaterThanOrEqual(grid.min);

      // Bytes: the header with its digests, then the overview's tiles; no full-resolution tile.
      const tiff = await fromFile(file);
      try {
        const full = await tiff.getImage(0);
        const offsets = Array.from((await full.fileDirectory.loadValue('TileOffsets')) as ArrayLike<number>, Number);
        const firstFullTile = Math.min(...offsets.filter((o) => o > 0));
        const table = catalogFile(layer.files[0]!.path).tiles!;
        const ranges = server.log.filter((l) => l.method === 'GET' && l.range).map((l) => l.range!);
        expect(ranges.length).toBeGreaterThan(0);
        for (const r of ranges) {
          const [from, to] = r.replace('bytes=', '').split('-').map(Number) as [number, number];
          // Blocks are read whole, so one may run past the overviews or start before the digest table.
          expect(from < firstFullTile || to >= table.offset, `range ${r} reads full-resolution tiles only`).toBe(true);
        }
        const block = 16 * 1024;
        expect(await overviewDataBytes(file)).toBeLessThan(firstFullTile - (await overviewStart(file)) + 1);
        expect(server.bytes).toBeLessThanOrEqual(Math.ceil(firstFullTile / block) * block + 2 * block);
      } finally {
        tiff.close();
      }
    } finally {
      await engine.close();
    }
  });

  it('previews a month with no value as empty, and answers points from the full grid as GDAL reads it', async () => {
    const engine = createRasterEngine({ catalog, dataset: urlLocation(server.url) });
    try {
      const empty = await engine.grid({
        dataType: 'tmon',
        subDataType: '-',
        period: layer.files[0]!.periods[3 - 1]!,
        extent: 'tc',
      });
      expect(empty.values.every(Number.isNaN)).toBe(true);
      expect(empty.min).toBeNaN();
      for (const [c, r] of [
        [0, 0],
        [517, 44],
        [1099, 69],
        [300, 35],
      ] as const) {
        const lon = G.west + (c + 0.5) * G.res;
        const lat = G.north - (r + 0.5) * G.res;
        const got = await pointSeries(dataset, {
          layer: 'tmon',
          extent: 'tc',
          lon,
          lat,
          startDate: '2024-01',
          endDate: '2024-03',
          timeScale: 'monthly',
        });
        const want = await Promise.all(MONTHS.map((_, b) => gdalPixel(file, b + 1, lon, lat)));
        expect(Object.values(got)).toHaveLength(3);
        Object.values(got).forEach((v, b) => {
          if (want[b] === null) expect(v, `${c},${r} ${MONTHS[b]}`).toBeNull();
          else expect(v, `${c},${r} ${MONTHS[b]}`).toBeCloseTo(want[b]!, 6);
        });
      }
    } finally {
      await engine.close();
    }
  });

  it('refuses an overview tile rewritten in place, naming it, and previews nothing from it', async () => {
    const copy = join(root, 'tampered');
    execFileSync('cp', ['-r', dataset, copy]);
    const path = join(copy, layer.files[0]!.path);
    const tiff = await fromFile(path);
    let at: [number, number];
    try {
      const ovr = await tiff.getImage(1);
      const offsets = (await ovr.fileDirectory.loadValue('TileOffsets')) as ArrayLike<number>;
      const counts = (await ovr.fileDirectory.loadValue('TileByteCounts')) as ArrayLike<number>;
      at = [Number(offsets[1]), Number(counts[1])];
    } finally {
      tiff.close();
    }
    const fh = await open(path, 'r+');
    try {
      const buf = Buffer.alloc(at[1]);
      await fh.read(buf, 0, at[1], at[0]);
      buf.reverse();
      await fh.write(buf, 0, at[1], at[0]);
    } finally {
      await fh.close();
    }
    const tampered = await startRangeServer(copy);
    const catalog = (await catalogJson(join(copy, 'catalog.json'))) as Catalog;
    // The catalog's whole-file hash is not asked for here: the tile's own digest must catch it.
    const files = catalog.files.map(({ sha256: _drop, ...f }) => f);
    await writeFile(join(copy, 'catalog.json'), JSON.stringify({ ...catalog, files }));
    const engine = createRasterEngine({ catalog: { ...catalog, files }, dataset: urlLocation(tampered.url) });
    try {
      await expect(
        engine.grid({ dataType: 'tmon', subDataType: '-', period: layer.files[0]!.periods[1 - 1]!, extent: 'tc' }),
      ).rejects.toMatchObject({
        code: 'dataset_unavailable',
        message: expect.stringMatching(/tile \d+ is not the tile/),
      });
    } finally {
      await engine.close();
      await tampered.close();
    }
  });
});

/** The bytes of every overview tile of `path` (what a preview may read at most, besides the header). */
async function overviewDataBytes(path: string): Promise<number> {
  const tiff = await fromFile(path);
  try {
    const ovr = await tiff.getImage(1);
    const counts = (await ovr.fileDirectory.loadValue('TileByteCounts')) as ArrayLike<number>;
    return Array.from(counts, Number).reduce((a, b) => a + b, 0);
  } finally {
    tiff.close();
  }
}

/** Where the first overview tile of `path` starts: the header ends there. */
async function overviewStart(path: string): Promise<number> {
  const tiff = await fromFile(path);
  try {
    let first = Number.POSITIVE_INFINITY;
    for (let i = 1; i < (await tiff.getImageCount()); i++) {
      const offsets = (await (await tiff.getImage(i)).fileDirectory.loadValue('TileOffsets')) as ArrayLike<number>;
      for (const o of Array.from(offsets, Number)) if (o > 0) first = Math.min(first, o);
    }
    return first;
  } finally {
    tiff.close();
  }
}
