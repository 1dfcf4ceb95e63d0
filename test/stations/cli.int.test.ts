// The CLI as a user runs it: a real child process on the fixture dataset.
import { cp, readdir, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { readStations } from './oracle.ts';
import { cli } from '../helpers/cli.ts';

const fx = inject('stationFixture');

describe('climate-query query', () => {
  it('answers 10 points × 5 hourly types × one month with 24 × days periods under every key', async () => {
    const stations = readStations(fx.stationsCsv);
    const wkts = stations
      .slice(0, 10)
      .map((s) => `POINT (${s.lon + 0.01} ${s.lat - 0.01})`)
      .join(';');
    const req = {
      wkts,
      dataTypes: ['temperature_mean', 'rain', 'humidity', 'wind_speed', 'leaf_wetness'],
      options: { timeScale: 'hourly' },
      startDate: '2024-01-01T00:00:00',
      endDate: '2024-01-31T23:00:00',
    };
    const file = join(fx.root, 'req-10x5.json');
    await writeFile(file, JSON.stringify(req));
    {
      const { code, stdout } = await cli(['query', 'nearest-station', file, '--data', fx.dataset]);
      expect(code).toBe(0);
      const res = JSON.parse(stdout) as Record<string, { data: Record<string, Record<string, number | null>> }>;
      expect(Object.keys(res)).toHaveLength(10);
      for (const v of Object.values(res)) {
        expect(Object.keys(v.data)).toHaveLength(24 * 31);
        expect(Object.keys(v.data['2024-01-15T13:00:00']!)).toEqual(req.dataTypes);
      }
    }
  });

  it('reads the request from stdin with "-"', async () => {
    const req = {
      wkts: 'POINT (19 -33.5)',
      dataTypes: ['rain_sum'],
      options: { timeScale: 'monthly' },
      startDate: '2024-01',
      endDate: '2024-03',
    };
    const { code, stdout } = await cli(['query', 'nearest-station', '-', '--data', fx.dataset], JSON.stringify(req));
    expect(code).toBe(0);
    expect(Object.keys(JSON.parse(stdout)['POINT (19 -33.5)'].data)).toEqual([
      '2024-01-01',
      '2024-02-01',
      '2024-03-01',
    ]);
  });

  it('prints the error JSON on stdout and exits 2 on a bad request', async () => {
    const bad = {
      wkts: 'POINT (19 -33.5)',
      dataTypes: ['rain'],
      options: { timeScale: 'daily' },
      startDate: '2024-01-01',
      endDate: '2024-01-02',
    };
    const { code, stdout } = await cli(['query', 'nearest-station', '-', '--data', fx.dataset], JSON.stringify(bad));
    expect(code).toBe(2);
    expect(JSON.parse(stdout)).toMatchObject({ error: { code: 'unknown_data_type', field: '/dataTypes/0' } });
    const notJson = await cli(['query', 'poly-aggregate', '-', '--data', fx.dataset], '{not json');
    expect(notJson.code).toBe(2);
    expect(JSON.parse(notJson.stdout).error.code).toBe('invalid_json');
  });

  it('says what to do when the dataset is missing', async () => {
    const { code, stdout } = await cli(['query', 'nearest-station', '-', '--data', join(fx.root, 'nowhere')], '{}');
    expect(code).toBe(2);
    // Validation runs first; a valid request against a missing dataset is a 503-class error, exit 1.
    const req = {
      wkts: 'POINT (19 -33.5)',
      dataTypes: ['rain_sum'],
      options: { timeScale: 'monthly' },
      startDate: '2024-01',
      endDate: '2024-01',
    };
    const missing = await cli(
      ['query', 'nearest-station', '-', '--data', join(fx.root, 'nowhere')],
      JSON.stringify(req),
    );
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout).error).toMatchObject({ code: 'dataset_unavailable' });
    expect(JSON.parse(missing.stdout).error.message).toContain('climate-query demo');
    void stdout;
  });

  it('a damaged station file: dataset_changed, exit 1 (not a bad request), and every file handle closed', async () => {
    const copy = join(fx.root, 'damaged-copy');
    await rm(copy, { recursive: true, force: true });
    await cp(fx.dataset, copy, { recursive: true });
    const files = (await readdir(join(copy, 'stations/daily'), { recursive: true })).filter((f) =>
      f.endsWith('.parquet'),
    );
    const victim = join(copy, 'stations/daily', files[0]!);
    await truncate(victim, 1500);
    // A polygon over the whole fixture: many files read at once, one of them damaged.
    const req = {
      wkts: 'POLYGON ((10 -40, 40 -40, 40 -20, 10 -20, 10 -40))',
      dataTypes: ['rain_sum'],
      options: { timeScale: 'daily' },
      startDate: '2024-01-01',
      endDate: '2024-01-10',
    };
    const r = await cli(['query', 'poly-aggregate', '-', '--data', copy], JSON.stringify(req));
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).error).toMatchObject({
      code: 'dataset_changed',
      message: expect.stringContaining('has 1500 bytes where the dataset records'),
    });
    // Reads still under way when the failed query closed its files must not reopen them (Node warns of handles closed by GC).
    expect(r.stderr).not.toMatch(/file descriptor|FileHandle/);
    await rm(copy, { recursive: true, force: true });
  });
});

describe('climate-query query on climate layers', () => {
  const demo = inject('demoDataset');
  const field = 'POLYGON ((19.0312 -34.1501, 19.0398 -34.1501, 19.0398 -34.1442, 19.0312 -34.1442, 19.0312 -34.1501))';
  const layers: Array<[string, Record<string, unknown>]> = [
    [
      'temp',
      {
        dataType: 'temp',
        options: { subDataType: 'max', timeScale: 'daily', dataExtent: 'tc' },
        startDate: '2024-01-01',
        endDate: '2024-01-03',
      },
    ],
    [
      'gdd',
      {
        dataType: 'gdd',
        options: { subDataType: 'citrus', timeScale: 'annual', dataExtent: 'tc' },
        startDate: '2023',
        endDate: '2024',
      },
    ],
    [
      'chill',
      {
        dataType: 'chill',
        options: { subDataType: 'dpcui', timeScale: 'annual', dataExtent: 'tc' },
        startDate: '2024',
        endDate: '2024',
      },
    ],
    [
      'frost',
      {
        dataType: 'frost',
        options: { subDataType: '-', timeScale: 'monthly', dataExtent: 'tc' },
        startDate: '2024-06',
        endDate: '2024-07',
      },
    ],
    [
      'rain',
      {
        dataType: 'rain',
        options: { subDataType: 'monthly_median', timeScale: 'calendar_month', dataExtent: 'sa' },
        startDate: '06',
        endDate: '07',
      },
    ],
    ['windspeed', { dataType: 'windspeed', options: { subDataType: '50', dataExtent: 'sa' } }],
  ];

  it.each(layers)('answers %s for a point inside and null for a point outside the extent', async (_name, req) => {
    const file = join(fx.root, `req-${_name}.json`);
    await writeFile(file, JSON.stringify({ ...req, wkts: 'POINT (19.31 -33.37);POINT (10 -33)' }));
    const { code, stdout } = await cli(['query', 'point', file, '--data', demo]);
    expect(code).toBe(0);
    const res = JSON.parse(stdout) as Record<string, unknown>;
    const inside = res['POINT (19.31 -33.37)'];
    const outside = res['POINT (10 -33)'];
    if (req.startDate === undefined) {
      expect(typeof inside).toBe('number');
      expect(outside).toBeNull();
    } else {
      expect(Object.values(inside as object).every((v) => typeof v === 'number')).toBe(true);
      expect(Object.values(outside as object).every((v) => v === null)).toBe(true);
    }
    const poly = await cli(
      ['query', 'polygon', '-', '--data', demo],
      JSON.stringify({ ...req, wkts: field, options: { ...(req.options as object), aggregationMethod: 'mean' } }),
    );
    expect(poly.code).toBe(0);
    expect(Object.keys(JSON.parse(poly.stdout))).toEqual([field]);
  });

  it('refuses a polygon over 2 km² with a 400-class error naming it and its area', async () => {
    const big = 'POLYGON ((19.0 -34.2, 19.05 -34.2, 19.05 -34.15, 19.0 -34.15, 19.0 -34.2))';
    const { code, stdout } = await cli(
      ['query', 'polygon', '-', '--data', demo],
      JSON.stringify({
        ...layers[0]![1],
        wkts: `${big}`,
        options: { subDataType: 'max', timeScale: 'daily', dataExtent: 'tc', aggregationMethod: 'max' },
      }),
    );
    expect(code).toBe(2);
    const err = JSON.parse(stdout).error;
    expect(err).toMatchObject({ code: 'polygon_too_large', field: '/wkts/0', params: { index: 0, maxKm2: 2 } });
    expect(err.message).toMatch(/item 1 has an area of 2\d\.\d{3} km²/);
  });
});
