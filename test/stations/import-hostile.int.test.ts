/**
 * Archives as they go wrong: a gzip that inflates to gigabytes or is cut short, a file of another
 * format, a row whose fields shift, a mapping that would hang or misread, a value given twice,
 * and the codes sources use for "not a measurement" (GHCNh's failed checks, ISD-Lite's calm,
 * GHCN-Daily's presumed zero). Each is refused by name or counted as what it is; none is a stack,
 * a hang or a number that was never measured.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuildError } from '../../src/builder/build-error.ts';
import { importStations } from '../../src/builder/import/station-import.ts';
import { cli } from '../helpers/cli.ts';
import { nearestAnswer } from '../helpers/nearest-answer.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-import-hostile-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** What a refused import said: its exit, and its stderr with no stack frame in it. */
async function refused(args: string[]): Promise<string> {
  const r = await cli(args);
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return r.stderr;
}

const GHCNH_HEADER = [
  'STATION',
  'Station_name',
  'DATE',
  'LATITUDE',
  'LONGITUDE',
  'ELEVATION',
  ...['temperature', 'wind_direction', 'precipitation'].flatMap((v) =>
    ['', '_Measurement_Code', '_Quality_Code', '_Report_Type', '_Source_Code', '_Source_Station_ID'].map(
      (x) => `${v}${x}`,
    ),
  ),
];

/** A GHCNh PSV of station SFM00068816 with a report per given row (column → value). */
function ghcnh(rows: Array<Record<string, string>>): string {
  const lines = [GHCNH_HEADER.join('|')];
  for (const r of rows) {
    const row: Record<string, string> = {
      STATION: 'SFM00068816',
      Station_name: 'CAPE TOWN INTL',
      LATITUDE: '-33.9648',
      LONGITUDE: '18.6017',
      ELEVATION: '46.0',
      ...r,
    };
    lines.push(GHCNH_HEADER.map((c) => row[c] ?? '').join('|'));
  }
  return `${lines.join('\n')}\n`;
}

describe('files that are not what they claim', () => {
  it('a gzip that inflates past the bound, a cut gzip and a file of another format are refused by name', async () => {
    // 300 MiB of zeros in 300 KB: inflated only up to the 256 MiB an input file may hold.
    const bomb = join(root, 'GHCNh_SFM00068816_2023.psv.gz');
    await writeFile(bomb, gzipSync(Buffer.alloc(300 * 2 ** 20), { level: 9 }));
    expect(await refused(['import', 'ghcnh', bomb, '--out', join(root, 'a')])).toContain(
      `${bomb} inflates to more than 256 MiB`,
    );

    const cut = join(root, 'GHCNh_SFM00068816_2022.psv.gz');
    const whole = gzipSync(ghcnh([{ DATE: '2022-01-01T10:00:00', temperature: '21.0' }]));
    await writeFile(cut, whole.subarray(0, whole.length - 20));
    expect(await refused(['import', 'ghcnh', cut, '--out', join(root, 'b')])).toMatch(
      /is not a whole gzip file \(.*\): download it again\./,
    );

    // A GHCNh Parquet name on bytes that are a Parquet file's shape only at the ends.
    const fake = join(root, 'GHCNh_SFM00068816_2021.parquet');
    await writeFile(fake, Buffer.concat([Buffer.from('PAR1'), Buffer.alloc(64, 7), Buffer.from('PAR1')]));
    expect(await refused(['import', 'ghcnh', fake, '--out', join(root, 'c')])).toContain(
      'GHCNh_SFM00068816_2021.parquet',
    );
  });
});

describe('GHCNh times', () => {
  it('a file with Year, Month, Day, Hour and Minute and no DATE imports; a day that is not one is refused, not moved', async () => {
    const header = GHCNH_HEADER.filter((c) => c !== 'DATE').concat(['Year', 'Month', 'Day', 'Hour', 'Minute']);
    const row = (y: string, mo: string, d: string, h: string, t: string) => {
      const r: Record<string, string> = {
        STATION: 'SFM00068816',
        Station_name: 'CAPE TOWN INTL',
        LATITUDE: '-33.9648',
        LONGITUDE: '18.6017',
        ELEVATION: '46.0',
        Year: y,
        Month: mo,
        Day: d,
        Hour: h,
        Minute: '0',
        temperature: t,
      };
      return header.map((c) => r[c] ?? '').join('|');
    };
    const file = join(root, 'GHCNh_SFM00068816_por.psv');
    await writeFile(
      file,
      `${[header.join('|'), row('2024', '3', '1', '10', '21.5'), row('2024', '3', '1', '11', '22.5')].join('\n')}\n`,
    );
    const out = join(root, 'por');
    await importStations({ format: 'ghcnh', files: [file], out });
    const got = await nearestAnswer(
      out,
      18.6017,
      -33.9648,
      ['temperature_mean'],
      'hourly',
      '2024-03-01T12:00:00',
      '2024-03-01T13:00:00',
    );
    expect(Object.values(got.data).map((v) => v.temperature_mean)).toEqual([21.5, 22.5]);

    const bad = join(root, 'GHCNh_SFM00068816_2019.psv');
    await writeFile(
      bad,
      ghcnh([
        { DATE: '2019-02-28T23:00:00', temperature: '20.0' },
        { DATE: '2019-02-30T00:00:00', temperature: '19.0' },
      ]),
    );
    expect(await refused(['import', 'ghcnh', bad, '--out', join(root, 'feb30')])).toContain(
      'GHCNh_SFM00068816_2019.psv line 3: station "SFM00068816" at "2019-02-30T00:00:00" is not a GHCNh report',
    );
  });
});

describe('codes that say a value is not a measurement', () => {
  it("GHCNh's own failed checks (upper-case flags too) are dropped and counted; ISD's accepted codes are kept", async () => {
    const file = join(root, 'GHCNh_SFM00068816_2024.psv');
    // One report an hour; the quality code cycles through failed and accepted ones.
    const codes = ['', 'W', 'S', '1', 'K', 'A', 'l', 'C', '5', 'R'];
    await writeFile(
      file,
      ghcnh(
        codes.map((q, k) => ({
          DATE: `2024-01-01T${String(k).padStart(2, '0')}:00:00`,
          temperature: (20 + k).toFixed(1),
          temperature_Quality_Code: q,
        })),
      ),
    );
    const out = join(root, 'qc');
    const { report } = await importStations({ format: 'ghcnh', files: [file], out });
    const t = report.stations[0]!.types.temperature_mean!;
    expect(t.dropped).toEqual({
      'quality code W': 1,
      'quality code S': 1,
      'quality code K': 1,
      'quality code l': 1,
      'quality code C': 1,
    });
    expect(t.kept).toBe(5);
    const got = await nearestAnswer(
      out,
      18.6017,
      -33.9648,
      ['temperature_mean'],
      'hourly',
      '2024-01-01T02:00:00',
      '2024-01-01T11:00:00',
    );
    // UTC hour k is local hour k + 2; kept: '', '1', 'A', '5', 'R' (k = 0, 3, 5, 8, 9).
    const values = Object.fromEntries(Object.entries(got.data).map(([k, v]) => [k, v.temperature_mean ?? null]));
    expect(values).toEqual({
      '2024-01-01T02:00:00': 20,
      '2024-01-01T03:00:00': null,
      '2024-01-01T04:00:00': null,
      '2024-01-01T05:00:00': 23,
      '2024-01-01T06:00:00': null,
      '2024-01-01T07:00:00': 25,
      '2024-01-01T08:00:00': null,
      '2024-01-01T09:00:00': null,
      '2024-01-01T10:00:00': 28,
      '2024-01-01T11:00:00': 29,
    });
  });

  it('an ISD-Lite calm (direction 0) has no direction; 360 is north', async () => {
    const list = join(root, 'isd-history.csv');
    await writeFile(
      list,
      `"USAF","WBAN","STATION NAME","CTRY","STATE","ICAO","LAT","LON","ELEV(M)","BEGIN","END"\n"688160","99999","CAPE TOWN INTL","SF","","FACT","-33.965","+018.602","+0046.0","19490101","20250827"\n`,
    );
    const line = (h: number, dir: number, speed: number) =>
      `2024 01 01 ${String(h).padStart(2, '0')}${[200, 120, 10132, dir, speed, 4, 0, -9999].map((v) => String(v).padStart(6)).join('')}`;
    const file = join(root, '688160-99999-2024.gz');
    await writeFile(file, gzipSync(`${[line(0, 0, 0), line(1, 360, 30), line(2, 90, 20)].join('\n')}\n`));
    const out = join(root, 'calm');
    const { report } = await importStations({ format: 'isd-lite', files: [file], stationList: list, out });
    expect(report.stations[0]!.types.wind_direction).toMatchObject({
      read: 3,
      kept: 2,
      dropped: { 'no direction (calm)': 1 },
    });
    const got = await nearestAnswer(
      out,
      18.602,
      -33.965,
      ['wind_direction'],
      'hourly',
      '2024-01-01T02:00:00',
      '2024-01-01T04:00:00',
    );
    expect(Object.values(got.data).map((v) => v.wind_direction ?? null)).toEqual([null, 360, 90]);
  });

  it("GHCN-Daily's MFLAG P (missing, presumed zero) is missing, not a measured 0 mm", async () => {
    const list = join(root, 'ghcnd-stations.txt');
    await writeFile(list, `SFM00068816 -33.9650   18.6020   46.0    CAPE TOWN INTL                \n`);
    const days: Array<[number, string]> = [
      [12, ' '],
      [0, 'P'],
      [0, ' '],
    ];
    const dly = `SFM00068816202406PRCP${Array.from({ length: 31 }, (_, d) => {
      const [v, m] = days[d] ?? [-9999, ' '];
      return `${String(v).padStart(5)}${m} S`;
    }).join('')}`;
    const file = join(root, 'SFM00068816.dly');
    await writeFile(file, `${dly}\n`);
    const out = join(root, 'presumed');
    const { report } = await importStations({ format: 'ghcnd', files: [file], stationList: list, out });
    expect(report.stations[0]!.types.rain_sum!.dropped['missing presumed zero (MFLAG P)']).toBe(1);
    const got = await nearestAnswer(out, 18.602, -33.965, ['rain_sum'], 'daily', '2024-06-01', '2024-06-03');
    expect(Object.values(got.data).map((v) => v.rain_sum ?? null)).toEqual([1.2, null, 0]);
  });
});

describe('a value given twice', () => {
  it('the same value twice is kept once and counted; two different values for one day are refused', async () => {
    const list = join(root, 'twice-stations.txt');
    await writeFile(list, `SFM00068816 -33.9650   18.6020   46.0    CAPE TOWN INTL                \n`);
    const dly = (v: number) =>
      `SFM00068816202407TMAX${Array.from({ length: 31 }, (_, d) => `${String(d === 0 ? v : -9999).padStart(5)}  S`).join('')}`;
    const a = join(root, 'twice', 'SFM00068816.dly');
    await mkdir(join(root, 'twice'), { recursive: true });
    await writeFile(a, `${dly(185)}\n${dly(185)}\n`);
    const { report } = await importStations({ format: 'ghcnd', files: [a], stationList: list, out: join(root, 't1') });
    // Each line holds a day's value and 30 missing days (−9999).
    expect(report.stations[0]!.types.temperature_max).toMatchObject({
      read: 62,
      kept: 1,
      dropped: { 'repeated (same value)': 1, 'sentinel −9999': 60 },
    });
    await writeFile(a, `${dly(185)}\n${dly(191)}\n`);
    const err = await importStations({ format: 'ghcnd', files: [a], stationList: list, out: join(root, 't2') }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BuildError);
    expect((err as Error).message).toBe(
      'station SFM00068816 has two temperature_max values for 2024-07-01: 18.5 and 19.1. Import one file per period of each station.',
    );
  });
});

describe('an export read by its mapping', () => {
  const mapping = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      scale: 'hourly',
      time: { column: 'Time', format: 'yyyy-mm-dd hh:mm' },
      zone: '+02:00',
      station: { id: 'FARM1', name: 'Farm', lat: -33.9, lon: 18.9 },
      columns: { Temp: { type: 'temperature_mean' }, RH: { type: 'humidity' } },
      ...extra,
    });

  it('a row whose fields shift (an unquoted decimal comma) is refused by line, never read into the next column', async () => {
    const csv = join(root, 'shifted.csv');
    await writeFile(csv, 'Time,Temp,RH\n2024-06-01 10:00,12.5,80\n2024-06-01 11:00,12,5,81\n');
    const m = join(root, 'shifted.json');
    await writeFile(m, mapping());
    expect(await refused(['import', 'csv', csv, '--mapping', m, '--out', join(root, 's')])).toContain(
      'shifted.csv line 3: 4 fields where the header has 3.',
    );
  });

  it('a separator, decimal mark or missing list that cannot be one is refused before the file is read', async () => {
    const csv = join(root, 'plain.csv');
    await writeFile(csv, 'Time,Temp,RH\n2024-06-01 10:00,12.5,80\n');
    for (const [extra, field] of [
      [{ separator: '' }, '"separator"'],
      [{ separator: 'ab' }, '"separator"'],
      [{ decimal: '' }, '"decimal"'],
      [{ missing: 5 }, '"missing"'],
      [{ missing: ['-', -999] }, '"missing"'],
    ] as const) {
      const m = join(root, 'bad-mapping.json');
      await writeFile(m, mapping(extra));
      expect(await refused(['import', 'csv', csv, '--mapping', m, '--out', join(root, 'm')])).toContain(
        `bad-mapping.json: ${field} must`,
      );
    }
  });

  it('a numeric missing marker is missing however it is written (-999, -999.0, -999,00)', async () => {
    const csv = join(root, 'markers.csv');
    await writeFile(
      csv,
      'Time;Temp;RH\n2024-06-01 10:00;-999,0;80\n2024-06-01 11:00;12,5;-999,00\n2024-06-01 12:00;13,0;-999\n',
    );
    const m = join(root, 'markers.json');
    await writeFile(m, mapping({ separator: ';', decimal: ',', missing: ['', '-999'] }));
    const out = join(root, 'markers');
    const { report } = await importStations({ format: 'csv', files: [csv], mapping: m, out });
    expect(report.stations[0]!.types.temperature_mean!.dropped).toEqual({ 'missing marker "-999,0"': 1 });
    expect(report.stations[0]!.types.humidity!.dropped).toEqual({
      'missing marker "-999,00"': 1,
      'missing marker "-999"': 1,
    });
    const got = await nearestAnswer(
      out,
      18.9,
      -33.9,
      ['temperature_mean', 'humidity'],
      'hourly',
      '2024-06-01T10:00:00',
      '2024-06-01T12:00:00',
    );
    expect(Object.values(got.data)).toEqual([
      { temperature_mean: null, humidity: 80 },
      { temperature_mean: 12.5, humidity: null },
      { temperature_mean: 13, humidity: null },
    ]);
    expect(JSON.parse(await readFile(join(out, 'import-report-csv.json'), 'utf8')).stations[0].station_id).toBe(
      'FARM1',
    );
  });
});
