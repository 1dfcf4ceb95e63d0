/**
 * `climate-query build` from a published store: a Zarr store as xarray writes it (Blosc, NaN fill,
 * kelvin, latitudes south to north, wider than the extent asked) becomes a layer of the own
 * layout, only for the years asked and where it meets the extent asked, from a folder or a URL.
 * Every value of the built layer equals xarray's read of the source at the same pixel centre
 * (K → °C, at the build's step); a later year is added beside the first; what cannot be built is
 * refused naming the option.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeInputGeoTiff } from '../../src/builder/raster-build-input.ts';
import { EXTENT_BBOX } from '../../src/contract/raster-layers.ts';
import type { Catalog } from '../../src/dataset/catalog.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { cli } from '../helpers/cli.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';

const PY = '/usr/bin/python3';
let root: string;
let store: string;
let server: RangeServer;

/** The source: 0.05° over 16–26° E, 29–36° S (wider than `tc`), 2023-12-20 … 2024-01-20, in K. */
const WRITE = String.raw`
import sys
import numpy as np, pandas as pd, xarray as xr
t = pd.date_range('2023-12-20', '2024-01-20', freq='D')
lat = np.round(np.arange(-35.975, -29.0, 0.05), 6)   # south to north, as many stores are
lon = np.round(np.arange(16.025, 26.0, 0.05), 6)
rng = np.random.default_rng(11)
v = (288 + 8 * rng.standard_normal((t.size, lat.size, lon.size))).astype('float32')
v[:, 100:110, 40:52] = np.nan   # a lake inside the extent
v[3, :, :20] = np.nan           # a day missing in the west
xr.Dataset({'tasmin': (('time', 'lat', 'lon'), v, {'units': 'K', 'long_name': 'Daily minimum near-surface air temperature'})},
           coords={'time': t, 'lat': ('lat', lat, {'units': 'degrees_north'}),
                   'lon': ('lon', lon, {'units': 'degrees_east'})}).to_zarr(sys.argv[1], mode='w')
`;

/**
 * xarray's read of the built layer's stores against its read of the source at the same pixel
 * centres: pixels compared, the most any value differs, and where one is missing and not the other.
 */
const COMPARE = String.raw`
import json, sys
import numpy as np, xarray as xr
src = xr.open_zarr(sys.argv[1]).tasmin
out = {'pixels': 0, 'worst': 0.0, 'nan_mismatch': 0, 'dates': [], 'grid': None}
for path in sys.argv[2:]:
    b = xr.open_zarr(path)
    v = b['tasmin']
    s = src.sel(time=v.time, lat=v.lat, lon=v.lon, method='nearest', tolerance=1e-6) - 273.15
    a, e = v.values, s.values
    out['pixels'] += int(a.size)
    out['nan_mismatch'] += int((np.isnan(a) != np.isnan(e)).sum())
    both = ~np.isnan(a) & ~np.isnan(e)
    out['worst'] = max(out['worst'], float(np.abs(a[both] - e[both]).max()))
    out['dates'] += [str(x)[:10] for x in v.time.values]
    out['grid'] = [int(v.lon.size), int(v.lat.size), float(v.lon.min()), float(v.lat.max())]
print(json.dumps(out))
`;

function compare(
  dataset: string,
  source = store,
): {
  pixels: number;
  worst: number;
  nan_mismatch: number;
  dates: string[];
  grid: number[];
} {
  const cat = JSON.parse(readFileSync(join(dataset, 'catalog.json'), 'utf8')) as Catalog;
  const layer = cat.rasters.find((l) => l.dataType === 'tasmin')!;
  const paths = layer.files.map((f) => join(dataset, f.path));
  return JSON.parse(execFileSync(PY, ['-c', COMPARE, source, ...paths], { encoding: 'utf8', maxBuffer: 64 << 20 }));
}

/** Half the build's 0.01 °C step, and float32's rounding of the source's kelvins. */
const TOLERANCE = 0.005 + 5e-5;

/** A GeoTIFF of one date, 4 × 4 px of 0.05° from (`west`, `north`), every value 1. */
async function oneDateTif(name: string, west: number, north: number): Promise<string> {
  const path = join(root, name);
  await writeInputGeoTiff(path, {
    width: 4,
    height: 4,
    geoTransform: [west, 0.05, 0, north, 0, -0.05],
    bands: 1,
    descriptions: ['2024-01-01'],
    fill: (_b, v) => v.fill(1),
  });
  return path;
}

/** The bytes of every file of the source store. */
function storeBytes(): number {
  return Number(execFileSync('du', ['-sb', '--apparent-size', store], { encoding: 'utf8' }).split('\t')[0]);
}

const build = (out: string, source: string, ...more: string[]) =>
  cli([
    'build',
    '--out',
    out,
    '--layer',
    'tasmin',
    '--unit',
    '°C',
    '--time-scale',
    'daily',
    '--layout',
    'zarr',
    ...more,
    source,
  ]);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-build-store-'));
  store = join(root, 'published', 'tasmin.zarr');
  execFileSync(PY, ['-c', WRITE, store]);
  server = await startRangeServer(join(root, 'published'));
});

afterAll(async () => {
  await server?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('build from a published Zarr store', () => {
  it('copies the years and extent asked, each value as xarray reads it, and adds a later year beside them', async () => {
    const out = join(root, 'local');
    const first = await build(out, store, '--extent', 'tc', '--years', '2024');
    expect(first.stderr).toMatch(/K → °C/);
    expect(first.code, first.stderr).toBe(0);
    const got = compare(out);
    // Only 2024's dates, and only the pixels that meet tc: 0.05° pixels snapped outwards to whole ones.
    expect(got.dates).toEqual(Array.from({ length: 20 }, (_, i) => `2024-01-${String(i + 1).padStart(2, '0')}`));
    const tc = EXTENT_BBOX.tc;
    const [w, h, west, northCentre] = got.grid as [number, number, number, number];
    expect(west - 0.025).toBeLessThanOrEqual(tc[0] + 1e-9);
    expect(west - 0.025).toBeGreaterThan(tc[0] - 0.05);
    expect(northCentre + 0.025).toBeGreaterThanOrEqual(tc[3] - 1e-9);
    expect(w).toBe(Math.ceil((tc[2] - 16) / 0.05 - 1e-9) - Math.floor((tc[0] - 16) / 0.05 + 1e-9));
    expect(h).toBe(Math.ceil((-29 - tc[1]) / 0.05 - 1e-9) - Math.floor((-29 - tc[3]) / 0.05 + 1e-9));
    expect(got.pixels).toBe(w * h * 20);
    expect(got.nan_mismatch).toBe(0);
    // The build's storage step for these values is 0.01 °C (Int16): half a step at most, plus the
    // rounding of float32 kelvins near 290 K (1.5e-5) that the oracle's subtraction keeps.
    expect(got.worst).toBeLessThanOrEqual(TOLERANCE);

    // The engine answers from the built layer: the lake is null, a land pixel is xarray's value.
    const engine = createNodeEngine(out);
    try {
      const a = (await engine.point({
        wkts: 'POINT (18.5 -33.5)',
        dataType: 'tasmin',
        startDate: '2024-01-04',
        endDate: '2024-01-05',
        options: { dataExtent: 'tc', timeScale: 'daily' },
      })) as Record<string, Record<string, number | null>>;
      expect(Object.values(a)[0]!['2024-01-04']).toEqual(expect.any(Number));
    } finally {
      await engine.close();
    }

    // 2023's dates, asked next, are added beside 2024's: both years answer.
    const second = await build(out, store, '--extent', 'tc', '--years', '2023');
    expect(second.code, second.stderr).toBe(0);
    const both = compare(out);
    expect(both.dates.length).toBe(32);
    expect(both.nan_mismatch).toBe(0);
    expect(both.worst).toBeLessThanOrEqual(TOLERANCE);
  });

  it('builds the same layer from the store at a URL', async () => {
    const local = join(root, 'local-all');
    const remote = join(root, 'remote-all');
    expect((await build(local, store, '--extent', 'tc')).code).toBe(0);
    server.reset();
    const r = await build(remote, `${server.url}tasmin.zarr`, '--extent', 'tc');
    expect(r.code, r.stderr).toBe(0);
    // Each chunk read once (the store's metadata and chunks, no more): its bytes at most the store's.
    const chunks = server.log.filter((l) => l.status === 200 && /\/tasmin\/\d+\.\d+\.\d+$/.test(l.path));
    expect(new Set(chunks.map((l) => l.path)).size).toBe(chunks.length);
    expect(server.bytes).toBeLessThanOrEqual(storeBytes());
    const [a, b] = [compare(local), compare(remote)];
    expect(b).toEqual(a);
    expect(a.dates.length).toBe(32);
  });

  it('builds a store chunked one date × the whole grid, which a query of a point-year would not read', async () => {
    const flat = join(root, 'published', 'flat.zarr');
    execFileSync(PY, [
      '-c',
      "import sys, xarray as xr\nds = xr.open_zarr(sys.argv[1])\nds.tasmin.encoding.pop('chunks', None)\nds.chunk({'time': 1, 'lat': -1, 'lon': -1}).to_zarr(sys.argv[2], mode='w')",
      store,
      flat,
    ]);
    const out = join(root, 'flat');
    const r = await build(out, flat, '--extent', 'tc', '--years', '2024');
    expect(r.code, r.stderr).toBe(0);
    // One chunk a date: 20 reads for the 20 dates of 2024.
    expect(r.stderr).toMatch(/20 dates .*; 20 reads, /);
    const got = compare(out, flat);
    expect(got.dates.length).toBe(20);
    expect(got.nan_mismatch).toBe(0);
    expect(got.worst).toBeLessThanOrEqual(TOLERANCE);
  });

  it('refuses what it would have to guess or cannot copy, naming the option', async () => {
    const out = join(root, 'refused');
    const none = await build(out, store, '--extent', 'tc', '--years', '1990');
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/holds no date in 1990 \(its dates run 2023-12-20 … 2024-01-20\)/);
    const far = await build(out, store, '--extent', 'sa', '--years', '2024');
    // sa is wider than the store: the build takes the store's part of it (the build's own rule: a known
    // extent must contain the grid).
    expect(far.code, far.stderr).toBe(0);
    const tif = await oneDateTif('one-date.tif', 18, -33);
    const years = await cli([
      'build',
      '--out',
      out,
      '--layer',
      'x',
      '--unit',
      'mm',
      '--time-scale',
      'daily',
      '--years',
      '2024',
      tif,
    ]);
    expect(years.code).toBe(2);
    expect(years.stderr).toMatch(/--years chooses the dates copied from a published store/);
    // An extent the dataset knows (another layer's, in Limpopo) which the store does not reach: refused by name.
    const north = await oneDateTif('north.tif', 29, -23);
    const away = join(root, 'away');
    const other = await cli([
      'build',
      '--out',
      away,
      '--layer',
      'y',
      '--unit',
      'mm',
      '--time-scale',
      'daily',
      '--extent',
      'limpopo',
      north,
    ]);
    expect(other.code, other.stderr).toBe(0);
    const off = await build(away, store, '--extent', 'limpopo');
    expect(off.code).toBe(2);
    expect(off.stderr).toMatch(
      /covers \[16, -36, 26, -29\], which does not meet the extent asked \[29, -23.2, 29.2, -23\]/,
    );
    // A single GeoTIFF at a URL is not a published store: it is downloaded first.
    const url = await build(out, `${server.url}chirps-v2.0.2024.01.01.tif`);
    expect(url.code).toBe(2);
    expect(url.stderr).toMatch(/is a file at a URL: a build reads GeoTIFF and NetCDF files on this machine/);
    const noUnit = await cli([
      'build',
      '--out',
      join(root, 'k'),
      '--layer',
      'tasmin',
      '--unit',
      'mm',
      '--time-scale',
      'daily',
      store,
    ]);
    expect(noUnit.code).toBe(2);
    expect(noUnit.stderr).toMatch(/is in K, and the layer's unit is mm/);
  });
});
