/**
 * A NetCDF-4 file (netCDF4-python: chunks of 10 dates × 5 × 5 px, shuffle + zlib, a _FillValue)
 * read chunk by chunk through a kerchunk reference (version 1, a template for the file's URL),
 * written the way kerchunk's HDF5 scanner writes one (test/helpers/kerchunk_writer.py): each chunk's
 * byte range from HDF5's own chunk index (h5py), the coordinates as ranges of the file or inline. `layers add` references it in
 * place; answers equal what netCDF4 reads of the file, and a point reads only the chunk ranges
 * that hold it. A reference reaching out of the dataset is refused.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogJson } from '../helpers/catalog-json.ts';
import { cli } from '../helpers/cli.ts';
import { pointSeries } from '../helpers/point-series.ts';
import { type RangeServer, startRangeServer } from '../helpers/range-server.ts';

const PY = '/usr/bin/python3';
let root: string;
let dir: string;
let server: RangeServer;
let truth: Array<{ lon: number; lat: number; dates: string[]; values: Array<number | null> }>;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-kerchunk-'));
  dir = join(root, 'ds');
  await mkdir(join(dir, 'refs'), { recursive: true });
  const script = `
import json, sys
import numpy as np, netCDF4
from kerchunk_writer import write_reference
d = sys.argv[1]
nc = netCDF4.Dataset(d + '/data.nc', 'w', format='NETCDF4')
nc.createDimension('time', 30); nc.createDimension('lat', 12); nc.createDimension('lon', 14)
t = nc.createVariable('time', 'f8', ('time',)); t.units = 'days since 2024-01-01'; t.calendar = 'standard'; t[:] = np.arange(30)
la = nc.createVariable('lat', 'f4', ('lat',)); la.units = 'degrees_north'; la[:] = np.round(-33.0 - 0.1*np.arange(12), 4)
lo = nc.createVariable('lon', 'f4', ('lon',)); lo.units = 'degrees_east'; lo[:] = np.round(18.0 + 0.1*np.arange(14), 4)
v = nc.createVariable('tas', 'f4', ('time', 'lat', 'lon'), zlib=True, shuffle=True, complevel=4, chunksizes=(10, 5, 5), fill_value=np.float32(-999.0))
v.units = 'degC'; v.long_name = 'Air temperature'
rng = np.random.default_rng(11)
a = (15 + 5*np.sin(np.arange(30)/4)[:,None,None] + rng.normal(0, 0.7, (30, 12, 14))).astype('f4')
a[3, 2, 2] = -999.0
v[:] = a
nc.close()
write_reference(d + '/data.nc', d + '/tas.json', ['tas'], ['time', 'lat', 'lon'], 'data.nc', inline=('time',))
f = netCDF4.Dataset(d + '/data.nc')
pts = []
for (i, j) in [(0, 0), (2, 2), (7, 9), (11, 13)]:
    col = f['tas'][:, i, j]
    pts.append({'lon': float(f['lon'][j]), 'lat': float(f['lat'][i]),
                'dates': [str(np.datetime64('2024-01-01') + k) for k in range(30)],
                'values': [None if np.ma.is_masked(x) else float(x) for x in col]})
print(json.dumps(pts))
`;
  truth = JSON.parse(
    execFileSync(PY, ['-c', script, join(dir, 'refs')], {
      encoding: 'utf8',
      env: { ...process.env, PYTHONPATH: join(import.meta.dirname, '../helpers') },
    }),
  );
  server = await startRangeServer(dir);
}, 300_000);
afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

const ask = (p: { lon: number; lat: number }) => ({
  layer: 'tas',
  extent: 'nc',
  lon: p.lon,
  lat: p.lat,
  startDate: '2024-01-01',
  endDate: '2024-01-30',
});

/** Every value of the points of `truth` as the dataset at `data` answers it: netCDF4's, to 3 decimals; its fill value null. */
async function expectNetcdf(data: string): Promise<void> {
  let compared = 0;
  for (const p of truth) {
    const got = await pointSeries(data, ask(p));
    p.dates.forEach((d, k) => {
      const want = p.values[k] ?? null;
      if (want === null) expect(got[d], d).toBeNull();
      else {
        expect(Math.abs(got[d]! - want), `${p.lon} ${p.lat} ${d}`).toBeLessThanOrEqual(0.0005 + 1e-6);
        compared++;
      }
    });
  }
  expect(compared).toBe(truth.length * 30 - 1);
}

describe('a NetCDF-4 file through a kerchunk reference', () => {
  it('is added in place, lists the reference and its file, and answers what netCDF4 reads of the file', async () => {
    const added = await cli([
      'layers',
      'add',
      join(dir, 'refs', 'tas.json'),
      ...['--layer', 'tas', '--time-scale', 'daily', '--extent', 'nc', '--data', dir],
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain(
      'a kerchunk reference read in place (refs/tas.json → refs/data.nc: array tas, <f4, chunks 10 × 5 × 5, zlib + shuffle)',
    );
    const catalog = await catalogJson(join(dir, 'catalog.json'));
    const layer = catalog.rasters[0];
    expect(layer.layout).toBe('kerchunk');
    expect(layer.files[0].path).toBe('refs/tas.json');
    expect(layer.kerchunk).toEqual({ targets: ['refs/data.nc'] });
    expect(layer.storeArray.compressor.id).toBe('zlib');
    expect(layer.storeArray.filters).toEqual([{ id: 'shuffle', elementsize: 4 }]);
    expect(catalog.files.map((f: { path: string }) => f.path).sort()).toEqual(['refs/data.nc', 'refs/tas.json']);
    await expectNetcdf(dir);
  });

  it('is built into the own layout by `build`: answers equal what netCDF4 reads of the file, its fill value null', async () => {
    const built = join(root, 'built');
    const r = await cli([
      'build',
      ...['--out', built, '--layer', 'tas', '--unit', '°C', '--time-scale', 'daily', '--extent', 'nc'],
      join(dir, 'refs', 'tas.json'),
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /read .*tas\.json: tas, 30 dates \(2024-01-01 … 2024-01-30\), 14 × 12 px of its 14 × 12, degC → °C; /,
    );
    // 30 dates: the own `map` layout, a GeoTIFF in the built dataset (nothing referenced).
    expect((await catalogJson(join(built, 'catalog.json'))).rasters[0].files[0].path).toMatch(
      /^rasters\/tas\/.*\.tif$/,
    );
    await expectNetcdf(built);
  });

  it('over HTTP a point reads the reference once, then only the ranges of its three chunks', async () => {
    server.reset();
    const p = truth[2]!;
    const got = await pointSeries(server.url, ask(p));
    expect(got['2024-01-15']).toBeCloseTo(p.values[14]!, 3);
    const reads = server.log.filter((e) => e.path !== '/catalog.json');
    expect(reads.filter((e) => e.path === '/refs/tas.json')).toHaveLength(1);
    const ranges = reads.filter((e) => e.path === '/refs/data.nc');
    // 30 dates in chunks of 10: three chunks hold the pixel, each a range of the file.
    expect(ranges).toHaveLength(3);
    expect(ranges.every((e) => e.range !== null && e.status === 206)).toBe(true);
    expect(reads).toHaveLength(4);
  });

  it('at a URL, beside its file: answers the same from a host allowed, and is refused where the host ignores Range', async () => {
    const p = truth[1]!;
    const here = await pointSeries(dir, ask(p));
    const elsewhere = join(root, 'by-url');
    await mkdir(elsewhere);
    const added = await cli([
      'layers',
      'add',
      `${server.url}refs/tas.json`,
      ...['--layer', 'tas', '--time-scale', 'daily', '--extent', 'nc', '--data', elsewhere],
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect((await catalogJson(join(elsewhere, 'catalog.json'))).rasters[0].kerchunk).toEqual({
      targets: [`${server.url}refs/data.nc`],
    });
    expect(await pointSeries(elsewhere, ask(p), { allowOrigins: [new URL(server.url).origin] })).toEqual(here);

    const whole = await startRangeServer(dir, { ranges: false });
    try {
      const refused = await cli([
        'layers',
        'add',
        `${whole.url}refs/tas.json`,
        ...['--layer', 'tas2', '--time-scale', 'daily', '--extent', 'nc', '--data', elsewhere],
      ]);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/answers a range request with 200, not 206/);
    } finally {
      await whole.close();
    }
  });

  it('in its Parquet form (record files of 4 chunks, written by DuckDB) answers the same, reading only the records asked', async () => {
    // The Parquet form of the same reference, as fsspec lays it out: .zmetadata, then <array>/refs.<n>.parq.
    const ref = JSON.parse(await readFile(join(dir, 'refs', 'tas.json'), 'utf8'));
    const folder = join(dir, 'refs', 'tas.parq');
    const metadata: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(ref.refs as Record<string, unknown>))
      if (/(^|\/)\.z(group|attrs|array)$/.test(k)) metadata[k] = JSON.parse(v as string);
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, '.zmetadata'), JSON.stringify({ metadata, record_size: 4 }));
    const db = await (await DuckDBInstance.create(':memory:')).connect();
    for (const name of ['lat', 'lon', 'time', 'tas']) {
      const z = metadata[`${name}/.zarray`] as { shape: number[]; chunks: number[] };
      const grid = z.shape.map((d, k) => Math.ceil(d / z.chunks[k]!));
      const count = grid.reduce((a, b) => a * b, 1);
      const rows = Array.from({ length: count }, (_, n) => {
        const idx = grid.map((_, k) => Math.floor(n / grid.slice(k + 1).reduce((a, b) => a * b, 1)) % grid[k]!);
        const v = ref.refs[`${name}/${idx.join('.')}`];
        if (typeof v === 'string') return { path: null, offset: 0, size: 0, raw: v.slice('base64:'.length) };
        if (Array.isArray(v)) return { path: 'data.nc', offset: v[1], size: v[2], raw: null };
        return { path: null, offset: 0, size: 0, raw: null };
      });
      await mkdir(join(folder, name), { recursive: true });
      for (let r = 0; r * 4 < rows.length; r++) {
        const part = join(root, `${name}-${r}.json`);
        await writeFile(part, JSON.stringify(rows.slice(r * 4, r * 4 + 4)));
        await db.run(
          `COPY (SELECT path, "offset"::BIGINT AS "offset", size::BIGINT AS size, from_base64(raw) AS raw FROM read_json('${part}', columns = {path: 'VARCHAR', "offset": 'BIGINT', size: 'BIGINT', raw: 'VARCHAR'})) TO '${join(folder, name, `refs.${r}.parq`)}' (FORMAT parquet, COMPRESSION zstd)`,
        );
      }
    }
    db.closeSync();
    const added = await cli([
      'layers',
      'add',
      folder,
      ...['--layer', 'tasp', '--time-scale', 'daily', '--extent', 'nc', '--data', dir],
    ]);
    expect(added.code, added.stderr).toBe(0);
    const layer = (await catalogJson(join(dir, 'catalog.json'))).rasters.find(
      (l: { dataType: string }) => l.dataType === 'tasp',
    );
    expect(layer.layout).toBe('kerchunk-parquet');
    expect(layer.kerchunk).toEqual({ targets: ['refs/data.nc'] });
    for (const p of truth) {
      const want = await pointSeries(dir, ask(p));
      expect(await pointSeries(dir, { ...ask(p), layer: 'tasp' })).toEqual(want);
    }
    // Over HTTP, a point reads the .zmetadata, the record files its three chunks are in, and three ranges.
    server.reset();
    await pointSeries(server.url, { ...ask(truth[0]!), layer: 'tasp' });
    const reads = server.log.filter((e) => e.path !== '/catalog.json').map((e) => e.path);
    expect(reads.filter((r) => r.startsWith('/refs/tas.parq/tas/')).length).toBeLessThanOrEqual(3);
    expect(reads.filter((r) => r === '/refs/data.nc')).toHaveLength(3);
    expect(reads.filter((r) => r.startsWith('/refs/tas.parq/') && !r.includes('/tas/'))).toEqual([
      '/refs/tas.parq/.zmetadata',
    ]);
  });

  it('is not merged into another dataset, where its files would not be beside it', async () => {
    const other = join(root, 'other');
    const r = await cli(['layers', 'merge', dir, '--data', other]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(
      /reads its dataset's files through a kerchunk reference; add it to .* with `climate-query layers add`/,
    );
    expect(existsSync(join(other, 'catalog.json'))).toBe(false);
  });

  it('a reference that reads a file outside the dataset, or a scheme it cannot, is refused at add', async () => {
    const ref = JSON.parse(await readFile(join(dir, 'refs', 'tas.json'), 'utf8'));
    for (const [name, target, why] of [
      ['out', '../../elsewhere.nc', /outside the dataset folder/],
      ['s3', 's3://bucket/data.nc', /this reads http\(s\) URLs and paths beside the reference/],
    ] as const) {
      await writeFile(join(dir, 'refs', `${name}.json`), JSON.stringify({ ...ref, templates: { u: target } }));
      const r = await cli([
        'layers',
        'add',
        join(dir, 'refs', `${name}.json`),
        ...['--layer', name, '--time-scale', 'daily', '--extent', 'nc', '--data', dir],
      ]);
      expect(r.code, name).not.toBe(0);
      expect(r.stderr, name).toMatch(why);
    }
  });
});
