/**
 * `npm run bench -- --foreign`: layers read where they are published, beside the field's own
 * reader. Two Zarr v2 stores made by their own tools (xarray and zarr-python, Debian's): one shaped
 * as NASA POWER's daily "temporal" stores (float32 through a `fixedscaleoffset` filter, Blosc zstd,
 * chunks of every date × 15 × 15 px, 16 years) and one as xarray writes by default (Blosc lz4,
 * chunks of every date × 10 × 10); and a Zarr v3 store shaped as dynamical.org's CHIRPS v3
 * (`sharding_indexed`, the index at the end), laid out by the specification; and a NetCDF-4 file
 * through a kerchunk reference (test/helpers/kerchunk_writer.py), read by zarrita.js's
 * ReferenceStore. Each is added in
 * place with `climate-query layers add` and served by the bench server (40 ms, 6 at once; and
 * 150 ms / 4 Mbit/s); a point's record is asked of the engine (`/api/point/`, Node, over HTTP,
 * cold) and read by zarrita.js from the same URL (`zarr.get` of the pixel's series, cold).
 * Requests, bytes, round trips and wall time of each, and the answers compared value by value (to
 * the layer's stated decimals). Then the COG collection beside geoblaze (bench/foreign-cogs.ts).
 * Writes bench/foreign-results.json and the section "Published stores beside zarrita.js and
 * geoblaze" of docs/performance.md.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ReferenceStore } from '@zarrita/storage';
import * as zarr from 'zarrita';
import { createClimateEngine } from '../src/engine/engine.ts';
import { urlLocation } from '../src/dataset/location.ts';
import { cacheDir, REPO } from './dataset.ts';
import { profileOf, roundTrips } from './link.ts';
import { type CogCollectionResults, median as cogMedian, runCogCollectionBench } from './foreign-cogs.ts';
import { hostInfo } from './results.ts';
import { type LoggedRequest, startBenchServer } from './server.ts';

const exec = promisify(execFile);
const LINKS = ['40', '150-4mbit'] as const;
const RUNS = 3;

/** The stores: how they are written (numcodecs, as their publishers write them) and asked. */
const STORES = [
  {
    id: 'power',
    label: 'NASA POWER-shaped (float32 + fixedscaleoffset, Blosc zstd, chunks 5,844 × 15 × 15), 16 years',
    variable: 'T2M',
    layer: 't2m',
    years: [2001, 2016],
  },
  {
    id: 'xarray',
    label: "xarray's defaults (float32, Blosc lz4 + shuffle, chunks 3,653 × 10 × 10), 10 years",
    variable: 'tas',
    layer: 'tas',
    years: [2011, 2020],
  },
  {
    id: 'v3',
    label:
      "dynamical.org's CHIRPS v3 shape (Zarr v3, float32 bit-rounded, `sharding_indexed`: chunks 365 × 60 × 60 in shards 365 × 240 × 360, Blosc zstd, index + CRC-32C at the end), a year of two",
    variable: 'precip',
    layer: 'precip',
    years: [2023, 2023],
  },
  {
    id: 'kerchunk',
    label:
      'a NetCDF-4 file (netCDF4-python: float32, shuffle + zlib, chunks 365 × 10 × 10) through a kerchunk reference (JSON, version 1), 10 years',
    variable: 'tas',
    layer: 'tasnc',
    years: [2015, 2024],
  },
] as const;

/** How each store is opened by zarrita.js and where its coordinates are (the CRS: its own `spatial_ref`, or stated). */
const SHAPES = {
  power: { version: 2, lat: 'lat', lon: 'lon', crs: 'EPSG:4326' },
  xarray: { version: 2, lat: 'lat', lon: 'lon', crs: 'EPSG:4326' },
  v3: { version: 3, lat: 'latitude', lon: 'longitude', crs: null },
  kerchunk: { version: 2, lat: 'lat', lon: 'lon', crs: null },
} as const;

/** Where each store is, in the dataset's stores/ folder: a Zarr store, or the reference to a NetCDF file beside it. */
const sourceOf = (id: string) => (id === 'kerchunk' ? 'kerchunk.json' : `${id}.zarr`);

const WRITER = `
import sys
import numpy as np, pandas as pd, xarray as xr, numcodecs
out = sys.argv[1]
rng = np.random.default_rng(11)
def field(t, lat, lon):
    doy = np.asarray(t.dayofyear)
    base = 17 + 7 * np.cos((doy - 15) / 365.25 * 2 * np.pi)[:, None, None]
    # A day's weather is shared by the region (its anomaly), with a gradient and a little local noise.
    day = rng.normal(0, 2.0, (len(t), 1, 1))
    return (base + day + lat[None, :, None] * 0.2 + lon[None, None, :] * 0.1 + rng.normal(0, 0.3, (len(t), lat.size, lon.size))).astype('float32')
# POWER's grid: 0.5 x 0.625 degrees; here 30 x 30 cells over the Western and Northern Cape.
t = pd.date_range('2001-01-01', '2016-12-31', freq='D')
lat = np.round(-35.0 + 0.5 * np.arange(30) + 0.25, 6); lon = np.round(16.0 + 0.625 * np.arange(30) + 0.3125, 6)
a = field(t, lat, lon)
ds = xr.Dataset({'T2M': (('time', 'lat', 'lon'), a, {'units': 'C', 'long_name': 'Temperature at 2 Meters'})},
                coords={'time': t, 'lat': ('lat', lat, {'units': 'degrees_north'}), 'lon': ('lon', lon, {'units': 'degrees_east'})})
# POWER marks missing as -999 (zarrita.js casts no NaN fill through an integer filter).
ds.T2M.encoding.update({'_FillValue': -999.0, 'chunks': (len(t), 15, 15), 'compressor': numcodecs.Blosc(cname='zstd', clevel=5, shuffle=numcodecs.Blosc.SHUFFLE),
                        'filters': [numcodecs.FixedScaleOffset(offset=0, scale=100, dtype='<f4', astype='<i4')]})
ds.to_zarr(out + '/power.zarr', consolidated=True)
# xarray's defaults, north to south, 0.05 degrees.
t2 = pd.date_range('2011-01-01', '2020-12-31', freq='D')
lat2 = np.round(-33.0 - 0.05 * np.arange(40), 6); lon2 = np.round(18.0 + 0.05 * np.arange(40), 6)
b = field(t2, lat2, lon2)
ds2 = xr.Dataset({'tas': (('time', 'lat', 'lon'), b, {'units': 'degC'})}, coords={'time': t2, 'lat': lat2, 'lon': lon2})
ds2.tas.encoding.update({'chunks': (len(t2), 10, 10)})
ds2.to_zarr(out + '/xarray.zarr', consolidated=True)
`;

/** The v3 store, laid out by the specification (test/helpers/zarr_v3_writer.py; zarr-python 2.13 writes v2 only). */
const V3_WRITER = String.raw`
import sys
import numpy as np, numcodecs
from zarr_v3_writer import array_meta, coord, sharded, write_store
out = sys.argv[1]
rng = np.random.default_rng(5)
T, H, W = 730, 240, 360
lat = np.round(-22.025 - 0.05 * np.arange(H), 6); lon = np.round(16.025 + 0.05 * np.arange(W), 6)
# Rain in moving cells, dry on most days at most pixels, bit-rounded to 7 mantissa bits as dynamical.org's CHIRPS v3.
low = rng.gamma(0.6, 6.0, (T, H // 10, W // 10)) - 4
a = np.clip(np.kron(low, np.ones((1, 10, 10))), 0, None) * rng.uniform(0.8, 1.2, (T, H, W))
a = a.astype('float32')
a = (a.view('uint32') & np.uint32(0xFFFF0000)).view('float32')
a[:, 200:, :40] = np.nan  # the sea
blosc = numcodecs.Blosc(cname='zstd', clevel=3, shuffle=numcodecs.Blosc.SHUFFLE)
codecs = [{'name': 'sharding_indexed', 'configuration': {'chunk_shape': [365, 60, 60],
    'codecs': [{'name': 'bytes', 'configuration': {'endian': 'little'}}, {'name': 'blosc', 'configuration': {'cname': 'zstd', 'clevel': 3, 'shuffle': 'shuffle', 'typesize': 4, 'blocksize': 0}}],
    'index_codecs': [{'name': 'bytes', 'configuration': {'endian': 'little'}}, {'name': 'crc32c'}], 'index_location': 'end'}}]
days = np.arange(T)
write_store(out + '/v3.zarr', {
    'precip': (array_meta(a.shape, 'float32', (365, 240, 360), codecs, 'NaN', ['time', 'latitude', 'longitude'],
                          {'units': 'mm', 'grid_mapping': 'spatial_ref'}),
               sharded(a, (365, 240, 360), (365, 60, 60), lambda b: blosc.encode(b.astype('<f4').tobytes()), 'end', True, set())),
    'time': coord(1640995200 + 86400 * days, '<i8', ['time'], {'units': 'seconds since 1970-01-01', 'calendar': 'proleptic_gregorian'}),
    'latitude': coord(lat, '<f8', ['latitude'], {}),
    'longitude': coord(lon, '<f8', ['longitude'], {}),
    'spatial_ref': (array_meta((), 'int64', (), [{'name': 'bytes', 'configuration': {'endian': 'little'}}], 0, [],
                               {'grid_mapping_name': 'latitude_longitude', 'crs_wkt': 'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]]'}), {}),
}, consolidated=True)
`;

/** A NetCDF-4 file as netCDF4-python writes one, and its kerchunk reference (test/helpers/kerchunk_writer.py). */
const KERCHUNK_WRITER = String.raw`
import os, sys
import numpy as np, pandas as pd, netCDF4
from kerchunk_writer import write_reference
out = sys.argv[1]
os.makedirs(out + '/nc', exist_ok=True)
t = pd.date_range('2015-01-01', '2024-12-31', freq='D')
lat = np.round(-33.0 - 0.05 * np.arange(40), 6); lon = np.round(18.0 + 0.05 * np.arange(40), 6)
rng = np.random.default_rng(13)
doy = np.asarray(t.dayofyear)
a = (17 + 7 * np.cos((doy - 15) / 365.25 * 2 * np.pi)[:, None, None] + rng.normal(0, 2.0, (t.size, 1, 1))
     + lat[None, :, None] * 0.2 + rng.normal(0, 0.3, (t.size, lat.size, lon.size))).astype('f4')
nc = netCDF4.Dataset(out + '/nc/data.nc', 'w', format='NETCDF4')
nc.createDimension('time', t.size); nc.createDimension('lat', lat.size); nc.createDimension('lon', lon.size)
v = nc.createVariable('time', 'f8', ('time',)); v.units = 'days since 2015-01-01'; v.calendar = 'standard'; v[:] = np.arange(t.size)
v = nc.createVariable('lat', 'f8', ('lat',)); v.units = 'degrees_north'; v[:] = lat
v = nc.createVariable('lon', 'f8', ('lon',)); v.units = 'degrees_east'; v[:] = lon
v = nc.createVariable('tas', 'f4', ('time', 'lat', 'lon'), zlib=True, shuffle=True, complevel=4, chunksizes=(365, 10, 10), fill_value=np.float32(-999.0))
v.units = 'degC'
v[:] = a
nc.close()
write_reference(out + '/nc/data.nc', out + '/kerchunk.json', ['tas'], ['time', 'lat', 'lon'], 'nc/data.nc')
`;

/** One run of one reader: wall time, requests and bytes after the catalog, round trips. */
interface ForeignRun {
  ms: number;
  requests: number;
  bytes: number;
  roundTrips: number;
}

export interface ForeignResults {
  startedAt: string;
  environment: ReturnType<typeof hostInfo>;
  stores: Array<{
    id: string;
    label: string;
    values: number;
    /** Values where the engine's answer and zarrita.js's read differ by more than the layer's step. */
    mismatches: number;
    links: Record<string, { engine: ForeignRun[]; zarrita: ForeignRun[] }>;
  }>;
  /** The COG collection beside geoblaze (bench/foreign-cogs.ts). */
  cogs: CogCollectionResults;
}

const summarise = (log: readonly LoggedRequest[], ms: number): ForeignRun => ({
  ms,
  requests: log.length,
  bytes: log.reduce((n, e) => n + e.bytes, 0),
  roundTrips: roundTrips(log),
});

/** Writes the stores and adds them to a dataset (once; kept in the bench cache). */
async function ensureStores(dir: string, log: (s: string) => void): Promise<string> {
  const ds = join(dir, 'ds');
  // Written whole, then stamped with the stores it holds: a run stopped half way starts again.
  const stamp = join(dir, 'stores.json');
  const want = JSON.stringify(STORES.map((s) => s.id));
  if (existsSync(stamp) && (await readFile(stamp, 'utf8')) === want) return ds;
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(ds, 'stores'), { recursive: true });
  const t0 = performance.now();
  execFileSync('/usr/bin/python3', ['-c', WRITER, join(ds, 'stores')], { stdio: 'inherit' });
  execFileSync('/usr/bin/python3', ['-c', V3_WRITER, join(ds, 'stores')], {
    stdio: 'inherit',
    env: { ...process.env, PYTHONPATH: join(REPO, 'test/helpers') },
  });
  execFileSync('/usr/bin/python3', ['-c', KERCHUNK_WRITER, join(ds, 'stores')], {
    stdio: 'inherit',
    env: { ...process.env, PYTHONPATH: join(REPO, 'test/helpers') },
  });
  log(
    `stores written by xarray, by the v3 specification and by netCDF4 + h5py in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
  for (const s of STORES) {
    const crs = SHAPES[s.id].crs;
    await exec(process.execPath, [
      join(REPO, 'bin/climate-query.js'),
      'layers',
      'add',
      join(ds, 'stores', sourceOf(s.id)),
      '--variable',
      s.variable,
      '--layer',
      s.layer,
      '--time-scale',
      'daily',
      ...(crs ? ['--crs', crs] : []),
      '--extent',
      'wc',
      '--data',
      ds,
    ]);
  }
  await writeFile(stamp, want);
  return ds;
}

/**
 * zarrita.js's ReferenceStore over the reference at `url`: its file template made absolute first
 * (the store fetches a template as it stands, and ours names the file beside the reference).
 */
async function referenceStore(url: string): Promise<ReferenceStore> {
  const spec = (await (await fetch(url)).json()) as { templates: Record<string, string> };
  for (const [k, v] of Object.entries(spec.templates)) spec.templates[k] = new URL(v, url).href;
  return ReferenceStore.fromSpec(spec as unknown as Record<string, unknown>);
}

/** The pixel (row, column) of the store's grid that holds `lon, lat`, from its coordinate arrays. */
async function pixelOf(
  root: zarr.Location<zarr.FetchStore>,
  shape: (typeof SHAPES)[keyof typeof SHAPES],
  lon: number,
  lat: number,
): Promise<[number, number]> {
  const near = async (name: string, v: number) => {
    const at = root.resolve(name);
    const a = await (shape.version === 2 ? zarr.open.v2(at, { kind: 'array' }) : zarr.open.v3(at, { kind: 'array' }));
    const c = (await zarr.get(a)).data as Float64Array;
    let best = 0;
    for (let i = 1; i < c.length; i++) if (Math.abs(c[i]! - v) < Math.abs(c[best]! - v)) best = i;
    return best;
  };
  return [await near(shape.lat, lat), await near(shape.lon, lon)];
}

export async function runForeignBench(o: { log(line: string): void }): Promise<ForeignResults> {
  const ds = await ensureStores(join(cacheDir(), 'foreign'), o.log);
  const point = { lon: 18.86, lat: -33.93 };
  const results: Omit<ForeignResults, 'cogs'> = {
    startedAt: new Date().toISOString(),
    environment: hostInfo(),
    stores: [],
  };
  for (const s of STORES) {
    const entry: ForeignResults['stores'][number] = { id: s.id, label: s.label, values: 0, mismatches: 0, links: {} };
    for (const link of LINKS) {
      const server = await startBenchServer({ mounts: { '/ds/': ds }, profile: profileOf(link) });
      const runs = { engine: [] as ForeignRun[], zarrita: [] as ForeignRun[] };
      try {
        for (let r = 0; r < RUNS; r++) {
          // The engine, cold: a new engine; its catalog read first (every query needs it once), then the point.
          const engine = createClimateEngine({ dataset: urlLocation(`${server.nodeUrl}ds/`) });
          await engine.catalog();
          server.reset();
          let t = performance.now();
          const answer = (await engine.query('point', {
            wkts: `POINT (${point.lon} ${point.lat})`,
            dataType: s.layer,
            options: { timeScale: 'daily', dataExtent: 'wc' },
            startDate: `${s.years[0]}-01-01`,
            endDate: `${s.years[1]}-12-31`,
          })) as Record<string, Record<string, number | null>>;
          runs.engine.push(summarise(server.counts().log, performance.now() - t));
          await engine.close();
          // zarrita.js, cold: a new store; the array's metadata and the pixel's chunk (its own way),
          // the pixel found from the coordinate arrays it reads too.
          server.reset();
          t = performance.now();
          const url = `${server.nodeUrl}ds/stores/${sourceOf(s.id)}`;
          const root = zarr.root(
            s.id === 'kerchunk' ? await referenceStore(url) : new zarr.FetchStore(url),
          ) as zarr.Location<zarr.FetchStore>;
          const shape = SHAPES[s.id];
          const [i, j] = await pixelOf(root, shape, point.lon, point.lat);
          const at = root.resolve(s.variable);
          const arr = await (shape.version === 2
            ? zarr.open.v2(at, { kind: 'array' })
            : zarr.open.v3(at, { kind: 'array' }));
          // The v3 store holds two years; the year asked is its second time chunk.
          const days = s.id === 'v3' ? zarr.slice(365, 730) : null;
          const got = (await zarr.get(arr, [days, i, j])).data as Float32Array;
          runs.zarrita.push(summarise(server.counts().log, performance.now() - t));
          if (r === 0) {
            const series = Object.values(answer)[0]!;
            const dates = Object.keys(series);
            entry.values = dates.length;
            const step = 0.0011; // the answers' 3 decimals, and float32's last bit
            entry.mismatches = dates.filter((d, k) => {
              const v = series[d] ?? null;
              const w = got[k];
              const none = w === undefined || Number.isNaN(w);
              if (v === null || none) return (v === null) !== none;
              return Math.abs(v - w) > step;
            }).length;
            if (dates.length !== got.length) entry.mismatches += Math.abs(dates.length - got.length);
          }
        }
      } finally {
        await server.close();
      }
      entry.links[link] = runs;
      const med = (xs: ForeignRun[]) => [...xs].sort((a, b) => a.ms - b.ms)[Math.floor(xs.length / 2)]!;
      const e = med(runs.engine);
      const z = med(runs.zarrita);
      o.log(
        `${s.id} at ${link}: engine ${e.requests} req ${(e.bytes / 1024).toFixed(1)} KiB ${e.roundTrips} trips ${e.ms.toFixed(0)} ms; zarrita.js ${z.requests} req ${(z.bytes / 1024).toFixed(1)} KiB ${z.roundTrips} trips ${z.ms.toFixed(0)} ms`,
      );
    }
    o.log(`${s.id}: ${entry.values} values, ${entry.mismatches} differ from zarrita.js`);
    results.stores.push(entry);
  }
  const all: ForeignResults = { ...results, cogs: await runCogCollectionBench(o) };
  await writeFile(join(REPO, 'bench/foreign-results.json'), `${JSON.stringify(all, null, 2)}\n`);
  const doc = join(REPO, 'docs/performance.md');
  await writeFile(doc, spliceSection(await readFile(doc, 'utf8'), renderForeign(all)));
  return all;
}

export const FOREIGN_HEADING = 'Published stores beside zarrita.js and geoblaze (npm run bench -- --foreign)';

/** The section of docs/performance.md. */
export function renderForeign(r: ForeignResults): string {
  const env = r.environment;
  const med = (xs: ForeignRun[]) => [...xs].sort((a, b) => a.ms - b.ms)[Math.floor(xs.length / 2)]!;
  const cell = (x: ForeignRun) =>
    `${x.requests} / ${(x.bytes / 1024).toFixed(1)} KiB / ${x.roundTrips} / ${x.ms.toFixed(0)} ms`;
  const rows = r.stores.flatMap((s) =>
    Object.entries(s.links).map(
      ([link, runs]) =>
        `| ${s.label} | ${profileOf(link).label} | ${cell(med(runs.engine))} | ${cell(med(runs.zarrita))} | ${s.mismatches === 0 ? `equal (${s.values.toLocaleString('en')} values)` : `**${s.mismatches} of ${s.values} differ**`} |`,
    ),
  );
  return `## ${FOREIGN_HEADING}

Stores written here by xarray and zarr-python (Debian's), for Zarr v3 by the specification (test/helpers/zarr_v3_writer.py: Debian's zarr-python writes v2 only), and a NetCDF-4 file by netCDF4-python with its kerchunk reference from HDF5's chunk index (test/helpers/kerchunk_writer.py; zarrita.js reads it through its ReferenceStore), added in place with \`climate-query layers add\` and served by the bench server; one point's whole record, cold, asked of the engine (\`/api/point/\` in Node over HTTP, after its catalog) and read by zarrita.js 0.7 from the same URL (\`zarr.get\` of the pixel's series, the year asked in the v3 store; the pixel found from the store's own coordinate arrays, as a zarrita.js user would). Each cell: requests / bytes / sequential round trips / wall time, the median of ${RUNS} runs; ${env.cpus} × ${env.cpuModel}, Node ${env.node}, ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC.

| store | link | engine | zarrita.js | answers |
|---|---|---|---|---|
${rows.join('\n')}

The engine reads no coordinate array: \`layers add\` recorded the grid and dates in the catalog, so the pixel's chunk (and in a sharded store the shard's index entry before it; through a reference, the reference itself once) is the only read after it. zarrita.js reads the store's metadata and both coordinate arrays before the chunk.

${renderCogs(r.cogs)}`;
}

/** The COG collection's table: the engine and geoblaze on the same files, both checked against GDAL. */
function renderCogs(c: CogCollectionResults): string {
  const cell = (x: ForeignRun) =>
    `${x.requests} / ${(x.bytes / 2 ** 20).toFixed(1)} MiB / ${x.roundTrips} / ${(x.ms / 1000).toFixed(2)} s`;
  const rows = Object.values(c.links).map((l) => {
    const e = cogMedian(l.engine);
    const g = cogMedian(l.geoblaze);
    return `| ${l.label} | ${cell(e)} | ${cell(g)} | ×${(g.ms / e.ms).toFixed(1)} |`;
  });
  const agree = (n: number) => (n === 0 ? `equal on all ${c.dates}` : `**${n} of ${c.dates} differ**`);
  return `### A COG collection beside geoblaze

${c.label}, ${(c.fileBytes / 2 ** 20).toFixed(0)} MiB in all, written by GDAL (Debian's 3.6) and added in place with \`climate-query layers add catalog.json --nodata=-9999\`. One point's year, cold: the engine (\`/api/point/\` in Node over HTTP, after its catalog) beside geoblaze 2.8 (\`identify\` on each date's URL, all at once, as its API is meant to be used). Each cell: requests / bytes / sequential round trips / wall time, the median of 3 runs. Against GDAL (\`gdallocationinfo\` on a VRT of the 365 files): the engine ${agree(c.engineVsGdal)} dates, geoblaze ${agree(c.geoblazeVsGdal)}.

| link | engine | geoblaze | engine faster |
|---|---|---|---|
${rows.join('\n')}

Where the time goes: a date costs its file's header (the first 16 KiB block, which holds the tile too when the day was dry) and its one tile of the point (55 KiB on average, 512 × 512 float32: a COG's tile is read and inflated whole, whoever reads it). With six connections the requests queue, so the engine's 1.7 a date against geoblaze's 3.4 make the difference; with every request in flight at once both take two waves and the time is inflating 365 tiles (365 MiB of float32), the same work for both. A point's year of such a collection is 20 MB on any reader; on the rural link that is 40 s, so \`climate-query build\` from the collection is the way for point series (the same year is then one chunk).
`;
}

function spliceSection(doc: string, section: string): string {
  const parts = doc.split(/^(?=## )/m);
  const i = parts.findIndex((p) => p.startsWith(`## ${FOREIGN_HEADING}\n`));
  if (i >= 0) parts[i] = `${section.trimEnd()}\n\n`;
  else parts.push(`${section.trimEnd()}\n\n`);
  return parts.join('');
}
