/**
 * Published stores whose shape does not suit every query, read in place over HTTP:
 * - ARCO-ERA5's: one date × the whole globe per chunk (1 × 721 × 1440, float32), longitudes
 *   0 … 360, latitudes from pole to pole, chunks of fill left out. A point-year is refused before
 *   any chunk is read, naming the estimate; one date answers what zarr-python wrote, east and west
 *   of Greenwich; a date whose chunk the store left out is null.
 * - NASA POWER's "temporal" shape: thousands of dates per chunk (here 730 × 15 × 15); a point's
 *   series reads one chunk, and a map of one date, which would decode every chunk whole, is refused.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClimateQueryError } from '../../src/contract/errors.ts';
import { createClimateEngine } from '../../src/engine/engine.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { locationOf } from '../../src/node/file-location.ts';
import { cli } from '../helpers/cli.ts';
import { type RangeServer, startRangeServer } from '../helpers/range-server.ts';

const PY = '/usr/bin/python3';
let root: string;
let dir: string;
let server: RangeServer;
/** zarr-python's reads of the pixels the tests ask. */
let truth: { era: Record<string, number>; power: Record<string, Array<number | null>> };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-store-shapes-'));
  dir = join(root, 'ds');
  await mkdir(join(dir, 'stores'), { recursive: true });
  const script = `
import json, sys
import numpy as np, zarr, numcodecs
out = {'era': {}, 'power': {}}
# ARCO-ERA5's shape: one chunk per date, globe 0…360, pole to pole; only 2024-01-01 and 2024-01-03 written.
g = zarr.open_group(sys.argv[1] + '/era.zarr', mode='w')
t = g.create_dataset('time', data=np.arange(365, dtype='int64'), chunks=(365,))
t.attrs.update({'_ARRAY_DIMENSIONS': ['time'], 'units': 'days since 2024-01-01', 'calendar': 'proleptic_gregorian'})
lat = np.linspace(90, -90, 721); lon = np.arange(1440) * 0.25
g.create_dataset('latitude', data=lat).attrs['_ARRAY_DIMENSIONS'] = ['latitude']
g.create_dataset('longitude', data=lon).attrs['_ARRAY_DIMENSIONS'] = ['longitude']
a = g.create_dataset('t2m', shape=(365, 721, 1440), chunks=(1, 721, 1440), dtype='float32', fill_value=float('nan'))
a.attrs.update({'_ARRAY_DIMENSIONS': ['time', 'latitude', 'longitude'], 'units': 'K'})
for d in (0, 2):
    a[d] = (250 + d + 0.3 * lat[:, None] + 0.01 * lon[None, :]).astype('float32')
zarr.consolidate_metadata(sys.argv[1] + '/era.zarr')
for (lo, la) in [(19.0, -33.0), (340.0, 10.0)]:
    i = int(np.argmin(abs(lat - la))); j = int(np.argmin(abs(lon - lo)))
    out['era'][f'{lo:g} {la:g}'] = float(a[0, i, j])
# NASA POWER's shape: many dates per chunk, Blosc zstd + fixedscaleoffset.
g = zarr.open_group(sys.argv[1] + '/power.zarr', mode='w')
t = g.create_dataset('time', data=np.arange(730, dtype='int64'), chunks=(730,))
t.attrs.update({'_ARRAY_DIMENSIONS': ['time'], 'units': 'days since 2023-01-01', 'calendar': 'standard'})
lat = np.round(np.arange(-35.0, -29.9, 0.25), 6); lon = np.round(np.arange(16.0, 22.0, 0.25), 6)
g.create_dataset('lat', data=lat).attrs['_ARRAY_DIMENSIONS'] = ['lat']
g.create_dataset('lon', data=lon).attrs['_ARRAY_DIMENSIONS'] = ['lon']
rng = np.random.default_rng(3)
v = (18 + 6 * np.sin(np.arange(730) / 58)[:, None, None] + rng.normal(0, 1, (730, lat.size, lon.size))).astype('float32')
p = g.create_dataset('T2M', data=v, chunks=(730, 15, 15), dtype='float32', fill_value=float('nan'),
    compressor=numcodecs.Blosc(cname='zstd', clevel=5, shuffle=numcodecs.Blosc.SHUFFLE),
    filters=[numcodecs.FixedScaleOffset(offset=0, scale=100, dtype='f4', astype='i4')])
p.attrs.update({'_ARRAY_DIMENSIONS': ['time', 'lat', 'lon'], 'units': 'C'})
zarr.consolidate_metadata(sys.argv[1] + '/power.zarr')
for (lo, la) in [(18.0, -33.0), (21.75, -30.0)]:
    i = int(np.argmin(abs(lat - la))); j = int(np.argmin(abs(lon - lo)))
    out['power'][f'{lo:g} {la:g}'] = [float(x) for x in p[:, i, j]]
print(json.dumps(out))
`;
  truth = JSON.parse(execFileSync(PY, ['-c', script, join(dir, 'stores')], { encoding: 'utf8' }));
  for (const [store, layer, extent, unit] of [
    ['era.zarr', 't2m', 'globe', 'K'],
    ['power.zarr', 'T2M', 'power', 'degC'],
  ] as const) {
    const r = await cli([
      'layers',
      'add',
      join(dir, 'stores', store),
      '--layer',
      layer,
      '--time-scale',
      'daily',
      '--crs',
      'EPSG:4326',
      '--unit',
      unit,
      '--extent',
      extent,
      '--data',
      dir,
    ]);
    expect(r.code, r.stderr).toBe(0);
  }
  server = await startRangeServer(dir);
}, 300_000);
afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

function point(layer: string, extent: string, wkt: string, startDate: string, endDate: string) {
  return JSON.stringify({
    wkts: wkt,
    dataType: layer,
    options: { timeScale: 'daily', dataExtent: extent },
    startDate,
    endDate,
  });
}

const chunkReads = (array: string) =>
  server.log.filter((r) => new RegExp(`/${array}/\\d+\\.\\d+\\.\\d+$`).test(r.path)).length;

describe('a store chunked one date × the whole globe (ARCO-ERA5’s shape)', () => {
  it('refuses a point-year before reading any chunk, naming the estimate', async () => {
    const engine = createNodeEngine(server.url);
    try {
      server.reset();
      const res = await engine.handle({
        method: 'POST',
        path: '/api/point/',
        body: point('t2m', 'globe', 'POINT (19 -33)', '2024-01-01', '2024-12-30'),
      });
      expect(res.status).toBe(422);
      const { error } = res.body as { error: { code: string; params: Record<string, number> } };
      expect(error.code).toBe('query_too_costly');
      expect(error.params.estimateBytes).toBe(365 * 721 * 1440 * 4);
      expect(error.params.chunks).toBe(365);
      expect(chunkReads('t2m')).toBe(0);
    } finally {
      await engine.close();
    }
  });

  it('answers one date as zarr-python wrote it, east and west of Greenwich (0 … 360), null where the chunk was left out', async () => {
    const engine = createNodeEngine(server.url);
    try {
      for (const [wkt, at] of [
        ['POINT (19 -33)', '19 -33'],
        ['POINT (-20 10)', '340 10'],
      ] as const) {
        const res = await engine.handle({
          method: 'POST',
          path: '/api/point/',
          body: point('t2m', 'globe', wkt, '2024-01-01', '2024-01-02'),
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const series = Object.values(res.body as Record<string, Record<string, number | null>>)[0]!;
        expect(Math.abs(series['2024-01-01']! - truth.era[at]!)).toBeLessThanOrEqual(0.0005 + 1e-9);
        expect(series['2024-01-02']).toBeNull();
      }
      // A field west of Greenwich, inside one pixel: that pixel's value.
      const field = await engine.handle({
        method: 'POST',
        path: '/api/polygon/',
        body: JSON.stringify({
          wkts: 'POLYGON ((-20.005 9.995, -19.995 9.995, -19.995 10.005, -20.005 10.005, -20.005 9.995))',
          dataType: 't2m',
          options: { timeScale: 'daily', dataExtent: 'globe', aggregationMethod: 'mean' },
          startDate: '2024-01-01',
          endDate: '2024-01-01',
        }),
      });
      expect(field.status, JSON.stringify(field.body)).toBe(200);
      const mean = Object.values(Object.values(field.body as Record<string, Record<string, number>>)[0]!)[0]!;
      expect(Math.abs(mean - truth.era['340 10']!)).toBeLessThanOrEqual(0.0005 + 1e-9);
    } finally {
      await engine.close();
    }
  });
});

describe('a store chunked for series (NASA POWER’s shape: 730 dates × 15 × 15, Blosc zstd + fixedscaleoffset)', () => {
  it('answers two years of a point from the one chunk holding it, as zarr-python reads it', async () => {
    const engine = createNodeEngine(server.url);
    try {
      for (const [lonLat, want] of Object.entries(truth.power)) {
        server.reset();
        const res = await engine.handle({
          method: 'POST',
          path: '/api/point/',
          body: point('T2M', 'power', `POINT (${lonLat})`, '2023-01-01', '2024-12-30'),
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const got = Object.values(Object.values(res.body as Record<string, Record<string, number | null>>)[0]!);
        expect(got).toHaveLength(730);
        got.forEach((g, k) => expect(Math.abs(g! - want[k]!), `${lonLat} day ${k}`).toBeLessThanOrEqual(0.0005 + 1e-9));
        expect(chunkReads('T2M')).toBe(1);
      }
    } finally {
      await engine.close();
    }
  });

  it('refuses the map of one date, which would decode every chunk whole, before reading one, past the engine’s bound', async () => {
    // 2 × 2 chunks of 730 × 15 × 15 float32 (2.6 MB) for one date's map; the point's one chunk is 657 KB.
    const engine = createClimateEngine({ dataset: locationOf(server.url), maxReadBytes: 1024 * 1024 });
    try {
      server.reset();
      const err = await engine.layerGrid({ dataType: 'T2M', subDataType: '-', period: '2024-06-01' }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ClimateQueryError);
      expect((err as ClimateQueryError).code).toBe('query_too_costly');
      expect((err as ClimateQueryError).params).toMatchObject({ chunks: 4, estimateBytes: 4 * 730 * 15 * 15 * 4 });
      expect(chunkReads('T2M')).toBe(0);
      const res = await engine.handle({
        method: 'POST',
        path: '/api/point/',
        body: point('T2M', 'power', 'POINT (18 -33)', '2024-06-01', '2024-06-30'),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    } finally {
      await engine.close();
    }
  });

  it('draws the map of one date under the default bound, from the four chunks it needs', async () => {
    const engine = createNodeEngine(server.url);
    try {
      server.reset();
      const g = await engine.layerGrid({ dataType: 'T2M', subDataType: '-', period: '2024-06-01' });
      expect(g.width * g.height).toBe(21 * 24);
      expect(chunkReads('T2M')).toBe(4);
    } finally {
      await engine.close();
    }
  });
});
