// Dataset file URLs that every common host maps to the file: a
// station archive whose ids need encoding, written with plain DuckDB and
// indexed, served by Vite's own dev server (the `npm start` path) and by a
// plain range server; answers equal the folder's. And what a host that
// answers a page, or an error status, instead of the file is told.
import { cp, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { encodeDatasetPath } from '../../src/dataset/dataset-path.ts';
import { urlLocation } from '../../src/dataset/location.ts';
import { indexStations } from '../../src/builder/station-index-build.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';
import { expectClimateError } from '../helpers/expect-error.ts';

const fx = inject('stationFixture');
let dir: string;
let archive: string;
let vite: ViteDevServer;
let viteUrl: string;
const IDS = ['A;1', 'B c', 'C=3', 'D%4', 'É5'];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cq-urls-'));
  archive = join(dir, 'public/data/odd');
  await mkdir(join(archive, 'stations'), { recursive: true });
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const ids = IDS.map((id, i) => `('${id}', 'Station ${i}', ${-33.9 + i * 0.1}, ${18.8 + i * 0.1}, ${100 + i})`).join(
    ', ',
  );
  await con.run(
    `COPY (SELECT * FROM (VALUES ${ids}) t(station_id, name, lat, lon, elevation)) TO '${join(archive, 'stations/stations.parquet')}' (FORMAT parquet)`,
  );
  await con.run(`COPY (SELECT s.station_id, TIMESTAMP '2024-03-01 00:00:00' + INTERVAL (h) HOUR AS time, round(10 + s.k + h / 10.0, 1) AS temperature_mean
      FROM (SELECT station_id, row_number() OVER (ORDER BY station_id) AS k FROM (VALUES ${IDS.map((id) => `('${id}')`).join(', ')}) v(station_id)) s, range(48) r(h)
      ORDER BY station_id, time) TO '${join(archive, 'stations/hourly')}' (FORMAT parquet, PARTITION_BY (station_id), WRITE_PARTITION_COLUMNS true)`);
  con.closeSync();
  db.closeSync();
  await indexStations(archive);
  // As `npm start` serves a dataset: a file in Vite's public folder.
  vite = await createServer({
    root: join(dir, 'public'),
    configFile: false,
    publicDir: join(dir, 'public'),
    logLevel: 'error',
    server: { host: '127.0.0.1', port: 0, hmr: false },
  });
  await vite.listen();
  viteUrl = `http://127.0.0.1:${(vite.httpServer!.address() as { port: number }).port}/`;
});

afterAll(async () => {
  await vite?.close();
  await rm(dir, { recursive: true, force: true });
});

const body = (x: number, y: number) =>
  JSON.stringify({
    wkts: `POINT (${x} ${y})`,
    dataTypes: ['temperature_mean'],
    options: { timeScale: 'hourly' },
    startDate: '2024-03-01T00:00:00',
    endDate: '2024-03-02T23:00:00',
  });

describe('file URLs', () => {
  it('keep "=" literal, encode what a segment must not hold, and stay under the dataset', () => {
    expect(encodeDatasetPath('stations/hourly/station_id=SYN-044/data_0.parquet')).toBe(
      'stations/hourly/station_id=SYN-044/data_0.parquet',
    );
    expect(encodeDatasetPath('stations/hourly/station_id=A%3B1/x y#?.parquet')).toBe(
      'stations/hourly/station_id=A%253B1/x%20y%23%3F.parquet',
    );
    const at = urlLocation('http://h.example/data/demo/');
    expect(at.resolve('stations/hourly/station_id=C=3/data_0.parquet')).toBe(
      'http://h.example/data/demo/stations/hourly/station_id=C=3/data_0.parquet',
    );
    // A percent-encoded name stays a name (its "%" sent as %25)…
    expect(at.resolve('rasters/station_id=a%2Fb/x.tif')).toBe(
      'http://h.example/data/demo/rasters/station_id=a%252Fb/x.tif',
    );
    // …but text that a URL parser, or a host decoding escapes, would read as a climb, a scheme or
    // another host is refused.
    for (const bad of [
      'rasters/.%2e/secret.tif',
      'rasters/%252E%252E/secret.tif',
      '../x.tif',
      'a/../../x',
      '\thttp://evil/x.tif',
      'a\n/b',
      ' a',
      'a//b',
      './a',
      'http://evil/x',
      '/etc/passwd',
      'a\\b',
    ]) {
      expect(() => at.resolve(bad), bad).toThrow(/lists the file/);
    }
  });

  it('every station of an archive with odd ids answers through Vite’s dev server as from the folder', async () => {
    const names = await readdir(join(archive, 'stations/hourly'));
    // DuckDB writes the ids percent-encoded where a file name needs it: the URL must carry the "%" as %25.
    expect(names.some((n) => n.includes('%'))).toBe(true);
    const folder = createNodeEngine(archive);
    const overVite = createNodeEngine(`${viteUrl}data/odd/`);
    for (let i = 0; i < IDS.length; i++) {
      const request = { method: 'POST', path: '/api/nearest-station/', body: body(18.8 + i * 0.1, -33.9 + i * 0.1) };
      const want = await folder.handle(request);
      const got = await overVite.handle(request);
      expect(want.status, IDS[i]).toBe(200);
      expect(Object.keys(Object.values(want.body as Record<string, { data: object }>)[0]!.data)).toHaveLength(48);
      expect(JSON.stringify(got.body), IDS[i]).toBe(JSON.stringify(want.body));
    }
    await Promise.all([folder.close(), overVite.close()]);
  });
});

describe('a host that answers something else than the file', () => {
  let server: RangeServer;
  let copy: string;
  beforeAll(async () => {
    copy = join(dir, 'fallback');
    await cp(fx.dataset, copy, { recursive: true });
    server = await startRangeServer(copy, { htmlFallback: '<!doctype html><html><body>app</body></html>' });
  });
  afterAll(() => server?.close());

  it('a page for a missing station file is named as such, never "changed … rebuild"', async () => {
    const engine = createNodeEngine(server.url);
    const stations = await engine.stations();
    const s = stations[0]!;
    await rm(join(copy, s.files.hourly!.path));
    const wkt = `POINT (${s.lon} ${s.lat})`;
    const answer = await engine.handle({
      method: 'POST',
      path: '/api/nearest-station/',
      body: JSON.stringify({
        wkts: wkt,
        dataTypes: ['temperature_mean'],
        options: { timeScale: 'hourly' },
        startDate: '2024-02-10T00:00:00',
        endDate: '2024-02-10T03:00:00',
      }),
    });
    expect(answer.status, JSON.stringify(answer.body).slice(0, 400)).toBe(503);
    const error = (answer.body as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('dataset_unavailable');
    expect(error.message).toMatch(/web page instead of the file/);
    expect(error.message).toMatch(/index\.html/);
    expect(error.message).not.toMatch(/rebuild|changed/i);
    await engine.close();
  });

  it('an error status says what it usually means on a static host', async () => {
    const odd = await startRangeServer(archive, { status: { '/stations/index.parquet': 403 } });
    try {
      const engine = createNodeEngine(odd.url);
      const e = await expectClimateError(engine.stations(), 'dataset_unavailable');
      expect(e.message).toMatch(/HTTP 403.*refuses to serve it/);
      await engine.close();
    } finally {
      await odd.close();
    }
  });
});
