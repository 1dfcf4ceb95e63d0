// The map app as a user drives it, in Chromium: draw with the mouse
// (terra-draw), run each endpoint, and check that the chart's data and the
// table equal the engine's answer for the same request. Screenshots of the
// main states go to test-results/ui-*.png.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRasterLayer } from '../../src/builder/raster-build.ts';
import { buildStations } from '../../src/builder/stations-build.ts';
import { DATA_SOURCES } from '../../src/builder/elevation.ts';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import type { ClimateEngine } from '../../src/engine/engine.ts';
import { launchChromium, startBuiltApp, startVite } from '../helpers/browser.ts';
import {
  drawPoint,
  drawPolygon,
  mapIdle,
  networkOff,
  openAppPage,
  runAndWait,
  tableCells,
  zoomTo,
  type AnswerSnapshot,
  type Ui,
} from '../helpers/app-page.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

const demo = inject('demoDataset');
const SHOTS = new URL('../../test-results/', import.meta.url).pathname;
let browser: Browser;
// The built site, as a static host serves it (test/global-setup.ts builds it once a run).
let vite: { server: { close(): Promise<void> }; url: string };
let engine: ClimateEngine;
let mine = '';
let few = '';

function openApp(
  url = `${vite.url}index.html`,
  size = { width: 1280, height: 800 },
  before?: (page: Page) => Promise<unknown>,
): Promise<Page> {
  return openAppPage(browser, url, size, before);
}

/** A table cell against its value: empty for null, else the value rounded to the decimals shown. */
function expectCell(text: string, v: number | null | undefined): void {
  if (v === null || v === undefined) return void expect(text).toBe('');
  const decimals = text.split('.')[1]?.length ?? 0;
  expect(decimals).toBeLessThanOrEqual(3);
  expect(Math.abs(Number(text) - v)).toBeLessThanOrEqual(0.5 * 10 ** -decimals + 1e-9);
}

/** A period key as the table should show it, written independently of the app: no M/D, no "--01". */
function expectedPeriod(row: string): string {
  if (/T/.test(row)) return row.slice(0, 16).replace('T', ' ');
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  if (/^\d{4}-\d{2}$/.test(row)) return `${months[Number(row.slice(5)) - 1]} ${row.slice(0, 4)}`;
  return row;
}

/** Checks answer = engine's answer, and chart data and table cells = values read straight from the answer. */
async function expectChartAndTableMatch(
  page: Page,
  ui: AnswerSnapshot,
  expectedValues: (row: string) => Array<number | null>,
  skipChart = new Set<number>(),
): Promise<void> {
  const engineAnswer = await engine.query(ui.lastRequest!.endpoint as 'point', ui.lastRequest!.body);
  expect(ui.lastAnswer).toEqual(engineAnswer);
  const rows = ui.table!.rows;
  expect(rows.length).toBeGreaterThan(0);
  const t = await tableCells(page);
  expect(t.rows.length).toBe(Math.min(rows.length, 2000));
  rows.forEach((row, i) => {
    const want = expectedValues(row);
    want.forEach((v, k) => {
      if (!skipChart.has(k)) expect(ui.chartData![k + 1]![i]).toBe(v);
    });
    if (i < 2000) {
      expect(t.rows[i]![0]).toBe(expectedPeriod(row));
      want.forEach((v, k) => expectCell(t.rows[i]![k + 1]!, v));
    }
  });
}

beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
  browser = await launchChromium();
  // A user's own dataset: one undated elevation layer and no stations, nothing of the demo.
  mine = await mkdtemp(join(tmpdir(), 'cq-own-dataset-'));
  await buildRasterLayer({
    dir: mine,
    datasetName: 'my farm',
    dataType: 'elevation',
    unit: 'm',
    timeScale: null,
    extent: 'za',
    description: 'Height above sea level (ETOPO5)',
    attribution: 'ETOPO5, NOAA NGDC',
    inputs: [join(DATA_SOURCES, 'za-elevation-etopo5.tif')],
  });
  // A station network with two sensors and three weeks of June only.
  few = await mkdtemp(join(tmpdir(), 'cq-few-types-'));
  await writeFile(
    join(few, 'stations.csv'),
    'station_id,name,lat,lon,elevation\nF1,Farm one,-33.9,18.9,120\nF2,Farm two,-33.6,19.4,300\n',
  );
  const hours = Array.from({ length: 21 * 24 }, (_, i) =>
    new Date(Date.UTC(2024, 5, 3) + i * 3_600_000).toISOString().slice(0, 19),
  );
  await writeFile(
    join(few, 'hourly.csv'),
    `station_id,time,temperature_mean,rain\n${['F1', 'F2'].flatMap((id, k) => hours.map((t, i) => `${id},${t},${(12 + k + Math.sin(i / 4)).toFixed(2)},${i % 17 === 0 ? 0.4 : 0}`)).join('\n')}\n`,
  );
  await buildStations(
    { stations: join(few, 'stations.csv'), hourly: join(few, 'hourly.csv') },
    join(few, 'dataset'),
    'two sensors',
  );
  vite = await startBuiltApp(inject('builtSite'), {
    'data/demo': demo,
    'data/mine': mine,
    'data/few': join(few, 'dataset'),
  });
  engine = createNodeEngine(demo);
}, 180_000);

afterAll(async () => {
  if (mine) await rm(mine, { recursive: true, force: true });
  if (few) await rm(few, { recursive: true, force: true });
  await browser?.close();
  await vite?.server.close();
  await engine?.close();
});

type MapHandle = {
  getCenter(): { lng: number; lat: number };
  getZoom(): number;
  project(l: [number, number]): { x: number; y: number };
  queryRenderedFeatures(o: unknown): Array<{ properties: Record<string, unknown> }>;
  getLayer(id: string): unknown;
  loaded(): boolean;
  areTilesLoaded(): boolean;
};

/** Brightness (r+g+b) of each pixel of the map in a box around a point, from a real screenshot. */
async function pixelsAround(page: Page, lonLat: [number, number], half: { w: number; h: number }): Promise<number[]> {
  const box = (await page.locator('#map').boundingBox())!;
  const p = await page.evaluate(
    (ll) => (window as unknown as { cqUi: { view: { map: MapHandle } } }).cqUi.view.map.project(ll),
    lonLat,
  );
  const clip = { x: box.x + p.x - half.w, y: box.y + p.y - half.h, width: 2 * half.w, height: 2 * half.h };
  const png = (await page.screenshot({ clip })).toString('base64');
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    [c.width, c.height] = [img.width, img.height];
    const g = c.getContext('2d')!;
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    const out: number[] = [];
    for (let i = 0; i < d.length; i += 4) out.push(d[i]! + d[i + 1]! + d[i + 2]!);
    return out;
  }, png);
}

describe('finding a farm on the map (network off)', () => {
  it('labels towns at zoom 12 near Stellenbosch with no glyph or tile server', async () => {
    const page = await openApp();
    await zoomTo(page, [18.8668, -33.9346], 12);
    await mapIdle(page);
    const labels = () =>
      page.evaluate(() =>
        (window as unknown as { cqUi: { view: { map: MapHandle } } }).cqUi.view.map
          .queryRenderedFeatures({ layers: ['place-labels'] })
          .map((f) => f.properties.name),
      );
    // Symbol placement runs on its own timer after idle; under load it has lagged past the first look.
    await expect.poll(labels, { timeout: 15_000, interval: 250 }).toContain('Stellenbosch');
    // The label is really drawn: the pixels beside the town change when the label layer is hidden.
    const withLabels = await pixelsAround(page, [18.8668, -33.9346], { w: 70, h: 30 });
    await page.evaluate(() =>
      (
        window as unknown as { cqUi: { view: { map: { setLayoutProperty(l: string, k: string, v: string): void } } } }
      ).cqUi.view.map.setLayoutProperty('place-labels', 'visibility', 'none'),
    );
    await mapIdle(page);
    const without = await pixelsAround(page, [18.8668, -33.9346], { w: 70, h: 30 });
    const changed = withLabels.filter((v, i) => Math.abs(v - without[i]!) > 60).length;
    expect(changed).toBeGreaterThan(100);
    await page.evaluate(() =>
      (
        window as unknown as { cqUi: { view: { map: { setLayoutProperty(l: string, k: string, v: string): void } } } }
      ).cqUi.view.map.setLayoutProperty('place-labels', 'visibility', 'visible'),
    );
    await mapIdle(page);
    await page.screenshot({ path: `${SHOTS}ui-stellenbosch-z12.png` });
    await page.close();
  });

  it('search "Stellenbosch" moves the map there; coordinates in DMS too', async () => {
    const page = await openApp();
    await page.getByLabel('Find a town or coordinates').fill('Stellenbosch');
    await expect.poll(() => page.locator('#find-results button').first().textContent()).toBe('Stellenbosch');
    await page.getByLabel('Find a town or coordinates').press('Enter');
    let view = await page.evaluate(() => {
      const map = (window as unknown as { cqUi: { view: { map: MapHandle } } }).cqUi.view.map;
      return { c: map.getCenter(), z: map.getZoom() };
    });
    expect(view.c.lng).toBeCloseTo(18.8668, 3);
    expect(view.c.lat).toBeCloseTo(-33.9346, 3);
    expect(view.z).toBe(12);
    expect(await page.locator('#find-message').textContent()).toBe('Showing Stellenbosch.');
    // Where a grower clicks: on the pin and just below it, with Point on; each click adds a point.
    const shapes = () => page.locator('#geometry-list li').count();
    await drawPoint(page, [18.8668, -33.9346]);
    await expect.poll(shapes).toBe(1);
    await drawPoint(page, [18.8668, -33.9356]);
    await expect.poll(shapes).toBe(2);
    await page.getByRole('button', { name: 'Clear', exact: true }).click();

    await page.getByLabel('Find a town or coordinates').fill(`33°50'00"S 19°01'30"E`);
    await page.getByRole('button', { name: 'Go', exact: true }).click();
    view = await page.evaluate(() => {
      const map = (window as unknown as { cqUi: { view: { map: MapHandle } } }).cqUi.view.map;
      return { c: map.getCenter(), z: map.getZoom() };
    });
    expect(view.c.lng).toBeCloseTo(19 + 1.5 / 60, 5);
    expect(view.c.lat).toBeCloseTo(-(33 + 50 / 60), 5);
    expect(view.z).toBe(14);

    await page.getByLabel('Find a town or coordinates').fill('Nowhereville');
    await page.getByRole('button', { name: 'Go', exact: true }).click();
    expect(await page.locator('#find-message').textContent()).toMatch(/No town called "Nowhereville"/);
    await page.close();
  });

  it('zoom buttons and "my location" move the map', async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      geolocation: { latitude: -33.63, longitude: 19.45 },
      permissions: ['geolocation'],
    });
    const page = await context.newPage();
    await networkOff(page);
    await page.goto(`${vite.url}index.html`);
    await page.waitForFunction(() => 'cqUi' in window);
    await page.evaluate(() => (window as unknown as { cqUi: Ui }).cqUi.ready);
    const z0 = await page.evaluate(() =>
      (window as unknown as { cqUi: { view: { map: MapHandle } } }).cqUi.view.map.getZoom(),
    );
    await page.getByRole('button', { name: 'Zoom in' }).click();
    // One step in (the animation ends within a few hundredths on a loaded machine).
    await expect
      .poll(
        async () =>
          Math.abs(
            (await page.evaluate(() =>
              (window as unknown as { cqUi: { view: { map: MapHandle } } }).cqUi.view.map.getZoom(),
            )) -
              (z0 + 1),
          ),
        { timeout: 10_000 },
      )
      .toBeLessThan(0.05);
    await page.getByRole('button', { name: 'Find my location' }).click();
    await expect
      .poll(
        () =>
          page.evaluate(() => {
            const c = (window as unknown as { cqUi: { view: { map: MapHandle } } }).cqUi.view.map.getCenter();
            return [Math.round(c.lng * 100) / 100, Math.round(c.lat * 100) / 100];
          }),
        { timeout: 15_000 },
      )
      .toEqual([19.45, -33.63]);
    await context.close();
  });

  it('falls back to the offline map when online tiles fail, and says so', async () => {
    const page = await openApp(`${vite.url}index.html?basemap=satellite`);
    await expect
      .poll(() => page.locator('#map-notice').textContent(), { timeout: 15_000 })
      .toMatch(/^Satellite .* could not be loaded .* showing the offline map\.$/);
    expect(await page.getByLabel('Basemap').inputValue()).toBe('offline');
    expect(
      await page.evaluate(() =>
        Boolean(
          (window as unknown as { cqUi: { view: { map: MapHandle } } }).cqUi.view.map.getLayer('climate-query:online'),
        ),
      ),
    ).toBe(false);
    // The offline labels are back.
    await zoomTo(page, [18.8668, -33.9346], 12);
    await mapIdle(page);
    expect(
      await page.evaluate(
        () =>
          (window as unknown as { cqUi: { view: { map: MapHandle } } }).cqUi.view.map.queryRenderedFeatures({
            layers: ['place-labels'],
          }).length,
      ),
    ).toBeGreaterThan(0);
    await page.close();
  });
});

describe('time as a South African reads it', () => {
  for (const timezoneId of ['Africa/Johannesburg', 'UTC']) {
    it(`the hourly chart's first point sits at 00:00 of the first day with the browser in ${timezoneId}`, async () => {
      const page = await openApp(`${vite.url}index.html`, { width: 1280, height: 800 }, async (p) => {
        const cdp = await p.context().newCDPSession(p);
        await cdp.send('Emulation.setTimezoneOverride', { timezoneId });
      });
      expect(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)).toBe(
        timezoneId === 'UTC' ? 'UTC' : timezoneId,
      );
      await page.getByLabel('Time scale').selectOption('hourly');
      await page.getByLabel('From', { exact: true }).fill('2024-06-01T00:00');
      await page.getByLabel('To', { exact: true }).fill('2024-06-03T23:00');
      await page.getByLabel('To', { exact: true }).dispatchEvent('change');
      await drawPoint(page, [18.87, -33.93]);
      const ui = await runAndWait(page);
      expect(ui.table!.rows[0]).toBe('2024-06-01T00:00:00');
      // What the chart draws: its x-axis ticks and their labels, and where the first point is.
      const axis = await page.evaluate(() => {
        const u = (
          window as unknown as {
            cqUi: {
              chart: {
                axes: Array<{ _splits: number[]; _values: string[] }>;
                data: number[][];
                valToPos(v: number, s: string): number;
              };
            };
          }
        ).cqUi.chart;
        return {
          splits: u.axes[0]!._splits,
          values: u.axes[0]!._values,
          first: u.data[0]![0]!,
          firstPos: u.valToPos(u.data[0]![0]!, 'x'),
        };
      });
      const i = axis.splits.indexOf(axis.first);
      expect(i).toBeGreaterThanOrEqual(0);
      expect(axis.values[i]).toBe('1 Jun\n00:00');
      expect(axis.values.every((v) => !/\d+\/\d+/.test(v))).toBe(true);
      expect(await page.locator('#table tbody tr').first().locator('td').first().textContent()).toBe(
        '2024-06-01 00:00',
      );
      await page.screenshot({ path: `${SHOTS}ui-hourly-${timezoneId.replace('/', '-')}.png` });
      await page.close();
    });
  }
});

describe('answers that explain themselves', () => {
  it('an answer with no values says so, names what the station holds, and fixes the dates in one click', async () => {
    const page = await openApp();
    // The first dates offered are the latest full month the dataset holds.
    expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe('2024-12-01');
    await page.getByLabel('Time scale').selectOption('hourly');
    // The dates offered by default give way to the hourly default, a week (docs/app.md), not 744 hours.
    const from = await page.getByLabel('From', { exact: true }).inputValue();
    const to = await page.getByLabel('To', { exact: true }).inputValue();
    expect(Date.parse(`${to}:00Z`) - Date.parse(`${from}:00Z`)).toBe((7 * 24 - 1) * 3_600_000);
    await page.getByLabel('From', { exact: true }).fill('2022-06-01T00:00');
    await page.getByLabel('To', { exact: true }).fill('2022-06-07T23:00');
    await page.getByLabel('To', { exact: true }).dispatchEvent('change');
    await drawPoint(page, [18.87, -33.93]);
    await page.getByRole('button', { name: 'Run query' }).click();
    await expect
      .poll(() => page.locator('#status').textContent(), { timeout: 60_000 })
      .toMatch(/^Empty: the station has no records for these dates/);
    // Nothing to file: an empty answer offers no downloads.
    expect(await page.locator('#download-csv').isDisabled()).toBe(true);
    expect(await page.locator('#download-json').isDisabled()).toBe(true);
    const message = (await page.locator('#no-data p').textContent())!;
    const answer = (await page.evaluate(() => (window as unknown as { cqUi: Ui }).cqUi.lastAnswer)) as Record<
      string,
      { metadata: { station_lat: number; station_lon: number } }
    >;
    const meta = Object.values(answer)[0]!.metadata;
    // What the station holds, as the engine's own reader of the station index lists it.
    const st = (await engine.stations()).find((s) => s.lat === meta.station_lat && s.lon === meta.station_lon)!;
    const first = st.files.hourly!.first.slice(0, 10);
    expect(message).toContain(`No values for 2022-06-01 00:00 to 2022-06-07 23:00. ${st.name} holds hourly`);
    expect(message).toContain(`from ${first} to`);
    expect(await page.locator('#chart').innerHTML()).toBe('');
    // No table of empty rows under the message.
    expect(await page.locator('#table tr').count()).toBe(0);
    await page.screenshot({ path: `${SHOTS}ui-no-data.png` });
    await page.locator('#no-data button').click();
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 60_000 }).toMatch(/^Answered/);
    expect(await page.locator('#table tbody tr').count()).toBeGreaterThan(100);
    await page.close();
  });

  it('a validation error clears the previous answer', async () => {
    const page = await openApp();
    await drawPoint(page, [18.87, -33.93]);
    await runAndWait(page);
    expect(await page.locator('#table tbody tr').count()).toBeGreaterThan(0);
    await page.getByLabel('From', { exact: true }).fill('2024-08-01');
    await page.getByLabel('To', { exact: true }).fill('2024-07-01');
    await page.getByLabel('To', { exact: true }).dispatchEvent('change');
    await expect.poll(() => page.locator('#error-startDate').textContent()).not.toBe('');
    expect(await page.locator('#table tbody tr').count()).toBe(0);
    expect(await page.locator('#status').textContent()).toBe('');
    await page.close();
  });
});

describe('the map app', () => {
  it('shows the offline basemap and the stations (empty state)', async () => {
    const page = await openApp();
    expect(await page.locator('#ask-info').textContent()).toContain('Draw a point');
    const stationsDrawn = await page.evaluate(() => {
      const map = (window as unknown as { cqUi: { view: { map: { queryRenderedFeatures(o: unknown): unknown[] } } } })
        .cqUi.view.map;
      return map.queryRenderedFeatures({ layers: ['climate-query:stations'] }).length;
    });
    expect(stationsDrawn).toBeGreaterThan(50);
    // The demo says it is a demo, from its own catalog, above every answer.
    const notice = (await catalogJson(join(demo, 'catalog.json'))).notice as string;
    expect(notice).toMatch(/synthetic/);
    await expect.poll(() => page.locator('#dataset-notice').textContent()).toBe(notice);
    expect(await page.locator('#dataset-notice').isVisible()).toBe(true);
    await page.screenshot({ path: `${SHOTS}ui-empty.png` });
    await page.close();
  });

  it('nearest-station: a point drawn with the mouse; chart and table equal the answer', async () => {
    const page = await openApp();
    await drawPoint(page, [19.0, -33.9]);
    await drawPoint(page, [20.1, -33.6]);
    expect(await page.locator('#geometry-list li').count()).toBe(2);
    expect(await page.locator('#endpoint-info').textContent()).toContain('/api/nearest-station/');
    const ui = await runAndWait(page);
    expect(ui.lastRequest!.endpoint).toBe('nearest-station');
    // Which zone the hours are in, as the dataset's catalog states it (none: SAST).
    const zone = (await catalogJson(join(demo, 'catalog.json'))).stations.utcOffset ?? '+02:00';
    expect(await page.locator('#metadata').textContent()).toContain(`local standard time, UTC${zone}`);
    const answer = ui.lastAnswer as Record<string, { data: Record<string, Record<string, number | null>> }>;
    const keys = Object.keys(answer);
    const types = ui.lastRequest!.body.dataTypes as string[];
    await expectChartAndTableMatch(page, ui, (row) => keys.flatMap((k) => types.map((t) => answer[k]!.data[row]![t]!)));
    expect(await page.locator('#metadata').textContent()).toMatch(/km away/);
    // On the map: the drawn points are labelled G1 and G2, and each answering station is ringed and joined to its point.
    // (Polled: labels are placed once the map has drawn the answer's layers.)
    const onMapNow = () =>
      page.evaluate(() => {
        const map = (window as unknown as { cqUi: { view: { map: MapHandle } } }).cqUi.view.map;
        return {
          labels: map
            .queryRenderedFeatures({ layers: ['climate-query:geometry-labels'] })
            .map((f) => f.properties.label)
            .sort(),
          rings: map.queryRenderedFeatures({ layers: ['climate-query:answer-stations'] }).length,
          links: map.queryRenderedFeatures({ layers: ['climate-query:answer-links'] }).length,
        };
      });
    await expect.poll(async () => (await onMapNow()).labels, { timeout: 10_000 }).toEqual(['G1', 'G2']);
    const onMap = await onMapNow();
    expect(onMap.rings).toBe(2);
    expect(onMap.links).toBeGreaterThanOrEqual(2);
    await page.screenshot({ path: `${SHOTS}ui-station-chart.png` });
    await page.close();
  });

  it('poly-aggregate: a field drawn with the mouse; counts in the table', async () => {
    const page = await openApp();
    await drawPolygon(page, [
      [18.7, -34.2],
      [19.5, -34.2],
      [19.5, -33.6],
      [18.7, -33.6],
    ]);
    expect(await page.locator('#endpoint-info').textContent()).toContain('/api/poly-aggregate/');
    const ui = await runAndWait(page);
    const answer = ui.lastAnswer as {
      stations_metadata: object;
      aggregated_data: Record<string, Record<string, number | null>>;
    };
    expect(Object.keys(answer.stations_metadata).length).toBeGreaterThan(5);
    const types = ui.lastRequest!.body.dataTypes as string[];
    const counts = new Set(types.map((_, i) => 2 * i + 1));
    await expectChartAndTableMatch(
      page,
      ui,
      (row) =>
        types.flatMap((t) => [answer.aggregated_data[row]![t]!, answer.aggregated_data[row]![`${t}_station_count`]!]),
      counts,
    );
    expect(await page.locator('#metadata').textContent()).toMatch(/station\(s\) inside the field/);
    await page.close();
  });

  it('point and polygon on a climate layer; over-2 km² fields are marked before sending', async () => {
    const page = await openApp();
    await page.getByLabel('Climate layer').check();
    await page.getByLabel('Layer', { exact: true }).selectOption('temp');
    await drawPoint(page, [19.31, -33.37]);
    expect(await page.locator('#endpoint-info').textContent()).toContain('/api/point/');
    // A point has one pixel: the form does not ask how a field's pixels combine.
    expect(await page.getByLabel('Combine pixels of a field by').isVisible()).toBe(false);
    let ui = await runAndWait(page);
    let answer = ui.lastAnswer as Record<string, Record<string, number | null>>;
    let keys = Object.keys(answer);
    await expectChartAndTableMatch(page, ui, (row) => keys.map((k) => answer[k]![row]!));

    // A field of about 1 km² at zoom 13, then one far too large.
    await zoomTo(page, [19.05, -34.15], 13);
    await drawPolygon(page, [
      [19.04, -34.155],
      [19.05, -34.155],
      [19.05, -34.147],
      [19.04, -34.147],
    ]);
    expect(await page.locator('#endpoint-info').textContent()).toContain('/api/polygon/');
    expect(await page.getByLabel('Combine pixels of a field by').isVisible()).toBe(true);
    await page.getByLabel('Combine pixels of a field by').selectOption('max');
    ui = await runAndWait(page);
    expect((ui.lastRequest!.body.options as { aggregationMethod: string }).aggregationMethod).toBe('max');
    answer = ui.lastAnswer as Record<string, Record<string, number | null>>;
    keys = Object.keys(answer);
    await expectChartAndTableMatch(page, ui, (row) => keys.map((k) => answer[k]![row]!));
    await page.screenshot({ path: `${SHOTS}ui-raster-polygon-chart.png` });

    // The layer itself on the map, for the chosen date, with its legend.
    await page.getByRole('button', { name: 'Show layer on map' }).click();
    await expect
      .poll(() => page.locator('#status').textContent(), { timeout: 30_000 })
      .toMatch(/^Showing Daily air temperature, Daily maximum, 2024-\d\d-\d\d on the map\.$/);
    expect(await page.locator('#legend').isVisible()).toBe(true);
    expect(await page.locator('#legend-min').textContent()).toMatch(/°C$/);
    // A daily layer is stored as a series file (docs/layers.md, "Layouts"): its preview is the same map.
    await page.evaluate(() =>
      (window as unknown as { cqUi: { view: { map: { jumpTo(o: object): void } } } }).cqUi.view.map.jumpTo({
        center: [20.5, -33.2],
        zoom: 6,
      }),
    );
    await page.waitForTimeout(800);
    await page.screenshot({ path: `${SHOTS}ui-layer-preview-daily.png` });
    expect(
      await page.evaluate(() =>
        Boolean(
          (window as unknown as { cqUi: { view: { map: { getLayer(id: string): unknown } } } }).cqUi.view.map.getLayer(
            'climate-query:preview',
          ),
        ),
      ),
    ).toBe(true);

    await drawPolygon(page, [
      [19.03, -34.16],
      [19.07, -34.16],
      [19.07, -34.135],
      [19.03, -34.135],
    ]);
    await expect.poll(() => page.locator('#geometry-list .over').count()).toBe(1);
    expect(await page.locator('#error-wkts').textContent()).toMatch(
      /^Field G2 has an area of \d+\.\d+ km²; each field may be at most 2 km²/,
    );
    const before = await page.evaluate(() => (window as unknown as { cqUi: Ui }).cqUi.lastRequest);
    await page.getByRole('button', { name: 'Run query' }).click();
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (window as unknown as { cqUi: Ui }).cqUi.lastRequest)).toEqual(before);
    await page.screenshot({ path: `${SHOTS}ui-error-over-2km2.png` });
    await page.close();
  });

  it('shows a preview of a layer over the whole extent', async () => {
    const page = await openApp();
    await page.getByLabel('Climate layer').check();
    await page.getByLabel('Layer', { exact: true }).selectOption('chill');
    await page.getByRole('button', { name: 'Show layer on map' }).click();
    await expect
      .poll(() => page.locator('#status').textContent(), { timeout: 30_000 })
      .toMatch(/^Showing Winter chill per season, Daily Positive Chill Units/);
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${SHOTS}ui-layer-preview.png` });
    await page.close();
  });

  it('nothing left over: a preview and its legend go with another layer or the station records; "Not run" goes once the question changes', async () => {
    const page = await openApp();
    await page.getByLabel('Climate layer').check();
    await page.getByLabel('Layer', { exact: true }).selectOption('chill');
    await page.getByRole('button', { name: 'Show layer on map' }).click();
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toMatch(/^Showing /);
    const previewLayer = () =>
      page.evaluate(() =>
        Boolean(
          (window as unknown as { cqUi: { view: { map: { getLayer(id: string): unknown } } } }).cqUi.view.map.getLayer(
            'climate-query:preview',
          ),
        ),
      );
    expect(await page.locator('#legend').isVisible()).toBe(true);
    expect(await previewLayer()).toBe(true);
    // Another variant of the same layer: the old map is not that variant's.
    const variant = await page.inputValue('#subDataType');
    const other = await page.$$eval(
      '#subDataType option',
      (os, v) => os.map((o) => (o as HTMLOptionElement).value).find((x) => x !== v)!,
      variant,
    );
    await page.getByLabel('Variant').selectOption(other);
    await expect.poll(() => page.locator('#legend').isVisible()).toBe(false);
    expect(await page.locator('#status').textContent()).toBe('');
    expect(await previewLayer()).toBe(false);
    // Shown again, then the station records: gone again.
    await page.getByRole('button', { name: 'Show layer on map' }).click();
    await expect.poll(() => page.locator('#legend').isVisible(), { timeout: 30_000 }).toBe(true);
    await page.getByRole('radio', { name: 'Station records' }).check();
    await expect.poll(() => page.locator('#legend').isVisible()).toBe(false);
    expect(await previewLayer()).toBe(false);

    // A question that cannot run says why beside Run; fixed, the reason goes.
    await drawPoint(page, [19.0, -33.9]);
    await page.fill('#endDate', '2024-6-7');
    await page.locator('#endDate').dispatchEvent('change');
    await page.getByRole('button', { name: 'Run query' }).click();
    await expect.poll(() => page.locator('#status').textContent()).toMatch(/^Not run: /);
    await page.fill('#endDate', '2024-06-07');
    await page.locator('#endDate').dispatchEvent('change');
    await expect.poll(() => page.locator('#status').textContent()).not.toMatch(/Not run/);
    await page.close();
  });

  it('the 11th point is refused as it is drawn, in words beside the shapes, before Run is pressed', async () => {
    const page = await openApp();
    for (let i = 0; i < 10; i++) await drawPoint(page, [18.6 + 0.08 * i, -33.9]);
    expect(await page.locator('#error-wkts').textContent()).toBe('');
    await drawPoint(page, [18.6, -33.6]);
    await expect
      .poll(() => page.locator('#error-wkts').textContent())
      .toMatch(/^The drawn shapes hold more than 10 points; this query takes 1 to 10/);
    await page.close();
  });

  it('says in plain words when the date range is backwards, next to the date', async () => {
    const page = await openApp();
    await drawPoint(page, [19.0, -33.9]);
    const toBox = async () => (await page.getByLabel('To', { exact: true }).boundingBox())!.y;
    const before = await toBox();
    // A From after the default To (the end of the data) first.
    await page.getByLabel('From', { exact: true }).fill('2031-01-15');
    await page.getByLabel('From', { exact: true }).dispatchEvent('change');
    await expect
      .poll(() => page.locator('#error-startDate').textContent())
      .toMatch(/^The From date "2031-01-15" is after the To date/);
    // The message appears under both fields: "To" does not move from under the pointer.
    expect(await toBox()).toBe(before);
    await page.getByLabel('From', { exact: true }).fill('2024-08-01');
    await page.getByLabel('To', { exact: true }).fill('2024-07-01');
    await page.getByLabel('To', { exact: true }).dispatchEvent('change');
    await expect
      .poll(() => page.locator('#error-startDate').textContent())
      .toMatch(/^The From date "2024-08-01" is after the To date "2024-07-01"/);
    await page.screenshot({ path: `${SHOTS}ui-error-dates.png` });
    await page.close();
  });

  it('cancels a running query', async () => {
    const page = await openApp();
    await page.getByLabel('Time scale').selectOption('hourly');
    await drawPoint(page, [19.0, -33.9]);
    // Station reads are fast on loopback; hold the station files back 3 s so there is time to cancel.
    await page.route('**/stations/**', async (route) => {
      await new Promise((r) => setTimeout(r, 3000));
      await route.continue().catch(() => undefined);
    });
    await page.getByRole('button', { name: 'Run query' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.locator('#status').textContent()).toBe('Cancelled.');
    expect(await page.evaluate(() => (window as unknown as { cqUi: Ui }).cqUi.lastAnswer)).toBeUndefined();
    await page.close();
  });

  it('pasted GeoJSON blocks keep their names in the list and the URL, and are asked as drawn', async () => {
    const page = await openApp();
    const block = (x: number, y: number) => [
      [
        [x, y],
        [x + 0.004, y],
        [x + 0.004, y + 0.003],
        [x, y + 0.003],
        [x, y],
      ],
    ];
    const fc = {
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          properties: { name: 'Block 7 (Pink Lady)' },
          geometry: { type: 'Polygon', coordinates: block(19.03, -34.15) },
        },
        {
          type: 'Feature',
          properties: { Name: 'Chenin North' },
          geometry: { type: 'Polygon', coordinates: block(19.05, -34.15) },
        },
      ],
    };
    await page.locator('#shape-text-box summary').click();
    await page.locator('#shape-text').fill(JSON.stringify(fc, null, 2));
    await page.locator('#add-shape').click();
    const want = [
      /^G1 \(Block 7 \(Pink Lady\)\): field of [\d.]+ (ha|km²)$/,
      /^G2 \(Chenin North\): field of [\d.]+ (ha|km²)$/,
    ];
    const listed = () => page.locator('#geometry-list li').allTextContents();
    await expect.poll(listed).toEqual(want.map((w) => expect.stringMatching(w)));
    // A reload of the same URL keeps the names.
    const again = await openApp(page.url());
    await expect.poll(() => again.locator('#geometry-list li').allTextContents()).toEqual(await listed());
    const body = await again.evaluate(
      () => JSON.parse(document.getElementById('request-json')!.textContent!) as { wkts: string },
    );
    // The app writes WKT to 6 decimals (≈ 0.1 m), as it does for drawn fields.
    const r6 = (v: number) => String(Math.round(v * 1e6) / 1e6);
    expect(body.wkts).toBe(
      fc.features
        .map((f) => `POLYGON ((${f.geometry.coordinates[0]!.map(([x, y]) => `${r6(x!)} ${r6(y!)}`).join(', ')}))`)
        .join(';'),
    );
    await page.close();
    await again.close();
  });

  it('a point at the map centre after panning (a centre with 15 decimals) is drawn and asked', async () => {
    const page = await openApp();
    await page.evaluate(() =>
      (window as unknown as { cqUi: { view: { map: { jumpTo(o: unknown): void } } } }).cqUi.view.map.jumpTo({
        center: [18.871234567890123, -33.931234567890123],
        zoom: 12,
      }),
    );
    await page.getByRole('button', { name: 'Point at map centre' }).click();
    await expect
      .poll(() => page.locator('#geometry-list li').allTextContents())
      .toEqual(['G1: point -33.9312, 18.8712']);
    const body = await page.evaluate(
      () => JSON.parse(document.getElementById('request-json')!.textContent!) as { wkts: string },
    );
    expect(body.wkts).toBe('POINT (18.871235 -33.931235)');
    await page.close();
  });

  it('restores the same view and query from the URL', async () => {
    const page = await openApp();
    await page.getByLabel('Time scale').selectOption('monthly');
    await page.getByLabel('Rainfall, monthly total (mm)').check();
    await drawPolygon(page, [
      [18.7, -34.2],
      [19.5, -34.2],
      [19.5, -33.6],
      [18.7, -33.6],
    ]);
    const url = page.url();
    const json = await page.locator('#request-json').textContent();
    expect(url).toContain('#q=');
    expect(url).toMatch(/&map=[\d.]+\/-[\d.]+\/[\d.]+$/);
    const view0 = await page.evaluate(() => {
      const map = (window as unknown as { cqUi: { view: { map: MapHandle } } }).cqUi.view.map;
      return { c: map.getCenter(), z: map.getZoom() };
    });
    const again = await openApp(url);
    expect(await again.locator('#request-json').textContent()).toBe(json);
    expect(await again.getByLabel('Time scale').inputValue()).toBe('monthly');
    expect(await again.locator('#geometry-list li').count()).toBe(1);
    // Same view, and the answer is there without pressing Run.
    const view1 = await again.evaluate(() => {
      const map = (window as unknown as { cqUi: { view: { map: MapHandle } } }).cqUi.view.map;
      return { c: map.getCenter(), z: map.getZoom() };
    });
    expect(view1.z).toBeCloseTo(view0.z, 2);
    expect(view1.c.lat).toBeCloseTo(view0.c.lat, 4);
    expect(view1.c.lng).toBeCloseTo(view0.c.lng, 4);
    await expect.poll(() => again.locator('#status').textContent(), { timeout: 60_000 }).toMatch(/^Answered/);
    expect(await again.locator('#table tbody tr').count()).toBeGreaterThan(0);
    await page.close();
    await again.close();
  });

  it('is usable on a phone-sized screen', async () => {
    const page = await openApp(`${vite.url}index.html`, { width: 390, height: 844 });
    const map = (await page.locator('#map').boundingBox())!;
    expect(map.width).toBeGreaterThan(350);
    expect(await page.getByRole('button', { name: 'Run query' }).isVisible()).toBe(true);
    await page.screenshot({ path: `${SHOTS}ui-phone.png`, fullPage: true });
    await page.close();
  });
});

describe("a user's own dataset", () => {
  it('offers only the station types and dates the dataset holds (two sensors, three weeks of June)', async () => {
    const page = await openApp(`${vite.url}index.html?data=${encodeURIComponent(`${vite.url}data/few/`)}`);
    const catalog = (await catalogJson(join(few, 'dataset/catalog.json'))) as {
      stations: { dataTypes: Record<string, string[]> };
    };
    const offered = () =>
      page.locator('#dataTypes input').evaluateAll((boxes) => boxes.map((b) => (b as HTMLInputElement).value));
    for (const scale of ['daily', 'hourly', 'monthly']) {
      await page.getByLabel('Time scale').selectOption(scale);
      expect((await offered()).sort()).toEqual([...catalog.stations.dataTypes[scale]!].sort());
    }
    expect(await offered()).not.toContain('leaf_wetness_mean');
    // The first dates offered lie inside the three weeks (not in May, which holds nothing).
    await page.getByLabel('Time scale').selectOption('daily');
    expect([await page.locator('#startDate').inputValue(), await page.locator('#endDate').inputValue()]).toEqual([
      '2024-06-03',
      '2024-06-23',
    ]);
    // The SQL panel's ready queries: only those whose columns it holds (no hourly minimum temperature, so no frost hours).
    const ready = (await page.locator('#sql-example option').allTextContents()).slice(1);
    expect(ready).toEqual([
      'The ten wettest days',
      "A station's completeness per month (days with a mean temperature)",
    ]);
    await page.close();
  });

  it('offers only the layers its catalog declares, with their words and units, and answers them', async () => {
    const page = await openApp(`${vite.url}index.html?data=${encodeURIComponent(`${vite.url}data/mine/`)}`);
    // Its one layer, described as its catalog says; nothing of the demo's six families.
    const options = await page.locator('#dataType option').allTextContents();
    expect(options).toEqual(['Height above sea level (ETOPO5) (m)']);
    // No notice of the demo's on a dataset without one.
    expect(await page.locator('#dataset-notice').isVisible()).toBe(false);
    expect(await page.locator('input[name=source][value=stations]').isDisabled()).toBe(true);
    expect(await page.locator('input[name=source][value=raster]').isChecked()).toBe(true);
    expect(await page.locator('#layer-info').textContent()).toBe(
      'Height above sea level (ETOPO5) (m), one value, no dates.',
    );
    // The contract's names are in the developer panel.
    expect(await page.locator('#layer-code').textContent()).toBe(
      'Layer: dataType "elevation", subDataType "-", dataExtent "za", timeScale none.',
    );
    await drawPoint(page, [19.0, -33.0]);
    const ui = await runAndWait(page);
    expect(ui.lastRequest!.body).toMatchObject({
      dataType: 'elevation',
      options: { subDataType: '-', dataExtent: 'za' },
    });
    const own = createNodeEngine(mine);
    expect(ui.lastAnswer).toEqual(await own.query('point', ui.lastRequest!.body));
    await own.close();
    expect(typeof Object.values(ui.lastAnswer as Record<string, unknown>)[0]).toBe('number');
    await page.close();
  });
});

describe("a user's own map style", () => {
  it('a style that declares the app’s own source and layer names cannot stop the app: its tools mount, its stations draw', async () => {
    const styleUrl = 'http://127.0.0.1:9/hostile-style.json';
    const empty = { type: 'FeatureCollection', features: [] };
    const style = {
      version: 8,
      sources: {
        stations: { type: 'geojson', data: empty },
        'climate-query:stations': { type: 'geojson', data: empty },
        answer: { type: 'geojson', data: empty },
      },
      layers: [
        { id: 'background', type: 'background', paint: { 'background-color': '#ddeeff' } },
        { id: 'stations', type: 'circle', source: 'stations' },
        { id: 'climate-query:stations', type: 'circle', source: 'climate-query:stations' },
      ],
    };
    const errors: string[] = [];
    const page = await openApp(`${vite.url}index.html?style=${encodeURIComponent(styleUrl)}`, undefined, async (p) => {
      p.on('pageerror', (e) => errors.push(e.message));
      await p.route(styleUrl, (route) =>
        route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(style) }),
      );
    });
    expect(errors).toEqual([]);
    // The app's layers are under their own names, the taken one numbered; the demo's stations are drawn.
    const drawn = await page.evaluate(() => {
      const map = (
        window as unknown as {
          cqUi: { view: { map: { getLayer(id: string): unknown; queryRenderedFeatures(o: unknown): unknown[] } } };
        }
      ).cqUi.view.map;
      return {
        own: Boolean(map.getLayer('climate-query:stations#2')),
        styles: Boolean(map.getLayer('stations')),
        dots: map.queryRenderedFeatures({ layers: ['climate-query:stations#2'] }).length,
      };
    });
    expect(drawn).toEqual({ own: true, styles: true, dots: expect.any(Number) });
    expect(drawn.dots).toBeGreaterThan(0);
    // The drawing tools work: a point is drawn and answered.
    await drawPoint(page, [18.86, -33.93]);
    const ui = await runAndWait(page);
    expect(ui.lastRequest!.endpoint).toBe('nearest-station');
    await page.close();
  });
});

describe('answers saved on the device', () => {
  it('are kept per dataset: 55 answers of another dataset leave a grower’s answers, and say what they dropped', async () => {
    // The store's module is imported by its source path: Vite's dev server serves it, the built site does not.
    const dev = await startVite({ 'data/demo': demo });
    onTestFinished(() => dev.server.close());
    const page = await openApp(`${dev.url}index.html`);
    // Text, not a function: the test runner would rewrite an import() in a function for Node.
    const result = await page.evaluate(`(async () => {
      const { openSavedStore, SAVED_LIMIT } = await import('/src/ui/saved-store.ts');
      const store = await openSavedStore();
      const item = (dataset, i) => ({
        savedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
        dataset,
        label: 'G1',
        summary: 'test',
        form: {},
        geometries: [],
        request: { endpoint: 'point', path: '/api/point/', body: { i } },
        answer: { i },
      });
      for (let i = 0; i < 3; i++) await store.add(item('https://grower.example/data/', i));
      let last = null;
      for (let i = 0; i < 55; i++) last = await store.add(item('https://other.example/data/', i));
      return {
        grower: (await store.list('https://grower.example/data/')).length,
        other: (await store.list('https://other.example/data/')).length,
        dropped: last && last.dropped,
        limit: SAVED_LIMIT,
      };
    })()`);
    expect(result).toEqual({ grower: 3, other: 50, dropped: 1, limit: 50 });
    await page.close();
  });
});
