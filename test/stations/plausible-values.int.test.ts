// Values no instrument can read are never built silently: a
// humidity of 150 % or rain of −5 mm is refused naming file, row and column,
// or, with --keep-implausible, kept and counted in the report.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuildError, buildStationsWithReport } from '../../src/builder/stations-build.ts';
import { plausibleBounds } from '../../src/contract/station-bounds.ts';
import { STATION_TIME_SCALES, STATION_TYPES } from '../../src/contract/station-data-types.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';

const BIN = join(import.meta.dirname, '../../bin/climate-query.js');
let dir: string;
let stations: string;
let hourly: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cq-plausible-'));
  stations = join(dir, 'stations.csv');
  hourly = join(dir, 'hourly.csv');
  await writeFile(stations, 'station_id,name,lat,lon,elevation\nA,Alpha,-33.9,18.9,100\nB,Beta,-33.5,19.2,\n');
  await writeFile(
    hourly,
    `${[
      'station_id,time,temperature_mean,rain,humidity',
      'A,2024-03-01T00:00:00,14.2,0.0,81',
      'A,2024-03-01T01:00:00,13.9,0.2,150',
      'A,2024-03-01T02:00:00,13.5,,88',
      'B,2024-03-01T00:00:00,15.1,-5,70',
      'B,2024-03-01T01:00:00,14.8,0.0,101',
    ].join('\n')}\n`,
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('plausible values', () => {
  it('every station type at every scale has bounds, lowest below highest', () => {
    for (const scale of STATION_TIME_SCALES) {
      for (const t of STATION_TYPES[scale]) {
        const [lo, hi] = plausibleBounds(scale, t);
        expect(lo !== null || hi !== null, `${scale} ${t}`).toBe(true);
        if (lo !== null && hi !== null) expect(lo, `${scale} ${t}`).toBeLessThan(hi);
      }
    }
    expect(plausibleBounds('hourly', 'humidity')).toEqual([0, 105]);
    expect(plausibleBounds('daily', 'rain_sum')).toEqual([0, null]);
    expect(plausibleBounds('monthly', 'wind_direction_mean')).toEqual([0, 360]);
  });

  it('the first impossible value is refused naming file, row and column; nothing is written', async () => {
    const out = join(dir, 'refused');
    const error = await buildStationsWithReport({ stations, hourly }, out).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BuildError);
    // Row 2 of the data (after the header) holds humidity 150 — the first in file order.
    expect((error as Error).message).toMatch(
      /hourly\.csv: row 2 \(station "A"\), column "humidity": 150 is outside 0 to 105, the bounds of what a humidity instrument reads/,
    );
    await expect(readFile(join(out, 'catalog.json'))).rejects.toThrow();
  });

  it('the CLI refuses with exit 2 and says how to keep them', async () => {
    const r = await promisify(execFile)(process.execPath, [
      BIN,
      'build',
      '--out',
      join(dir, 'cli'),
      '--stations',
      stations,
      '--hourly',
      hourly,
    ]).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/column "(rain|humidity)"/);
    expect(r.stderr).toContain('--keep-implausible');
  });

  it('with keepImplausible they are kept, counted per column, and answered as given', async () => {
    const out = join(dir, 'kept');
    const { report } = await buildStationsWithReport({ stations, hourly }, out, 'kept', { keepImplausible: true });
    const flagged = Object.fromEntries(report.scales.hourly!.flagged.map((f) => [f.column, f.values]));
    // Counted independently from the rows above: humidity 150 and rain −5; 101 % is a reading sensors give.
    expect(flagged).toEqual({ humidity: 1, rain: 1 });
    expect(report.scales.hourly!.beyondPhysical).toEqual([
      {
        column: 'humidity',
        values: 1,
        first: expect.stringMatching(/row 5 \(station "B"\), column "humidity": 101, outside 0 to 100/),
      },
    ]);
    expect(report.scales.hourly!.flagged.find((f) => f.column === 'rain')!.first).toMatch(
      /row 4 \(station "B"\), column "rain": -5 is outside 0 to/,
    );
    const engine = createNodeEngine(out);
    const answer = await engine.nearestStation({
      wkts: 'POINT (18.9 -33.9)',
      dataTypes: ['humidity'],
      options: { timeScale: 'hourly' },
      startDate: '2024-03-01T01:00:00',
      endDate: '2024-03-01T01:00:00',
    });
    expect(answer['POINT (18.9 -33.9)']!.data['2024-03-01T01:00:00']!.humidity).toBe(150);
    await engine.close();
  });

  it('a real logger’s humidity just above 100 % near saturation builds without asking, kept as measured and counted', async () => {
    const logger = join(dir, 'logger.csv');
    await writeFile(
      logger,
      'station_id,time,humidity\nA,2024-06-12T04:00:00,99.8\nA,2024-06-12T05:00:00,100.065\nA,2024-06-12T06:00:00,102.9\n',
    );
    const out = join(dir, 'logger');
    const { report } = await buildStationsWithReport({ stations, hourly: logger }, out, 'logger');
    expect(report.scales.hourly!.flagged).toEqual([]);
    expect(report.scales.hourly!.beyondPhysical).toEqual([
      {
        column: 'humidity',
        values: 2,
        first: expect.stringMatching(/row 2 \(station "A"\), column "humidity": 100\.065, outside 0 to 100/),
      },
    ]);
    const engine = createNodeEngine(out);
    const answer = await engine.nearestStation({
      wkts: 'POINT (18.9 -33.9)',
      dataTypes: ['humidity'],
      options: { timeScale: 'hourly' },
      startDate: '2024-06-12T05:00:00',
      endDate: '2024-06-12T06:00:00',
    });
    expect(answer['POINT (18.9 -33.9)']!.data['2024-06-12T05:00:00']!.humidity).toBe(100.065);
    expect(answer['POINT (18.9 -33.9)']!.data['2024-06-12T06:00:00']!.humidity).toBe(102.9);
    await engine.close();
  });
});
