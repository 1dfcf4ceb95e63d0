// A station build never loses, drops or invents data: several
// files per scale are all read, daily and monthly values are derived for
// every hourly station whatever other stations bring, a second build into
// the same dataset adds to it, and the build reports what it did. Inputs are
// messy on purpose (missing hours, empty cells, a day short of hours, parts
// that split a station's record); every check compares the archive with an
// independent computation: native DuckDB SQL over the input CSVs, or the
// TypeScript oracle (oracle.ts).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuildError, buildStations } from '../../src/builder/stations-build.ts';
import { mulberry32 } from '../../src/builder/prng.ts';
import type { StationTimeScale } from '../../src/contract/station-data-types.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { allScales, dekadalFromDaily, monthlyFromDaily, readSeries, readStations, type Series } from './oracle.ts';
import { archiveDir, archiveSeries, expectSameSeries, sql } from './archive-series.ts';
import { cli } from '../helpers/cli.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cq-merge-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function write(name: string, text: string): Promise<string> {
  const p = join(dir, name);
  await writeFile(p, text);
  return p;
}

// Paarl, Stellenbosch, Franschhoek and Wellington log hourly; Malmesbury and Ceres bring daily files only.
const STATIONS = `station_id,name,lat,lon,elevation
PAARL,Paarl,-33.7342,18.9621,105
STELL,Stellenbosch,-33.9321,18.8602,119
FRANS,Franschhoek,-33.9133,19.1169,264
WELL,Wellington,-33.6392,19.0112,
MALM,Malmesbury,-33.4667,18.7167,104
CERES,Ceres,-33.3667,19.3167,457
`;
const HOURLY_COLS = [
  'temperature_mean',
  'temperature_min',
  'temperature_max',
  'rain',
  'humidity',
  'humidity_min',
  'humidity_max',
  'wind_speed',
  'wind_direction',
  'solar_radation',
];

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Hourly rows of one station from `first` to `last` (dates, inclusive), with
 * hours missing at random, empty cells, and one day (the 10th of the first
 * month) missing most of its hours, as real loggers are.
 */
function hourlyRows(id: string, first: string, last: string, seed: number): string[] {
  const r = mulberry32(seed);
  const out: string[] = [];
  for (let t = Date.parse(`${first}T00:00:00Z`); t <= Date.parse(`${last}T23:00:00Z`); t += 3_600_000) {
    const d = new Date(t);
    const h = d.getUTCHours();
    if (r() < 0.03) continue; // a lost reading
    if (d.getUTCDate() === 10 && h >= 6 && h < 20) continue; // a logger outage: the day is short of hours
    const temp = 18 + 7 * Math.sin(((h - 9) / 24) * 2 * Math.PI) + 3 * r();
    const hum = Math.min(100, Math.max(5, 70 - 2 * (temp - 18) + 10 * r()));
    const rain = r() < 0.1 ? Math.round(r() * 40) / 10 : 0;
    const cells = [
      temp.toFixed(1),
      (temp - r()).toFixed(1),
      (temp + r()).toFixed(1),
      r() < 0.02 ? '' : rain.toFixed(1), // an empty rain cell: that day has no rain_sum
      hum.toFixed(0),
      (hum - 3).toFixed(0),
      (hum + 3).toFixed(0),
      (r() * 6).toFixed(1),
      (r() * 360).toFixed(0),
      h < 6 || h > 19 ? '0' : (900 * Math.sin(((h - 6) / 14) * Math.PI) * (0.6 + 0.4 * r())).toFixed(0),
    ];
    out.push(
      `${id},${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(h)}:00:00,${cells.join(',')}`,
    );
  }
  return out;
}

const HEADER = `station_id,time,${HOURLY_COLS.join(',')}`;
const csv = (rows: string[]) => `${HEADER}\n${rows.join('\n')}\n`;

/** The archive's rows of one scale, read with DuckDB straight from the station files, hashed per station. */
async function archiveDigest(
  out: string,
  scale: StationTimeScale,
  cols: string[],
): Promise<Map<string, { n: number; h: string; first: string; last: string }>> {
  const got =
    await sql(`SELECT station_id, count(*) AS n, CAST(sum(hash(time, ${cols.join(', ')})) AS VARCHAR) AS h, CAST(min(time) AS VARCHAR) AS first, CAST(max(time) AS VARCHAR) AS last
    FROM read_parquet('${join(archiveDir(out), scale)}/**/*.parquet', union_by_name = true) GROUP BY 1 ORDER BY 1`);
  return new Map(
    got.map((r) => [
      String(r.station_id),
      { n: Number(r.n), h: String(r.h), first: String(r.first), last: String(r.last) },
    ]),
  );
}

/** The same digest computed by DuckDB from the input CSVs (typed as the archive types them). */
async function csvDigest(
  files: string[],
  scale: StationTimeScale,
  cols: string[],
): Promise<Map<string, { n: number; h: string; first: string; last: string }>> {
  const time =
    scale === 'hourly'
      ? 'CAST(time AS TIMESTAMP)'
      : scale === 'daily'
        ? 'CAST(time AS DATE)'
        : `CAST(CASE WHEN length(time) = 7 THEN time || '-01' ELSE time END AS DATE)`;
  const typed = cols.map((c) => `CAST(NULLIF(${c}, '') AS DOUBLE) AS ${c}`).join(', ');
  const got =
    await sql(`WITH t AS (SELECT station_id, ${time} AS time, ${typed} FROM read_csv([${files.map((f) => `'${f}'`).join(', ')}], header = true, all_varchar = true, union_by_name = true))
    SELECT station_id, count(*) AS n, CAST(sum(hash(time, ${cols.join(', ')})) AS VARCHAR) AS h, CAST(min(time) AS VARCHAR) AS first, CAST(max(time) AS VARCHAR) AS last FROM t GROUP BY 1 ORDER BY 1`);
  return new Map(
    got.map((r) => [
      String(r.station_id),
      { n: Number(r.n), h: String(r.h), first: String(r.first), last: String(r.last) },
    ]),
  );
}

describe('several files per scale', () => {
  let stations: string;
  let parts: string[];
  beforeAll(async () => {
    stations = await write('stations.csv', STATIONS);
    // Paarl's and Stellenbosch's record split in two parts by date, Franschhoek and Wellington in a third file.
    const p1 = [
      ...hourlyRows('PAARL', '2024-01-01', '2024-01-20', 1),
      ...hourlyRows('STELL', '2024-01-01', '2024-01-20', 2),
    ];
    const p2 = [
      ...hourlyRows('PAARL', '2024-01-21', '2024-02-29', 3),
      ...hourlyRows('STELL', '2024-01-21', '2024-02-29', 4),
    ];
    const p3 = [
      ...hourlyRows('FRANS', '2024-01-01', '2024-02-29', 5),
      ...hourlyRows('WELL', '2024-01-05', '2024-02-20', 6),
    ];
    parts = [await write('part1.csv', csv(p1)), await write('part2.csv', csv(p2)), await write('part3.csv', csv(p3))];
  });

  it('repeated --hourly options and several files after one are all read: every input row is in the archive', async () => {
    const out = join(dir, 'out-parts');
    const res = await cli([
      'build',
      '--out',
      out,
      '--stations',
      stations,
      '--hourly',
      parts[0]!,
      '--hourly',
      parts[1]!,
      parts[2]!,
    ]);
    expect(res.stderr).not.toMatch(/Error/);
    expect(res.code).toBe(0);
    const want = await csvDigest(parts, 'hourly', HOURLY_COLS);
    const got = await archiveDigest(out, 'hourly', HOURLY_COLS);
    expect([...got.keys()]).toEqual(['FRANS', 'PAARL', 'STELL', 'WELL']);
    expect(got).toEqual(want);
    // Paarl's record runs from part1's first hour to part2's last (the old build kept only the last --hourly).
    expect(got.get('PAARL')!.first).toBe('2024-01-01 00:00:00');
    expect(got.get('PAARL')!.last.slice(0, 10)).toBe('2024-02-29');
  });

  it('a stray argument is a usage error that names it', async () => {
    const res = await cli([
      'build',
      '--out',
      join(dir, 'out-stray'),
      '--stations',
      stations,
      'stray.csv',
      '--hourly',
      parts[0]!,
    ]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/unexpected argument "stray\.csv"/);
  });

  it('a station and hour in two files is refused, naming both files, the rows, the station and the hour', async () => {
    // part2 again from 2024-01-20 18:00: six hours overlap part1 (row numbers counted per file, from 1).
    const overlapping = hourlyRows('PAARL', '2024-01-20', '2024-01-25', 3).filter((r) => r >= 'PAARL,2024-01-20 18');
    const o = await write('part2-overlap.csv', csv(overlapping));
    const err = await buildStations({ stations, hourly: [parts[0]!, o] }, join(dir, 'out-overlap')).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BuildError);
    const first = overlapping[0]!.split(',')[1]!;
    const p1Rows = (
      await sql(
        `SELECT row_number() OVER () AS r, station_id, time FROM read_csv('${parts[0]}', header = true, all_varchar = true)`,
      )
    ).find((r) => r.station_id === 'PAARL' && r.time === first)!;
    expect((err as Error).message).toContain(
      `station "PAARL" has two rows for time ${first}, one in ${parts[0]} (row ${String(p1Rows.r)}) and one in ${o} (row 1)`,
    );
    // The same row twice within one file names both rows.
    const twice = await write(
      'twice.csv',
      csv([...hourlyRows('STELL', '2024-01-01', '2024-01-01', 9), 'STELL,2024-01-01 00:00:00,1,1,1,0,50,50,50,1,1,0']),
    );
    await expect(buildStations({ stations, hourly: twice }, join(dir, 'out-twice'))).rejects.toThrow(
      /twice\.csv: row \d+ \(station "STELL"\), column "time": station "STELL" has two rows for time 2024-01-01 00:00:00 \(rows 1 and \d+\)/,
    );
  });

  it('a bad row in the second file is refused naming that file and its own row number', async () => {
    const bad = hourlyRows('STELL', '2024-03-01', '2024-03-02', 11);
    bad[4] = bad[4]!.replace(/,[^,]*$/, ',n/a');
    const b = await write('part-bad.csv', csv(bad));
    await expect(buildStations({ stations, hourly: [parts[0]!, b] }, join(dir, 'out-bad'))).rejects.toThrow(
      /part-bad\.csv: row 5 \(station "STELL"\), column "solar_radation": holds "n\/a"/,
    );
  });
});

const DAILY_COLS = ['temperature_mean', 'temperature_min', 'temperature_max', 'rain_sum', 'humidity_mean'];

/** Daily rows of one station with days missing and empty cells. */
function dailyRows(id: string, first: string, last: string, seed: number): string[] {
  const r = mulberry32(seed);
  const out: string[] = [];
  for (let t = Date.parse(`${first}T00:00:00Z`); t <= Date.parse(`${last}T00:00:00Z`); t += 86_400_000) {
    if (r() < 0.05) continue;
    const d = new Date(t).toISOString().slice(0, 10);
    const tn = 10 + 5 * r();
    const tx = tn + 8 + 6 * r();
    out.push(
      `${id},${d},${((tn + tx) / 2).toFixed(2)},${tn.toFixed(1)},${tx.toFixed(1)},${r() < 0.05 ? '' : (r() < 0.3 ? r() * 20 : 0).toFixed(1)},${(50 + 30 * r()).toFixed(0)}`,
    );
  }
  return out;
}
const dailyCsv = (rows: string[]) => `station_id,time,${DAILY_COLS.join(',')}\n${rows.join('\n')}\n`;

/** `a` with `b`'s stations added (b wins for a station in both). */
const union = (a: Series, b: Series): Series => new Map([...a, ...b]);
const only = (s: Series, ids: string[]): Series => new Map([...s].filter(([id]) => ids.includes(id)));

describe('daily and monthly for every hourly station', () => {
  it('a daily file for other stations (and one hourly station) leaves every other hourly station its derived daily and monthly values', async () => {
    const stations = await write('stations-b.csv', STATIONS);
    const hourly = [
      await write(
        'b-h1.csv',
        csv([
          ...hourlyRows('PAARL', '2024-01-01', '2024-02-29', 21),
          ...hourlyRows('STELL', '2024-01-01', '2024-02-29', 22),
        ]),
      ),
      await write(
        'b-h2.csv',
        csv([
          ...hourlyRows('FRANS', '2024-01-01', '2024-02-29', 23),
          ...hourlyRows('WELL', '2024-01-01', '2024-02-29', 24),
        ]),
      ),
    ];
    // Malmesbury and Ceres bring daily values only; Wellington brings its own daily file for January
    // besides its hourly record: its given rows win (docs/data.md, "Given and derived").
    const daily = await write(
      'b-d.csv',
      dailyCsv([
        ...dailyRows('MALM', '2024-01-01', '2024-02-29', 31),
        ...dailyRows('CERES', '2024-01-03', '2024-02-20', 32),
        ...dailyRows('WELL', '2024-01-01', '2024-01-31', 33),
      ]),
    );
    const out = join(dir, 'out-derived');
    const section = await buildStations({ stations, hourly, daily }, out);
    expect(section.count).toBe(6);

    const derived = allScales(readStations(stations), readSeries(hourly, 'hourly'));
    const given = readSeries(daily, 'daily');
    const wantDaily = union(only(derived.daily, ['PAARL', 'STELL', 'FRANS']), given);
    expectSameSeries(await archiveSeries(out, 'hourly'), readSeries(hourly, 'hourly'), 'hourly');
    expectSameSeries(await archiveSeries(out, 'daily'), wantDaily, 'daily');
    expectSameSeries(await archiveSeries(out, 'monthly'), monthlyFromDaily(wantDaily), 'monthly');
    // Dekads, from the same daily values (given or derived) by the oracle's own key arithmetic.
    const wantDekadal = dekadalFromDaily(wantDaily);
    expectSameSeries(await archiveSeries(out, 'dekadal'), wantDekadal, 'dekadal');
    // Ceres starts on 3 January: its first dekad has 8 of 10 days, one short of the rule (at most 1 missing).
    expect(wantDekadal.get('CERES')!.get('2024-01-01')!.temperature_max).toBeNull();
    expect(wantDekadal.get('CERES')!.get('2024-01-11')!.temperature_max).not.toBeNull();
    // The 10th of January is short of hours at every hourly station: no derived mean that day (18 of 24 needed).
    expect(wantDaily.get('PAARL')!.get('2024-01-10')!.temperature_mean).toBeNull();
    expect(wantDaily.get('PAARL')!.get('2024-01-11')!.temperature_mean).not.toBeNull();

    // A daily question at Paarl is answered by Paarl, not by Malmesbury 36 km away.
    const engine = createNodeEngine(out);
    try {
      const wkt = 'POINT (18.9621 -33.7342)';
      const res = await engine.nearestStation({
        wkts: wkt,
        dataTypes: ['temperature_mean', 'et0'],
        options: { timeScale: 'daily' },
        startDate: '2024-02-01',
        endDate: '2024-02-03',
      });
      expect(res[wkt]!.metadata.distance_from_point_m).toBeLessThan(1);
      expect(res[wkt]!.metadata.actual_nearest).toBe(true);
      const p = derived.daily.get('PAARL')!;
      expect(res[wkt]!.data['2024-02-02']!.temperature_mean).toBeCloseTo(p.get('2024-02-02')!.temperature_mean!, 9);
      expect(res[wkt]!.data['2024-02-02']!.et0).toBeCloseTo(p.get('2024-02-02')!.et0!, 9);
    } finally {
      await engine.close();
    }
  });
});

describe('a build adds to the dataset it writes into', () => {
  it('a second, third and fourth build add or replace exactly what they are given; --replace alone drops the rest', async () => {
    const all = await write('stations-c.csv', STATIONS);
    const stationRows = readStations(all);
    const hourly = [
      await write(
        'c-h1.csv',
        csv([
          ...hourlyRows('PAARL', '2024-01-01', '2024-02-29', 41),
          ...hourlyRows('STELL', '2024-01-01', '2024-02-29', 42),
        ]),
      ),
      await write(
        'c-h2.csv',
        csv([
          ...hourlyRows('FRANS', '2024-01-01', '2024-02-29', 43),
          ...hourlyRows('WELL', '2024-01-01', '2024-02-29', 44),
        ]),
      ),
    ];
    const out = join(dir, 'out-additive');
    await buildStations({ stations: all, hourly }, out);
    const first = allScales(stationRows, readSeries(hourly, 'hourly'));

    // Build 2: another source's station list (Malmesbury and Ceres only) and their daily file.
    const other = await write(
      'stations-other.csv',
      `station_id,name,lat,lon,elevation\nMALM,Malmesbury,-33.4667,18.7167,104\nCERES,Ceres,-33.3667,19.3167,457\n`,
    );
    const daily = await write(
      'c-d.csv',
      dailyCsv([
        ...dailyRows('MALM', '2024-01-01', '2024-02-29', 51),
        ...dailyRows('CERES', '2024-01-03', '2024-02-20', 52),
      ]),
    );
    const section2 = await buildStations({ stations: other, daily }, out);
    expect(section2.count).toBe(6);
    expectSameSeries(await archiveSeries(out, 'hourly'), readSeries(hourly, 'hourly'), 'hourly after build 2');
    let wantDaily = union(first.daily, readSeries(daily, 'daily'));
    expectSameSeries(await archiveSeries(out, 'daily'), wantDaily, 'daily after build 2');
    expectSameSeries(await archiveSeries(out, 'monthly'), monthlyFromDaily(wantDaily), 'monthly after build 2');
    const names = await sql(
      `SELECT station_id, name FROM read_parquet('${join(archiveDir(out), 'stations.parquet')}') ORDER BY 1`,
    );
    expect(names.map((r) => r.station_id)).toEqual(['CERES', 'FRANS', 'MALM', 'PAARL', 'STELL', 'WELL']);

    // Build 3: Paarl's own daily file replaces its derived daily values (and its monthly values follow them).
    const paarlDaily = await write('c-d-paarl.csv', dailyCsv(dailyRows('PAARL', '2024-01-01', '2024-01-31', 53)));
    await buildStations({ stations: all, daily: paarlDaily }, out);
    wantDaily = union(wantDaily, readSeries(paarlDaily, 'daily'));
    expectSameSeries(await archiveSeries(out, 'hourly'), readSeries(hourly, 'hourly'), 'hourly after build 3');
    expectSameSeries(await archiveSeries(out, 'daily'), wantDaily, 'daily after build 3');
    expectSameSeries(await archiveSeries(out, 'monthly'), monthlyFromDaily(wantDaily), 'monthly after build 3');

    // Build 4: a corrected hourly record for Paarl replaces its hourly series; its given daily series
    // (and the monthly values from it) stay: a derived series never replaces a given one.
    const paarlHourly = await write('c-h-paarl.csv', csv(hourlyRows('PAARL', '2024-02-01', '2024-03-10', 54)));
    await buildStations({ stations: all, hourly: paarlHourly }, out);
    const wantHourly = union(readSeries(hourly, 'hourly'), readSeries(paarlHourly, 'hourly'));
    expectSameSeries(await archiveSeries(out, 'hourly'), wantHourly, 'hourly after build 4');
    expectSameSeries(await archiveSeries(out, 'daily'), wantDaily, 'daily after build 4');
    expectSameSeries(await archiveSeries(out, 'monthly'), monthlyFromDaily(wantDaily), 'monthly after build 4');
    const engine = createNodeEngine(out);
    try {
      const wkt = 'POINT (18.9621 -33.7342)';
      const res = await engine.nearestStation({
        wkts: wkt,
        dataTypes: ['temperature_mean'],
        options: { timeScale: 'hourly' },
        startDate: '2024-03-05T12:00:00',
        endDate: '2024-03-05T12:00:00',
      });
      expect(res[wkt]!.metadata.actual_nearest).toBe(true);
      expect(res[wkt]!.data['2024-03-05T12:00:00']!.temperature_mean).toBe(
        readSeries(paarlHourly, 'hourly').get('PAARL')!.get('2024-03-05T12:00:00')?.temperature_mean ?? null,
      );
    } finally {
      await engine.close();
    }

    // --replace: only this build's stations file and series remain.
    await buildStations({ stations: other, daily }, out, 'dataset', { replace: true });
    expect(await sql(`SELECT count(*) AS n FROM glob('${join(archiveDir(out), 'hourly')}/**')`)).toEqual([{ n: 0n }]);
    expectSameSeries(await archiveSeries(out, 'daily'), readSeries(daily, 'daily'), 'daily after --replace');
    expect(
      (await sql(`SELECT station_id FROM read_parquet('${join(archiveDir(out), 'stations.parquet')}') ORDER BY 1`)).map(
        (r) => r.station_id,
      ),
    ).toEqual(['CERES', 'MALM']);
  });
});

describe('the build report', () => {
  it('counts what was read, given, derived and kept per scale, as independent counts over the inputs say; --report writes it as JSON', async () => {
    const stations = await write('stations-d.csv', STATIONS);
    const hourly = [
      await write(
        'd-h1.csv',
        csv([
          ...hourlyRows('PAARL', '2024-01-01', '2024-01-31', 61),
          ...hourlyRows('STELL', '2024-01-01', '2024-02-15', 62),
        ]),
      ),
      await write(
        'd-h2.csv',
        csv([
          ...hourlyRows('PAARL', '2024-02-01', '2024-02-29', 63),
          ...hourlyRows('FRANS', '2024-01-02', '2024-02-29', 64),
          ...hourlyRows('WELL', '2024-01-01', '2024-02-29', 65),
        ]),
      ),
    ];
    const daily = await write(
      'd-d.csv',
      dailyCsv([
        ...dailyRows('MALM', '2024-01-01', '2024-02-29', 71),
        ...dailyRows('CERES', '2024-01-03', '2024-02-20', 72),
        ...dailyRows('WELL', '2024-01-01', '2024-01-31', 73),
      ]),
    );
    const out = join(dir, 'out-report');
    const reportFile = join(dir, 'report.json');
    const res = await cli([
      'build',
      '--out',
      out,
      '--stations',
      stations,
      '--hourly',
      ...hourly,
      '--daily',
      daily,
      '--report',
      reportFile,
    ]);
    expect(res.code).toBe(0);
    const report = JSON.parse(await readFile(reportFile, 'utf8'));
    // Independent counts: DuckDB over the input CSVs, and the oracle's derived series.
    const perFile = await sql(
      `SELECT filename, count(*) AS n, min(time) AS first, max(time) AS last FROM read_csv([${hourly.map((h) => `'${h}'`).join(', ')}], header = true, all_varchar = true, filename = true) GROUP BY 1 ORDER BY 1`,
    );
    const h = report.scales.hourly;
    expect(h.files).toEqual(perFile.map((r) => ({ path: r.filename, rows: Number(r.n), zoned: 0 })));
    expect(h.rowsRead).toBe(perFile.reduce((a, r) => a + Number(r.n), 0));
    expect(h.rowsWritten).toBe(h.rowsRead);
    expect(h).toMatchObject({
      stations: 4,
      given: 4,
      derived: 0,
      kept: 0,
      rowsRefused: 0,
      refused: [],
      first: '2024-01-01T00:00:00',
      last: '2024-02-29T23:00:00',
    });
    const derived = allScales(readStations(stations), readSeries(hourly, 'hourly'));
    const wantDaily = union(only(derived.daily, ['PAARL', 'STELL', 'FRANS']), readSeries(daily, 'daily'));
    const periods = (s: Series) => [...s.values()].reduce((a, m) => a + m.size, 0);
    const keys = (s: Series) => [...s.values()].flatMap((m) => [...m.keys()]).sort();
    expect(report.scales.daily).toMatchObject({
      stations: 6,
      given: 3,
      derived: 3,
      kept: 0,
      givenOverDerived: ['WELL'],
      rowsRead: periods(readSeries(daily, 'daily')),
      rowsWritten: periods(wantDaily),
      first: keys(wantDaily)[0],
      last: keys(wantDaily).at(-1),
    });
    const wantMonthly = monthlyFromDaily(wantDaily);
    expect(report.scales.monthly).toMatchObject({
      stations: 6,
      given: 0,
      derived: 6,
      kept: 0,
      givenOverDerived: [],
      rowsRead: 0,
      rowsWritten: periods(wantMonthly),
      first: '2024-01-01',
      last: '2024-02-01',
    });
    expect(report).toMatchObject({
      ok: true,
      replace: false,
      stations: { total: 6, inStationsFile: 6, keptFromDataset: 0 },
    });
    expect(res.stderr).toMatch(
      /^hourly: 4 stations \(4 given, 0 derived, 0 kept as they were\); \d+ rows read from 2 file\(s\), 0 refused/m,
    );
    expect(res.stderr).toMatch(/given series used, not derived ones, for: WELL/);

    // A second build into the same dataset: the report says what it kept.
    const more = await write('d-d2.csv', dailyCsv(dailyRows('MALM', '2024-03-01', '2024-03-31', 74)));
    const other = await write(
      'stations-malm.csv',
      'station_id,name,lat,lon,elevation\nMALM,Malmesbury,-33.4667,18.7167,104\n',
    );
    const res2 = await cli(['build', '--out', out, '--stations', other, '--daily', more, '--report', reportFile]);
    expect(res2.code).toBe(0);
    const r2 = JSON.parse(await readFile(reportFile, 'utf8'));
    expect(r2.stations).toEqual({ total: 6, inStationsFile: 1, keptFromDataset: 5 });
    expect(r2.scales.hourly).toMatchObject({
      stations: 4,
      given: 0,
      derived: 0,
      kept: 4,
      rowsRead: 0,
      rowsWritten: 0,
      first: null,
      last: null,
    });
    expect(r2.scales.daily).toMatchObject({
      stations: 6,
      given: 1,
      derived: 0,
      kept: 5,
      rowsRead: readSeries(more, 'daily').get('MALM')!.size,
    });
    expect(r2.scales.monthly).toMatchObject({
      stations: 6,
      derived: 1,
      kept: 5,
      first: '2024-03-01',
      last: '2024-03-01',
    });

    // A bad row stops the build; the JSON report names it and nothing changes.
    const bad = await write('d-bad.csv', 'station_id,time,rain_sum\nMALM,2024-04-01,1\nMALM,2024-04-02,-\n');
    const res3 = await cli(['build', '--out', out, '--stations', other, '--daily', bad, '--report', reportFile]);
    expect(res3.code).toBe(2);
    const r3 = JSON.parse(await readFile(reportFile, 'utf8'));
    expect(r3).toMatchObject({
      ok: false,
      refused: [expect.stringMatching(/d-bad\.csv: row 2 \(station "MALM"\), column "rain_sum": holds "-"/)],
    });
  });
});
