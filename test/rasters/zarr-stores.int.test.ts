/**
 * Daily layers as Zarr stores, built by the real build and read three ways:
 * by the engine, by Debian's native GDAL (the Zarr driver, as a GIS user
 * opens a store) and by xarray (as a climate scientist does). Also: both
 * input interleaves give the same store, a preview reduces by block means
 * and states the full grid's range, values outside Int16 are refused
 * naming the band and pixel, and a hostile chunk costs no more than its
 * declared size.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeInputGeoTiff } from '../../src/builder/raster-build-input.ts';
import { buildRasterLayer } from '../../src/builder/raster-build.ts';
import { parseRange } from '../../src/contract/periods.ts';
import type { Catalog, RasterLayerEntry } from '../../src/dataset/catalog.ts';
import { urlLocation } from '../../src/dataset/location.ts';
import { fileLocation } from '../../src/node/file-location.ts';
import { createRasterEngine } from '../../src/rasters/raster-engine.ts';
import { dataChunkKey } from '../../src/rasters/zarr-layout.ts';
import { gdalPixel } from '../helpers/gdal-read.ts';
import { startRangeServer } from '../helpers/range-server.ts';
import { rng } from '../helpers/random-shapes.ts';
import { readZarrInt16 } from '../helpers/zarr-read.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

/** A grid wider than 1,024 px, so its preview is reduced (factor 2), with a ragged east and south edge. */
const G = { west: 18.0, north: -33.0, res: 0.001, width: 1101, height: 43 };
const DAYS = Array.from({ length: 40 }, (_, i) =>
  new Date(Date.UTC(2024, 1, 10) + i * 86_400_000).toISOString().slice(0, 10),
);
const NODATA = -9999;
const value = (c: number, r: number, b: number) =>
  (c * 7 + r * 13) % 50 === 0 ? NODATA : 10 + 0.01 * c - 0.05 * r + 2 * Math.sin(b / 3) + 0.3 * Math.cos(c * r + b);

let root: string;
let catalog: Catalog;
let layer: RasterLayerEntry;
let pixelLayer: RasterLayerEntry;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-zarr-'));
  const base = {
    width: G.width,
    height: G.height,
    geoTransform: [G.west, G.res, 0, G.north, 0, -G.res] as [number, number, number, number, number, number],
    nodata: NODATA,
    bands: DAYS.length,
    descriptions: DAYS,
    fill: (b: number, out: Float32Array) => {
      for (let r = 0; r < G.height; r++) for (let c = 0; c < G.width; c++) out[r * G.width + c] = value(c, r, b);
    },
  };
  await writeInputGeoTiff(join(root, 'band.tif'), base);
  // What gdal_translate writes for a multi-band file by default: every band of a pixel together, compressed.
  await writeInputGeoTiff(join(root, 'pixel.tif'), {
    ...base,
    creationOptions: ['-co', 'INTERLEAVE=PIXEL', '-co', 'COMPRESS=DEFLATE'],
  });
  const dir = join(root, 'dataset');
  for (const [sub, input] of [
    ['band', 'band.tif'],
    ['pixel', 'pixel.tif'],
  ] as const) {
    await buildRasterLayer({
      dir,
      datasetName: 'zarr-test',
      dataType: 'tmean',
      subDataType: sub,
      unit: '°C',
      timeScale: 'daily',
      extent: 'strip',
      layout: 'zarr',
      inputs: [join(root, input)],
    });
  }
  catalog = (await catalogJson(join(dir, 'catalog.json'))) as Catalog;
  layer = catalog.rasters.find((l) => l.subDataType === 'band')!;
  pixelLayer = catalog.rasters.find((l) => l.subDataType === 'pixel')!;
}, 300_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const store = (l: RasterLayerEntry) => join(root, 'dataset', l.files[0]!.path);

describe('daily layers as Zarr stores', () => {
  it('the scale was chosen from the values (one extra read), and both interleaves wrote the same values', () => {
    // No --scale, not a family: the finest power of ten at which every value fits Int16.
    expect(layer.scale).toBe(0.001);
    expect(layer.zarr).toEqual({ variable: 'tmean_band', chunk: 8, previewFactor: 2 });
    const a = readZarrInt16(store(layer), 'tmean_band');
    const b = readZarrInt16(store(pixelLayer), 'tmean_pixel');
    expect(a.shape).toEqual([DAYS.length, G.height, G.width]);
    expect(b.data).toEqual(a.data);
    // And they are the inputs, rounded to the step.
    let worst = 0;
    for (let t = 0; t < DAYS.length; t++) {
      for (let r = 0; r < G.height; r++) {
        for (let c = 0; c < G.width; c++) {
          const raw = a.data[(t * G.height + r) * G.width + c]!;
          const want = value(c, r, t);
          if (want === NODATA) expect(raw).toBe(-32768);
          else worst = Math.max(worst, Math.abs(raw * layer.scale - Math.fround(want)));
        }
      }
    }
    expect(worst).toBeLessThanOrEqual(layer.scale / 2 + 1e-9);
  });

  it('native GDAL opens a store as a georeferenced grid (EPSG:4326, the catalog’s origin and pixel size, nodata, scale)', () => {
    const v = layer.zarr!.variable;
    const info = JSON.parse(
      execFileSync('gdalinfo', ['-json', `ZARR:"${store(layer)}":/${v}:5`], { encoding: 'utf8' }),
    ) as {
      size: number[];
      geoTransform: number[];
      coordinateSystem: { wkt: string };
      bands: Array<{ noDataValue: number; scale: number; offset: number; block: number[] }>;
    };
    expect(info.size).toEqual([G.width, G.height]);
    expect(info.geoTransform[0]).toBeCloseTo(G.west, 10);
    expect(info.geoTransform[1]).toBeCloseTo(G.res, 12);
    expect(info.geoTransform[3]).toBeCloseTo(G.north, 10);
    expect(info.geoTransform[5]).toBeCloseTo(-G.res, 12);
    expect(info.coordinateSystem.wkt).toMatch(/ID\["EPSG",4326\]/);
    expect(info.bands[0]).toMatchObject({ noDataValue: -32768, scale: layer.scale, offset: 0, block: [8, 8] });
    // The multidimensional view names the dates: the time coordinate in CF units.
    const md = execFileSync('gdalmdiminfo', [store(layer)], { encoding: 'utf8' });
    expect(md).toContain('days since 1970-01-01');
  });

  it('engine answers equal native GDAL’s reads of the stores and of the inputs, at 40 random pixel-dates', async () => {
    const engine = createRasterEngine({ catalog, dataset: fileLocation(join(root, 'dataset')) });
    const rand = rng(17);
    for (let k = 0; k < 40; k++) {
      const c = Math.floor(rand() * G.width);
      const r = Math.floor(rand() * G.height);
      const t = Math.floor(rand() * DAYS.length);
      const lon = G.west + (c + 0.5) * G.res;
      const lat = G.north - (r + 0.5) * G.res;
      const res = await engine.query({
        endpoint: 'point',
        dataType: 'tmean',
        subDataType: k % 2 ? 'pixel' : 'band',
        extent: 'strip',
        range: parseRange('daily', DAYS[t]!, DAYS[t]!),
        geometries: [{ kind: 'point', key: 'P', index: 0, position: [lon, lat] }],
        aggregationMethod: null,
      });
      const got = (res.P as Record<string, number | null>)[DAYS[t]!];
      const fromStore = await gdalPixel(store(k % 2 ? pixelLayer : layer), t + 1, lon, lat);
      const fromInput = await gdalPixel(join(root, 'band.tif'), t + 1, lon, lat);
      if (fromInput === null || fromInput === NODATA) {
        expect(got).toBeNull();
        expect(fromStore).toBeNull();
      } else {
        expect(got).toBeCloseTo(fromStore!, 9);
        expect(Math.abs(got! - fromInput)).toBeLessThanOrEqual(layer.scale / 2 + 1e-6);
      }
    }
    await engine.close();
  });

  it('xarray opens a store with decoded dates, scale and nodata; its values are the engine’s', () => {
    const py = [
      'import sys, json, xarray as xr',
      'ds = xr.open_zarr(sys.argv[1])',
      'v = ds[sys.argv[2]]',
      'p = v.isel(lat=7, lon=1000)',
      "print(json.dumps({'dates': [str(t)[:10] for t in ds.time.values], 'values': [None if x != x else round(float(x), 6) for x in p.values], 'units': v.attrs.get('units')}))",
    ].join('\n');
    const out = JSON.parse(
      execFileSync('/usr/bin/python3', ['-c', py, store(layer), layer.zarr!.variable], { encoding: 'utf8' }),
    ) as { dates: string[]; values: Array<number | null>; units: string };
    expect(out.dates).toEqual(DAYS);
    expect(out.units).toBe('°C');
    const a = readZarrInt16(store(layer), layer.zarr!.variable);
    out.values.forEach((x, t) => {
      const raw = a.data[(t * G.height + 7) * G.width + 1000]!;
      if (raw === -32768) expect(x).toBeNull();
      else expect(x).toBeCloseTo(raw * layer.scale, 5);
    });
  });

  it('a preview is the mean of each 2 × 2 block’s valid pixels, with the full grid’s range for the legend', async () => {
    const engine = createRasterEngine({ catalog, dataset: fileLocation(join(root, 'dataset')) });
    const t = 11;
    const grid = await engine.grid({ dataType: 'tmean', subDataType: 'band', period: DAYS[t]! });
    expect([grid.width, grid.height]).toEqual([551, 22]);
    const a = readZarrInt16(store(layer), layer.zarr!.variable);
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < G.width * G.height; i++) {
      const raw = a.data[t * G.width * G.height + i]!;
      if (raw === -32768) continue;
      lo = Math.min(lo, raw);
      hi = Math.max(hi, raw);
    }
    expect(grid.min).toBeCloseTo(lo * layer.scale, 9);
    expect(grid.max).toBeCloseTo(hi * layer.scale, 9);
    for (const [pc, pr] of [
      [0, 0],
      [300, 10],
      [550, 21],
      [77, 3],
    ] as const) {
      let sum = 0;
      let n = 0;
      for (let r = 2 * pr; r < Math.min(G.height, 2 * pr + 2); r++) {
        for (let c = 2 * pc; c < Math.min(G.width, 2 * pc + 2); c++) {
          const raw = a.data[(t * G.height + r) * G.width + c]!;
          if (raw !== -32768) {
            sum += raw;
            n++;
          }
        }
      }
      const want = n === 0 ? Number.NaN : Math.sign(sum) * Math.round(Math.abs(sum) / n) * layer.scale;
      if (n === 0) expect(grid.values[pr * grid.width + pc]).toBeNaN();
      else expect(grid.values[pr * grid.width + pc]).toBeCloseTo(want, 5);
    }
    expect(grid.bbox[0]).toBe(layer.bbox[0]);
    expect(grid.bbox[3]).toBe(layer.bbox[3]);
    await engine.close();
  });

  it('the map view of one date over HTTP reads two objects (its preview and the ranges) and their digests, nothing else', async () => {
    const server = await startRangeServer(join(root, 'dataset'));
    const engine = createRasterEngine({ catalog, dataset: urlLocation(server.url) });
    try {
      await engine.grid({ dataType: 'tmean', subDataType: 'band', period: DAYS[3]! });
      expect(server.log.map((e) => decodeURIComponent(e.path)).sort()).toEqual(
        [
          `/${layer.files[0]!.path}/preview/range/0.0`,
          `/${layer.files[0]!.path}/preview/${layer.zarr!.variable}/3.0.0`,
          `/${layer.files[0]!.path}/chunk-digests`,
          `/${layer.files[0]!.path}/chunk-digests`,
        ].sort(),
      );
    } finally {
      await engine.close();
      await server.close();
    }
  });

  it('a value that does not fit Int16 at the step is refused, naming the input band, date and pixel', async () => {
    const f = join(root, 'hot.tif');
    await writeInputGeoTiff(f, {
      width: 20,
      height: 10,
      geoTransform: [G.west, G.res, 0, G.north, 0, -G.res],
      bands: 35,
      descriptions: DAYS.slice(0, 35),
      fill: (b, out) => {
        out.fill(20);
        if (b === 30) out[3 * 20 + 7] = 4000;
      },
    });
    await expect(
      buildRasterLayer({ dir: join(root, 'hot'), dataType: 'temp', subDataType: 'max', extent: 'tc', inputs: [f] }),
    ).rejects.toMatchObject({
      message: expect.stringMatching(
        /hot\.tif band 31 \(2024-03-11\) holds 4000 at pixel 7, 3, which does not fit Int16 at scale 0\.1/,
      ),
    });
  });

  it('a hostile chunk (a zlib bomb in place of a chunk) is refused at its declared size, quickly', async () => {
    const copy = join(root, 'bomb');
    execFileSync('cp', ['-r', join(root, 'dataset'), copy]);
    const key = dataChunkKey(layer.zarr!.variable, 3, 2);
    const path = join(copy, layer.files[0]!.path, key);
    // 256 MiB of one byte value: 250 KB compressed.
    writeFileSync(path, deflateSync(new Uint8Array(256 * 1024 * 1024).fill(7), { level: 9 }));
    expect(readFileSync(path).length).toBeLessThan(300_000);
    const engine = createRasterEngine({ catalog, dataset: fileLocation(copy) });
    const t0 = performance.now();
    const before = process.memoryUsage().rss;
    const err = await engine
      .query({
        endpoint: 'point',
        dataType: 'tmean',
        subDataType: 'band',
        extent: 'strip',
        range: parseRange('daily', DAYS[0]!, DAYS[1]!),
        geometries: [{ kind: 'point', key: 'P', index: 0, position: [G.west + 28.5 * G.res, G.north - 20.5 * G.res] }],
        aggregationMethod: null,
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'dataset_unavailable', message: expect.stringContaining(key) });
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
    await engine.close();
  });
});
