/**
 * Content identity: a dataset file rewritten by another build at
 * exactly the same size is told apart from the one the index or catalog
 * records, by the hash of the bytes a reader fetches first (a Parquet
 * footer, a GeoTIFF header, both carrying the build's id), so an answer is
 * wholly one version or a 409, never a mix. Tried from a folder and from a
 * host that sends no ETag and no Last-Modified, where the size was the only
 * check before.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BUILD_ID_KEY } from '../../src/builder/build-id.ts';
import { FOOTER_HASH_DIGITS } from '../../src/dataset/catalog.ts';
import { createHttpSource } from '../../src/io/http-source.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { parseStationIndex, type IndexedStation } from '../../src/stations/station-index.ts';
import { createClimateEngine } from '../../src/engine/engine.ts';
import { urlLocation } from '../../src/dataset/location.ts';
import { LinkMeter } from '../../src/io/link-meter.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';
import { buildRasterFixture, type RasterFixture } from '../helpers/raster-fixture.ts';

const fx = inject('stationFixture');
let work: string;
let rasters: RasterFixture;
let stations: IndexedStation[];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cq-identity-'));
  rasters = await buildRasterFixture();
  const bytes = await readFile(join(fx.dataset, 'stations/index.parquet'));
  stations = await parseStationIndex(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
    'fixture',
  );
}, 120_000);
afterAll(async () => {
  await rasters?.cleanup();
  await rm(work, { recursive: true, force: true });
});

/**
 * What another build of the same file looks like at the same size: the build id it carries (in
 * a Parquet footer or a GeoTIFF header) with one character of its random part changed.
 */
async function rebuildInPlace(file: string): Promise<void> {
  const bytes = await readFile(file);
  const key =
    bytes.indexOf(Buffer.from(BUILD_ID_KEY)) >= 0
      ? bytes.indexOf(Buffer.from(BUILD_ID_KEY))
      : bytes.indexOf(Buffer.from(BUILD_ID_KEY.toUpperCase()));
  expect(key, `${file} carries the build id`).toBeGreaterThan(0);
  // "<ISO time>Z/<8 hex>": the first hex digit after the "Z/".
  const at = bytes.indexOf(Buffer.from('Z/'), key) + 2;
  expect(at - key).toBeLessThan(80);
  bytes[at] = bytes[at] === 0x61 ? 0x62 : 0x61;
  const before = (await stat(file)).size;
  await writeFile(file, bytes);
  expect((await stat(file)).size).toBe(before);
}

/** Runs `body` on the dataset from its folder and from a host without validators; returns both answers. */
async function bothWays(root: string, path: string, body: unknown): Promise<Array<{ status: number; body: unknown }>> {
  let server: RangeServer | undefined;
  try {
    server = await startRangeServer(root);
    const out = [];
    // Over HTTP, a meter that has timed loopback answers: on a loaded machine a first loopback
    // answer can wait 25 ms and more, and a link that slow gets small files read whole, without the
    // coverage lines whose version one case here checks (read-plan.ts readWholeFirst).
    const meter = new LinkMeter();
    for (let i = 0; i < 5; i++) meter.record({ bytes: 60_000, waitMs: 1, bodyMs: 0.5 });
    for (const engine of [
      createNodeEngine(root),
      createClimateEngine({ dataset: urlLocation(server.url, { meter }) }),
    ]) {
      try {
        out.push(await engine.handle({ method: 'POST', path, body: JSON.stringify(body) }));
      } finally {
        await engine.close();
      }
    }
    return out;
  } finally {
    await server?.close();
  }
}

const changed = (answer: { status: number; body: unknown }, file: string) => {
  expect(answer.status).toBe(409);
  const error = (answer.body as { error: { code: string; message: string } }).error;
  expect(error.code).toBe('dataset_changed');
  expect(error.message).toContain(file);
};

/** A poly-aggregate over a box around the first ten daily stations: one answer from many files. */
function fieldQuery() {
  const some = stations.filter((s) => s.files.daily).slice(0, 10);
  const lons = some.map((s) => s.lon);
  const lats = some.map((s) => s.lat);
  const [w, e, s, n] = [
    Math.min(...lons) - 0.01,
    Math.max(...lons) + 0.01,
    Math.min(...lats) - 0.01,
    Math.max(...lats) + 0.01,
  ];
  const file = some[3]!.files.daily!;
  return {
    body: {
      wkts: `POLYGON ((${w} ${s}, ${e} ${s}, ${e} ${n}, ${w} ${n}, ${w} ${s}))`,
      dataTypes: ['temperature_mean'],
      options: { timeScale: 'daily' },
      startDate: file.first,
      endDate: file.last,
    },
    file: file.path,
  };
}

describe('a station file from another build, of the same size', () => {
  it('the index records each file footer’s hash, and the files carry the build id', async () => {
    for (const s of stations) {
      for (const f of Object.values(s.files)) {
        const bytes = await readFile(join(fx.dataset, f.path));
        expect(f.footerHash).toBe(
          createHash('sha256')
            .update(bytes.subarray(bytes.length - f.footer - 8))
            .digest('hex')
            .slice(0, FOOTER_HASH_DIGITS),
        );
      }
    }
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    const marked = (
      await con.runAndReadAll(
        `SELECT count(DISTINCT file_name) AS n FROM parquet_kv_metadata('${fx.dataset}/stations/daily/*/*.parquet') WHERE decode(key) = '${BUILD_ID_KEY}' AND regexp_matches(decode(value), '^\\d{4}-\\d\\d-\\d\\dT.*Z/[0-9a-f]{8}$')`,
      )
    ).getRowObjectsJS();
    con.closeSync();
    db.closeSync();
    expect(Number(marked[0]!.n)).toBe(stations.filter((s) => s.files.daily).length);
  });

  it('poly-aggregate over ten stations: the clean answer before, 409 dataset_changed naming the file after, never a mix', async () => {
    const root = join(work, 'stations-footer');
    await cp(fx.dataset, root, { recursive: true });
    const { body, file } = fieldQuery();
    const before = await bothWays(root, '/api/poly-aggregate/', body);
    for (const a of before) expect(a.status).toBe(200);
    expect(before[1]!.body).toEqual(before[0]!.body);
    await rebuildInPlace(join(root, file));
    for (const a of await bothWays(root, '/api/poly-aggregate/', body)) changed(a, file);
  });

  it('a coverage file of another version than the index: nearest-station (which reads it) answers 409 dataset_changed', async () => {
    const root = join(work, 'stations-coverage');
    await cp(fx.dataset, root, { recursive: true });
    const s = stations.find((x) => x.files.daily)!;
    const body = {
      wkts: `POINT (${s.lon} ${s.lat})`,
      dataTypes: ['temperature_mean'],
      options: { timeScale: 'daily' },
      startDate: s.files.daily!.first,
      endDate: s.files.daily!.last,
    };
    const before = await bothWays(root, '/api/nearest-station/', body);
    for (const a of before) expect(a.status).toBe(200);
    const path = join(root, 'stations/coverage.jsonl');
    const text = await readFile(path, 'utf8');
    // Every daily line's footer digest changed at the same length: as if written for other files.
    const other = text.replace(
      /("scale":"daily","footer":")([0-9a-f])/g,
      (_m, head: string, d: string) => `${head}${d === 'a' ? 'b' : 'a'}`,
    );
    expect(other).not.toBe(text);
    expect(other.length).toBe(text.length);
    await writeFile(path, other);
    for (const a of await bothWays(root, '/api/nearest-station/', body)) changed(a, 'coverage.jsonl');
  });
});

describe('a raster file from another build, of the same size', () => {
  const point = {
    wkts: 'POINT (18.61 -33.31)',
    dataType: 'temp',
    options: { subDataType: 'max', timeScale: 'daily', dataExtent: 'tc' },
    startDate: '2023-12-20',
    endDate: '2023-12-22',
  };

  it('the catalog records each layer file’s header (up to the first tile) and its SHA-256', async () => {
    const rasterFiles = rasters.catalog.files.filter((f) => f.role === 'raster');
    expect(rasterFiles.length).toBeGreaterThan(5);
    for (const f of rasterFiles) {
      expect(f.header, f.path).toBeDefined();
      const bytes = await readFile(join(rasters.dataset, f.path));
      expect(f.header!.bytes).toBeLessThan(bytes.length);
      expect(f.header!.sha256).toBe(createHash('sha256').update(bytes.subarray(0, f.header!.bytes)).digest('hex'));
      expect(bytes.subarray(0, f.header!.bytes).includes(Buffer.from(BUILD_ID_KEY.toUpperCase()))).toBe(true);
    }
  });

  it('a point query: the clean answer before, 409 dataset_changed naming the file after', async () => {
    const root = join(work, 'rasters-header');
    await cp(rasters.dataset, root, { recursive: true });
    const before = await bothWays(root, '/api/point/', point);
    for (const a of before) expect(a.status).toBe(200);
    const file = rasters.catalog.rasters.find((l) => l.dataType === 'temp' && l.subDataType === 'max')!.files[0]!.path;
    await rebuildInPlace(join(root, file));
    for (const a of await bothWays(root, '/api/point/', point)) changed(a, file);
  });

  it('a zarr store is named by its build, so another build of it is another path, never mixed with this one', async () => {
    const layer = rasters.catalog.rasters.find((l) => l.layout === 'zarr')!;
    const store = layer.files[0]!.path;
    // The name carries the random part of the build id its metadata records.
    const meta = JSON.parse(await readFile(join(rasters.dataset, store, '.zmetadata'), 'utf8'));
    const id = String(meta.metadata['.zattrs'][BUILD_ID_KEY]).split('/').pop();
    expect(store.endsWith(`-${id}.zarr`)).toBe(true);
    // Its consolidated metadata is listed and hashed like any file.
    const listed = rasters.catalog.files.find((f) => f.path === `${store}/.zmetadata`)!;
    expect(listed.role).toBe('raster-store');
    const bytes = await readFile(join(rasters.dataset, store, '.zmetadata'));
    expect(listed.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
  });
});

describe('a host without ETags', () => {
  it('a Last-Modified that changes between two reads of one file is dataset_changed', async () => {
    let modified = 'Tue, 24 Nov 2026 10:00:00 GMT';
    const body = Buffer.alloc(4096, 7);
    const server = createServer((req, res) => {
      const [, a, b] = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '') ?? [];
      const start = Number(a);
      const end = Math.min(Number(b), body.length - 1);
      res
        .writeHead(206, {
          'Content-Range': `bytes ${start}-${end}/${body.length}`,
          'Content-Length': end - start + 1,
          'Last-Modified': modified,
        })
        .end(body.subarray(start, end + 1));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const source = createHttpSource(`http://127.0.0.1:${(server.address() as AddressInfo).port}/f.bin`, {
        expected: { bytes: body.length },
      });
      expect((await source.read(0, 100)).length).toBe(100);
      expect((await source.read(100, 100)).length).toBe(100);
      modified = 'Tue, 24 Nov 2026 10:05:00 GMT';
      await expect(source.read(200, 100)).rejects.toMatchObject({
        code: 'dataset_changed',
        message: expect.stringContaining('Last-Modified'),
      });
    } finally {
      server.close();
    }
  });
});
