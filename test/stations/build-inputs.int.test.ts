// The station build rejects bad input files with messages that say how to fix them,
// and accepts daily/monthly tables given directly.
import { mkdtemp, readdir, readFile, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuildError, buildStations } from '../../src/builder/stations-build.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cq-build-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function file(name: string, text: string): Promise<string> {
  const p = join(dir, name);
  await writeFile(p, text);
  return p;
}

const STATIONS = 'station_id,name,lat,lon,elevation\nA,Alpha,-33.9,18.9,100\nB,"Beta, the second",-33.5,19.2,\n';

async function expectInputError(inputs: Parameters<typeof buildStations>[0], match: RegExp): Promise<void> {
  const err = await buildStations(inputs, join(dir, 'out-bad')).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BuildError);
  expect((err as Error).message).toMatch(match);
}

describe('station build input validation', () => {
  it('rejects unknown data-type columns, listing the valid ones', async () => {
    const s = await file('s1.csv', STATIONS);
    const h = await file('h1.csv', 'station_id,time,temperature_mean,rain_sum\nA,2024-01-01T00:00:00,12.5,1\n');
    await expectInputError(
      { stations: s, hourly: h },
      /"rain_sum" are not hourly data types\. Valid: temperature_mean/,
    );
  });

  it('rejects times off the hour, unknown stations, duplicates and non-numbers', async () => {
    const s = await file('s2.csv', STATIONS);
    await expectInputError(
      { stations: s, hourly: await file('h2.csv', 'station_id,time,rain\nA,2024-01-01T00:30:00,1\n') },
      /not on the hourly grid/,
    );
    await expectInputError(
      { stations: s, hourly: await file('h3.csv', 'station_id,time,rain\nZ,2024-01-01T00:00:00,1\n') },
      /"Z" is not in the stations file/,
    );
    await expectInputError(
      {
        stations: s,
        hourly: await file('h4.csv', 'station_id,time,rain\nA,2024-01-01T00:00:00,1\nA,2024-01-01T00:00:00,2\n'),
      },
      /two rows for time/,
    );
    await expectInputError(
      { stations: s, hourly: await file('h5.csv', 'station_id,time,rain\nA,2024-01-01T00:00:00,NA\n') },
      /"NA", which is not a number/,
    );
    await expectInputError(
      { stations: s, hourly: await file('h6.csv', 'station_id,time,rain\nA,yesterday,1\n') },
      /not a hourly time/,
    );
    await expectInputError(
      { stations: s, monthly: await file('m1.csv', 'station_id,time,rain_sum\nA,2024-01-15,1\n') },
      /not on the monthly grid/,
    );
  });

  it('rejects bad station files', async () => {
    const h = await file('h7.csv', 'station_id,time,rain\nA,2024-01-01T00:00:00,1\n');
    await expectInputError(
      { stations: await file('s3.csv', 'station_id,name,lat\nA,x,1\n'), hourly: h },
      /missing column "lon"/,
    );
    await expectInputError(
      { stations: await file('s4.csv', 'station_id,name,lat,lon\nA,x,-95,18\n'), hourly: h },
      /s4\.csv: row 1 \(station "A"\), column "lat" holds "-95", not a latitude/,
    );
    // The raw NOAA list has stations without a position ("BOGUS SOUTH AFRICAN"): the row and the column are named.
    await expectInputError(
      {
        stations: await file(
          's4b.csv',
          'station_id,name,lat,lon,elevation\nA,x,-33,18,10\n689993-99999,BOGUS SOUTH AFRICAN,,,\n',
        ),
        hourly: h,
      },
      /s4b\.csv: row 2 \(station "689993-99999"\), column "lat" holds "", not a latitude/,
    );
    await expectInputError(
      { stations: await file('s4c.csv', 'station_id,name,lat,lon,elevation\nA,x,-33,18,high\n'), hourly: h },
      /row 1 \(station "A"\), column "elevation" holds "high", not a number/,
    );
    await expectInputError(
      { stations: await file('s4d.csv', 'station_id,name,lat,lon\n,x,-33,18\n'), hourly: h },
      /s4d\.csv: row 1, column "station_id" is empty/,
    );
    await expectInputError(
      { stations: await file('s5.csv', 'station_id,name,lat,lon\nA,x,-33,18\nA,y,-34,18\n'), hourly: h },
      /appears more than once/,
    );
    await expectInputError({ stations: await file('s6.csv', STATIONS) }, /at least one observation file/);
  });

  it('takes a daily and a monthly table as given (monthly times as yyyy-mm), with empty cells as missing', async () => {
    const s = await file('s7.csv', STATIONS);
    const d = await file(
      'd1.csv',
      'station_id,time,rain_sum,temperature_max\nA,2024-01-01,3.5,25\nA,2024-01-02,,26\nB,2024-01-01,0,\n',
    );
    const m = await file('m2.csv', 'station_id,time,rain_sum\nA,2024-01,40.5\nB,2024-01,\n');
    const out = join(dir, 'out-ok');
    const section = await buildStations({ stations: s, daily: d, monthly: m }, out, 'small');
    expect(section.dataTypes.daily).toEqual(['temperature_max', 'rain_sum']);
    expect(section.dataTypes.hourly).toBeUndefined();
    const engine = createNodeEngine(out);
    try {
      expect((await engine.stations()).find((x) => x.id === 'B')!.elevation).toBeNull();
      const res = await engine.nearestStation({
        wkts: 'POINT (18.9 -33.9)',
        dataTypes: ['rain_sum', 'temperature_max'],
        options: { timeScale: 'daily' },
        startDate: '2024-01-01',
        endDate: '2024-01-03',
      });
      expect(res['POINT (18.9 -33.9)']!.data).toEqual({
        '2024-01-01': { rain_sum: 3.5, temperature_max: 25 },
        '2024-01-02': { rain_sum: null, temperature_max: 26 },
        '2024-01-03': { rain_sum: null, temperature_max: null },
      });
      const mon = await engine.polyAggregate({
        wkts: 'POLYGON ((18 -34, 20 -34, 20 -33, 18 -33, 18 -34))',
        dataTypes: ['rain_sum'],
        options: { timeScale: 'monthly' },
        startDate: '2024-01',
        endDate: '2024-01',
      });
      // B has no January value, so it does not contribute (and is not listed).
      expect(mon).toEqual({
        stations_metadata: { '0': { station_lat: -33.9, station_lon: 18.9, station_elevation: 100 } },
        aggregated_data: { '2024-01-01': { rain_sum: 40.5, rain_sum_station_count: 1 } },
      });
    } finally {
      await engine.close();
    }
  });

  it('one rule for times (docs/data.md): a daily time of day and years outside 1800–2200 are refused, naming file, row and column', async () => {
    const s = await file('s8.csv', STATIONS);
    const d = await file('d2.csv', 'station_id,time,rain_sum\nA,1886-01-01,1\nA,1886-01-02 06:20,2\n');
    await expectInputError(
      { stations: s, daily: d },
      /d2\.csv: row 2 \(station "A"\), column "time": "1886-01-02 06:20" has a time of day; daily times are dates/,
    );
    // Midnight is the date itself (tools often write dates as midnight timestamps).
    const ok = await file('d3.csv', 'station_id,time,rain_sum\nA,1886-01-01 00:00:00,1\n');
    const section = await buildStations({ stations: s, daily: ok }, join(dir, 'out-midnight'));
    expect(section.dataTypes.daily).toEqual(['rain_sum']);
    await expectInputError(
      { stations: s, daily: await file('d4.csv', 'station_id,time,rain_sum\nA,1800-01-01,1\nA,1799-12-31,1\n') },
      /d4\.csv: row 2 \(station "A"\), column "time": "1799-12-31" is outside the years 1800–2200/,
    );
    await expectInputError(
      { stations: s, hourly: await file('h8.csv', 'station_id,time,rain\nA,2201-01-01T00:00:00,1\n') },
      /row 1 .*outside the years 1800–2200/,
    );
    await expectInputError(
      {
        stations: s,
        hourly: await file('h9.csv', 'station_id,time,rain\nA,2024-01-01T00:00:00,1\nA,2024-01-01T01:00:00,x\n'),
      },
      /h9\.csv: row 2 \(station "A"\), column "rain": holds "x"/,
    );
  });

  it('readings at other minutes (NOAA ISD at hh:51) are refused with how to make them hourly, and the recipe in docs/data.md works', async () => {
    const s = await file('s10.csv', STATIONS);
    const raw =
      'station_id,time,temperature_mean,rain\nA,2024-01-01 10:51:00,20,0.2\nA,2024-01-01 11:00:00,22,0\nA,2024-01-01 11:20:00,23,0.4\n';
    await expectInputError(
      { stations: s, hourly: await file('raw.csv', raw) },
      /raw\.csv: row 1 .*"2024-01-01 10:51:00" is not on the hourly grid .* Make readings at other minutes hourly first/,
    );
    // The docs' own SQL, run as written on these readings.
    const docs = await readFile(new URL('../../docs/data.md', import.meta.url), 'utf8');
    const sql = /Readings at other minutes[\s\S]*?```sql\n([\s\S]*?)```/.exec(docs)![1]!;
    const hourly = join(dir, 'hourly-from-raw.parquet');
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    try {
      await con.run(
        sql.replace("'raw-readings.csv'", `'${join(dir, 'raw.csv')}'`).replace("'hourly.parquet'", `'${hourly}'`),
      );
    } finally {
      con.closeSync();
      db.closeSync();
    }
    const out = join(dir, 'out-hourly-from-raw');
    await buildStations({ stations: s, hourly }, out);
    const engine = createNodeEngine(out);
    try {
      const res = await engine.nearestStation({
        wkts: 'POINT (18.9 -33.9)',
        dataTypes: ['temperature_mean', 'rain'],
        options: { timeScale: 'hourly' },
        startDate: '2024-01-01T11:00:00',
        endDate: '2024-01-01T12:00:00',
      });
      // 10:51 and 11:00 end the hour to 11:00; 11:20 ends the hour to 12:00.
      expect(res['POINT (18.9 -33.9)']!.data).toEqual({
        '2024-01-01T11:00:00': { temperature_mean: 21, rain: 0.2 },
        '2024-01-01T12:00:00': { temperature_mean: 23, rain: 0.4 },
      });
    } finally {
      await engine.close();
    }
  });

  it("hourly times with a zone (Z, +02:00, +0100) are moved into the dataset's zone, not filed hours off (NOAA ISD is in UTC); daily dates with one are refused", async () => {
    const s = await file('s11.csv', STATIONS);
    // Hourly times with a zone are instants: moved into the dataset's zone (SAST here), never filed hours off.
    const z = await file(
      'z1.csv',
      'station_id,time,rain\nA,2024-06-01T09:00:00,1\nA,2024-06-01T10:00:00Z,2\nA,2024-06-01 13:00:00+02:00,3\nA,2024-06-01 12:00+0100,4\n',
    );
    // 12:00+01:00 is 11:00Z, 13:00 SAST: the same hour as row 3, so the file is refused as holding it twice.
    await expectInputError({ stations: s, hourly: z }, /two rows for time 2024-06-01 13:00:00/);
    const ok = await file(
      'z2.csv',
      'station_id,time,rain\nA,2024-06-01T09:00:00,1\nA,2024-06-01T10:00:00Z,2\nA,2024-06-01 13:00:00+02:00,3\n',
    );
    await buildStations({ stations: s, hourly: ok }, join(dir, 'out-z2'));
    const db2 = await DuckDBInstance.create(':memory:');
    const con2 = await db2.connect();
    const rows = (
      await con2.runAndReadAll(
        `SELECT strftime(time, '%H:%M') AS t, rain FROM read_parquet('${join(dir, 'out-z2', 'stations', 'hourly')}/**/*.parquet') ORDER BY time`,
      )
    ).getRowObjectsJS();
    con2.closeSync();
    db2.closeSync();
    expect(rows.map((r) => [r.t, Number(r.rain)])).toEqual([
      ['09:00', 1],
      ['12:00', 2],
      ['13:00', 3],
    ]);
    // A daily date with a zone has no one meaning: refused, naming the row.
    await expectInputError(
      {
        stations: s,
        daily: await file('z3.csv', 'station_id,time,rain_sum\nA,2024-06-01,1\nA,2024-06-02T00:00:00Z,1\n'),
      },
      /z3\.csv: row 2 \(station "A"\), column "time": .* carries a time zone; daily times are dates/,
    );
    // A plain daily file (dates end in "-01", "-02") is not mistaken for a zone.
    expect(
      (
        await buildStations(
          { stations: s, daily: await file('z4.csv', 'station_id,time,rain_sum\nA,2024-06-01,1\nA,2024-06-02,1\n') },
          join(dir, 'out-z4'),
        )
      ).dataTypes.daily,
    ).toEqual(['rain_sum']);
  });

  it('a failed build leaves the previous archive as it was and nothing half-written', async () => {
    const s = await file('s9.csv', STATIONS);
    const out = join(dir, 'out-keep');
    await buildStations(
      { stations: s, daily: await file('d5.csv', 'station_id,time,rain_sum\nA,2024-01-01,3.5\n') },
      out,
    );
    const before = await readFile(join(out, 'catalog.json'), 'utf8');
    const index = await readFile(join(out, 'stations/index.parquet'));
    await expect(
      buildStations({ stations: s, daily: await file('d6.csv', 'station_id,time,rain_sum\nA,2024-01-01,oops\n') }, out),
    ).rejects.toThrow(BuildError);
    expect((await readdir(out)).sort()).toEqual(['catalog.json', 'stations']);
    expect(await readFile(join(out, 'catalog.json'), 'utf8')).toBe(before);
    expect((await readFile(join(out, 'stations/index.parquet'))).equals(index)).toBe(true);
    const engine = createNodeEngine(out);
    const res = await engine.nearestStation({
      wkts: 'POINT (18.9 -33.9)',
      dataTypes: ['rain_sum'],
      options: { timeScale: 'daily' },
      startDate: '2024-01-01',
      endDate: '2024-01-01',
    });
    expect(res['POINT (18.9 -33.9)']!.data['2024-01-01']).toEqual({ rain_sum: 3.5 });
    await engine.close();
  });
});
