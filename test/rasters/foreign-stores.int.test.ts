/**
 * A Zarr store published on another host becomes a layer by its URL, nothing copied: `layers add`
 * reads its metadata over HTTP, the catalog names it by URL and lists none of its files, and an
 * engine reads it where it is — a Node engine (the CLI, `serve`) only from the origins its operator
 * allows, never from an internal address it was not named by, and never through a redirect to an
 * origin not allowed. Answers equal what xarray reads from the same store.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { catalogJson } from '../helpers/catalog-json.ts';
import { cli } from '../helpers/cli.ts';
import { pointSeries } from '../helpers/point-series.ts';
import { type RangeServer, startRangeServer } from '../helpers/range-server.ts';
import { startServeProcess } from '../helpers/serve-process.ts';

const PY = '/usr/bin/python3';
let root: string;
let host: RangeServer;
/** Answers every request with a redirect to the store host. */
let redirector: Server;
let redirectOrigin: string;
let origin: string;
/** xarray's reads of a.zarr: a few pixels' series. */
let truth: Array<{ lon: number; lat: number; dates: string[]; values: Array<number | null> }>;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-foreign-'));
  await mkdir(join(root, 'host'));
  const script = `
import json, sys
import numpy as np, pandas as pd, xarray as xr
t = pd.date_range('2024-01-01', periods=40, freq='D')
lat = np.round(np.arange(-33.0, -34.0, -0.1), 6); lon = np.round(np.arange(18.0, 19.2, 0.1), 6)
rng = np.random.default_rng(3)
a = (14 + 6*np.sin(np.arange(40)/6)[:,None,None] + rng.normal(0, 0.5, (40, lat.size, lon.size))).astype('float32')
a[4, 2, 3] = np.nan
ds = xr.Dataset({'tas': (('time','lat','lon'), a, {'units': 'degC'})},
  coords={'time': t, 'lat': ('lat', lat, {'units': 'degrees_north'}), 'lon': ('lon', lon, {'units': 'degrees_east'})})
ds.tas.encoding['chunks'] = (40, 5, 5)
ds.to_zarr(sys.argv[1] + '/a.zarr')
ds.to_zarr(sys.argv[1] + '/plain.zarr', consolidated=False)
d = xr.open_zarr(sys.argv[1] + '/a.zarr').tas
pts = []
for (i, j) in [(0, 0), (2, 3), (7, 9), (9, 11)]:
    v = d.isel(lat=i, lon=j).values
    pts.append({'lon': float(d.lon[j]), 'lat': float(d.lat[i]), 'dates': [str(x)[:10] for x in d.time.values], 'values': [None if np.isnan(x) else float(x) for x in v]})
print(json.dumps(pts))
`;
  truth = JSON.parse(execFileSync(PY, ['-c', script, join(root, 'host')], { encoding: 'utf8' }));
  host = await startRangeServer(join(root, 'host'));
  origin = new URL(host.url).origin;
  redirector = createServer((req, res) => res.writeHead(302, { Location: `${origin}${req.url}` }).end());
  await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
  redirectOrigin = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
}, 300_000);
afterAll(async () => {
  await host?.close();
  redirector?.closeAllConnections();
  await new Promise((r) => redirector?.close(r));
  await rm(root, { recursive: true, force: true });
});

/** A fresh dataset folder with `url` added as layer tas. */
async function datasetWith(name: string, url: string, ...extra: string[]) {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  const r = await cli([
    'layers',
    'add',
    url,
    '--layer',
    'tas',
    '--time-scale',
    'daily',
    '--extent',
    'tas-1',
    '--data',
    dir,
    ...extra,
  ]);
  return { dir, ...r };
}

const ask = (p: { lon: number; lat: number }) => ({
  layer: 'tas',
  extent: 'tas-1',
  lon: p.lon,
  lat: p.lat,
  startDate: '2024-01-01',
  endDate: '2024-02-09',
});

/** The /api/point/ body of layer tas at `p`, from 2024-01-01 to `end`. */
const pointBody = (p: { lon: number; lat: number }, end: string) =>
  JSON.stringify({
    wkts: `POINT (${p.lon} ${p.lat})`,
    dataType: 'tas',
    options: { timeScale: 'daily', dataExtent: 'tas-1' },
    startDate: '2024-01-01',
    endDate: end,
  });

describe('a store at a URL', () => {
  it('is added by its URL, lists none of its files, and answers what xarray reads where its origin is allowed', async () => {
    const { dir, code, stderr } = await datasetWith('ds', `${host.url}a.zarr`);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(`--allow-origin ${origin}`);
    const catalog = await catalogJson(join(dir, 'catalog.json'));
    expect(catalog.rasters[0]!.files[0]!.path).toBe(`${host.url}a.zarr`);
    expect(catalog.files).toEqual([]);
    let compared = 0;
    for (const p of truth) {
      host.reset();
      const got = await pointSeries(dir, ask(p), { allowOrigins: [origin] });
      // One chunk of 40 dates × 5 × 5 px holds the pixel: nothing else of the store is read.
      expect(host.log.map((e) => e.path)).toHaveLength(1);
      p.dates.forEach((d, k) => {
        const want = p.values[k] ?? null;
        if (want === null) expect(got[d], d).toBeNull();
        else {
          expect(Math.abs(got[d]! - want), `${p.lon} ${p.lat} ${d}`).toBeLessThanOrEqual(0.0005 + 1e-9);
          compared++;
        }
      });
    }
    expect(compared).toBe(truth.length * 40 - 1);
  });

  it('is not read where its origin was not allowed, nor where its name resolves to an internal address', async () => {
    const dir = join(root, 'ds');
    const body = pointBody(truth[0]!, '2024-01-05');
    host.reset();
    for (const allowOrigins of [[], ['https://data.example.org']]) {
      const engine = createNodeEngine(dir, { allowOrigins });
      const res = await engine.handle({ method: 'POST', path: '/api/point/', body });
      await engine.close();
      expect(res.status, JSON.stringify(res.body)).toBe(503);
      expect(JSON.stringify(res.body)).toMatch(/dataset_unavailable.*--allow-origin/);
    }
    expect(host.requests).toBe(0);

    // Allowed by name, but the name is the machine's own: refused before any request.
    const named = await datasetWith('named', `http://localhost:${new URL(origin).port}/a.zarr`);
    expect(named.code, named.stderr).toBe(0);
    host.reset();
    const engine = createNodeEngine(named.dir, { allowOrigins: [`http://localhost:${new URL(origin).port}`] });
    const res = await engine.handle({ method: 'POST', path: '/api/point/', body });
    await engine.close();
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(JSON.stringify(res.body)).toMatch(/resolves to (127\.0\.0\.1|::1), an internal address/);
    expect(host.requests).toBe(0);
  });

  it('follows a redirect only to an origin that is allowed too', async () => {
    // The redirector names the store host for every key, metadata included: add reads through it.
    const { dir, code, stderr } = await datasetWith('redirected', `${redirectOrigin}/a.zarr`);
    expect(code, stderr).toBe(0);
    const p = truth[1]!;
    const only = createNodeEngine(dir, { allowOrigins: [redirectOrigin] });
    const res = await only.handle({
      method: 'POST',
      path: '/api/point/',
      body: pointBody(p, '2024-01-05'),
    });
    await only.close();
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(JSON.stringify(res.body)).toContain(`its origin ${origin} is not one this engine was allowed to read`);
    const both = await pointSeries(dir, { ...ask(p), extent: 'tas-1' }, { allowOrigins: [redirectOrigin, origin] });
    expect(both['2024-01-02']).toBeCloseTo(p.values[1]!, 3);
  });

  it('without consolidated metadata needs its array named, as a URL cannot be listed', async () => {
    const refused = await datasetWith('plain', `${host.url}plain.zarr`);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/cannot be listed.*--variable/);
    const added = await datasetWith('plain2', `${host.url}plain.zarr`, '--variable', 'tas');
    expect(added.code, added.stderr).toBe(0);
    const p = truth[2]!;
    const got = await pointSeries(added.dir, ask(p), { allowOrigins: [origin] });
    expect(got['2024-01-10']).toBeCloseTo(p.values[9]!, 3);
  });

  it('answers through serve --allow-origin, and serve without it says how to allow it', async () => {
    const dir = join(root, 'ds');
    const body = pointBody(truth[3]!, '2024-01-03');
    for (const allow of [true, false]) {
      const serve = await startServeProcess(dir, allow ? ['--allow-origin', origin] : []);
      try {
        const res = await fetch(`${serve.url}api/point/`, { method: 'POST', body });
        const json = (await res.json()) as Record<string, Record<string, number | null>>;
        if (allow) {
          expect(res.status, JSON.stringify(json)).toBe(200);
          expect(Object.values(json)[0]!['2024-01-03']).toBeCloseTo(truth[3]!.values[2]!, 3);
        } else {
          expect(res.status, JSON.stringify(res.body)).toBe(503);
          expect(JSON.stringify(json)).toContain('--allow-origin');
        }
      } finally {
        serve.child.kill('SIGTERM');
      }
    }
  });
});
