// The app is panels over one data path, in Chromium on Vite's dev server:
// every panel is mounted through the one panel contract, and the page itself
// requests no dataset file but the catalog and the station index its engine
// client reads for the Worker — the station list, answers and the layer
// preview all come from the engine Worker. The preview's grid is
// checked against point queries at pixel centres (another read path).
import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, inject, it } from 'vitest';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { drawPoint, openAppPage, runAndWait } from '../helpers/app-page.ts';
import { useViteApp } from '../helpers/vite-app.ts';

const demo = inject('demoDataset');
const app = useViteApp({ 'data/demo': demo });
const UI = new URL('../../src/ui/', import.meta.url);

describe('panels over one data path', () => {
  it('every panel module is mounted by main.ts through mountPanels, and main.ts builds no panel itself', async () => {
    const main = await readFile(new URL('main.ts', UI), 'utf8');
    const factories: string[] = [];
    for (const f of await readdir(UI)) {
      if (!f.endsWith('.ts')) continue;
      const text = await readFile(new URL(f, UI), 'utf8');
      for (const m of text.matchAll(/export function (\w+Panel)\((?:ctx|\w+): PanelContext\): Panel/g))
        factories.push(m[1]!);
      for (const m of text.matchAll(/export function (\w+Panel)\([^{]*?\): PanelFactory \{/g)) factories.push(m[1]!);
    }
    expect(factories.length).toBeGreaterThanOrEqual(8);
    for (const f of factories)
      expect(main, `${f} is mounted through mountPanels`).toMatch(new RegExp(`factory: ${f}\\b`));
    // The old one-off signatures are not called from main.ts.
    expect(main).not.toMatch(/create(Season|Indices)View\(|mountSqlPanel\(|createSavedList\(|renderDeveloperPanel\(/);
  });

  it('the page asks the Worker for everything: the page requests no dataset file but the catalog and station index its engine client reads ahead for the Worker, panels are mounted by name', async () => {
    const page = await openAppPage(app.browser, `${app.url}index.html`, undefined, (p) =>
      // Every fetch and XHR the page's own code makes (a Worker's are not seen here).
      p.addInitScript(() => {
        const seen: string[] = [];
        (window as unknown as { pageRequests: string[] }).pageRequests = seen;
        const f = window.fetch.bind(window);
        window.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
          seen.push(String(input instanceof Request ? input.url : input));
          return f(input, init);
        };
        const open = XMLHttpRequest.prototype.open;
        XMLHttpRequest.prototype.open = function (
          this: XMLHttpRequest,
          method: string,
          url: string | URL,
          ...rest: unknown[]
        ) {
          seen.push(String(url));
          return (open as (...a: unknown[]) => void).call(this, method, url, ...rest);
        } as typeof XMLHttpRequest.prototype.open;
      }),
    );
    expect(await page.evaluate(() => (window as unknown as { cqUi: { panels: string[] } }).cqUi.panels)).toEqual([
      'form',
      'developer',
      'results',
      'season',
      'indices',
      'saved',
      'sql',
      'map-tools',
    ]);
    // A station query, then a layer shown on the map.
    await drawPoint(page, [18.87, -33.93]);
    const ui = await runAndWait(page);
    expect(ui.table?.rows.length).toBeGreaterThan(0);
    await page.locator('input[name=source][value=raster]').check();
    await page.locator('#dataType').selectOption('temp');
    await page.getByRole('button', { name: 'Show layer on map' }).click();
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toMatch(/^Showing /);
    const legend = [await page.locator('#legend-min').textContent(), await page.locator('#legend-max').textContent()];
    // The page's own requests and resource entries (a Worker's are in its own timeline): under the
    // dataset only the catalog and the station index, once each, which the engine client reads for
    // the Worker as it starts (browser/engine-client.ts readAhead; the app asks for the station
    // list together with the catalog); every other file is the Worker's.
    const { requests, resources } = await page.evaluate(() => ({
      requests: (window as unknown as { pageRequests: string[] }).pageRequests,
      resources: performance.getEntriesByType('resource').map((e) => e.name),
    }));
    expect(resources.some((u) => /\/src\/ui\/main\.ts/.test(u))).toBe(true);
    const dataset = (list: string[]) =>
      list.filter((u) => /\/data\/demo\//.test(u)).map((u) => new URL(u).pathname.replace(/^.*\/data\/demo\//, ''));
    expect(dataset(requests).sort()).toEqual(['catalog.json', 'stations/index.parquet']);
    expect(dataset(resources).sort()).toEqual(['catalog.json', 'stations/index.parquet']);

    // The legend is the grid the Worker read: its range equals the Node engine's grid of the same band.
    const form = await page.evaluate(
      () =>
        (window as unknown as { cqUi: { form: { dataType: string; subDataType: string; startDate: string } } }).cqUi
          .form,
    );
    const engine = createNodeEngine(demo);
    const catalog = await engine.catalog();
    const layer = catalog.rasters.find((l) => l.dataType === form.dataType && l.subDataType === form.subDataType)!;
    const grid = await engine.layerGrid({
      dataType: layer.dataType,
      subDataType: layer.subDataType,
      period: layer.timeScale === 'monthly' ? `${form.startDate}-01` : form.startDate,
    });
    await engine.close();
    expect(legend).toEqual([`${grid.min.toFixed(1)} ${grid.unit}`, `${grid.max.toFixed(1)} ${grid.unit}`]);
    await page.close();
  });

  it("a layer's grid equals point queries at its pixel centres (the point path reads single tiles)", async () => {
    const engine = createNodeEngine(demo);
    const catalog = await engine.catalog();
    const layer = catalog.rasters.find((l) => l.timeScale === 'daily')!;
    const period = layer.files[0]!.periods[10]!;
    const grid = await engine.layerGrid({
      dataType: layer.dataType,
      subDataType: layer.subDataType,
      extent: layer.extent,
      period,
    });
    expect([grid.width, grid.height]).toEqual([layer.width, layer.height]);
    const [west, , east, north] = layer.bbox;
    const resX = (east - west) / layer.width;
    const resY = (north - layer.bbox[1]) / layer.height;
    let compared = 0;
    for (let k = 0; k < 40; k++) {
      const col = Math.floor((((k * 7919) % 1000) / 1000) * layer.width);
      const row = Math.floor((((k * 104729) % 1000) / 1000) * layer.height);
      const wkt = `POINT (${west + (col + 0.5) * resX} ${north - (row + 0.5) * resY})`;
      const ans = (await engine.point({
        wkts: wkt,
        dataType: layer.dataType,
        options: { subDataType: layer.subDataType, dataExtent: layer.extent, timeScale: 'daily' },
        startDate: period,
        endDate: period,
      })) as Record<string, Record<string, number | null>>;
      const v = Object.values(ans)[0]![period] ?? null;
      const g = grid.values[row * grid.width + col]!;
      if (v === null) expect(Number.isNaN(g)).toBe(true);
      else {
        expect(g).toBeCloseTo(v, 4);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(10);
    await engine.close();
  });
});
