// A grid's CRS is stated, never guessed: a UTM grid whose spatial
// reference was removed is refused unless --crs names it; named, it builds
// to the same answers as the same grid carrying its CRS (a second build as
// the oracle). Inputs GDAL cannot open, or that do not exist, are named with
// what to do — never "[object Object]", never a stack.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import proj4 from 'proj4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRasterLayer } from '../../src/builder/raster-build.ts';
import { writeInputGeoTiff, type InputRaster } from '../../src/builder/raster-build-input.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';

const BIN = join(import.meta.dirname, '../../bin/climate-query.js');
const UTM34S = '+proj=utm +zone=34 +south +datum=WGS84 +units=m +no_defs';
let dir: string;
let withCrs: string;
let withoutCrs: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cq-crs-'));
  await mkdir(join(dir, 'in'));
  const [x0, y0] = proj4('EPSG:4326', UTM34S, [18.8, -33.5]) as [number, number];
  const cell = 1000;
  const grid = (srs: string): InputRaster => ({
    width: 50,
    height: 55,
    srs,
    geoTransform: [x0, cell, 0, y0, 0, -cell],
    bands: 1,
    descriptions: ['2024-01-01'],
    fill: (_b, out) => out.forEach((_, i) => (out[i] = 10 + (i % 50) * 0.1 + Math.floor(i / 50) * 0.05)),
  });
  withCrs = join(dir, 'in/tmin-utm.tif');
  withoutCrs = join(dir, 'in/tmin-nocrs.tif');
  await writeInputGeoTiff(withCrs, grid('EPSG:32734'));
  await writeInputGeoTiff(withoutCrs, grid(''));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('the CRS of a grid', () => {
  it('is refused when missing, naming the file and --crs; nothing is added', async () => {
    const out = join(dir, 'refused');
    await expect(
      buildRasterLayer({ dir: out, dataType: 'temp', subDataType: 'min', inputs: [withoutCrs] }),
    ).rejects.toMatchObject({
      code: 'invalid_option',
      option: 'crs',
      message: expect.stringMatching(/tmin-nocrs\.tif has no coordinate reference system.*--crs/),
    });
    await expect(
      readFile(join(out, 'catalog.json'), 'utf8').then((t) => JSON.parse(t).rasters.length),
    ).rejects.toThrow();
  });

  it('named with --crs, builds to the answers of the same grid carrying its CRS', async () => {
    const a = join(dir, 'a');
    const b = join(dir, 'b');
    await buildRasterLayer({ dir: a, dataType: 'temp', subDataType: 'min', inputs: [withCrs] });
    const r = await promisify(execFile)(process.execPath, [
      BIN,
      'build',
      '--out',
      b,
      '--layer',
      'temp/min',
      '--crs',
      'EPSG:32734',
      withoutCrs,
    ]);
    expect(r.stderr).toMatch(/reprojecting/);
    const [ea, eb] = [createNodeEngine(a), createNodeEngine(b)];
    let numbers = 0;
    for (const [lon, lat] of [
      [18.85, -33.55],
      [19.0, -33.7],
      [19.2, -33.9],
      [18.81, -33.51],
    ] as const) {
      const q = {
        wkts: `POINT (${lon} ${lat})`,
        dataType: 'temp',
        options: { subDataType: 'min', timeScale: 'daily' as const, dataExtent: 'tc' },
        startDate: '2024-01-01',
        endDate: '2024-01-01',
      };
      const [va, vb] = [await ea.point(q), await eb.point(q)];
      expect(vb).toEqual(va);
      if (typeof Object.values(va)[0] === 'object')
        numbers += Object.values(Object.values(va)[0] as Record<string, unknown>).filter(
          (v) => typeof v === 'number',
        ).length;
    }
    expect(numbers).toBeGreaterThan(0);
    await Promise.all([ea.close(), eb.close()]);
  });

  it('a missing input, a damaged NetCDF file, a .nc file that is not NetCDF, a Zarr store and a STAC catalog are named with what to do', async () => {
    await expect(
      buildRasterLayer({
        dir: join(dir, 'm'),
        dataType: 'temp',
        subDataType: 'min',
        inputs: [join(dir, 'no/such.tif')],
      }),
    ).rejects.toThrow(/Input .*no\/such\.tif does not exist\./);
    const nc = join(dir, 'in/tas_monthly_2023.nc');
    await writeFile(nc, Buffer.from('CDF\x01\x00\x00\x00\x00 not really netcdf'));
    const e = await buildRasterLayer({ dir: join(dir, 'n'), dataType: 'temp', subDataType: 'min', inputs: [nc] }).then(
      () => null,
      (x: Error) => x,
    );
    expect(e?.message).toMatch(/tas_monthly_2023\.nc starts like NetCDF but its header cannot be read .*truncated/);
    expect(e?.message).not.toContain('[object Object]');
    // HDF4's signature: not NetCDF, so GDAL is tried, and the advice says what it may be.
    const hdf4 = join(dir, 'in/modis.hdf');
    await writeFile(hdf4, Buffer.from('\x0e\x03\x13\x01 then nothing useful'));
    await expect(
      buildRasterLayer({ dir: join(dir, 'n'), dataType: 'temp', subDataType: 'min', inputs: [hdf4] }),
    ).rejects.toThrow(/GDAL cannot read input .*modis\.hdf .*does not start like one .*HDF4/);
    // A Zarr store and a STAC catalog are read as what they are (an empty one says so).
    const store = join(dir, 'in/tas.zarr');
    await mkdir(store);
    await writeFile(join(store, '.zgroup'), '{"zarr_format": 2}');
    await expect(
      buildRasterLayer({ dir: join(dir, 'n'), dataType: 'temp', subDataType: 'min', inputs: [store] }),
    ).rejects.toThrow(/tas\.zarr: holds no Zarr arrays/);
    await mkdir(join(dir, 'in/plain-folder'));
    await expect(
      buildRasterLayer({
        dir: join(dir, 'n'),
        dataType: 'temp',
        subDataType: 'min',
        inputs: [join(dir, 'in/plain-folder')],
      }),
    ).rejects.toThrow(/plain-folder is not a file\./);
    const stac = join(dir, 'in/catalog.json');
    await writeFile(stac, '{"type": "Catalog", "links": []}');
    await expect(
      buildRasterLayer({ dir: join(dir, 'n'), dataType: 'temp', subDataType: 'min', inputs: [stac] }),
    ).rejects.toThrow(/catalog\.json: names no dates\./);
    const cli = await promisify(execFile)(process.execPath, [
      BIN,
      'build',
      '--out',
      join(dir, 'n2'),
      '--layer',
      'temp/min',
      nc,
    ]).then(
      () => null,
      (x: { code: number; stderr: string }) => x,
    );
    expect(cli?.code).toBe(2);
    expect(cli?.stderr).toContain('Build error: ');
    expect(cli?.stderr).toContain('header cannot be read');
    expect(cli?.stderr).not.toMatch(/\n\s+at |\[object Object\]/);
  });
});
