/**
 * The raster build: what it writes (layout, values, band descriptions,
 * catalog entries) and what it refuses. Values are checked against the
 * functions that generated the inputs, decoded whole with geotiff.js.
 */
import { chooseTileSize } from '../../src/builder/raster-tiling.ts';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fromFile } from 'geotiff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeInputGeoTiff } from '../../src/builder/raster-build-input.ts';
import { buildRasterLayer, STORED_NODATA } from '../../src/builder/raster-build.ts';
import type { Catalog, RasterLayerEntry } from '../../src/dataset/catalog.ts';
import {
  buildRasterFixture,
  dailyValue,
  FIXTURE_GRID,
  hash,
  isNodataPixel,
  type RasterFixture,
} from '../helpers/raster-fixture.ts';
import { decodeWhole } from '../helpers/raster-oracle.ts';
import { readZarrCoordinate, readZarrInt16 } from '../helpers/zarr-read.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

let fx: RasterFixture;
beforeAll(async () => {
  fx = await buildRasterFixture();
});
afterAll(async () => {
  await fx?.cleanup();
});

const layer = (dataType: string, sub: string): RasterLayerEntry =>
  fx.catalog.rasters.find((l) => l.dataType === dataType && l.subDataType === sub)!;
const g = FIXTURE_GRID;

describe('raster build output', () => {
  it('stores every input value rounded to the layer step, nodata as -32768', async () => {
    const l = layer('temp', 'mean');
    const r = await decodeWhole(join(fx.dataset, l.files[0]!.path));
    expect(r.nodata).toBe(STORED_NODATA);
    expect([r.width, r.height, r.bands.length]).toEqual([g.width, g.height, 365]);
    let compared = 0;
    let worst = 0;
    let nodataWrong = 0;
    // Plain loops and one assertion at the end: 2.5 M expect() calls would take half a minute.
    for (let b = 0; b < 365; b++) {
      const band = r.bands[b]!;
      for (let row = 0; row < g.height; row++) {
        for (let col = 0; col < g.width; col++) {
          const raw = band[row * g.width + col]!;
          if (isNodataPixel(col, row)) {
            if (raw !== STORED_NODATA) nodataWrong++;
          } else {
            worst = Math.max(worst, Math.abs(raw * l.scale - Math.fround(dailyValue(col, row, b))));
            compared++;
          }
        }
      }
    }
    expect(nodataWrong).toBe(0);
    // Float32 input, rounded to the nearest 0.1 °C (GDAL scales in float32, so exact ties may go either way).
    expect(worst).toBeLessThanOrEqual(l.scale / 2 + 1e-5);
    expect(worst).toBeGreaterThan(l.scale / 2 - 1e-3);
    expect(compared).toBeGreaterThan(365 * 6000);
  });

  it('writes Int16: long stacks as Zarr stores, the rest as tiled compressed maps with band descriptions = periods', async () => {
    const layouts = new Set<string>();
    for (const l of fx.catalog.rasters) {
      const most = l.files.reduce((m, x) => Math.max(m, x.periods.length), 0);
      // The layout the build chose from the band count, as the catalog records it (raster-tiling.ts).
      const zarr = most > 32;
      expect(l.layout).toBe(zarr ? 'zarr' : undefined);
      layouts.add(l.layout ?? 'map');
      for (const f of l.files) {
        if (zarr) {
          // A Zarr v2 store described by its own metadata: no reader needs the catalog to open it.
          const store = join(fx.dataset, f.path);
          const meta = JSON.parse(await readFile(join(store, '.zmetadata'), 'utf8')).metadata;
          const v = l.zarr!.variable;
          expect(meta[`${v}/.zarray`]).toMatchObject({
            zarr_format: 2,
            shape: [f.periods.length, l.height, l.width],
            chunks: [f.periods.length, 8, 8],
            dtype: '<i2',
            fill_value: STORED_NODATA,
            order: 'C',
            compressor: { id: 'zlib' },
            filters: [{ id: 'delta', dtype: '<i2' }],
          });
          expect(meta[`${v}/.zattrs`]).toMatchObject({
            _ARRAY_DIMENSIONS: ['time', 'lat', 'lon'],
            scale_factor: l.scale,
            add_offset: l.offset,
            units: l.unit,
          });
          expect(l.tileSize).toEqual([8, 8]);
          // Its dates are the catalog's periods (days since 1970-01-01), its pixel centres the catalog's grid.
          const days = readZarrCoordinate(store, 'time');
          expect(days.map((d) => new Date(d * 86_400_000).toISOString().slice(0, 10))).toEqual(f.periods);
          const lon = readZarrCoordinate(store, 'lon');
          const lat = readZarrCoordinate(store, 'lat');
          expect(lon).toHaveLength(l.width);
          expect(lat).toHaveLength(l.height);
          expect(lon[0]! - l.resolution![0] / 2).toBeCloseTo(l.bbox[0], 12);
          expect(lat[0]! + l.resolution![1] / 2).toBeCloseTo(l.bbox[3], 12);
          expect(lon[1]! - lon[0]!).toBeCloseTo(l.resolution![0], 12);
          // The preview: one chunk per date; on a grid this small, the full grid itself.
          expect(l.zarr!.previewFactor).toBe(1);
          expect(meta[`preview/${v}/.zarray`]).toMatchObject({
            shape: [f.periods.length, l.height, l.width],
            chunks: [1, l.height, l.width],
          });
          const preview = readZarrInt16(store, `preview/${v}`);
          expect(preview.data).toEqual(readZarrInt16(store, v).data);
          continue;
        }
        const tiff = await fromFile(join(fx.dataset, f.path));
        const image = await tiff.getImage();
        const fd = image.fileDirectory;
        expect(await tiff.getImageCount()).toBe(1);
        expect(image.isTiled).toBe(true);
        expect(image.planarConfiguration).toBe(1);
        expect(image.getBitsPerSample()).toBe(16);
        expect(image.getSampleFormat()).toBe(2);
        expect(await fd.loadValue('Compression')).toBe(8);
        expect(await fd.loadValue('Predictor')).toBe(2);
        expect(image.getGDALNoData()).toBe(STORED_NODATA);
        // The header (IFD) comes first, so a range reader finds it in the first block.
        expect(tiff.firstIFDOffset).toBeLessThan(1024);
        const edge = chooseTileSize(most);
        expect([image.getTileWidth(), image.getTileHeight()]).toEqual([edge, edge]);
        expect(l.tileSize).toEqual([edge, edge]);
        expect(image.getSamplesPerPixel()).toBe(f.periods.length);
        for (const [i, period] of f.periods.entries()) {
          const md = (await image.getGDALMetadata(i)) as Record<string, string> | null;
          if (l.timeScale !== null) expect(md?.DESCRIPTION).toBe(period);
          // GDAL leaves out the default scale 1 / offset 0.
          expect(Number(md?.SCALE ?? 1)).toBeCloseTo(l.scale, 12);
          expect(Number(md?.OFFSET ?? 0)).toBeCloseTo(l.offset, 12);
        }
        await tiff.close();
      }
    }
    expect([...layouts].sort()).toEqual(['map', 'zarr']);
  });

  it('registers each layer with its periods, grid and file layout', async () => {
    const catalog = (await catalogJson(join(fx.dataset, 'catalog.json'))) as Catalog;
    const byName = new Map(catalog.rasters.map((l) => [`${l.dataType}/${l.subDataType}`, l]));
    expect([...byName.keys()].sort()).toEqual([
      'chill/dpcu',
      'gdd/apples',
      'rain/monthly_median',
      'temp/max',
      'temp/mean',
      'windspeed/20',
      'windspeed/50',
    ]);
    const tmean = byName.get('temp/mean')!;
    expect(tmean).toMatchObject({
      timeScale: 'daily',
      unit: '°C',
      crs: 'EPSG:4326',
      extent: 'tc',
      width: g.width,
      height: g.height,
      scale: 0.1,
      offset: 0,
      nodata: -32768,
    });
    expect(tmean.resolution).toEqual([g.res, g.res]);
    expect(tmean.bbox[0]).toBe(g.west);
    expect(tmean.bbox[3]).toBe(g.north);
    // A store is named by its year and its build's id, so a rebuild never writes into a store in use.
    expect(tmean.files.map((f) => f.path)).toEqual([
      expect.stringMatching(/^rasters\/temp-mean\/2023-[0-9a-f]{8}\.zarr$/),
    ]);
    expect(tmean).toMatchObject({ layout: 'zarr', zarr: { variable: 'temp_mean', chunk: 8, previewFactor: 1 } });
    expect(tmean.files[0]!.periods[0]).toBe('2023-01-01');
    expect(tmean.files[0]!.periods[364]).toBe('2023-12-31');
    // A map file too is named by its group and its build's id: a rebuild writes a new file beside the old.
    expect(byName.get('temp/max')!.files.map((f) => [f.path, f.periods.length])).toEqual([
      [expect.stringMatching(/^rasters\/temp-max\/2023-[0-9a-f]{8}\.tif$/), 12],
      [expect.stringMatching(/^rasters\/temp-max\/2024-[0-9a-f]{8}\.tif$/), 10],
    ]);
    expect(byName.get('gdd/apples')!.files).toEqual([
      {
        path: expect.stringMatching(/^rasters\/gdd-apples\/years-[0-9a-f]{8}\.tif$/),
        periods: ['2019', '2020', '2021', '2022', '2023', '2024'],
      },
    ]);
    expect(byName.get('chill/dpcu')!.files[0]!.periods).toEqual(['2022', '2023', '2024']);
    expect(byName.get('rain/monthly_median')!).toMatchObject({
      timeScale: 'calendar_month',
      extent: 'sa',
      files: [{ path: expect.stringMatching(/^rasters\/rain-monthly_median\/months-[0-9a-f]{8}\.tif$/) }],
    });
    expect(byName.get('windspeed/20')!).toMatchObject({
      timeScale: null,
      files: [{ path: expect.stringMatching(/^rasters\/windspeed-20\/layer-[0-9a-f]{8}\.tif$/), periods: [''] }],
    });
    for (const f of catalog.files) expect(existsSync(join(fx.dataset, f.path))).toBe(true);
    expect(catalog.files.filter((f) => f.role === 'raster')).toHaveLength(7);
    // A store is listed by its consolidated metadata, hashed like any file.
    expect(catalog.files.filter((f) => f.role === 'raster-store').map((f) => f.path)).toEqual([
      `${tmean.files[0]!.path}/.zmetadata`,
    ]);
  });

  it('dates single-band files by the stated file-name pattern and keeps values per date', async () => {
    const l = layer('gdd', 'apples');
    const r = await decodeWhole(join(fx.dataset, l.files[0]!.path));
    for (const [b, period] of l.files[0]!.periods.entries()) {
      const y = Number(period);
      for (const [col, row] of [
        [10, 10],
        [70, 50],
      ] as const) {
        expect(r.bands[b]![row * g.width + col]).toBe(
          Math.round(Math.fround(1500 + 10 * col + 5 * row + 100 * (y - 2019) + 50 * hash(col, row, y))),
        );
      }
    }
  });

  it('a build of one year adds it and keeps the others; --replace replaces the layer and drops files it no longer has', async () => {
    const before = ((await catalogJson(join(fx.dataset, 'catalog.json'))) as Catalog).rasters.find(
      (l) => l.dataType === 'temp' && l.subDataType === 'max',
    )!;
    // 2024 rebuilt alone: 2023 stays as it was.
    await buildRasterLayer({
      dir: fx.dataset,
      dataType: 'temp',
      subDataType: 'max',
      inputs: [join(fx.inputs, 'tmax-b.tif')],
    });
    const added = ((await catalogJson(join(fx.dataset, 'catalog.json'))) as Catalog).rasters.find(
      (l) => l.dataType === 'temp' && l.subDataType === 'max',
    )!;
    // 2023 as it was; 2024 in a new file of the same dates, the old one deleted once the catalog moved on.
    expect(added.files[0]).toEqual(before.files[0]);
    expect(added.files[1]!.periods).toEqual(before.files[1]!.periods);
    expect(added.files[1]!.path).not.toBe(before.files[1]!.path);
    expect(existsSync(join(fx.dataset, before.files[0]!.path))).toBe(true);
    expect(existsSync(join(fx.dataset, before.files[1]!.path))).toBe(false);
    await buildRasterLayer({
      dir: fx.dataset,
      dataType: 'temp',
      subDataType: 'max',
      inputs: [join(fx.inputs, 'tmax-b.tif')],
      replace: true,
    });
    const catalog = (await catalogJson(join(fx.dataset, 'catalog.json'))) as Catalog;
    const tmax = catalog.rasters.filter((l) => l.dataType === 'temp' && l.subDataType === 'max');
    expect(tmax).toHaveLength(1);
    expect(tmax[0]!.files.map((f) => f.path)).toEqual([
      expect.stringMatching(/^rasters\/temp-max\/2024-[0-9a-f]{8}\.tif$/),
    ]);
    expect(existsSync(join(fx.dataset, before.files[0]!.path))).toBe(false);
    expect(catalog.files.some((f) => f.path === before.files[0]!.path)).toBe(false);
    expect(catalog.rasters).toHaveLength(7);
  });
});

describe('raster build refuses', () => {
  const base = () => ({
    width: 8,
    height: 6,
    geoTransform: [18, 0.02, 0, -33, 0, -0.02] as [number, number, number, number, number, number],
  });

  it('inputs whose dates it cannot tell', async () => {
    const f = join(fx.inputs, 'undated-stack.tif');
    await writeInputGeoTiff(f, { ...base(), bands: 2, fill: (b, out) => out.fill(b) });
    await expect(
      buildRasterLayer({ dir: join(fx.root, 'x1'), dataType: 'temp', subDataType: 'min', inputs: [f] }),
    ).rejects.toMatchObject({ code: 'invalid_option' });
    const bad = join(fx.inputs, 'bad-dates.tif');
    await writeInputGeoTiff(bad, { ...base(), bands: 1, descriptions: ['2023-02-30'], fill: (_b, out) => out.fill(1) });
    await expect(
      buildRasterLayer({ dir: join(fx.root, 'x1'), dataType: 'temp', subDataType: 'min', inputs: [bad] }),
    ).rejects.toThrow(/2023-02-30/);
  });

  it('values that do not fit Int16 at the storage step', async () => {
    const f = join(fx.inputs, 'huge.tif');
    await writeInputGeoTiff(f, {
      ...base(),
      bands: 1,
      descriptions: ['2023-01-01'],
      fill: (_b, out) => out.fill(5000),
    });
    await expect(
      buildRasterLayer({ dir: join(fx.root, 'x2'), dataType: 'temp', subDataType: 'min', inputs: [f] }),
    ).rejects.toMatchObject({ code: 'invalid_option', option: 'scale' });
    const ok = await buildRasterLayer({
      dir: join(fx.root, 'x2'),
      dataType: 'temp',
      subDataType: 'min',
      inputs: [f],
      scale: 1,
    });
    expect(ok.layer.scale).toBe(1);
  });

  it('the same period twice, unknown sub-types and inputs outside the extent', async () => {
    const f = join(fx.inputs, 'dup.tif');
    await writeInputGeoTiff(f, {
      ...base(),
      bands: 2,
      descriptions: ['2023-01-01', '2023-01-01'],
      fill: (_b, out) => out.fill(1),
    });
    await expect(
      buildRasterLayer({ dir: join(fx.root, 'x3'), dataType: 'temp', subDataType: 'min', inputs: [f] }),
    ).rejects.toMatchObject({ code: 'invalid_option' });
    await expect(
      buildRasterLayer({ dir: join(fx.root, 'x3'), dataType: 'gdd', subDataType: 'pears', inputs: [f] }),
    ).rejects.toMatchObject({ code: 'invalid_option' });
    const far = join(fx.inputs, 'far.tif');
    await writeInputGeoTiff(far, {
      width: 4,
      height: 4,
      geoTransform: [100, 0.1, 0, 10, 0, -0.1],
      bands: 1,
      descriptions: ['2023-01-01'],
      fill: (_b, out) => out.fill(1),
    });
    await expect(
      buildRasterLayer({ dir: join(fx.root, 'x3'), dataType: 'temp', subDataType: 'min', inputs: [far] }),
    ).rejects.toMatchObject({ code: 'invalid_option', option: 'inputs' });
    expect(existsSync(join(fx.root, 'x3', 'rasters'))).toBe(false);
  });
});
