/**
 * `npm run bench -- --foreign`, second part: a COG collection as CHIRPS publishes one (one
 * float32 GeoTIFF per date, DEFLATE, GDAL's COG driver with its defaults, no nodata tag, −9999 at
 * sea), described by a static STAC catalog, added in place with `climate-query layers add`, and a
 * point's year asked of the engine beside geoblaze on the same files. GDAL (native, on a VRT of
 * the 365 files) is the oracle both are compared with. Links: 40 ms with 6 connections, and 40 ms
 * with every request let through at once (HTTP/2 without a stream limit), whose round trips are
 * the query's sequential waves.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createClimateEngine } from '../src/engine/engine.ts';
import { urlLocation } from '../src/dataset/location.ts';
import { clearGeoblazeCache } from './baselines/raster.ts';
import geoblaze from 'geoblaze';
import { cacheDir, REPO } from './dataset.ts';
import { type LinkProfile, profileOf, roundTrips } from './link.ts';
import { type LoggedRequest, startBenchServer } from './server.ts';

const exec = promisify(execFile);
const YEAR = 2023;
const POINT = { lon: 19.43, lat: -33.64 };
/** HTTP/2 as a CDN serves it: every request of a wave in flight at once. */
const ALL_AT_ONCE: LinkProfile = {
  id: '40-h2-unlimited',
  label: '40 ms, every request at once (HTTP/2, no stream limit)',
  latencyMs: 40,
  mbit: null,
  streams: 10_000,
  http2: false,
};
/**
 * Not the rural link: a point's year of this collection is 365 tiles of about 55 KiB, 20 MB, which
 * at 4 Mbit/s is 40 s for any reader (the layout's cost, not the reader's; `build` rewrites such a
 * source into the own layout, where the same year is one chunk).
 */
const LINKS = [profileOf('40'), ALL_AT_ONCE];

const WRITER = String.raw`
import json, os, sys
import numpy as np
from osgeo import gdal
out, year = sys.argv[1], int(sys.argv[2])
gdal.UseExceptions()
# CHIRPS's 0.05 degree grid over southern Africa: 600 x 400 px, 10-40 E, 15-35 S.
W, H, RES, WEST, NORTH = 600, 400, 0.05, 10.0, -15.0
rng = np.random.default_rng(23)
yy, xx = np.mgrid[0:H, 0:W]
sea = (xx < 120) & (yy > 260)
days = np.arange(np.datetime64(f'{year}-01-01'), np.datetime64(f'{year + 1}-01-01'))
items = []
for k, day in enumerate(days):
    d = str(day)
    # Rain falls in a few moving bands; most of the grid is dry on most days, as in CHIRPS.
    field = np.zeros((H, W), 'float32')
    for _ in range(rng.integers(0, 4)):
        cx, cy, r = rng.uniform(0, W), rng.uniform(0, H), rng.uniform(20, 90)
        blob = np.clip(1 - ((xx - cx) ** 2 + (yy - cy) ** 2) / r ** 2, 0, None) * rng.uniform(2, 40)
        field += blob.astype('float32')
    field = np.where(field > 0.5, field * rng.uniform(0.7, 1.3, field.shape), 0).astype('float32')
    field[sea] = -9999
    path = f'{out}/cogs/{year}/chirps-v2.0.{d.replace("-", ".")}.tif'
    os.makedirs(os.path.dirname(path), exist_ok=True)
    mem = gdal.GetDriverByName('MEM').Create('', W, H, 1, gdal.GDT_Float32)
    mem.SetGeoTransform((WEST, RES, 0, NORTH, 0, -RES)); mem.SetProjection('EPSG:4326')
    mem.GetRasterBand(1).WriteArray(field)
    gdal.GetDriverByName('COG').CreateCopy(path, mem, options=['COMPRESS=DEFLATE'])
    item = f'{out}/stac/items/{d}.json'
    os.makedirs(os.path.dirname(item), exist_ok=True)
    json.dump({'type': 'Feature', 'stac_version': '1.0.0', 'id': f'chirps-{d}', 'geometry': None, 'links': [],
               'properties': {'datetime': f'{d}T00:00:00Z'},
               'assets': {'data': {'href': f'../../cogs/{year}/chirps-v2.0.{d.replace("-", ".")}.tif',
                                   'type': 'image/tiff; application=geotiff; profile=cloud-optimized', 'roles': ['data']}}},
              open(item, 'w'))
    items.append(d)
json.dump({'type': 'Catalog', 'stac_version': '1.0.0', 'id': 'chirps-southern-africa', 'description': 'CHIRPS-shaped daily COGs',
           'links': [{'rel': 'item', 'href': f'./items/{d}.json'} for d in items]}, open(f'{out}/stac/catalog.json', 'w'))
`;

interface CogRun {
  ms: number;
  requests: number;
  bytes: number;
  roundTrips: number;
}

export interface CogCollectionResults {
  label: string;
  dates: number;
  fileBytes: number;
  /** Dates where the engine's value differs from GDAL's by more than 0.001 mm (either null alone counts). */
  engineVsGdal: number;
  geoblazeVsGdal: number;
  links: Record<string, { label: string; engine: CogRun[]; geoblaze: CogRun[] }>;
}

const summarise = (log: readonly LoggedRequest[], ms: number): CogRun => ({
  ms,
  requests: log.length,
  bytes: log.reduce((n, e) => n + e.bytes, 0),
  roundTrips: roundTrips(log),
});

/** Writes the year of COGs and its STAC catalog, adds the layer in place (once; kept in the bench cache). */
async function ensureCollection(dir: string, log: (s: string) => void): Promise<{ ds: string; files: string[] }> {
  const ds = join(dir, 'ds');
  const files = (() => {
    const out: string[] = [];
    for (let t = Date.UTC(YEAR, 0, 1); t < Date.UTC(YEAR + 1, 0, 1); t += 86_400_000) {
      const d = new Date(t).toISOString().slice(0, 10);
      out.push(join(ds, 'cogs', String(YEAR), `chirps-v2.0.${d.replaceAll('-', '.')}.tif`));
    }
    return out;
  })();
  if (existsSync(join(ds, 'catalog.json'))) return { ds, files };
  await rm(dir, { recursive: true, force: true });
  await mkdir(ds, { recursive: true });
  const t0 = performance.now();
  execFileSync('/usr/bin/python3', ['-c', WRITER, ds, String(YEAR)], { stdio: 'inherit' });
  log(`COG collection written by GDAL in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  await exec(process.execPath, [
    join(REPO, 'bin/climate-query.js'),
    'layers',
    'add',
    join(ds, 'stac', 'catalog.json'),
    ...['--layer', 'rain', '--time-scale', 'daily', '--unit', 'mm', '--extent', 'sadc', '--nodata=-9999'],
    ...['--data', ds],
  ]);
  return { ds, files };
}

/** GDAL's values at the point, one per file, from one `gdallocationinfo` over a VRT of them all. */
function gdalSeries(dir: string, files: readonly string[]): Array<number | null> {
  const vrt = join(dir, 'all.vrt');
  execFileSync('gdalbuildvrt', ['-q', '-separate', vrt, ...files]);
  const out = execFileSync('gdallocationinfo', ['-valonly', '-wgs84', vrt, String(POINT.lon), String(POINT.lat)], {
    encoding: 'utf8',
  });
  return out
    .trim()
    .split('\n')
    .map((s) => (Number(s) === -9999 ? null : Number(s)));
}

const differ = (a: ReadonlyArray<number | null>, b: ReadonlyArray<number | null>) =>
  a.length !== b.length
    ? Math.max(a.length, b.length)
    : a.filter((v, k) => {
        const w = b[k] ?? null;
        return v === null || w === null ? (v === null) !== (w === null) : Math.abs(v - w) > 0.001;
      }).length;

export async function runCogCollectionBench(o: { log(line: string): void }): Promise<CogCollectionResults> {
  const dir = join(cacheDir(), 'foreign-cogs');
  const { ds, files } = await ensureCollection(dir, o.log);
  const gdal = gdalSeries(dir, files);
  const result: CogCollectionResults = {
    label: `CHIRPS-shaped COG collection: ${files.length} float32 GeoTIFFs of 600 × 400 px (GDAL's COG driver, DEFLATE, 512 px tiles, no nodata tag), a static STAC catalog`,
    dates: files.length,
    fileBytes: Number(execFileSync('du', ['-sb', join(ds, 'cogs')], { encoding: 'utf8' }).split('\t')[0]),
    engineVsGdal: 0,
    geoblazeVsGdal: 0,
    links: {},
  };
  for (const link of LINKS) {
    const runs = { label: link.label, engine: [] as CogRun[], geoblaze: [] as CogRun[] };
    const server = await startBenchServer({ mounts: { '/ds/': ds }, profile: link });
    try {
      for (let r = 0; r < 3; r++) {
        const engine = createClimateEngine({ dataset: urlLocation(`${server.nodeUrl}ds/`) });
        await engine.catalog();
        server.reset();
        let t = performance.now();
        const answer = (await engine.query('point', {
          wkts: `POINT (${POINT.lon} ${POINT.lat})`,
          dataType: 'rain',
          options: { timeScale: 'daily', dataExtent: 'sadc' },
          startDate: `${YEAR}-01-01`,
          endDate: `${YEAR}-12-31`,
        })) as Record<string, Record<string, number | null>>;
        runs.engine.push(summarise(server.counts().log, performance.now() - t));
        await engine.close();
        // geoblaze, cold, as its API is meant to be used: `identify` on each date's URL, all at once.
        clearGeoblazeCache();
        server.reset();
        t = performance.now();
        const urls = files.map((f) => `${server.nodeUrl}ds/${f.slice(ds.length + 1)}`);
        const got = await Promise.all(
          urls.map(async (u) => {
            const v = (await geoblaze.identify(u, [POINT.lon, POINT.lat])) as number[] | null;
            const x = v?.[0];
            return x === undefined || x === -9999 ? null : x;
          }),
        );
        runs.geoblaze.push(summarise(server.counts().log, performance.now() - t));
        if (r === 0 && link === LINKS[0]) {
          result.engineVsGdal = differ(Object.values(Object.values(answer)[0]!), gdal);
          result.geoblazeVsGdal = differ(got, gdal);
        }
      }
    } finally {
      await server.close();
    }
    result.links[link.id] = runs;
    const e = median(runs.engine);
    const g = median(runs.geoblaze);
    o.log(
      `COG collection at ${link.id}: engine ${e.requests} req ${(e.bytes / 1024).toFixed(0)} KiB ${e.roundTrips} trips ${e.ms.toFixed(0)} ms; geoblaze ${g.requests} req ${(g.bytes / 1024).toFixed(0)} KiB ${g.roundTrips} trips ${g.ms.toFixed(0)} ms`,
    );
  }
  o.log(
    `COG collection: engine differs from GDAL on ${result.engineVsGdal}, geoblaze on ${result.geoblazeVsGdal} of ${gdal.length} dates`,
  );
  await writeFile(join(dir, 'last-run.json'), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

export const median = (xs: CogRun[]) => [...xs].sort((a, b) => a.ms - b.ms)[Math.floor(xs.length / 2)]!;
