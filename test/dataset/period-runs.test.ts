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
    const dekads = Array.from(
      { length: 36 },
      (_, i) => `2024-${String(Math.floor(i / 3) + 1).padStart(2, '0')}-${['01', '11', '21'][i % 3]}`,
    ).filter((d) => d !== '2024-02-11');
    const months = Array.from(
      { length: 36 },
      (_, i) => `${2022 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}-01`,
    );
    const years = Array.from({ length: 40 }, (_, i) => String(1985 + i));
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
    // Short, sparse, unordered, calendar months (which wrap), undated: the list as it is.
    expect(compactPeriods('monthly', months.slice(0, 12))).toEqual(months.slice(0, 12));
    const sparse = year.filter((_, i) => i % 3 === 0);
    expect(compactPeriods('daily', sparse)).toEqual(sparse);
    expect(compactPeriods('daily', [year[1]!, year[0]!, ...year.slice(2)])).toHaveLength(year.length);
    expect(compactPeriods('calendar_month', ['--01', '--02', '--03', '--04'])).toHaveLength(4);
    expect(compactPeriods(null, [''])).toEqual(['']);
    // A key the calendar would write otherwise stays a list: a run never rewrites a key.
    const loose = months.map((m) => m.slice(0, 7));
    expect(compactPeriods('monthly', loose)).toEqual(loose);
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
