// "This year against the other years", in Chromium on the built site served
// by `climate-query serve --static`: the chart's mean, lowest and highest
// equal an independent computation from the Node engine asked one year at a
// time; a one-year layer says so and draws nothing. Screenshots go to
// screens/ (not committed).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { Catalog } from '../../src/dataset/catalog.ts';
import type { Page } from 'playwright-core';
import { drawPoint, runAndWait, tableCells } from '../helpers/app-page.ts';
import { useServedApp } from '../helpers/served-app.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

const demo = inject('demoDataset');
const SCREENS = new URL('../../screens/', import.meta.url).pathname;
const served = useServedApp(demo, SCREENS);

type State = {
  reused: boolean;
  series: string;
  unit: string;
  request: { path: string; body: Record<string, unknown> };
  chartData: Array<Array<number | null>>;
  labels: string[];
  season: { year: string; otherYears: string[] } | null;
};
type SeasonUi = { cqUi: { ready: Promise<void>; season: { state(): State | null } } };

const openApp = (size?: { width: number; height: number }): Promise<Page> => served.app.open(size);

/** Clicks "Compare with other years" and waits (bounded) for the drawn state. */
async function compare(page: Page): Promise<State> {
  await page.getByRole('button', { name: 'Compare with other years' }).click();
  await page.waitForFunction(() => (window as unknown as SeasonUi).cqUi.season.state()?.season != null, undefined, {
    timeout: 30_000,
  });
  return (await page.evaluate(() => (window as unknown as SeasonUi).cqUi.season.state()))!;
}

const mean = (vs: number[]) => vs.reduce((a, b) => a + b, 0) / vs.length;

describe('a season against normal', () => {
  it('an annual layer at a point: the chosen year over the range and mean of the other years, as the engine gives them year by year', async () => {
    const page = await openApp();
    await page.check('input[name=source][value=raster]');
    await page.selectOption('#dataType', 'gdd');
    await page.selectOption('#subDataType', 'grapes');
    // The question a grower asks: this year only. The comparison must then ask the engine for the rest.
    await page.fill('#startDate', '2024');
    await page.locator('#startDate').dispatchEvent('change');
    await drawPoint(page, [19.31, -33.37]);
    const ui = await runAndWait(page);
    expect(ui.lastRequest!.body).toMatchObject({ startDate: '2024', endDate: '2024' });
    const state = await compare(page);
    expect(state.reused).toBe(false);

    // The independent computation: one engine call per year, in Node, then mean/min/max by hand.
    const years = ['2019', '2020', '2021', '2022', '2023', '2024'];
    const wkts = String(ui.lastRequest!.body.wkts);
    const value: Record<string, number> = {};
    for (const y of years) {
      const a = (await served.app.engine.point({
        ...ui.lastRequest!.body,
        startDate: y,
        endDate: y,
      } as never)) as Record<string, Record<string, number>>;
      value[y] = a[wkts]![y]!;
      expect(typeof value[y]).toBe('number');
    }
    const others = years.slice(0, 5).map((y) => value[y]!);
    expect(state.request.body).toMatchObject({ startDate: '2019', endDate: '2024' });
    expect(state.labels).toEqual([
      'x',
      'Highest of 2019–2023',
      'Lowest of 2019–2023',
      'Mean of 2019–2023',
      'Other years',
      '2024',
    ]);
    const [x, hi, lo, avg, rest, chosen] = state.chartData;
    expect(x).toEqual([1, 2, 3, 4, 5, 6]);
    for (let i = 0; i < 6; i++) {
      expect(avg![i]).toBeCloseTo(mean(others), 9);
      expect(lo![i]).toBe(Math.min(...others));
      expect(hi![i]).toBe(Math.max(...others));
    }
    expect(chosen).toEqual([null, null, null, null, null, value['2024']]);
    expect(rest).toEqual([...others, null]);
    // What a person reads: the legend names and the sentence under the chart.
    const legend = await page.locator('#season-chart .u-legend').textContent();
    expect(legend).toContain('Mean of 2019–2023');
    expect(legend).toContain('2024');
    const summary = (await page.locator('#season-summary').textContent())!;
    // Every number at the layer's own step (its catalog scale: whole degree days for the demo's GDD).
    const layer = ((await catalogJson(join(demo, 'catalog.json'))) as Catalog).rasters.find(
      (l) => l.dataType === 'gdd' && l.subDataType === 'grapes',
    )!;
    const step = String(layer.scale).split('.')[1]?.length ?? 0;
    expect(summary).toContain(`mean ${mean(others).toFixed(step)}`);
    expect(summary).not.toMatch(/\d\.\d{3}/);
    // The chosen year's value as printed, read back: within half a unit of its last decimal.
    const printed = /: 2024 (-?\d+(?:\.\d+)?) /.exec(summary)![1]!;
    expect(Math.abs(Number(printed) - value['2024']!)).toBeLessThanOrEqual(
      0.5 * 10 ** -(printed.split('.')[1]?.length ?? 0),
    );

    await page.screenshot({ path: `${SCREENS}season-annual-1280x800.png`, fullPage: true });
    await page.locator('#season').screenshot({ path: `${SCREENS}season-annual-panel-1280.png` });

    // Another year chosen: no new engine call needed, the statistics move with it.
    await page.selectOption('#season-year', '2020');
    const s2020 = (await page.evaluate(() => (window as unknown as SeasonUi).cqUi.season.state()))!;
    const o2020 = years.filter((y) => y !== '2020').map((y) => value[y]!);
    expect(s2020.labels[3]).toBe('Mean of 2019, 2021–2024');
    expect(s2020.chartData[3]![0]).toBeCloseTo(mean(o2020), 9);
    expect(s2020.chartData[2]![0]).toBe(Math.min(...o2020));
    expect(s2020.chartData[5]).toEqual([null, value['2020'], null, null, null, null]);
    await page.close();
  });

  it('monthly station records: each month of 2024 against the other year the stations hold', async () => {
    const page = await openApp({ width: 390, height: 844 });
    await page.selectOption('#timeScale', 'monthly');
    await page.locator('#dataTypes input[value=rain_sum]').check();
    await drawPoint(page, [18.87, -33.93]);
    const ui = await runAndWait(page);
    expect(ui.lastRequest!.body.dataTypes).toContain('rain_sum');
    const state = await compare(page);
    expect(state.request.body).toMatchObject({ startDate: '2023-01', endDate: '2024-12' });
    expect(state.season!.year).toBe('2024');
    expect(state.season!.otherYears).toEqual(['2023']);

    // Independently: the Node engine, one year per call; the same station must answer both.
    const body = ui.lastRequest!.body as Record<string, unknown>;
    const perYear: Record<string, Record<string, Record<string, number | null>>> = {};
    const stationOf: string[] = [];
    for (const y of ['2023', '2024']) {
      const a = (await served.app.engine.nearestStation({
        ...body,
        startDate: `${y}-01`,
        endDate: `${y}-12`,
      } as never)) as Record<
        string,
        { data: Record<string, Record<string, number | null>>; metadata: { station_lat: number; station_lon: number } }
      >;
      const only = Object.values(a)[0]!;
      perYear[y] = only.data;
      stationOf.push(`${only.metadata.station_lat},${only.metadata.station_lon}`);
    }
    expect(stationOf[0]).toBe(stationOf[1]);
    // The panel names the station its years come from.
    expect(await page.locator('#season-summary').textContent()).toContain(`(${stationOf[0]!.replace(',', ', ')}),`);
    const type = state.series.replace(/^G1 /, '');
    const month = (y: string, m: number) => {
      const key = Object.keys(perYear[y]!).find((k) => k.startsWith(`${y}-${String(m).padStart(2, '0')}`));
      const v = key ? perYear[y]![key]![type] : null;
      return v === undefined ? null : v;
    };
    const [x, hi, lo, avg, chosen] = state.chartData;
    expect(x).toHaveLength(12);
    expect(state.labels).toEqual(['x', 'Highest of 2023', 'Lowest of 2023', '2023', '2024']);
    for (let m = 1; m <= 12; m++) {
      // One other year: its value is the mean, the lowest and the highest.
      expect(avg![m - 1]).toBe(month('2023', m));
      expect(lo![m - 1]).toBe(month('2023', m));
      expect(hi![m - 1]).toBe(month('2023', m));
      expect(chosen![m - 1]).toBe(month('2024', m));
    }
    expect(await page.locator('#season-message').textContent()).toContain('Only one other year (2023)');
    // One other year cannot say what is usual: no "outside the range" verdict (three are needed).
    expect(await page.locator('#season-summary').textContent()).not.toMatch(/range in|Within the other years/);
    // Both data types asked for can be compared.
    expect(await page.locator('#season-series option').count()).toBe((body.dataTypes as string[]).length);
    await page.locator('#season').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENS}season-monthly-390x844.png`, fullPage: true });
    await page.close();
  });

  it('dekadal station records: the form, table and chart read dekads, and each dekad of 2024 stands against the same dekad of 2023', async () => {
    const page = await openApp();
    await page.selectOption('#timeScale', 'dekadal');
    // The form's range becomes the dekads that cover it: dates on dekad starts.
    const [from, to] = [await page.inputValue('#startDate'), await page.inputValue('#endDate')];
    expect(from).toMatch(/^\d{4}-\d{2}-01$/);
    expect(to).toMatch(/^\d{4}-\d{2}-21$/);
    await page.locator('#dataTypes input[value=rain_sum]').check();
    await drawPoint(page, [18.87, -33.93]);
    const ui = await runAndWait(page);
    expect(ui.lastRequest!.body).toMatchObject({ options: { timeScale: 'dekadal' }, startDate: from, endDate: to });
    // The table names each dekad by its days ("11–20 Jun 2024"), a row for each dekad from..to (counted by hand).
    const dekad = (d: string) =>
      (Number(d.slice(0, 4)) * 12 + Number(d.slice(5, 7))) * 3 + ['01', '11', '21'].indexOf(d.slice(8));
    const cells = await tableCells(page);
    expect(cells.rows).toHaveLength(dekad(to) - dekad(from) + 1);
    for (const r of cells.rows) expect(r[0]).toMatch(/^(1–10|11–20|21–(28|29|30|31)) [A-Z][a-z]{2} \d{4}$/);
    // The CSV keys each dekad by its first day and says so.
    const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 10_000 }), page.click('#download-csv')]);
    const csv = (await readFile((await dl.path())!, 'utf8')).replace(/^\uFEFF/, '');
    expect(csv).toContain('# Each row is a dekad, named by its first day.');
    expect(csv).toContain(`\n${from},`);
    // The last row of data is the last dekad (the notes follow the data).
    expect(
      csv
        .trimEnd()
        .split('\n')
        .filter((l) => !l.startsWith('# '))
        .at(-1)!
        .startsWith(`${to},`),
    ).toBe(true);
    // The legend names the series only; over the chart it adds the dekad and each value.
    const xEntry = page.locator('#chart .u-legend .u-series').first();
    expect(await xEntry.isVisible()).toBe(false);
    // Where a person looks at it: the chart scrolled into view, then hovered.
    await page.locator('#chart .u-over').scrollIntoViewIfNeeded();
    const plot = (await page.locator('#chart .u-over').boundingBox())!;
    await page.mouse.move(plot.x + plot.width / 2, plot.y + plot.height / 2);
    expect(await xEntry.isVisible()).toBe(true);
    expect(await xEntry.textContent()).toMatch(/\d{1,2}–\d{2} [A-Z][a-z]{2} \d{4}/);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: `${SCREENS}dekadal-stations-1280x800.png`, fullPage: true });

    await page.fill('#startDate', '2024-01-01');
    await page.fill('#endDate', '2024-12-21');
    await page.locator('#endDate').dispatchEvent('change');
    const year = await runAndWait(page);
    const state = await compare(page);
    expect(state.request.body).toMatchObject({ startDate: '2023-01-01', endDate: '2024-12-21' });
    expect(state.season!.otherYears).toEqual(['2023']);
    // Independently: the Node engine asked for each year's dekads.
    const body = year.lastRequest!.body as Record<string, unknown>;
    const type = state.series.replace(/^G1 /, '');
    const perYear: Record<string, Record<string, Record<string, number | null>>> = {};
    for (const y of ['2023', '2024']) {
      const a = (await served.app.engine.nearestStation({
        ...body,
        startDate: `${y}-01-01`,
        endDate: `${y}-12-21`,
      } as never)) as Record<string, { data: Record<string, Record<string, number | null>> }>;
      perYear[y] = Object.values(a)[0]!.data;
    }
    const [x, hi, lo, avg, chosen] = state.chartData;
    expect(x).toHaveLength(36);
    let d = 0;
    for (let m = 1; m <= 12; m++) {
      for (const day of ['01', '11', '21']) {
        const key = (y: string) => `${y}-${String(m).padStart(2, '0')}-${day}`;
        const v = (y: string) => perYear[y]![key(y)]?.[type] ?? null;
        expect(chosen![d], key('2024')).toBe(v('2024'));
        expect(avg![d], key('2023')).toBe(v('2023'));
        expect(lo![d]).toBe(v('2023'));
        expect(hi![d]).toBe(v('2023'));
        d++;
      }
    }
    await page.locator('#season').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENS}season-dekadal-1280x800.png`, fullPage: true });
    await page.close();
  });

  it('a layer holding one year only says so and draws no normal', async () => {
    const page = await openApp();
    await page.check('input[name=source][value=raster]');
    await page.selectOption('#dataType', 'frost');
    await drawPoint(page, [19.31, -33.37]);
    await runAndWait(page);
    await expect
      .poll(() => page.locator('#season-message').textContent(), { timeout: 5000 })
      .toBe('This dataset holds only 2024 for this; there are no other years to compare with.');
    expect(await page.locator('#season').isVisible()).toBe(true);
    expect(await page.locator('#season-run').isVisible()).toBe(false);
    expect(await page.locator('#season-chart canvas').count()).toBe(0);
    await page.close();
  });
});
