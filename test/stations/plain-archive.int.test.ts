// The archive layout is a contract anyone can write to (docs/data.md): here
// it is written with nothing but plain DuckDB SQL (COPY … TO … PARTITION_BY),
// indexed with `climate-query index`, and the engine's answers are compared
// with the independent oracle computed from the input CSVs. The indexer's
// refusals name the file and row.
import { cp, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { BuildError } from '../../src/builder/build-error.ts';
import { indexStationArchive, indexStations } from '../../src/builder/station-index-build.ts';
import { parseRange } from '../../src/contract/periods.ts';
import { mulberry32 } from '../../src/builder/prng.ts';
import { roundValue } from '../../src/contract/station-type-info.ts';
import { distance, insideOrOn, readHourly, readStations, type OStation, type Series } from './oracle.ts';

const fx = inject('stationFixture');
const BIN = join(import.meta.dirname, '../../bin/climate-query.js');
let dir: string;
let stations: OStation[];
let hourly: Series;

const q = (s: string) => `'${s.replace(/'/g, "''")}'`;

async function sql(statements: string[]): Promise<void> {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  try {
    for (const s of statements) await con.run(s);
  } finally {
    con.closeSync();
    db.closeSync();
  }
}

/** A conforming archive from the fixture's CSVs, by plain DuckDB SQL only. */
async function writePlainArchive(root: string): Promise<void> {
  await mkdir(join(root, 'stations'), { recursive: true });
  await sql([
    `COPY (SELECT CAST(station_id AS VARCHAR) AS station_id, name, CAST(lat AS DOUBLE) AS lat, CAST(lon AS DOUBLE) AS lon, CAST(elevation AS DOUBLE) AS elevation
       FROM read_csv(${q(fx.stationsCsv)})) TO ${q(join(root, 'stations/stations.parquet'))} (FORMAT parquet)`,
    `COPY (SELECT CAST(station_id AS VARCHAR) AS station_id, CAST(time AS TIMESTAMP) AS time, COLUMNS(* EXCLUDE (station_id, time))::DOUBLE
       FROM read_csv(${q(fx.hourlyCsv)}) ORDER BY station_id, time)
     TO ${q(join(root, 'stations/hourly'))} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 4096, PARTITION_BY (station_id), WRITE_PARTITION_COLUMNS true)`,
  ]);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cq-plain-'));
  stations = readStations(fx.stationsCsv);
  hourly = readHourly(fx.hourlyCsv);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('an archive written with plain DuckDB SQL', () => {
  it('is indexed by `climate-query index` and answers equal the oracle', async () => {
    const root = join(dir, 'plain');
    await writePlainArchive(root);
    const run = await promisify(execFile)(process.execPath, [BIN, 'index', root], { encoding: 'utf8' });
    expect(run.stderr).toMatch(/Indexed \d+ stations/);
    const engine = createNodeEngine(root);
    const r = mulberry32(11);
    let compared = 0;
    let passedOver = 0;
    for (let i = 0; i < 40; i++) {
      const start = Date.UTC(2024, 0, 1) + Math.floor(r() * 88 * 24) * 3_600_000;
      const end = start + Math.floor(r() * 48) * 3_600_000;
      const f = (t: number) => new Date(t).toISOString().slice(0, 19);
      const types = ['temperature_mean', 'rain', 'evaporation', 'leaf_wetness'].filter(() => r() < 0.6);
      if (!types.length) types.push('humidity');
      const point: [number, number] = [17.5 + r() * 7.5, -35 + r() * 5.5];
      const keys = parseRange('hourly', f(start), f(end)).keys;
      const wkt = `POINT (${point[0].toFixed(5)} ${point[1].toFixed(5)})`;
      const got = (
        await engine.nearestStation({
          wkts: wkt,
          dataTypes: types,
          options: { timeScale: 'hourly' },
          startDate: f(start),
          endDate: f(end),
        })
      )[wkt]!;
      // Oracle: nearest station with a value of a type in the range, its values from the CSV.
      const [lon, lat] = wkt
        .replace(/POINT \(|\)/g, '')
        .split(' ')
        .map(Number) as [number, number];
      const ranked = stations
        .map((s) => ({ s, d: distance(lon, lat, s.lon, s.lat) }))
        .sort((a, b) => a.d - b.d || (a.s.id < b.s.id ? -1 : 1));
      const has = (id: string) => keys.some((k) => types.some((t) => (hourly.get(id)?.get(k)?.[t] ?? null) !== null));
      const pick = ranked.find((x) => has(x.s.id)) ?? ranked[0]!;
      if (pick !== ranked[0]) passedOver++;
      expect([got.metadata.station_lon, got.metadata.station_lat]).toEqual([pick.s.lon, pick.s.lat]);
      expect(got.metadata.distance_from_point_m).toBeCloseTo(pick.d, 2);
      for (const k of keys)
        for (const t of types) expect(got.data[k]![t]).toBe(hourly.get(pick.s.id)?.get(k)?.[t] ?? null);
      compared += keys.length;
    }
    expect(compared).toBeGreaterThan(500);
    expect(passedOver).toBeGreaterThan(0);

    // poly-aggregate over everything: means in station-id order, as the oracle sums them, answered
    // two decimals finer than a 0.1 °C reading (docs/data.md, "Units and precision").
    const key = '2024-02-10T12:00:00';
    const box = 'POLYGON ((10 -40, 35 -40, 35 -20, 10 -20, 10 -40))';
    const poly = await engine.polyAggregate({
      wkts: box,
      dataTypes: ['temperature_mean'],
      options: { timeScale: 'hourly' },
      startDate: key,
      endDate: key,
    });
    const inside = stations
      .filter((s) =>
        insideOrOn(
          [s.lon, s.lat],
          [
            [
              [10, -40],
              [35, -40],
              [35, -20],
              [10, -20],
              [10, -40],
            ],
          ],
        ),
      )
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    const xs = inside
      .map((s) => hourly.get(s.id)?.get(key)?.temperature_mean ?? null)
      .filter((x): x is number => x !== null);
    expect(poly.aggregated_data[key]).toEqual({
      temperature_mean: roundValue(xs.reduce((a, b) => a + b, 0) / xs.length, 3),
      temperature_mean_station_count: xs.length,
    });
    await engine.close();
  });

  it('refuses a file holding two stations, and an unsorted file, naming the file and row', async () => {
    const root = join(dir, 'bad');
    await mkdir(join(root, 'stations/hourly'), { recursive: true });
    await sql([
      `COPY (SELECT * FROM (VALUES ('A', 'Alpha', -33.9, 18.9, 10.0), ('B', 'Beta', -33.5, 19.2, NULL)) t(station_id, name, lat, lon, elevation)) TO ${q(join(root, 'stations/stations.parquet'))} (FORMAT parquet)`,
      `COPY (SELECT * FROM (VALUES ('A', TIMESTAMP '2024-01-01 00:00:00', 1.0), ('B', TIMESTAMP '2024-01-01 00:00:00', 2.0)) t(station_id, time, rain)) TO ${q(join(root, 'stations/hourly/both.parquet'))} (FORMAT parquet)`,
    ]);
    await expect(indexStations(root)).rejects.toThrow(/both\.parquet: holds 2 station ids/);
    await rm(join(root, 'stations/hourly/both.parquet'));
    await sql([
      `COPY (SELECT * FROM (VALUES ('A', TIMESTAMP '2024-01-01 01:00:00', 1.0), ('A', TIMESTAMP '2024-01-01 00:00:00', 2.0)) t(station_id, time, rain)) TO ${q(join(root, 'stations/hourly/a.parquet'))} (FORMAT parquet)`,
    ]);
    const err = await indexStations(root).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BuildError);
    expect((err as Error).message).toMatch(
      /a\.parquet: row 2, column "time": "2024-01-01 00:00:00" is not after the row before it/,
    );
    // Nothing was published: no index, no catalog.
    expect((await readdir(join(root, 'stations'))).sort()).toEqual(['hourly', 'stations.parquet']);
  });

  it('is indexed the same in batches of files and of coverage runs as in one: index, coverage and types; a station split across batches is refused', async () => {
    const root = join(dir, 'batched');
    await writePlainArchive(root);
    const copy = join(dir, 'batched-copy');
    await cp(root, copy, { recursive: true });
    const steps: string[] = [];
    const whole = await indexStationArchive(join(root, 'stations'));
    // A batch per file: every check and run is made batch by batch.
    const oneByOne = await indexStationArchive(join(copy, 'stations'), 'stations', {
      batchRows: 1,
      runsPerBatch: 1,
      progress: (step, detail) => steps.push(`${step} ${detail ?? ''}`),
    });
    expect(oneByOne).toEqual(whole);
    const files = (await readdir(join(root, 'stations/hourly'))).length;
    expect(steps.filter((s) => s.startsWith('indexing the hourly files')).length).toBe(files);
    for (const f of ['index.parquet', 'coverage.jsonl'])
      expect(await readFile(join(copy, 'stations', f))).toEqual(await readFile(join(root, 'stations', f)));

    // Two files of one station, each in its own batch: the second is refused by name.
    const folders = (await readdir(join(copy, 'stations/hourly'))).sort();
    const [a, b] = folders as [string, string];
    const aFile = join(copy, 'stations/hourly', a, (await readdir(join(copy, 'stations/hourly', a)))[0]!);
    await cp(aFile, join(copy, 'stations/hourly', b, 'again.parquet'));
    await expect(indexStationArchive(join(copy, 'stations'), 'stations', { batchRows: 1 })).rejects.toThrow(
      /again\.parquet: station "[^"]+" also has .*; write all of a station's hourly rows into one file/,
    );
  });
});
