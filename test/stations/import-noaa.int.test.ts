/**
 * NOAA's station archives imported as published (src/builder/import/): GHCN-Daily `.dly` lines with
 * the archive's station list, and GSOD's quoted CSV. The files are written here from each format's
 * own documentation (column positions, units, sentinels, flags), and the expected values are
 * converted here by the documented rules, not through the readers: every value the engine answers
 * after the import equals that conversion, every sentinel and failed flag is missing (never a
 * value), and the report's counts equal the ones tallied while writing.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importStations } from '../../src/builder/import/station-import.ts';
import type { Catalog } from '../../src/dataset/catalog.ts';
import { cli } from '../helpers/cli.ts';
import { nearestAnswer } from '../helpers/nearest-answer.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-import-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** A deterministic spread of small whole numbers. */
const h = (...xs: number[]) => {
  let v = 2166136261;
  for (const x of xs) v = Math.imul(v ^ x, 16777619) >>> 0;
  return v;
};

type Want = Map<string, Map<string, number | null>>; // "station\ttype" → day → value (null: missing)
const put = (want: Want, station: string, type: string, day: string, v: number | null) => {
  const k = `${station}\t${type}`;
  if (!want.has(k)) want.set(k, new Map());
  want.get(k)!.set(day, v);
};

async function answers(
  dir: string,
  lon: number,
  lat: number,
  types: string[],
  from: string,
  to: string,
  timeScale = 'daily',
) {
  const one = await nearestAnswer(dir, lon, lat, types, timeScale, from, to);
  // Period → data type → value; the stations' values by type and day, for the checks.
  const byType: Record<string, Record<string, number | null>> = {};
  for (const [day, values] of Object.entries(one.data))
    for (const [type, v] of Object.entries(values)) (byType[type] ??= {})[day] = v;
  return { metadata: one.metadata, data: byType };
}

describe('GHCN-Daily .dly with ghcnd-stations.txt', () => {
  // Two stations of the Western Cape; ids as GHCN writes them.
  const STATIONS = [
    { id: 'SFM00068816', lat: -33.965, lon: 18.602, elev: 46.0, name: 'CAPE TOWN INTL' },
    { id: 'SFM00068828', lat: -34.0, lon: 22.383, elev: -999.9, name: 'GEORGE' },
  ];
  const ELEMENTS: Record<string, string> = {
    TMAX: 'temperature_max',
    TMIN: 'temperature_min',
    PRCP: 'rain_sum',
  };
  const want: Want = new Map();
  const tally = new Map<string, { read: number; kept: number; sentinel: number; quality: number; trace: number }>();
  let snowValues = 0;
  let dir: string;
  const byStation: string[] = [];

  /** One `.dly` line, by the readme's columns: ID 1–11, YEAR 12–15, MONTH 16–17, ELEMENT 18–21, then 31 × (VALUE 5, MFLAG, QFLAG, SFLAG). */
  const line = (id: string, y: number, m: number, el: string, days: Array<[number, string, string]>) =>
    `${id.padEnd(11)}${y}${String(m).padStart(2, '0')}${el}${Array.from({ length: 31 }, (_, d) => {
      const [v, mf, qf] = days[d] ?? [-9999, ' ', ' '];
      return `${String(v).padStart(5)}${mf}${qf}S`;
    }).join('')}`;

  beforeAll(async () => {
    const list = STATIONS.map(
      (s) =>
        `${s.id.padEnd(11)} ${s.lat.toFixed(4).padStart(8)} ${s.lon.toFixed(4).padStart(9)} ${s.elev.toFixed(1).padStart(6)}    ${s.name.padEnd(30)}`,
    ).join('\n');
    await writeFile(join(root, 'ghcnd-stations.txt'), `${list}\n`);
    const files: string[] = [];
    for (const s of STATIONS) {
      const lines: string[] = [];
      for (const m of [1, 2]) {
        const n = m === 1 ? 31 : 29; // 2024 is a leap year
        for (const el of ['TMAX', 'TMIN', 'PRCP', 'SNOW']) {
          const days: Array<[number, string, string]> = [];
          for (let d = 1; d <= n; d++) {
            const k = h(s.id.length, m, d, el.charCodeAt(1), s.lat * 100);
            const day = `2024-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
            let v =
              el === 'TMAX'
                ? 200 + (k % 150)
                : el === 'TMIN'
                  ? 50 + (k % 120)
                  : el === 'PRCP'
                    ? k % 7 === 0
                      ? k % 400
                      : 0
                    : k % 30;
            let mf = ' ';
            let qf = ' ';
            if (k % 13 === 0) v = -9999;
            else if (k % 17 === 0) qf = k % 2 ? 'I' : 'D';
            else if (el === 'PRCP' && v === 0 && k % 5 === 0) mf = 'T';
            days.push([v, mf, qf]);
            // The same value in NOAA's by_station form (readme-by_station.txt): ID,YYYYMMDD,ELEMENT,VALUE,M,Q,S,OBS-TIME.
            if (s.id === STATIONS[0]!.id && m === 1)
              byStation.push(
                `${s.id},2024${String(m).padStart(2, '0')}${String(d).padStart(2, '0')},${el},${v},${mf.trim()},${qf.trim()},S,0700`,
              );
            if (el === 'SNOW') {
              if (v !== -9999) snowValues++;
              continue;
            }
            const type = ELEMENTS[el]!;
            const t = tally.get(`${s.id}\t${type}`) ?? { read: 0, kept: 0, sentinel: 0, quality: 0, trace: 0 };
            tally.set(`${s.id}\t${type}`, t);
            t.read++;
            if (v === -9999) {
              t.sentinel++;
              put(want, s.id, type, day, null);
            } else if (qf !== ' ') {
              t.quality++;
              put(want, s.id, type, day, null);
            } else {
              t.kept++;
              if (mf === 'T') t.trace++;
              // Tenths of °C and of mm: the documented unit.
              put(want, s.id, type, day, Math.round(v) / 10);
            }
          }
          lines.push(line(s.id, 2024, m, el, days));
        }
      }
      const file = join(root, `${s.id}.dly`);
      await writeFile(file, `${lines.join('\n')}\n`);
      files.push(file);
    }
    dir = join(root, 'ghcnd');
    const run = await cli(['import', 'ghcnd', ...files, '--stations', join(root, 'ghcnd-stations.txt'), '--out', dir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/Imported ghcnd: 2 file\(s\), 16 row\(s\)/);
  }, 300_000);

  it('every value equals the documented conversion; sentinels and failed quality flags are missing', async () => {
    for (const s of STATIONS) {
      const got = await answers(dir, s.lon, s.lat, Object.values(ELEMENTS), '2024-01-01', '2024-02-29');
      expect(got.metadata).toMatchObject({ station_lat: s.lat, station_lon: s.lon });
      expect(got.metadata.station_elevation).toBe(s.elev < -999 ? null : s.elev);
      let compared = 0;
      for (const type of Object.values(ELEMENTS)) {
        for (const [day, v] of want.get(`${s.id}\t${type}`)!) {
          expect(got.data[type]![day] ?? null, `${s.id} ${type} ${day}`).toBe(v);
          compared++;
        }
      }
      expect(compared).toBe(3 * 60);
    }
  });

  it('the report counts what the files hold, by what became of it; SNOW is named as not imported', async () => {
    const report = JSON.parse(await readFile(join(dir, 'import-report-ghcnd.json'), 'utf8'));
    for (const s of STATIONS) {
      const byType = report.stations.find((x: { station_id: string }) => x.station_id === s.id).types;
      for (const type of Object.values(ELEMENTS)) {
        const t = tally.get(`${s.id}\t${type}`)!;
        const c = byType[type];
        expect(c.read).toBe(t.read);
        expect(c.kept).toBe(t.kept);
        expect(c.trace).toBe(t.trace);
        expect(c.dropped['sentinel −9999'] ?? 0).toBe(t.sentinel);
        expect((c.dropped['quality flag I'] ?? 0) + (c.dropped['quality flag D'] ?? 0)).toBe(t.quality);
      }
    }
    expect(report.unmapped).toEqual({ SNOW: snowValues });
    const catalog = (await catalogJson(join(dir, 'catalog.json'))) as Catalog;
    expect(catalog.attribution.join('\n')).toMatch(/GHCN-Daily.*NOAA National Centers for Environmental Information/);
  });

  it('NOAA’s by_station CSV (gzipped) of the same values imports the same answers', async () => {
    const file = join(root, 'SFM00068816.csv.gz');
    await writeFile(file, gzipSync(`${byStation.join('\n')}\n`));
    const other = join(root, 'ghcnd-by-station');
    await importStations({ format: 'ghcnd', files: [file], stationList: join(root, 'ghcnd-stations.txt'), out: other });
    const s = STATIONS[0]!;
    const got = await answers(other, s.lon, s.lat, Object.values(ELEMENTS), '2024-01-01', '2024-01-31');
    let compared = 0;
    for (const type of Object.values(ELEMENTS)) {
      for (const [day, v] of want.get(`${s.id}\t${type}`)!) {
        if (day > '2024-01-31') continue;
        expect(got.data[type]![day] ?? null, `${type} ${day}`).toBe(v);
        compared++;
      }
    }
    expect(compared).toBe(3 * 31);
  });

  it('refuses .dly files without their station list, and a station the list lacks, naming it', async () => {
    const noList = await cli(['import', 'ghcnd', join(root, 'SFM00068816.dly'), '--out', join(root, 'x')]);
    expect(noList.code).not.toBe(0);
    expect(noList.stderr).toMatch(/hold no station positions: pass the source's station list with --stations/);
    await writeFile(
      join(root, 'one-station.txt'),
      `${(await readFile(join(root, 'ghcnd-stations.txt'), 'utf8')).split('\n')[0]}\n`,
    );
    await expect(
      importStations({
        format: 'ghcnd',
        files: [join(root, 'SFM00068828.dly')],
        stationList: join(root, 'one-station.txt'),
        out: join(root, 'y'),
      }),
    ).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/station SFM00068828, which the station list does not hold/),
    });
    const unknown = await cli(['import', 'isd-full', 'x', '--out', join(root, 'z')]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /"isd-full" is not a format this version imports: ghcnd, ghcnh, gsod, isd-lite, meteostat, csv/,
    );
  });
});

describe('GSOD CSV', () => {
  const HEADER =
    '"STATION","DATE","LATITUDE","LONGITUDE","ELEVATION","NAME","TEMP","TEMP_ATTRIBUTES","DEWP","DEWP_ATTRIBUTES","SLP","SLP_ATTRIBUTES","STP","STP_ATTRIBUTES","VISIB","VISIB_ATTRIBUTES","WDSP","WDSP_ATTRIBUTES","MXSPD","GUST","MAX","MAX_ATTRIBUTES","MIN","MIN_ATTRIBUTES","PRCP","PRCP_ATTRIBUTES","SNDP","FRSHTT"';
  // Ids are text: a leading zero, as some are.
  const STATIONS = [
    { id: '68816099999', lat: -33.9648, lon: 18.6017, elev: 46.0, name: 'CAPE TOWN INTERNATIONAL, SF' },
    { id: '06890099999', lat: -34.0056, lon: 22.3789, elev: 197.5, name: 'GEORGE, SF' },
  ];
  const want: Want = new Map();
  const opLines: string[] = [];
  let derived = 0;
  let rainSentinels = 0;
  let rainFlagged = 0;
  let dir: string;
  const f1 = (x: number) => Number(x.toFixed(1));

  beforeAll(async () => {
    const files: string[] = [];
    for (const s of STATIONS) {
      const rows = [HEADER];
      for (let d = 1; d <= 30; d++) {
        const day = `2024-06-${String(d).padStart(2, '0')}`;
        const k = h(d, s.id.charCodeAt(1), 7);
        const temp = 50 + (k % 200) / 10;
        const max = k % 11 === 0 ? 9999.9 : temp + 8.3;
        const maxStar = max !== 9999.9 && k % 3 === 0 ? '*' : ' ';
        const min = temp - 7.1;
        const prcp = k % 9 === 0 ? 99.99 : (k % 40) / 100;
        const pflag = prcp === 99.99 ? 'I' : k % 10 === 0 ? 'I' : 'G';
        const wdsp = k % 8 === 0 ? 999.9 : (k % 120) / 10;
        // Numbers space-padded inside quotes, as GSOD writes them.
        const q = (v: number, w: number, dp: number) => `"${v.toFixed(dp).padStart(w)}"`;
        // The same day in the older fixed-width form, at GSOD_DESC.txt's columns (1-based, right-aligned).
        if (s === STATIONS[0]) {
          const op = Array.from({ length: 138 }, () => ' ');
          const at = (first: number, last: number, text: string) => {
            const t = text.padStart(last - first + 1);
            for (let c = 0; c < t.length; c++) op[first - 1 + c] = t[c]!;
          };
          at(1, 6, s.id.slice(0, 6));
          at(8, 12, s.id.slice(6));
          at(15, 22, day.replace(/-/g, ''));
          at(25, 30, temp.toFixed(1));
          at(36, 41, '40.1');
          at(47, 52, '9999.9');
          at(58, 63, '9999.9');
          at(69, 73, '999.9');
          at(79, 83, wdsp.toFixed(1));
          at(89, 93, '999.9');
          at(96, 100, '999.9');
          at(103, 108, max.toFixed(1));
          at(109, 109, maxStar);
          at(111, 116, min.toFixed(1));
          at(119, 123, prcp.toFixed(2));
          at(124, 124, pflag);
          at(126, 130, '999.9');
          at(133, 138, '010000');
          opLines.push(op.join(''));
        }
        rows.push(
          [
            `"${s.id}"`,
            `"${day}"`,
            `"${s.lat}"`,
            `"${s.lon}"`,
            `"${s.elev}"`,
            `"${s.name}"`,
            q(temp, 6, 1),
            '" 24"',
            q(40.1, 6, 1),
            '" 24"',
            q(9999.9, 6, 1),
            '" 0"',
            q(9999.9, 6, 1),
            '" 0"',
            q(999.9, 5, 1),
            '" 0"',
            q(wdsp, 5, 1),
            '" 24"',
            q(999.9, 5, 1),
            q(999.9, 5, 1),
            q(max, 6, 1),
            `"${maxStar}"`,
            q(min, 6, 1),
            '" "',
            q(prcp, 5, 2),
            `"${pflag}"`,
            q(999.9, 5, 1),
            '"010000"',
          ].join(','),
        );
        // The documented conversions: °F → °C, knots → m/s, inches → mm; one decimal.
        put(want, s.id, 'temperature_mean', day, f1(((temp - 32) * 5) / 9));
        put(want, s.id, 'temperature_max', day, max === 9999.9 ? null : f1(((max - 32) * 5) / 9));
        put(want, s.id, 'temperature_min', day, f1(((min - 32) * 5) / 9));
        put(want, s.id, 'dew_point_mean', day, f1(((40.1 - 32) * 5) / 9));
        put(want, s.id, 'wind_speed_mean', day, wdsp === 999.9 ? null : f1(wdsp * 0.514444));
        const rainMissing = prcp === 99.99 || pflag === 'I';
        put(want, s.id, 'rain_sum', day, rainMissing ? null : f1(prcp * 25.4));
        if (prcp === 99.99) rainSentinels++;
        else if (pflag === 'I') rainFlagged++;
        if (maxStar === '*') derived++;
      }
      const file = join(root, `${s.id}.csv`);
      await writeFile(file, `${rows.join('\n')}\n`);
      files.push(file);
    }
    dir = join(root, 'gsod');
    await importStations({ format: 'gsod', files, out: dir });
  }, 300_000);

  it('every value equals the documented conversion; 99.99 and 9999.9 are missing, never rain or heat', async () => {
    for (const s of STATIONS) {
      const types = [
        'temperature_mean',
        'temperature_max',
        'temperature_min',
        'dew_point_mean',
        'wind_speed_mean',
        'rain_sum',
      ];
      // At most five types a request (the contract's limit).
      const [a, b] = await Promise.all([
        answers(dir, s.lon, s.lat, types.slice(0, 3), '2024-06-01', '2024-06-30'),
        answers(dir, s.lon, s.lat, types.slice(3), '2024-06-01', '2024-06-30'),
      ]);
      const got = { metadata: a.metadata, data: { ...a.data, ...b.data } };
      expect(got.metadata).toMatchObject({ station_lat: s.lat, station_lon: s.lon, station_elevation: s.elev });
      for (const type of types) {
        for (const [day, v] of want.get(`${s.id}\t${type}`)!) {
          expect(got.data[type]![day] ?? null, `${s.id} ${type} ${day}`).toBe(v);
        }
      }
      // 99.99 inches would be 2,540 mm of rain.
      expect(Math.max(...Object.values(got.data.rain_sum!).map((v) => v ?? 0))).toBeLessThan(11);
    }
  });

  it('the older fixed-width .op form (gzipped, with isd-history.csv) imports the same answers', async () => {
    const s = STATIONS[0]!;
    await writeFile(
      join(root, 'gsod-history.csv'),
      `"USAF","WBAN","STATION NAME","CTRY","STATE","ICAO","LAT","LON","ELEV(M)","BEGIN","END"\n"${s.id.slice(0, 6)}","${s.id.slice(6)}","CAPE TOWN INTL","SF","","FACT","${s.lat}","${s.lon}","${s.elev}","19490101","20250827"\n`,
    );
    const file = join(root, `${s.id.slice(0, 6)}-${s.id.slice(6)}-2024.op.gz`);
    await writeFile(
      file,
      gzipSync(
        `STN--- WBAN   YEARMODA    TEMP       DEWP      SLP        STP       VISIB      WDSP     MXSPD   GUST    MAX     MIN   PRCP   SNDP   FRSHTT\n${opLines.join('\n')}\n`,
      ),
    );
    const other = join(root, 'gsod-op');
    await importStations({ format: 'gsod', files: [file], stationList: join(root, 'gsod-history.csv'), out: other });
    const types = ['temperature_max', 'temperature_min', 'rain_sum', 'wind_speed_mean'];
    const got = await answers(other, s.lon, s.lat, types, '2024-06-01', '2024-06-30');
    for (const type of types) {
      for (const [day, v] of want.get(`${s.id}\t${type}`)!)
        expect(got.data[type]![day] ?? null, `${type} ${day}`).toBe(v);
    }
    await expect(importStations({ format: 'gsod', files: [file], out: join(root, 'gsod-op-2') })).rejects.toMatchObject(
      {
        code: 'invalid_option',
        message: expect.stringMatching(
          /is a GSOD \.op file, which holds no station positions: pass NOAA's isd-history\.csv/,
        ),
      },
    );
  });

  it('the report counts sentinels, flagged totals and the maxima taken from hourly reports; the catalog says its days are UTC days', async () => {
    const report = JSON.parse(await readFile(join(dir, 'import-report-gsod.json'), 'utf8'));
    const sum = (
      type: string,
      key: (c: Record<string, any>) => number, // eslint-disable-line @typescript-eslint/no-explicit-any
    ) =>
      report.stations.reduce(
        (n: number, s: { types: Record<string, Record<string, any>> }) => n + key(s.types[type]!),
        0,
      ); // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(sum('rain_sum', (c) => c.dropped['sentinel 99.99'] ?? 0)).toBe(rainSentinels);
    expect(sum('rain_sum', (c) => c.dropped['precipitation flag I'] ?? 0)).toBe(rainFlagged);
    expect(sum('temperature_max', (c) => c.derived)).toBe(derived);
    expect(report.stations.map((s: { station_id: string }) => s.station_id).sort()).toEqual([
      '06890099999',
      '68816099999',
    ]);
    expect(report.utcDays).toBe(true);
    const catalog = (await catalogJson(join(dir, 'catalog.json'))) as Catalog;
    expect(catalog.attribution.join('\n')).toMatch(/GSOD.*public domain; its days are UTC days/);
    expect(report.unmapped).toEqual({});
  });

  it('a later file of a station adds its days and keeps the ones the dataset holds (a series is not replaced whole)', async () => {
    const s = STATIONS[0]!;
    const july = join(root, `${s.id}-july.csv`);
    await writeFile(
      july,
      `${HEADER}\n"${s.id}","2024-07-01","${s.lat}","${s.lon}","${s.elev}","${s.name}","  59.0"," 24","  40.1"," 24","9999.9"," 0","9999.9"," 0","999.9"," 0","  5.0"," 24","999.9","999.9","  66.2"," ","  51.8"," ","  0.10","G","999.9","010000"\n`,
    );
    await importStations({ format: 'gsod', files: [july], out: dir });
    const report = JSON.parse(await readFile(join(dir, 'import-report-gsod.json'), 'utf8'));
    expect(report.stations[0].keptFromDataset).toEqual({ daily: 30 });
    const got = await answers(dir, s.lon, s.lat, ['temperature_mean', 'rain_sum'], '2024-06-01', '2024-07-01');
    for (const type of ['temperature_mean', 'rain_sum'])
      for (const [day, v] of want.get(`${s.id}\t${type}`)!)
        expect(got.data[type]![day] ?? null, `${type} ${day}`).toBe(v);
    expect(got.data.temperature_mean!['2024-07-01']).toBe(15);
    expect(got.data.rain_sum!['2024-07-01']).toBe(2.5);
  });
});

describe('ISD-Lite hourly, gzipped, with isd-history.csv', () => {
  const want: Want = new Map();
  const counts = { traces: 0, sentinels: 0, sixHour: 0 };
  let dir: string;
  /** UTC hour k of 2024-01-01 as the dataset's local time (+02:00, the default zone). */
  const local = (k: number) => new Date(Date.UTC(2024, 0, 1, k + 2)).toISOString().slice(0, 19);

  beforeAll(async () => {
    await writeFile(
      join(root, 'isd-history.csv'),
      `"USAF","WBAN","STATION NAME","CTRY","STATE","ICAO","LAT","LON","ELEV(M)","BEGIN","END"\n"688160","99999","CAPE TOWN INTL","SF","","FACT","-33.965","+018.602","+0046.0","19490101","20250827"\n`,
    );
    // The documented columns: year, month, day, hour (UTC), then 8 fields of width 6, −9999 missing.
    const lines: string[] = [];
    for (let k = 0; k < 48; k++) {
      const t = new Date(Date.UTC(2024, 0, 1, k));
      const q = h(k, 3);
      const temp = k % 10 === 3 ? -9999 : 180 + (q % 90);
      const rain1 = k % 7 === 2 ? -1 : q % 5 === 0 ? q % 40 : 0;
      const rain6 = k % 6 === 0 ? 25 : -9999;
      const fields = [
        temp,
        120 + (q % 30),
        10132,
        (q % 36) * 10,
        q % 11 === 0 ? -9999 : 20 + (q % 80),
        4,
        rain1,
        rain6,
      ];
      lines.push(
        `${t.getUTCFullYear()} ${String(t.getUTCMonth() + 1).padStart(2, '0')} ${String(t.getUTCDate()).padStart(2, '0')} ${String(t.getUTCHours()).padStart(2, '0')}${fields.map((v) => String(v).padStart(6)).join('')}`,
      );
      put(want, '688160-99999', 'temperature_mean', local(k), temp === -9999 ? null : temp / 10);
      put(want, '688160-99999', 'wind_speed', local(k), fields[4] === -9999 ? null : fields[4]! / 10);
      put(want, '688160-99999', 'rain', local(k), rain1 === -1 ? 0 : rain1 / 10);
      if (temp === -9999) counts.sentinels++;
      if (rain1 === -1) counts.traces++;
      if (rain6 !== -9999) counts.sixHour++;
    }
    await writeFile(join(root, '688160-99999-2024.gz'), gzipSync(`${lines.join('\n')}\n`));
    dir = join(root, 'isd');
    const run = await cli([
      'import',
      'isd-lite',
      join(root, '688160-99999-2024.gz'),
      '--stations',
      join(root, 'isd-history.csv'),
      '--out',
      dir,
    ]);
    expect(run.code, run.stderr).toBe(0);
  }, 300_000);

  it('UTC hours become the dataset’s local hours; values, traces and sentinels as documented; six-hour totals not spread', async () => {
    const got = await answers(
      dir,
      18.602,
      -33.965,
      ['temperature_mean', 'wind_speed', 'rain'],
      local(0),
      local(47),
      'hourly',
    );
    expect(got.metadata).toMatchObject({ station_lat: -33.965, station_lon: 18.602, station_elevation: 46 });
    for (const type of ['temperature_mean', 'wind_speed', 'rain']) {
      for (const [time, v] of want.get(`688160-99999\t${type}`)!)
        expect(got.data[type]![time] ?? null, `${type} ${time}`).toBe(v);
    }
    // A day's highest and lowest are its readings' (the hour's one reading is its extremes), in local days.
    const day = await answers(dir, 18.602, -33.965, ['temperature_max', 'temperature_min'], '2024-01-02', '2024-01-02');
    const ofDay = [...want.get('688160-99999\ttemperature_mean')!]
      .filter(([t, v]) => t.startsWith('2024-01-02') && v !== null)
      .map(([, v]) => v!);
    expect(ofDay.length).toBe(21);
    expect(day.data.temperature_max!['2024-01-02']).toBe(Math.max(...ofDay));
    expect(day.data.temperature_min!['2024-01-02']).toBe(Math.min(...ofDay));
    const report = JSON.parse(await readFile(join(dir, 'import-report-isd-lite.json'), 'utf8'));
    const types = report.stations[0].types;
    expect(counts.traces).toBeGreaterThan(0);
    expect(types.rain.trace).toBe(counts.traces);
    expect(types.temperature_mean.dropped['sentinel −9999']).toBe(counts.sentinels);
    expect(report.unmapped['PRECIP_6H (six-hour totals are not spread over hours)']).toBe(counts.sixHour);
  });
});

describe('GHCNh hourly PSV', () => {
  const VARS = [
    'temperature',
    'dew_point_temperature',
    'station_level_pressure',
    'sea_level_pressure',
    'wind_direction',
    'wind_speed',
    'wind_gust',
    'precipitation',
    'relative_humidity',
  ];
  const SUFFIXES = ['', '_Measurement_Code', '_Quality_Code', '_Report_Type', '_Source_Code', '_Source_Station_ID'];
  const HEADER = [
    'STATION',
    'Station_name',
    'DATE',
    'Year',
    'Month',
    'Day',
    'Hour',
    'Minute',
    'LATITUDE',
    'LONGITUDE',
    'ELEVATION',
    ...VARS.flatMap((v) => SUFFIXES.map((x) => `${v}${x}`)),
  ];
  type Report = {
    utc: number;
    temp: string;
    tq: string;
    rain: string;
    rm: string;
    dir: string;
    dm: string;
    wind: string;
  };
  const reports: Report[] = [];
  let dir: string;

  beforeAll(async () => {
    const lines = [HEADER.join('|')];
    // 2024-01-01 UTC, routine reports at :00 and :30, and a special at :45 carrying the rain since :30.
    for (let hr = 0; hr < 24; hr++) {
      for (const min of [0, 30, 45]) {
        const utc = Date.UTC(2024, 0, 1, hr, min);
        const q = h(hr, min, 11);
        const r: Report = {
          utc,
          temp: (18 + (q % 90) / 10).toFixed(1),
          tq: q % 13 === 0 ? '3' : q % 17 === 0 ? 'l' : q % 5 === 0 ? '1' : '',
          rain: min === 0 ? '' : hr % 4 === 1 ? (min === 30 ? '0.3' : '0.8') : hr % 7 === 3 ? '0' : '',
          rm: hr % 7 === 3 ? 'T' : '',
          dir: q % 9 === 0 ? '999' : String((q % 36) * 10),
          dm: q % 11 === 0 ? 'C-Calm' : 'N-Normal',
          wind: ((q % 80) / 10).toFixed(1),
        };
        reports.push(r);
        const d = new Date(utc);
        const row: Record<string, string> = {
          STATION: 'SFM00068816',
          Station_name: 'CAPE TOWN INTL',
          DATE: d.toISOString().slice(0, 19),
          Year: String(d.getUTCFullYear()),
          Month: String(d.getUTCMonth() + 1),
          Day: String(d.getUTCDate()),
          Hour: String(d.getUTCHours()),
          Minute: String(d.getUTCMinutes()),
          LATITUDE: '-33.9648',
          LONGITUDE: '18.6017',
          ELEVATION: '46.0',
          temperature: r.temp,
          temperature_Quality_Code: r.tq,
          temperature_Report_Type: min === 45 ? 'FM-16' : 'FM-15',
          sea_level_pressure: '1013.2',
          wind_direction: r.dir,
          wind_direction_Measurement_Code: r.dm,
          wind_speed: r.wind,
          precipitation: r.rain,
          precipitation_Measurement_Code: r.rm,
        };
        lines.push(HEADER.map((c) => row[c] ?? '').join('|'));
      }
    }
    // A repeated header line, as some files carry.
    lines.splice(20, 0, HEADER.join('|'));
    await writeFile(join(root, 'GHCNh_SFM00068816_2024.psv'), `${lines.join('\n')}\n`);
    dir = join(root, 'ghcnh');
    const run = await cli(['import', 'ghcnh', join(root, 'GHCNh_SFM00068816_2024.psv'), '--out', dir]);
    expect(run.code, run.stderr).toBe(0);
  }, 300_000);

  it('reports go into the hour they end in, failed quality codes are dropped, rain is the hour’s largest report', async () => {
    const hourOf = (utc: number) => Math.ceil(utc / 3_600_000) * 3_600_000;
    const byHour = new Map<number, Report[]>();
    for (const r of reports) byHour.set(hourOf(r.utc), [...(byHour.get(hourOf(r.utc)) ?? []), r]);
    const got = await answers(
      dir,
      18.6017,
      -33.9648,
      ['temperature_mean', 'rain', 'wind_speed'],
      '2024-01-01T03:00:00',
      '2024-01-02T01:00:00',
      'hourly',
    );
    let hours = 0;
    for (const [hour, rs] of byHour) {
      const key = new Date(hour + 2 * 3_600_000).toISOString().slice(0, 19);
      if (!(key in got.data.temperature_mean!)) continue;
      hours++;
      const temps = rs.filter((r) => !['3', 'l'].includes(r.tq)).map((r) => Number(r.temp));
      const rains = rs.filter((r) => r.rain !== '').map((r) => (r.rm === 'T' ? 0 : Number(r.rain)));
      const wantT = temps.length ? temps.reduce((a, b) => a + b, 0) / temps.length : null;
      if (wantT === null) expect(got.data.temperature_mean![key] ?? null).toBeNull();
      else expect(got.data.temperature_mean![key], key).toBeCloseTo(wantT, 5);
      expect(got.data.rain![key] ?? null, key).toBe(rains.length ? Math.max(...rains) : null);
      expect(got.data.wind_speed![key], key).toBeCloseTo(rs.reduce((a, r) => a + Number(r.wind), 0) / rs.length, 5);
    }
    expect(hours).toBe(23);
    const report = JSON.parse(await readFile(join(dir, 'import-report-ghcnh.json'), 'utf8'));
    const types = report.stations[0].types;
    expect(types.temperature_mean.dropped['quality code 3'] ?? 0).toBe(reports.filter((r) => r.tq === '3').length);
    expect(types.temperature_mean.dropped['quality code l'] ?? 0).toBe(reports.filter((r) => r.tq === 'l').length);
    expect(types.rain.trace).toBe(reports.filter((r) => r.rm === 'T' && r.rain !== '').length);
    expect(types.wind_direction.dropped['direction 999'] ?? 0).toBe(reports.filter((r) => r.dir === '999').length);
    expect(report.unmapped).toEqual({ sea_level_pressure: reports.length });
  });

  it('its Parquet form (the same reports, typed: DATE a timestamp, values doubles) imports the same answers and report', async () => {
    // Written by DuckDB from the PSV, as NOAA's Parquet files hold the same columns typed.
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    const psv = join(root, 'GHCNh_SFM00068816_2024.psv');
    const parquet = join(root, 'GHCNh_SFM00068816_2024.parquet');
    const typed = HEADER.map((h) =>
      h === 'DATE'
        ? `strptime("DATE", '%Y-%m-%dT%H:%M:%S') AS "DATE"`
        : VARS.includes(h) || ['LATITUDE', 'LONGITUDE', 'ELEVATION'].includes(h)
          ? `TRY_CAST(NULLIF("${h}", '') AS DOUBLE) AS "${h}"`
          : `"${h}"`,
    ).join(', ');
    await con.run(
      `COPY (SELECT ${typed} FROM read_csv('${psv}', delim='|', header=true, all_varchar=true) WHERE STATION <> 'STATION') TO '${parquet}' (FORMAT parquet, COMPRESSION zstd)`,
    );
    const types = await con.runAndReadAll(
      `SELECT column_type FROM (DESCRIBE SELECT DATE, temperature FROM '${parquet}')`,
    );
    expect(types.getRows().map((r) => String(r[0]))).toEqual(['TIMESTAMP', 'DOUBLE']);
    con.closeSync();
    const fromParquet = join(root, 'ghcnh-parquet');
    const run = await cli(['import', 'ghcnh', parquet, '--out', fromParquet]);
    expect(run.code, run.stderr).toBe(0);
    const ask = (d: string) =>
      answers(
        d,
        18.6017,
        -33.9648,
        ['temperature_mean', 'rain', 'wind_speed', 'wind_direction'],
        '2024-01-01T03:00:00',
        '2024-01-02T01:00:00',
        'hourly',
      );
    expect((await ask(fromParquet)).data).toEqual((await ask(dir)).data);
    const report = (d: string) => readFile(join(d, 'import-report-ghcnh.json'), 'utf8').then((t) => JSON.parse(t));
    expect((await report(fromParquet)).stations).toEqual((await report(dir)).stations);
  });
});
