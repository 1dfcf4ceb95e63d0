/**
 * Zarr v2 stores written by xarray (Debian's python3-xarray and python3-zarr, as a climate scientist
 * writes them) become layers in place with `climate-query layers add`, nothing copied, and answer
 * what xarray reads from them: xarray's default store (Blosc lz4 with shuffle, float32, one chunk,
 * latitudes north to south) and a CF-packed one (int16 with scale_factor, add_offset and
 * _FillValue, zlib, chunks of 20 dates × 8 × 8 px, latitudes south to north). What a store does not
 * say (its CRS) is refused until it is stated; removing the layer leaves the store's files.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/dataset/catalog.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { cli } from '../helpers/cli.ts';
import { pointSeries as seriesAt } from '../helpers/point-series.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

const PY = '/usr/bin/python3';
let root: string;
let dir: string;
/** xarray's own reads: store → list of {lat index, lon index, lon, lat, values by date}. */
let truth: Record<
  string,
  { points: Array<{ lon: number; lat: number; dates: string[]; values: Array<number | null> }> }
>;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-published-'));
  dir = join(root, 'ds');
  await mkdir(join(dir, 'stores'), { recursive: true });
  const script = `
import json, sys
import numpy as np, pandas as pd, xarray as xr, numcodecs
out = {}
t = pd.date_range('2024-01-01', periods=60, freq='D')
# A: xarray's defaults, north to south, float32, no CRS stated.
lat = np.round(np.arange(-33.0, -34.2, -0.05), 6); lon = np.round(np.arange(18.0, 19.5, 0.05), 6)
rng = np.random.default_rng(7)
a = (15 + 8*np.sin(np.arange(60)/9)[:,None,None] + lat[None,:,None]*0.3 + lon[None,None,:]*0.2 + rng.normal(0, 0.5, (60, lat.size, lon.size))).astype('float32')
a[5, 3, 4] = np.nan
xr.Dataset({'tas': (('time','lat','lon'), a, {'units': 'degC', 'long_name': 'Air temperature'})}, coords={'time': t, 'lat': lat, 'lon': lon}).to_zarr(sys.argv[1] + '/a.zarr')
# B: CF-packed int16, zlib, chunked, south to north, CF degree units.
latb = np.round(np.arange(-34.5, -33.0, 0.1), 6); lonb = np.round(np.arange(18.2, 20.0, 0.1), 6)
b = (20 + 10*np.cos(np.arange(60)/7)[:,None,None] + latb[None,:,None]*0.1 + lonb[None,None,:] + rng.normal(0, 1, (60, latb.size, lonb.size)))
b[10:12, 2, 2] = np.nan
ds = xr.Dataset({'pr': (('time','lat','lon'), b, {'units': 'mm'})}, coords={'time': t, 'lat': ('lat', latb, {'units': 'degrees_north'}), 'lon': ('lon', lonb, {'units': 'degrees_east'})})
ds.pr.encoding.update({'dtype': 'int16', 'scale_factor': 0.01, 'add_offset': 10.0, '_FillValue': -32767, 'chunks': (20, 8, 8), 'compressor': numcodecs.Zlib(level=5)})
ds.to_zarr(sys.argv[1] + '/b.zarr')
for name, var in [('a', 'tas'), ('b', 'pr')]:
    d = xr.open_zarr(sys.argv[1] + '/' + name + '.zarr')[var]
    pts = []
    for (i, j) in [(0, 0), (3, 4), (2, 2), (7, 9), (d.lat.size - 1, d.lon.size - 1), (9, 11)]:
        if i >= d.lat.size or j >= d.lon.size: continue
        v = d.isel(lat=i, lon=j).values
        pts.append({'lon': float(d.lon[j]), 'lat': float(d.lat[i]), 'dates': [str(x)[:10] for x in d.time.values], 'values': [None if np.isnan(x) else float(x) for x in v]})
    out[name] = {'points': pts}
print(json.dumps(out))
`;
  truth = JSON.parse(execFileSync(PY, ['-c', script, join(dir, 'stores')], { encoding: 'utf8' }));
}, 300_000);
afterAll(() => rm(root, { recursive: true, force: true }));

/** `climate-query layers add` of store `name` (in the dataset's stores/) as a daily layer. */
const add = (name: string, layer: string, extent: string, ...extra: string[]) =>
  cli([
    'layers',
    'add',
    join(dir, 'stores', name),
    '--layer',
    layer,
    '--time-scale',
    'daily',
    '--extent',
    extent,
    ...extra,
    '--data',
    dir,
  ]);

const pointSeries = (layer: string, lon: number, lat: number) =>
  seriesAt(dir, {
    layer,
    extent: layer === 'tas' ? 'wc-a' : 'wc-b',
    lon,
    lat,
    startDate: '2024-01-01',
    endDate: '2024-02-29',
  });

describe('a store xarray wrote with its defaults (Blosc lz4, one chunk, north to south)', () => {
  it('is refused until its CRS is stated, then answers what xarray reads, at 0.001', async () => {
    const refused = await add('a.zarr', 'tas', 'wc-a');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/states no CRS .* pass --crs EPSG:4326/);
    expect(existsSync(join(dir, 'catalog.json'))).toBe(false);
    const added = await add('a.zarr', 'tas', 'wc-a', '--crs', 'EPSG:4326');
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toMatch(
      /a Zarr v2 store read in place \(stores\/a\.zarr: array tas, <f4, chunks 60 × 25 × 30, blosc\)/,
    );
    let compared = 0;
    for (const p of truth.a!.points) {
      const got = await pointSeries('tas', p.lon, p.lat);
      p.dates.forEach((d, k) => {
        const want = p.values[k] ?? null;
        if (want === null) expect(got[d], d).toBeNull();
        else {
          expect(Math.abs(got[d]! - want), `${p.lon} ${p.lat} ${d}`).toBeLessThanOrEqual(0.0005 + 1e-9);
          compared++;
        }
      });
    }
    expect(compared).toBeGreaterThan(300);
  });
});

describe('a CF-packed store (int16 × 0.01 + 10, _FillValue, zlib, 20 × 8 × 8 chunks, south to north)', () => {
  it('is taken with its CF degree units as its CRS and answers xarray’s decoded values, at the packing step', async () => {
    const added = await add('b.zarr', 'pr', 'wc-b');
    expect(added.code, added.stderr).toBe(0);
    const layer = ((await catalogJson(join(dir, 'catalog.json'))) as Catalog).rasters.find((l) => l.dataType === 'pr')!;
    expect(layer).toMatchObject({
      layout: 'zarr-store',
      scale: 0.01,
      unit: 'mm',
      storeArray: { latAscending: true, chunks: [20, 8, 8] },
    });
    let compared = 0;
    let missing = 0;
    for (const p of truth.b!.points) {
      const got = await pointSeries('pr', p.lon, p.lat);
      p.dates.forEach((d, k) => {
        const want = p.values[k] ?? null;
        if (want === null) {
          expect(got[d], d).toBeNull();
          missing++;
        } else {
          // xarray decodes the packed int16 to float32: equal within its precision.
          expect(got[d], `${p.lon} ${p.lat} ${d}`).toBeCloseTo(want, 4);
          compared++;
        }
      });
    }
    expect(compared).toBeGreaterThan(300);
    expect(missing).toBe(2);
  });

  it('previews a date whole: each pixel as xarray reads it, north up', async () => {
    const engine = createNodeEngine(dir);
    try {
      const g = await engine.layerGrid({ dataType: 'pr', subDataType: '-', period: '2024-01-06' });
      for (const p of truth.b!.points) {
        const col = Math.floor((p.lon - g.bbox[0]) / ((g.bbox[2] - g.bbox[0]) / g.width));
        const row = Math.floor((g.bbox[3] - p.lat) / ((g.bbox[3] - g.bbox[1]) / g.height));
        const want = p.values[5] ?? null;
        const v = g.values[row * g.width + col]!;
        if (want === null) expect(Number.isNaN(v)).toBe(true);
        else expect(v).toBeCloseTo(want, 4);
      }
    } finally {
      await engine.close();
    }
  });

  it('layers remove takes the entry out and leaves the store, which is not the dataset’s', async () => {
    const r = await cli(['layers', 'remove', 'pr', '--data', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/0 file\(s\) deleted/);
    expect(existsSync(join(dir, 'stores/b.zarr/pr/.zarray'))).toBe(true);
  });
});
