/**
 * catalog.json writes a layer file's dates as a run where that is shorter, and the engine expands
 * it to the same list, bounded and checked before it does: a daily year is ~60 bytes, not ~4.8 KB.
 */
import { describe, expect, it } from 'vitest';
import { CATALOG_VERSION, type Catalog } from '../../src/dataset/catalog.ts';
import { checkCatalog } from '../../src/dataset/catalog-check.ts';
import { compactPeriods, expandPeriods, MAX_RUN_PERIODS } from '../../src/dataset/period-runs.ts';

const days = (y: number) => {
  const out: string[] = [];
  for (let t = Date.UTC(y, 0, 1); t < Date.UTC(y + 1, 0, 1); t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
};

describe('a file’s periods as catalog.json writes them', () => {
  it('round-trips runs on every calendar, with missing periods, and keeps lists that a run would not shorten', () => {
    const year = days(2024);
    const gappy = year.filter((d) => d !== '2024-02-29' && d !== '2024-07-04');
    const dekads = ['2024-01-01', '2024-01-11', '2024-01-21', '2024-02-01', '2024-02-21'];
    const months = ['2023-11-01', '2023-12-01', '2024-01-01', '2024-02-01'];
    const years = ['2019', '2020', '2021', '2022', '2023', '2024'];
    for (const [scale, periods] of [
      ['daily', year],
      ['daily', gappy],
      ['dekadal', dekads],
      ['monthly', months],
      ['annual', years],
    ] as const) {
      const written = compactPeriods(scale, periods);
      expect(Array.isArray(written), `${scale} ${periods.length}`).toBe(false);
      expect(expandPeriods(scale, JSON.parse(JSON.stringify(written)))).toEqual(periods);
    }
    expect(compactPeriods('daily', gappy)).toEqual({
      first: '2024-01-01',
      last: '2024-12-31',
      missing: ['2024-02-29', '2024-07-04'],
    });
    // Sparse, unordered, calendar months (which wrap), undated: the list as it is.
    expect(compactPeriods('daily', ['2024-01-01', '2024-03-01', '2024-06-01'])).toEqual([
      '2024-01-01',
      '2024-03-01',
      '2024-06-01',
    ]);
    expect(compactPeriods('daily', ['2024-01-02', '2024-01-01', '2024-01-03'])).toHaveLength(3);
    expect(compactPeriods('calendar_month', ['--01', '--02', '--03', '--04'])).toHaveLength(4);
    expect(compactPeriods(null, [''])).toEqual(['']);
    // A key the calendar would write otherwise stays a list: a run never rewrites a key.
    expect(compactPeriods('monthly', ['2023-11', '2023-12', '2024-01'])).toEqual(['2023-11', '2023-12', '2024-01']);
  });

  it('refuses a run that claims too much, runs backwards, or lists missing periods outside it, before expanding', () => {
    const why = (scale: 'daily', run: unknown) => (expandPeriods(scale, run) as { why: string }).why;
    expect(why('daily', { first: '1000-01-01', last: '2999-12-31' })).toMatch(`at most ${MAX_RUN_PERIODS}`);
    expect(why('daily', { first: '2024-02-01', last: '2024-01-01' })).toMatch(/to a later one/);
    expect(why('daily', { first: '2024-01-01', last: '2024-01-31', missing: ['2024-03-01'] })).toMatch(
      /strictly inside the run/,
    );
    expect(why('daily', { first: '2024-01-01', last: '2024-01-31', missing: 'x' })).toMatch(/missing periods/);
    expect(why('daily', { first: 2024, last: '2024-01-31' })).toMatch(/list of period keys or a run/);
  });

  it('ten daily layers over forty years write their dates in under 64 KiB, and the engine reads them back whole', () => {
    const layer = (i: number) => ({
      dataType: `layer${i}`,
      subDataType: '-',
      extent: 'wc',
      extentBbox: [18, -35, 20, -33],
      description: `Layer ${i}`,
      crs: 'EPSG:4326',
      timeScale: 'daily',
      bbox: [18, -35, 20, -33],
      width: 100,
      height: 100,
      scale: 0.1,
      offset: 0,
      nodata: -32768,
      unit: '°C',
      files: Array.from({ length: 40 }, (_, y) => ({
        path: `rasters/layer${i}/${1985 + y}.tif`,
        periods: days(1985 + y),
      })),
    });
    const rasters = Array.from({ length: 10 }, (_, i) => layer(i));
    const written = rasters.map((l) => ({
      ...l,
      files: l.files.map((f) => ({ ...f, periods: compactPeriods('daily', f.periods) })),
    }));
    const text = JSON.stringify(written);
    expect(text.length).toBeLessThan(64 * 1024);
    expect(JSON.stringify(rasters).length).toBeGreaterThan(1_500_000);
    const read = checkCatalog(
      {
        format: 'climate-query-dataset',
        version: CATALOG_VERSION,
        name: 'x',
        rasters: JSON.parse(text),
        files: [],
      } as unknown as Catalog,
      'catalog.json',
    );
    expect(read.rasters.map((l) => l.files.map((f) => f.periods))).toEqual(
      rasters.map((l) => l.files.map((f) => f.periods)),
    );
  });
});
