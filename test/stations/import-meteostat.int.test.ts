/**
 * Meteostat's bulk CSVs imported as published: the current hourly files (a header of parameter
 * codes, a `_source` column per value, gap-filling model values among them) and the older
 * headerless daily ones, gzipped, with Meteostat's station list. The files are written here from
 * Meteostat's documentation and the expected values converted here by its units (wind km/h → m/s,
 * sunshine minutes → a day's hours), not through the reader: every answer equals that conversion,
 * empty fields and model values are missing (never a value), and the report counts them.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/dataset/catalog.ts';
import { cli } from '../helpers/cli.ts';
import { nearestAnswer } from '../helpers/nearest-answer.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

let root: string;
let dir: string;
/** type → local time (or day) → value; null: missing. */
const hourly = new Map<string, Map<string, number | null>>();
const daily = new Map<string, Map<string, number | null>>();
const counts = { empty: 0, model: 0 };
const put = (m: typeof hourly, type: string, t: string, v: number | null) => {
  if (!m.has(type)) m.set(type, new Map());
  m.get(type)!.set(t, v);
};
/** UTC hour k of 2024-03-01 as the dataset's local time (+02:00, the default zone). */
const local = (k: number) => new Date(Date.UTC(2024, 2, 1, k + 2)).toISOString().slice(0, 19);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-meteostat-'));
  // Meteostat's station list: ids are text (a WMO number here, letters elsewhere).
  const stations = [
    {
      id: '68816',
      name: { en: 'Cape Town International' },
      country: 'ZA',
      location: { latitude: -33.9667, longitude: 18.6, elevation: 42 },
      timezone: 'Africa/Johannesburg',
    },
    {
      id: 'FAGG0',
      name: { en: 'George' },
      country: 'ZA',
      location: { latitude: -34.0056, longitude: 22.3789, elevation: 197 },
      timezone: 'Africa/Johannesburg',
    },
  ];
  await writeFile(join(root, 'lite.json.gz'), gzipSync(JSON.stringify(stations)));
  // Current hourly file of 68816: header of parameter codes, a source per value.
  const head =
    'year,month,day,hour,temp,temp_source,rhum,rhum_source,prcp,prcp_source,wdir,wdir_source,wspd,wspd_source,wpgt,wpgt_source,pres,pres_source,coco,coco_source';
  const lines = [head];
  for (let k = 0; k < 36; k++) {
    const t = new Date(Date.UTC(2024, 2, 1, k));
    const model = k % 9 === 4;
    const temp = k % 11 === 5 ? '' : (17 + (k % 13) * 0.7).toFixed(1);
    const rhum = String(50 + (k % 40));
    const prcp = k % 6 === 1 ? (k / 10).toFixed(1) : '0.0';
    const wspd = (7.2 + (k % 8) * 3.6).toFixed(1);
    const src = model ? 'model' : 'metar';
    lines.push(
      [
        t.getUTCFullYear(),
        t.getUTCMonth() + 1,
        t.getUTCDate(),
        t.getUTCHours(),
        temp,
        temp ? src : '',
        rhum,
        'synop',
        prcp,
        src,
        String((k * 30) % 360),
        'synop',
        wspd,
        src,
        '',
        '',
        '1013.2',
        'synop',
        '2',
        'synop',
      ].join(','),
    );
    put(hourly, 'temperature_mean', local(k), temp === '' || model ? null : Number(temp));
    put(hourly, 'humidity', local(k), Number(rhum));
    put(hourly, 'rain', local(k), model ? null : Number(prcp));
    put(hourly, 'wind_speed', local(k), model ? null : Number((Number(wspd) / 3.6).toFixed(1)));
    if (temp === '') counts.empty++;
    if (model && temp !== '') counts.model++;
  }
  await writeFile(join(root, '68816.csv.gz'), gzipSync(`${lines.join('\n')}\n`));
  // Older headerless daily file of FAGG0: date,tavg,tmin,tmax,prcp,snow,wdir,wspd,wpgt,pres,tsun.
  const dl: string[] = [];
  for (let d = 1; d <= 20; d++) {
    const day = `2024-03-${String(d).padStart(2, '0')}`;
    const tmin = (10 + (d % 5)).toFixed(1);
    const tmax = d === 7 ? '' : (22 + (d % 7)).toFixed(1);
    const prcp = (d % 4 === 0 ? d * 0.8 : 0).toFixed(1);
    const tsun = String(300 + d * 11);
    dl.push([day, '17.0', tmin, tmax, prcp, '', '180', '14.4', '', '1015.0', tsun].join(','));
    put(daily, 'temperature_min', day, Number(tmin));
    put(daily, 'temperature_max', day, tmax === '' ? null : Number(tmax));
    put(daily, 'rain_sum', day, Number(prcp));
    put(daily, 'wind_speed_mean', day, 4);
    put(daily, 'sunshine_duration_sum', day, Number((Number(tsun) / 60).toFixed(2)));
  }
  await writeFile(join(root, 'FAGG0.csv.gz'), gzipSync(`${dl.join('\n')}\n`));
  dir = join(root, 'ds');
  const run = await cli([
    'import',
    'meteostat',
    join(root, '68816.csv.gz'),
    join(root, 'FAGG0.csv.gz'),
    '--stations',
    join(root, 'lite.json.gz'),
    '--out',
    dir,
  ]);
  expect(run.code, run.stderr).toBe(0);
}, 300_000);
afterAll(() => rm(root, { recursive: true, force: true }));

const nearest = (lon: number, lat: number, types: string[], timeScale: string, from: string, to: string) =>
  nearestAnswer(dir, lon, lat, types, timeScale, from, to);

describe('Meteostat bulk CSVs', () => {
  it('hourly: UTC hours become local hours, km/h become m/s, empty fields and model values are missing', async () => {
    const got = await nearest(18.6, -33.9667, [...hourly.keys()], 'hourly', local(0), local(35));
    expect(got.metadata).toMatchObject({ station_lat: -33.9667, station_lon: 18.6, station_elevation: 42 });
    let compared = 0;
    for (const [type, byTime] of hourly) {
      for (const [t, v] of byTime) {
        expect(got.data[t]?.[type] ?? null, `${type} ${t}`).toBe(v);
        compared++;
      }
    }
    expect(compared).toBe(36 * 4);
  });

  it('daily (older headerless files): values, sunshine in hours, the missing maximum missing', async () => {
    const got = await nearest(22.3789, -34.0056, [...daily.keys()], 'daily', '2024-03-01', '2024-03-20');
    expect(got.metadata).toMatchObject({ station_lat: -34.0056, station_lon: 22.3789 });
    for (const [type, byDay] of daily)
      for (const [d, v] of byDay) expect(got.data[d]?.[type] ?? null, `${type} ${d}`).toBe(v);
  });

  it('reports what it dropped and why, and carries the non-commercial licence into the catalog', async () => {
    const report = JSON.parse(await readFile(join(dir, 'import-report-meteostat.json'), 'utf8'));
    const cape = report.stations.find((s: { station_id: string }) => s.station_id === '68816');
    expect(cape.types.temperature_mean.dropped.empty).toBe(counts.empty);
    expect(cape.types.temperature_mean.dropped['model data (model)']).toBe(counts.model);
    expect(counts.model).toBeGreaterThan(0);
    expect(report.unmapped.pres).toBe(36 + 20);
    // The older file names no value's source: said of it, not claimed observed.
    const notes = report.files.filter((f: { note?: string }) => f.note).map((f: { path: string }) => f.path);
    expect(notes).toEqual([expect.stringMatching(/FAGG0\.csv\.gz$/)]);
    expect(report.files.find((f: { note?: string }) => f.note).note).toMatch(/does not say each value's source/);
    const catalog = (await catalogJson(join(dir, 'catalog.json'))) as Catalog;
    expect(JSON.stringify(catalog)).toMatch(/Meteostat.*CC BY-NC 4\.0/);
  });
});
