/**
 * A logger's export imported by a mapping file (src/builder/import/mapping.ts): its own headers, a
 * semicolon separator, decimal commas, `dd/mm/yyyy hh:mm` times in UTC, readings every 10 minutes
 * and its own missing markers. Without a mapping the import proposes one from the header, writes
 * it, and builds nothing; with it, every hour answers what the export's readings make by the
 * documented rules (computed here from the readings, not through the reader), in the dataset's
 * local time.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { cli } from '../helpers/cli.ts';

let root: string;
const readings: Array<{ utc: number; temp: string; rain: string; rh: string; wind: string }> = [];
const hourOf = (utc: number) => Math.ceil(utc / 3_600_000) * 3_600_000;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-mapped-'));
  const lines = ['Date/Time;Air temp (°C);Rain (mm);RH (%);Wind speed (km/h);Battery (V)'];
  // 2024-03-01 00:00 to 23:50 UTC, every 10 minutes.
  for (let k = 0; k < 144; k++) {
    const utc = Date.UTC(2024, 2, 1, 0, 10 * k);
    const d = new Date(utc);
    const comma = (v: number, dp: number) => v.toFixed(dp).replace('.', ',');
    const temp = k % 17 === 5 ? '-' : comma(14 + 8 * Math.sin(k / 23) + (k % 3) * 0.05, 2);
    const rain = k % 29 === 7 ? 'NaN' : comma(k % 11 === 0 ? 0.2 * (k % 4) : 0, 1);
    const rh = comma(60 + (k % 30), 1);
    const wind = comma(5 + (k % 13) * 1.5, 1);
    readings.push({ utc, temp, rain, rh, wind });
    const stamp = `${String(d.getUTCDate()).padStart(2, '0')}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${d.getUTCFullYear()} ${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
    lines.push([stamp, temp, rain, rh, wind, comma(12.6, 2)].join(';'));
  }
  await writeFile(join(root, 'logger.csv'), `${lines.join('\r\n')}\r\n`);
}, 60_000);
afterAll(() => rm(root, { recursive: true, force: true }));

describe('a logger export', () => {
  it('without a mapping: one is proposed from its header and written beside it; nothing is built', async () => {
    const run = await cli(['import', 'csv', join(root, 'logger.csv'), '--out', join(root, 'ds-guess')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Nothing was imported/);
    expect(existsSync(join(root, 'ds-guess'))).toBe(false);
    const proposed = JSON.parse(await readFile(join(root, 'logger.csv.mapping.json'), 'utf8'));
    expect(proposed).toMatchObject({
      scale: 'hourly',
      separator: ';',
      decimal: ',',
      time: { column: 'Date/Time', format: 'dd/mm/yyyy hh:mm' },
      columns: {
        'Air temp (°C)': { type: 'temperature_mean', unit: '°C' },
        'Rain (mm)': { type: 'rain', unit: 'mm' },
        'RH (%)': { type: 'humidity', unit: '%' },
        'Wind speed (km/h)': { type: 'wind_speed', unit: 'km/h' },
      },
    });
    expect(proposed.columns['Battery (V)']).toBeUndefined();
    // The clock and the place are not in the header: the proposal cannot be used as it is.
    expect(proposed.zone).toMatch(/^CHECK/);
    const asIs = await cli([
      'import',
      'csv',
      join(root, 'logger.csv'),
      '--mapping',
      join(root, 'logger.csv.mapping.json'),
      '--out',
      join(root, 'ds-guess'),
    ]);
    expect(asIs.code).not.toBe(0);
    expect(asIs.stderr).toMatch(/"zone" must say the clock the times are in/);
    expect(existsSync(join(root, 'ds-guess', 'catalog.json'))).toBe(false);
  });

  it('with the mapping checked: each hour is its readings by the documented rules, in local time', async () => {
    const proposed = JSON.parse(await readFile(join(root, 'logger.csv.mapping.json'), 'utf8'));
    const mapping = {
      ...proposed,
      zone: 'UTC',
      station: { id: 'FARM-1', name: 'Block 7 logger', lat: -33.93, lon: 18.86, elevation: 120 },
    };
    await writeFile(join(root, 'logger.mapping.json'), JSON.stringify(mapping));
    const dir = join(root, 'ds');
    const run = await cli([
      'import',
      'csv',
      join(root, 'logger.csv'),
      '--mapping',
      join(root, 'logger.mapping.json'),
      '--out',
      dir,
    ]);
    expect(run.code, run.stderr).toBe(0);
    // Hourly humidity alone makes a daily mean, not a daily lowest or highest: the report says so.
    expect(run.stderr).toMatch(
      /^daily: .*\n(?: {2}.*\n)*? {2}not derived, their hourly source holding no values: .*humidity_min \(from hourly humidity_min\)/m,
    );

    // The rules, applied here to the readings: the hour a reading ends in; mean, sum; km/h ÷ 3.6.
    const num = (s: string) => Number(s.replace(',', '.'));
    const byHour = new Map<number, typeof readings>();
    for (const r of readings) byHour.set(hourOf(r.utc), [...(byHour.get(hourOf(r.utc)) ?? []), r]);
    const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
    const engine = createNodeEngine(dir);
    try {
      const res = (await engine.query('nearest-station', {
        wkts: 'POINT (18.86 -33.93)',
        dataTypes: ['temperature_mean', 'rain', 'humidity', 'wind_speed'],
        options: { timeScale: 'hourly' },
        startDate: '2024-03-01T03:00:00',
        endDate: '2024-03-01T23:00:00',
      })) as unknown as Record<string, { data: Record<string, Record<string, number | null>> }>;
      const data = Object.values(res)[0]!.data;
      let hours = 0;
      for (const [hour, rs] of byHour) {
        // Local standard time of the dataset: UTC+02:00.
        const key = new Date(hour + 2 * 3_600_000).toISOString().slice(0, 19);
        if (!(key in data)) continue;
        hours++;
        const temps = rs.filter((r) => r.temp !== '-').map((r) => num(r.temp));
        const rains = rs.filter((r) => r.rain !== 'NaN').map((r) => num(r.rain));
        const want = {
          temperature_mean: mean(temps),
          rain: rains.length ? rains.reduce((a, b) => a + b, 0) : null,
          humidity: mean(rs.map((r) => num(r.rh))),
          wind_speed: mean(rs.map((r) => num(r.wind) / 3.6)),
        };
        for (const [type, v] of Object.entries(want)) {
          if (v === null) expect(data[key]![type], `${type} ${key}`).toBeNull();
          else expect(data[key]![type], `${type} ${key}`).toBeCloseTo(v, 5);
        }
      }
      expect(hours).toBe(21);
    } finally {
      await engine.close();
    }
    const report = JSON.parse(await readFile(join(dir, 'import-report-csv.json'), 'utf8'));
    const station = report.stations[0];
    expect(station.types.temperature_mean.dropped['missing marker "-"']).toBe(
      readings.filter((r) => r.temp === '-').length,
    );
    expect(station.types.rain.dropped['missing marker "NaN"']).toBe(readings.filter((r) => r.rain === 'NaN').length);
    // 00:00 ends the day's first hour alone; 24 more hours of six readings, the last (00:00 of the 2nd) of five.
    expect(station.readingsPerHour).toEqual({ '1': 1, '5': 1, '6': 23 });
    expect(report.unmapped).toEqual({ 'Battery (V)': 144 });
  });

  it('the same readings as an Excel workbook (date cells, numbers, text markers) import to the same answers', async () => {
    // openpyxl (Debian's python3-openpyxl) writes it as Excel would: dates as date cells, readings as numbers.
    const rows = readings.map((r) => [r.utc, r.temp, r.rain, r.rh, r.wind]);
    execFileSync(
      '/usr/bin/python3',
      [
        '-c',
        `
import json, sys, datetime
from openpyxl import Workbook
wb = Workbook(); ws = wb.active; ws.title = 'Hourly log'
ws.append(['Date/Time', 'Air temp (°C)', 'Rain (mm)', 'RH (%)', 'Wind speed (km/h)', 'Battery (V)'])
cell = lambda s: s if s in ('-', 'NaN') else float(s.replace(',', '.'))
for utc, t, r, h, w in json.load(sys.stdin):
    ws.append([datetime.datetime.utcfromtimestamp(utc / 1000), cell(t), cell(r), cell(h), cell(w), 12.6])
wb.save(sys.argv[1])
`,
        join(root, 'logger.xlsx'),
      ],
      { input: JSON.stringify(rows) },
    );
    const proposedRun = await cli(['import', 'csv', join(root, 'logger.xlsx'), '--out', join(root, 'ds-x')]);
    expect(proposedRun.code).toBe(2);
    expect(proposedRun.stderr).toMatch(/the workbook's date cells/);
    const proposed = JSON.parse(await readFile(join(root, 'logger.xlsx.mapping.json'), 'utf8'));
    expect(proposed).toMatchObject({ scale: 'hourly', time: { column: 'Date/Time' } });
    const mapping = {
      ...proposed,
      zone: 'UTC',
      station: { id: 'FARM-1', name: 'Block 7 logger', lat: -33.93, lon: 18.86, elevation: 120 },
    };
    await writeFile(join(root, 'logger-xlsx.mapping.json'), JSON.stringify(mapping));
    const run = await cli([
      'import',
      'csv',
      join(root, 'logger.xlsx'),
      ...['--mapping', join(root, 'logger-xlsx.mapping.json'), '--out', join(root, 'ds-x')],
    ]);
    expect(run.code, run.stderr).toBe(0);
    const ask = {
      wkts: 'POINT (18.86 -33.93)',
      dataTypes: ['temperature_mean', 'rain', 'humidity', 'wind_speed'],
      options: { timeScale: 'hourly' },
      startDate: '2024-03-01T03:00:00',
      endDate: '2024-03-01T23:00:00',
    };
    const [fromCsv, fromXlsx] = [createNodeEngine(join(root, 'ds')), createNodeEngine(join(root, 'ds-x'))];
    try {
      const a = await fromCsv.query('nearest-station', ask);
      const b = await fromXlsx.query('nearest-station', ask);
      expect(Object.keys(Object.values(b as Record<string, { data: object }>)[0]!.data).length).toBe(21);
      expect(b).toEqual(a);
    } finally {
      await fromCsv.close();
      await fromXlsx.close();
    }
  });

  it('a zip that claims to inflate past its bound is refused before it is opened', async () => {
    const { zipInflatedBytes } = await import('../../src/builder/import/export-table.ts');
    const book = await readFile(join(root, 'logger.xlsx'));
    const real = zipInflatedBytes(book)!;
    expect(real).toBeGreaterThan(book.length);
    // The first central-directory entry claims 4 GiB − 1 inflated.
    const bomb = new Uint8Array(book);
    const view = new DataView(bomb.buffer);
    let eocd = bomb.length - 22;
    while (view.getUint32(eocd, true) !== 0x06054b50) eocd--;
    view.setUint32(view.getUint32(eocd + 16, true) + 24, 0xfffffffe, true);
    await writeFile(join(root, 'bomb.xlsx'), bomb);
    const r = await cli([
      'import',
      'csv',
      join(root, 'bomb.xlsx'),
      ...['--mapping', join(root, 'logger-xlsx.mapping.json'), '--out', join(root, 'ds-bomb')],
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/would inflate to \d+ bytes, more than the 536870912/);
    expect(existsSync(join(root, 'ds-bomb', 'catalog.json'))).toBe(false);

    // An entry whose directory claims 10 bytes but inflates to more: the reader would trust its own header.
    const liar = new Uint8Array(book);
    const lv = new DataView(liar.buffer);
    let at = lv.getUint32(eocd + 16, true);
    let biggest = at;
    for (let k = 0; k < lv.getUint16(eocd + 10, true); k++) {
      if (lv.getUint32(at + 24, true) > lv.getUint32(biggest + 24, true)) biggest = at;
      at += 46 + lv.getUint16(at + 28, true) + lv.getUint16(at + 30, true) + lv.getUint16(at + 32, true);
    }
    lv.setUint32(biggest + 24, 10, true);
    await writeFile(join(root, 'liar.xlsx'), liar);
    const lied = await cli([
      'import',
      'csv',
      join(root, 'liar.xlsx'),
      ...['--mapping', join(root, 'logger-xlsx.mapping.json'), '--out', join(root, 'ds-liar')],
    ]);
    expect(lied.code).toBe(2);
    expect(lied.stderr).toMatch(/an entry inflates past its claimed size/);
  });
});
