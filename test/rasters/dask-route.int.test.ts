/**
 * The route beyond one machine: xarray + Dask (Debian's packages) read several NetCDF files lazily,
 * rechunk them for point series and write a Zarr store in parallel; `climate-query layers add`
 * references it with no build, and every answer equals xarray's read of the store (docs/layers.md,
 * "Beyond one machine").
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { cli } from '../helpers/cli.ts';

const PY = '/usr/bin/python3';
let root: string;
let dir: string;
let truth: {
  chunks: number[];
  scheduler: string;
  points: Array<{ lon: number; lat: number; dates: string[]; values: Array<number | null> }>;
};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-dask-'));
  dir = join(root, 'wc');
  await mkdir(join(dir, 'stores'), { recursive: true });
  const script = String.raw`
import json, sys
import numpy as np, pandas as pd, xarray as xr, dask
root, store = sys.argv[1], sys.argv[2]
lat = np.round(np.arange(-30.025, -34.0, -0.05), 6); lon = np.round(np.arange(17.025, 20.0, 0.05), 6)
rng = np.random.default_rng(5)
# Two years as CHIRPS publishes them: one NetCDF file a year.
for y in (2022, 2023):
    t = pd.date_range(f'{y}-01-01', f'{y}-12-31', freq='D')
    v = np.clip(rng.gamma(0.4, 6, (t.size, lat.size, lon.size)) - 1.5, 0, None).astype('float32')
    v[:, :3, :3] = np.nan  # the sea
    xr.Dataset({'precip': (('time', 'latitude', 'longitude'), v, {'units': 'mm/day'})},
               coords={'time': t, 'latitude': ('latitude', lat, {'units': 'degrees_north'}),
                       'longitude': ('longitude', lon, {'units': 'degrees_east'})}).to_netcdf(f'{root}/chirps-{y}.nc')
ds = xr.open_mfdataset(f'{root}/chirps-*.nc', combine='by_coords', parallel=True)
pr = ds.precip.chunk({'time': 365, 'latitude': 40, 'longitude': 40})
with dask.config.set(scheduler='threads'):
    pr.to_dataset().to_zarr(store, mode='w')
back = xr.open_zarr(store).precip
pts = []
for (i, j) in [(0, 0), (10, 20), (45, 50), (79, 59), (40, 39)]:
    s = back.isel(latitude=i, longitude=j).values
    pts.append({'lon': float(back.longitude[j]), 'lat': float(back.latitude[i]),
                'dates': [str(x)[:10] for x in back.time.values],
                'values': [None if np.isnan(x) else float(x) for x in s]})
print(json.dumps({'chunks': list(back.encoding['chunks']), 'scheduler': dask.config.get('scheduler', 'default'), 'points': pts}))
`;
  truth = JSON.parse(
    execFileSync(PY, ['-c', script, root, join(dir, 'stores', 'chirps.zarr')], {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    }),
  );
}, 300_000);
afterAll(() => rm(root, { recursive: true, force: true }));

describe('a store Dask wrote from several NetCDF files, rechunked for point series', () => {
  it('is referenced with no build and answers every day of two years as xarray reads it', async () => {
    expect(truth.chunks).toEqual([365, 40, 40]);
    const added = await cli([
      'layers',
      'add',
      join(dir, 'stores', 'chirps.zarr'),
      '--layer',
      'chirps',
      '--unit',
      'mm',
      '--time-scale',
      'daily',
      '--extent',
      'wc',
      '--data',
      dir,
    ]);
    expect(added.code, added.stderr).toBe(0);
    const engine = createNodeEngine(dir);
    let compared = 0;
    let missing = 0;
    try {
      for (const p of truth.points) {
        const res = await engine.handle({
          method: 'POST',
          path: '/api/point/',
          body: JSON.stringify({
            wkts: `POINT (${p.lon} ${p.lat})`,
            dataType: 'chirps',
            options: { timeScale: 'daily', dataExtent: 'wc' },
            startDate: '2022-01-01',
            endDate: '2023-12-31',
          }),
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const got = Object.values(res.body as Record<string, Record<string, number | null>>)[0]!;
        p.dates.forEach((d, k) => {
          const want = p.values[k] ?? null;
          if (want === null) {
            expect(got[d], d).toBeNull();
            missing++;
          } else {
            expect(Math.abs(got[d]! - want), `${p.lon} ${p.lat} ${d}`).toBeLessThanOrEqual(0.0005 + 1e-9);
            compared++;
          }
        });
      }
    } finally {
      await engine.close();
    }
    expect(compared).toBe(4 * 730);
    expect(missing).toBe(730);
  });
});
