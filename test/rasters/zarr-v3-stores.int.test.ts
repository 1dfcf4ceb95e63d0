/**
 * Zarr v3 stores shaped like the published ones, written here by the specification (the shard
 * layout, codecs and CRC-32C as the v3 spec and its sharding extension give them; numcodecs encodes
 * the chunks), checked first against zarrita.js, an independent reader, then added in place with
 * `climate-query layers add` and queried over HTTP:
 * - dynamical.org's shape: float32, `sharding_indexed` over bytes + Blosc zstd (shuffle), the shard
 *   index (bytes + crc32c) at the end, consolidated metadata inline in the root zarr.json, CF
 *   `spatial_ref` grid mapping, time in seconds since 1970, fill "NaN", one inner chunk left out;
 * - the other corners: int16 big-endian CF-packed, gzip, each chunk with its CRC-32C, the shard
 *   index at the start without one, latitudes south to north, per-array metadata only (zarrita.js
 *   reads indexes at the end only: its answers are checked against the values written).
 * A point-year reads the shard's index entry and one chunk: two requests after the catalog.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as zarr from 'zarrita';
import type { Catalog } from '../../src/dataset/catalog.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { cli } from '../helpers/cli.ts';
import { pointSeries as seriesAt } from '../helpers/point-series.ts';
import { type RangeServer, startRangeServer } from '../helpers/range-server.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

const PY = '/usr/bin/python3';
/** Where zarr_v3_writer.py, the specification's layout in Python, lives. */
const HELPERS = fileURLToPath(new URL('../helpers/', import.meta.url));
let root: string;
let dir: string;
let server: RangeServer;
/** What the writer put at each pixel asked: `${store} ${i} ${j}` → lon, lat and 365 values. */
let truth: Record<string, { lon: number; lat: number; i: number; j: number; values: Array<number | null> }>;

const WRITER = String.raw`
import json, sys
import numpy as np, numcodecs
from zarr_v3_writer import array_meta, coord, crc32c, sharded, sharded_coord, write_store
FILL = -32768
root = sys.argv[1]
truth = {}
rng = np.random.default_rng(11)
days = np.arange(365)
# A: dynamical.org's shape.
lat = np.round(-30.05 - 0.1 * np.arange(40), 6); lon = np.round(18.05 + 0.1 * np.arange(30), 6)
a = (14 + 7 * np.sin(days / 58)[:, None, None] + 0.2 * lat[None, :, None] + 0.1 * lon[None, None, :] + rng.normal(0, 0.7, (365, 40, 30))).astype('float32')
a[:, 30:40, 10:20] = np.nan  # the inner chunk left out
a[100, 5, 5] = np.nan
blosc = numcodecs.Blosc(cname='zstd', clevel=3, shuffle=numcodecs.Blosc.SHUFFLE)
codecs_a = [{'name': 'sharding_indexed', 'configuration': {'chunk_shape': [365, 10, 10],
    'codecs': [{'name': 'bytes', 'configuration': {'endian': 'little'}}, {'name': 'blosc', 'configuration': {'cname': 'zstd', 'clevel': 3, 'shuffle': 'shuffle', 'typesize': 4, 'blocksize': 0}}],
    'index_codecs': [{'name': 'bytes', 'configuration': {'endian': 'little'}}, {'name': 'crc32c'}], 'index_location': 'end'}}]
zstd = numcodecs.Zstd(level=3)
blosc8 = numcodecs.Blosc(cname='zstd', clevel=3, shuffle=numcodecs.Blosc.SHUFFLE)
write_store(root + '/dyn.zarr', {
    'precip': (array_meta(a.shape, 'float32', (365, 20, 20), codecs_a, 'NaN', ['time', 'latitude', 'longitude'],
                          {'units': 'mm', 'grid_mapping': 'spatial_ref', 'long_name': 'Precipitation'}),
               sharded(a, (365, 20, 20), (365, 10, 10), lambda b: blosc.encode(b.astype('<f4').tobytes()), 'end', True, {(0, 30, 10)})),
    # Its time axis sharded as dynamical.org shards it: one chunk of 50 years of days, Blosc zstd over 8-byte shuffle.
    'time': sharded_coord(1704067200 + 86400 * days, '<i8', ['time'], {'units': 'seconds since 1970-01-01', 'calendar': 'proleptic_gregorian'},
                          18262, blosc8.encode, [{'name': 'bytes', 'configuration': {'endian': 'little'}}, {'name': 'blosc', 'configuration': {'cname': 'zstd', 'clevel': 3, 'shuffle': 'shuffle', 'typesize': 8, 'blocksize': 0}}]),
    'latitude': sharded_coord(lat, '<f8', ['latitude'], {}, 40, zstd.encode,
                              [{'name': 'bytes', 'configuration': {'endian': 'little'}}, {'name': 'zstd', 'configuration': {'level': 3, 'checksum': False}}]),
    'longitude': coord(lon, '<f8', ['longitude'], {}),
    'spatial_ref': (array_meta((), 'int64', (), [{'name': 'bytes', 'configuration': {'endian': 'little'}}], 0, [],
                               {'grid_mapping_name': 'latitude_longitude', 'crs_wkt': 'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]]'}), {}),
}, consolidated=True)
for (i, j) in [(0, 0), (5, 5), (17, 23), (39, 29), (35, 15), (22, 4)]:
    truth[f'dyn {i} {j}'] = {'lon': float(lon[j]), 'lat': float(lat[i]), 'i': i, 'j': j,
                             'values': [None if np.isnan(x) else float(x) for x in a[:, i, j]]}
# B: int16 big-endian, CF-packed, gzip + crc32c per chunk, index at the start without a CRC, south to north.
latb = np.round(-34.45 + 0.1 * np.arange(24), 6); lonb = np.round(19.05 + 0.1 * np.arange(16), 6)
phys = 20 + 8 * np.cos(days / 40)[:, None, None] + 0.3 * lonb[None, None, :] + rng.normal(0, 1, (365, 24, 16))
packed = np.round((phys - 10) / 0.01).astype('int16')
packed[200:210, 3, 7] = FILL
gzip = numcodecs.GZip(level=5)
codecs_b = [{'name': 'sharding_indexed', 'configuration': {'chunk_shape': [73, 8, 8],
    'codecs': [{'name': 'bytes', 'configuration': {'endian': 'big'}}, {'name': 'gzip', 'configuration': {'level': 5}}, {'name': 'crc32c'}],
    'index_codecs': [{'name': 'bytes', 'configuration': {'endian': 'little'}}], 'index_location': 'start'}}]
def enc_b(block):
    g = gzip.encode(block.astype('>i2').tobytes())
    return g + crc32c(g)
write_store(root + '/packed.zarr', {
    'tmax': (array_meta(packed.shape, 'int16', (365, 16, 16), codecs_b, FILL, ['time', 'lat', 'lon'],
                        {'units': 'degC', 'scale_factor': 0.01, 'add_offset': 10.0, '_FillValue': FILL}),
             sharded(packed, (365, 16, 16), (73, 8, 8), enc_b, 'start', False, set())),
    'time': coord(days, '<i8', ['time'], {'units': 'days since 2023-01-01', 'calendar': 'standard'}),
    'lat': coord(latb, '<f8', ['lat'], {'units': 'degrees_north'}),
    'lon': coord(lonb, '<f8', ['lon'], {'units': 'degrees_east'}),
}, consolidated=False)
for (i, j) in [(0, 0), (3, 7), (23, 15), (12, 9), (8, 8)]:
    v = packed[:, i, j]
    truth[f'packed {i} {j}'] = {'lon': float(lonb[j]), 'lat': float(latb[i]), 'i': i, 'j': j,
                                'values': [None if x == FILL else float(x) * 0.01 + 10 for x in v]}
print(json.dumps(truth))
`;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-zarr-v3-'));
  dir = join(root, 'ds');
  await mkdir(join(dir, 'stores'), { recursive: true });
  truth = JSON.parse(
    execFileSync(PY, ['-c', WRITER, join(dir, 'stores')], {
      encoding: 'utf8',
      env: { ...process.env, PYTHONPATH: HELPERS },
    }),
  );
  server = await startRangeServer(dir);
}, 300_000);
afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

/** zarrita.js's read of one pixel's series (an independent reader of the same files). */
async function zarritaSeries(store: string, array: string, i: number, j: number): Promise<Array<number | null>> {
  const files = {
    async get(key: string) {
      return readFile(join(dir, 'stores', store, key.replace(/^\//, ''))).then(
        (b) => new Uint8Array(b),
        () => undefined,
      );
    },
    async getRange(key: string, range: { offset: number; length: number } | { suffixLength: number }) {
      const whole = await this.get(key);
      if (!whole) return undefined;
      return 'suffixLength' in range
        ? whole.subarray(whole.length - range.suffixLength)
        : whole.subarray(range.offset, range.offset + range.length);
    },
  };
  const arr = await zarr.open.v3(zarr.root(files).resolve(array), { kind: 'array' });
  const got = await zarr.get(arr, [null, i, j]);
  const fill = arr.fillValue;
  return Array.from(got.data as ArrayLike<number>, (x) => (Number.isNaN(x) || x === fill ? null : x));
}

const series = async (layer: string, extent: string, lon: number, lat: number, year: number, last = '12-31') =>
  Object.values(
    await seriesAt(server.url, { layer, extent, lon, lat, startDate: `${year}-01-01`, endDate: `${year}-${last}` }),
  );

describe('a v3 sharded store shaped like dynamical.org’s (Blosc zstd, index + crc32c at the end, consolidated inline)', () => {
  it('is the store zarrita.js reads: the writer follows the specification', async () => {
    for (const [k, t] of Object.entries(truth).filter(([k]) => k.startsWith('dyn'))) {
      const got = await zarritaSeries('dyn.zarr', 'precip', t.i, t.j);
      got.forEach((g, d) => {
        if (t.values[d] === null) expect(g, `${k} ${d}`).toBeNull();
        else expect(g, `${k} ${d}`).toBeCloseTo(t.values[d]!, 5);
      });
    }
  });

  it('is added in place, its CRS from its spatial_ref, and answers a point-year = zarrita.js, from the index entry and one chunk', async () => {
    const r = await cli([
      'layers',
      'add',
      join(dir, 'stores', 'dyn.zarr'),
      '--layer',
      'precip',
      '--time-scale',
      'daily',
      '--extent',
      'dyn',
      '--data',
      dir,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const layer = ((await catalogJson(join(dir, 'catalog.json'))) as Catalog).rasters.find(
      (l) => l.dataType === 'precip',
    )!;
    expect(layer.storeArray).toMatchObject({
      zarrFormat: 3,
      keyPrefix: 'c/',
      chunks: [365, 20, 20],
      shard: { chunks: [365, 10, 10], indexAt: 'end', indexChecksum: true },
      compressor: { id: 'blosc', cname: 'zstd' },
    });
    expect(layer.storeArray!.shard!.sizes).toHaveLength(4);
    let compared = 0;
    for (const [k, t] of Object.entries(truth).filter(([k]) => k.startsWith('dyn'))) {
      server.reset();
      // 2024 is a leap year: the store's 365 days end on 30 December.
      const got = await series('precip', 'dyn', t.lon, t.lat, 2024, '12-30');
      const shardReads = server.log.filter((q) => /\/precip\/c\//.test(q.path));
      const want = await zarritaSeries('dyn.zarr', 'precip', t.i, t.j);
      expect(got).toHaveLength(365);
      want.forEach((w, d) => {
        if (w === null) expect(got[d], `${k} day ${d}`).toBeNull();
        else {
          expect(Math.abs(got[d]! - w), `${k} day ${d}`).toBeLessThanOrEqual(0.0005 + 1e-6);
          compared++;
        }
      });
      // The index's entry, then the chunk (none where the index says the chunk was left out).
      expect(shardReads.length, k).toBe(k === 'dyn 35 15' ? 1 : 2);
    }
    expect(compared).toBeGreaterThan(1500);
  });
});

describe('a v3 store of the other corners (int16 big-endian packed, gzip + crc32c, index at the start, south to north)', () => {
  // zarrita.js 0.7 reads a shard's index at the end only: this store's values are the writer's.
  it('answers the values written, unpacked, at the packing step', async () => {
    const r = await cli([
      'layers',
      'add',
      join(dir, 'stores', 'packed.zarr'),
      '--layer',
      'tmax',
      '--time-scale',
      'daily',
      '--extent',
      'packed',
      '--data',
      dir,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Zarr v3 store read in place .* chunks 73 × 8 × 8 in shards 365 × 16 × 16, gzip/);
    let missing = 0;
    for (const [k, t] of Object.entries(truth).filter(([k]) => k.startsWith('packed'))) {
      const got = await series('tmax', 'packed', t.lon, t.lat, 2023);
      expect(got).toHaveLength(365);
      t.values.forEach((v, d) =>
        v === null ? expect(got[d], `${k} day ${d}`).toBeNull() : expect(got[d], `${k} day ${d}`).toBeCloseTo(v, 6),
      );
      missing += t.values.filter((v) => v === null).length;
    }
    expect(missing).toBe(10);
  });

  it('refuses a shard whose bytes were changed after it was added, naming it', async () => {
    const { appendFile } = await import('node:fs/promises');
    // Pixel (3, 7) of the south-to-north store lies in its first shard.
    await appendFile(join(dir, 'stores', 'packed.zarr', 'tmax', 'c', '0', '0', '0'), new Uint8Array([1, 2, 3]));
    const engine = createNodeEngine(server.url);
    try {
      const res = await engine.handle({
        method: 'POST',
        path: '/api/point/',
        body: JSON.stringify({
          wkts: `POINT (${truth['packed 3 7']!.lon} ${truth['packed 3 7']!.lat})`,
          dataType: 'tmax',
          options: { timeScale: 'daily', dataExtent: 'packed' },
          startDate: '2023-01-01',
          endDate: '2023-01-31',
        }),
      });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(JSON.stringify(res.body)).toMatch(/tmax\/c\/0\/0\/0/);
    } finally {
      await engine.close();
    }
  });
});
