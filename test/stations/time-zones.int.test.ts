// Time zones, stated not guessed: a dataset records the local
// standard time its station times are in; a build converts hourly times that
// carry a zone into it and takes the others as in it. A logger network kept
// in UTC+3 (as real East African loggers are) builds with --time-zone; the
// archive is compared with an independent computation: the same rows moved by
// JavaScript Date arithmetic, then the TypeScript oracle's daily and monthly.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStationsWithReport } from '../../src/builder/stations-build.ts';
import { resolveTimeZone } from '../../src/builder/time-zone.ts';
import { mulberry32 } from '../../src/builder/prng.ts';
import { openApiDocument } from '../../src/engine/openapi.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { allScales, readStations, type Series } from './oracle.ts';
import { archiveSeries, expectSameSeries } from './archive-series.ts';
import { cli } from '../helpers/cli.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cq-zones-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const write = async (name: string, text: string) => {
  const p = join(dir, name);
  await writeFile(p, text);
  return p;
};

const STATIONS = `station_id,name,lat,lon,elevation
NBO,Nairobi logger,-1.29,36.82,1661
MSA,Mombasa logger,-4.04,39.67,55
`;
const COLS = ['temperature_mean', 'temperature_min', 'temperature_max', 'rain', 'humidity'] as const;
const pad = (n: number) => String(n).padStart(2, '0');
/** "2024-03-01 07:00:00" for a UTC instant, as a naive wall-clock text. */
const wall = (ms: number) => {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:00:00`;
};

/** Hourly readings of a station from `first` (UTC) for `hours` hours: [UTC instant ms, values]. */
function readings(seed: number, first: string, hours: number): Array<[number, number[]]> {
  const rand = mulberry32(seed);
  const t0 = Date.parse(`${first}T00:00:00Z`);
  return Array.from({ length: hours }, (_, h) => {
    const t = 18 + 6 * Math.sin((((h % 24) - 9) / 24) * 2 * Math.PI) + rand();
    return [
      t0 + h * 3_600_000,
      [t, t - 0.5, t + 0.5, rand() < 0.1 ? Math.round(rand() * 40) / 10 : 0, Math.round(40 + rand() * 50)],
    ];
  });
}

const csv = (lines: string[]) => `station_id,time,${COLS.join(',')}\n${lines.join('\n')}\n`;

/** The oracle's hourly series: each reading keyed by its wall-clock hour at `offsetHours` east of UTC. */
function localSeries(byStation: Record<string, Array<[number, number[]]>>, offsetHours: number): Series {
  const out: Series = new Map();
  for (const [id, rows] of Object.entries(byStation)) {
    const m = new Map<string, Record<string, number | null>>();
    for (const [ms, v] of rows)
      m.set(wall(ms + offsetHours * 3_600_000).replace(' ', 'T'), Object.fromEntries(COLS.map((c, i) => [c, v[i]!])));
    out.set(id, m);
  }
  return out;
}

describe('a dataset states its zone and converts zoned inputs into it', () => {
  it('--time-zone Africa/Nairobi: "Z" and "+00:00" times move 3 h; plain times are taken as local; daily and monthly follow the local day', async () => {
    const nbo = readings(1, '2024-02-27', 24 * 5);
    const msa = readings(2, '2024-02-27', 24 * 5);
    const stations = await write('stations.csv', STATIONS);
    // Nairobi's logger writes UTC with "Z"; Mombasa's export writes "+00:00" in its first half and
    // the local wall clock without a zone in the second (a re-export after a settings change).
    const half = msa.length / 2;
    const hourly = [
      await write('nbo.csv', csv(nbo.map(([ms, v]) => `NBO,${wall(ms).replace(' ', 'T')}Z,${v.join(',')}`))),
      await write(
        'msa.csv',
        csv(msa.map(([ms, v], i) => `MSA,${i < half ? `${wall(ms)}+00:00` : wall(ms + 3 * 3_600_000)},${v.join(',')}`)),
      ),
    ];
    const out = join(dir, 'east');
    const { section, report } = await buildStationsWithReport({ stations, hourly }, out, 'east', {
      timeZone: 'Africa/Nairobi',
    });
    expect(section.utcOffset).toBe('+03:00');
    expect(report.timeZone).toBe('+03:00');
    expect(report.scales.hourly!.files.map((f) => f.zoned)).toEqual([nbo.length, half]);
    const catalog = await catalogJson(join(out, 'catalog.json'));
    expect(catalog.stations.utcOffset).toBe('+03:00');

    const want = localSeries({ NBO: nbo, MSA: msa }, 3);
    const scales = allScales(readStations(stations), want);
    expectSameSeries(await archiveSeries(out, 'hourly'), want, 'hourly');
    expectSameSeries(await archiveSeries(out, 'daily'), scales.daily, 'daily');
    expectSameSeries(await archiveSeries(out, 'monthly'), scales.monthly, 'monthly');
    // The first UTC hour, 2024-02-27 00:00Z, is 03:00 in Nairobi; 21:00Z on the 29th is 00:00 on 1 March.
    const nboKeys = [...want.get('NBO')!.keys()];
    expect(nboKeys[0]).toBe('2024-02-27T03:00:00');
    expect(want.get('NBO')!.has('2024-03-01T00:00:00')).toBe(true);

    // Answers key periods in the dataset's zone, through the engine.
    const engine = createNodeEngine(out);
    try {
      const wkt = 'POINT (36.82 -1.29)';
      const res = await engine.nearestStation({
        wkts: wkt,
        dataTypes: ['temperature_mean'],
        options: { timeScale: 'hourly' },
        startDate: '2024-02-27T00:00:00',
        endDate: '2024-02-27T05:00:00',
      });
      // Local 00:00–02:00 on the 27th were 21:00–23:00 UTC on the 26th, before the logger's first reading.
      expect(Object.entries(res[wkt]!.data).map(([k, v]) => [k, v.temperature_mean === null])).toEqual([
        ['2024-02-27T00:00:00', true],
        ['2024-02-27T01:00:00', true],
        ['2024-02-27T02:00:00', true],
        ['2024-02-27T03:00:00', false],
        ['2024-02-27T04:00:00', false],
        ['2024-02-27T05:00:00', false],
      ]);
      expect(res[wkt]!.data['2024-02-27T03:00:00']!.temperature_mean).toBeCloseTo(nbo[0]![1][0]!, 9);
      // The OpenAPI document states the zone on every station date.
      const doc = JSON.stringify(openApiDocument('test', (await engine.catalog()).stations!.utcOffset));
      expect(doc).toContain('local standard time UTC+03:00');
    } finally {
      await engine.close();
    }
  });

  it('a TIMESTAMPTZ Parquet column (an instant) is converted; the build report and catalog say the zone', async () => {
    const rows = readings(3, '2024-05-01', 48);
    const stations = await write('stations-p.csv', STATIONS);
    const src = await write('p.csv', csv(rows.map(([ms, v]) => `NBO,${wall(ms).replace(' ', 'T')}Z,${v.join(',')}`)));
    const parquet = join(dir, 'p.parquet');
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    await con.run(
      `COPY (SELECT station_id, CAST(time AS TIMESTAMPTZ) AS time, ${COLS.join(', ')} FROM read_csv('${src}', types = {'time': 'VARCHAR'})) TO '${parquet}' (FORMAT parquet)`,
    );
    const described = (await con.runAndReadAll(`DESCRIBE SELECT * FROM '${parquet}'`)).getRowObjectsJS();
    con.closeSync();
    db.closeSync();
    expect(described.find((r) => r.column_name === 'time')!.column_type).toBe('TIMESTAMP WITH TIME ZONE');
    const out = join(dir, 'parquet-zone');
    const r = await cli(['build', '--out', out, '--stations', stations, '--hourly', parquet, '--time-zone', '+03:00']);
    expect(r.stderr).toContain('Times are local standard time UTC+03:00');
    expect(r.code).toBe(0);
    expectSameSeries(await archiveSeries(out, 'hourly'), localSeries({ NBO: rows }, 3), 'hourly');
  });

  it('one zone per dataset: another zone is refused unless --replace; the same zone (or none stated) adds', async () => {
    const stations = await write('stations-z.csv', STATIONS);
    const a = await write(
      'za.csv',
      csv(readings(4, '2024-01-01', 48).map(([ms, v]) => `NBO,${wall(ms)},${v.join(',')}`)),
    );
    const b = await write(
      'zb.csv',
      csv(readings(5, '2024-01-01', 48).map(([ms, v]) => `MSA,${wall(ms)},${v.join(',')}`)),
    );
    const out = join(dir, 'one-zone');
    expect(
      (await cli(['build', '--out', out, '--stations', stations, '--hourly', a, '--time-zone', 'UTC+3'])).code,
    ).toBe(0);
    const other = await cli(['build', '--out', out, '--stations', stations, '--hourly', b]);
    expect(other.code).toBe(0);
    expect(other.stderr).toContain('UTC+03:00');
    const clash = await cli(['build', '--out', out, '--stations', stations, '--hourly', b, '--time-zone', '+02:00']);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/dataset's station times are in UTC\+03:00; this build says UTC\+02:00.*--replace/);
    const catalog = await catalogJson(join(out, 'catalog.json'));
    expect(catalog.stations.utcOffset).toBe('+03:00');
    expect(catalog.stations.count).toBe(2);
    const replaced = await cli([
      'build',
      '--out',
      out,
      '--stations',
      stations,
      '--hourly',
      b,
      '--time-zone',
      '+02:00',
      '--replace',
    ]);
    expect(replaced.code).toBe(0);
    expect((await catalogJson(join(out, 'catalog.json'))).stations.utcOffset).toBe('+02:00');
  });

  it('refuses what it would have to guess: a zone on a daily date, an unknown zone name', async () => {
    const stations = await write('stations-d.csv', STATIONS);
    const daily = await write(
      'd.csv',
      'station_id,time,temperature_mean\nNBO,2024-01-01,20\nNBO,2024-01-02T00:00:00+03:00,21\n',
    );
    const r = await cli(['build', '--out', join(dir, 'daily-zone'), '--stations', stations, '--daily', daily]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('row 2 (station "NBO"), column "time": "2024-01-02T00:00:00+03:00" carries a time zone');
    const hourly = await write('h.csv', csv([`NBO,2024-01-01 00:00:00,${[1, 1, 1, 0, 50].join(',')}`]));
    const bad = await cli([
      'build',
      '--out',
      join(dir, 'bad-zone'),
      '--stations',
      stations,
      '--hourly',
      hourly,
      '--time-zone',
      'Africa/Nairobbi',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--time-zone "Africa/Nairobbi" is neither an offset');
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });

  it('zone names resolve to their standard time, never daylight saving', () => {
    expect(resolveTimeZone('Africa/Johannesburg')).toBe('+02:00');
    expect(resolveTimeZone('Europe/Berlin')).toBe('+01:00');
    expect(resolveTimeZone('America/Santiago')).toBe('-04:00');
    expect(resolveTimeZone('Asia/Kolkata')).toBe('+05:30');
    expect(resolveTimeZone('-0330')).toBe('-03:30');
    expect(resolveTimeZone('Z')).toBe('+00:00');
    expect(() => resolveTimeZone('+15:00')).toThrow(/neither an offset/);
  });
});
