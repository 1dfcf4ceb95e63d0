// The app after one online visit, with no connection: the built site served
// by `climate-query serve --static`, visited once in Chromium (two queries
// run, the service worker installs and precaches the shell), then the
// server is stopped and the browser put offline, and the page reloaded. The
// app must open, draw its basemap, list the saved answers, show one again
// (chart and table equal to the engine's answer) and export it as CSV and
// JSON. Screenshots go to screens/ (not committed).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import type { ClimateEngine } from '../../src/engine/engine.ts';
import { drawPoint, mapIdle, networkOff, runAndWait, type AnswerSnapshot } from '../helpers/app-page.ts';
import { launchChromium } from '../helpers/browser.ts';
import { buildSite, type BuiltSite } from '../helpers/built-site.ts';
import { startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';

const demo = inject('demoDataset');
const SCREENS = new URL('../../screens/', import.meta.url).pathname;
let built: BuiltSite;
let serve: ServeProcess;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let engine: ClimateEngine;
let url = '';
const answers: AnswerSnapshot[] = [];

type SavedUi = {
  cqUi: {
    ready: Promise<void>;
    offline?: Promise<unknown>;
    saved?: { items(): Array<{ label: string; summary: string; savedAt: string; answer: unknown }> };
  };
};

beforeAll(async () => {
  await mkdir(SCREENS, { recursive: true });
  built = await buildSite(demo);
  serve = await startServeProcess(built.dataset, ['--static', built.site]);
  url = `${serve.url}index.html`;
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  page = await context.newPage();
  await networkOff(page);
  engine = createNodeEngine(demo);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  if (serve && serve.child.exitCode === null) serve.child.kill();
  await engine?.close();
  await built?.remove();
});

const saved = (p: Page) =>
  p.evaluate(() =>
    (window as unknown as SavedUi).cqUi
      .saved!.items()
      .map((i) => ({ label: i.label, summary: i.summary, savedAt: i.savedAt, answer: i.answer })),
  );

describe('offline after the first visit', () => {
  it('first visit online: the service worker precaches the shell and keeps the dataset start files; answers are saved', async () => {
    await page.goto(url);
    await page.waitForFunction(() => 'cqUi' in window);
    await page.evaluate(() => (window as unknown as SavedUi).cqUi.ready);
    const kept = (await page.evaluate(() => (window as unknown as SavedUi).cqUi.offline)) as {
      kept: string[];
      failed: string[];
    } | null;
    expect(kept).not.toBeNull();
    expect(kept!.failed).toEqual([]);
    expect(kept!.kept).toEqual([`${serve.url}data/demo/catalog.json`, `${serve.url}data/demo/stations/index.parquet`]);

    // What the browser holds equals what the build listed, byte for byte in total.
    const cached = await page.evaluate(async () => {
      const name = (await caches.keys()).find((n) => n.startsWith('climate-query-shell-'))!;
      const cache = await caches.open(name);
      let bytes = 0;
      const files: string[] = [];
      for (const req of await cache.keys()) {
        files.push(new URL(req.url).pathname.slice(1));
        bytes += (await (await cache.match(req))!.arrayBuffer()).byteLength;
      }
      return { name, files: files.sort(), bytes };
    });
    expect(cached.name).toBe(`climate-query-shell-${built.manifest.version}`);
    expect(cached.files).toEqual([...built.manifest.files].sort());
    expect(cached.bytes).toBe(built.manifest.bytes);
    expect(cached.files).toContain('index.html');
    expect(cached.files.some((f) => /places-.*\.json$/.test(f))).toBe(true);
    expect(cached.files.some((f) => /\.woff2$/.test(f))).toBe(true);
    expect(cached.files.some((f) => /provinces.*\.geojson$/.test(f))).toBe(true);
    console.log(`precached: ${cached.files.length} files, ${cached.bytes} bytes`);

    // A station query (the default form) and a climate-layer query.
    await drawPoint(page, [18.87, -33.93]);
    answers.push(await runAndWait(page));
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.check('input[name=source][value=raster]');
    await page.selectOption('#dataType', 'gdd');
    await page.selectOption('#subDataType', 'grapes');
    await drawPoint(page, [19.31, -33.37]);
    answers.push(await runAndWait(page));
    await page.waitForFunction(() => ((window as unknown as SavedUi).cqUi.saved?.items().length ?? 0) >= 2, undefined, {
      timeout: 10_000,
    });
    const items = await saved(page);
    expect(items.map((i) => i.answer)).toEqual([answers[1]!.lastAnswer, answers[0]!.lastAnswer]);
    expect(items[0]!.label).toBe('G1 point -33.3700, 19.3100');
    expect(items[0]!.summary).toBe(
      'Growing degree days per growing season, Grapes (base 10 °C) (annual); 2019 to 2024',
    );
    expect(items[1]!.summary).toMatch(
      /^Station records \(nearest station\), daily: Air temperature, daily maximum; Rainfall, daily total; \d{4}-\d{2}-01 to \d{4}-\d{2}-\d{2}$/,
    );
  });

  it('online, a redeployed catalog.json is read from the network at once and replaces the kept copy', async () => {
    const path = join(built.dataset, 'catalog.json');
    const original = await readFile(path, 'utf8');
    const redeployed = original.replace('"name":"demo"', '"name":"demo, redeployed"');
    expect(redeployed).not.toBe(original);
    await writeFile(path, redeployed);
    const catalogUrl = `${serve.url}data/demo/catalog.json`;
    // Through the service worker (the page is controlled): network-first, so the new file, not the kept one.
    const seen = await page.evaluate(
      async (u) => ((await (await fetch(u)).json()) as { name: string }).name,
      catalogUrl,
    );
    expect(seen).toBe('demo, redeployed');
    const kept = await page.evaluate(
      async (u) =>
        ((await (await (await caches.open('climate-query-data')).match(u))!.json()) as { name: string }).name,
      catalogUrl,
    );
    expect(kept).toBe('demo, redeployed');
  });

  it('a redeployed app: the new service worker precaches the new shell, drops the old one, and the next load is the new page', async () => {
    // A deploy as the build makes it: a changed file, and sw.js listing the new version.
    const indexPath = join(built.site, 'index.html');
    const html = await readFile(indexPath, 'utf8');
    const newHtml = html.replace('</body>', '<!-- redeployed --></body>');
    await writeFile(indexPath, newHtml);
    const version = 'redeployed000001';
    const bytes = built.manifest.bytes + Buffer.byteLength(newHtml) - Buffer.byteLength(html);
    const swPath = join(built.site, 'sw.js');
    const sw = await readFile(swPath, 'utf8');
    await writeFile(
      swPath,
      sw.replace(
        /^self\.__CLIMATE_QUERY_PRECACHE__ = \{.*?\};\n/,
        `self.__CLIMATE_QUERY_PRECACHE__ = ${JSON.stringify({ ...built.manifest, version, bytes })};\n`,
      ),
    );
    // The browser checks sw.js when the app opens; ask now rather than wait for that.
    await page.evaluate(async () => void (await (await navigator.serviceWorker.getRegistration())!.update()));
    await expect
      .poll(
        () => page.evaluate(() => caches.keys().then((k) => k.filter((n) => n.startsWith('climate-query-shell-')))),
        { timeout: 30_000 },
      )
      .toEqual([`climate-query-shell-${version}`]);
    await page.reload();
    await page.waitForFunction(() => 'cqUi' in window, undefined, { timeout: 20_000 });
    await page.evaluate(() => (window as unknown as SavedUi).cqUi.ready);
    expect(await page.content()).toContain('<!-- redeployed -->');
  });

  it('reloaded with the server stopped and the browser offline: opens, draws the basemap, shows a saved answer and exports it', async () => {
    serve.child.kill();
    await new Promise((resolve) => serve.child.once('exit', resolve));
    await context.setOffline(true);
    await page.reload();
    await page.waitForFunction(() => 'cqUi' in window, undefined, { timeout: 20_000 });
    await page.evaluate(() => (window as unknown as SavedUi).cqUi.ready);
    // The page's URL still holds the last question, so the app asks it again on opening; with no
    // connection it falls back to the answer saved for that same question, and says so.
    await page.waitForFunction(
      () => /No connection|Answered|Failed/.test(document.getElementById('status')!.textContent ?? ''),
      undefined,
      { timeout: 30_000 },
    );
    expect(await page.locator('#status').textContent()).toMatch(
      /^No connection to the dataset: showing the answer saved on \d{4}-\d{2}-\d{2} \d{2}:\d{2}\.$/,
    );
    expect(await page.evaluate(() => (window as unknown as { cqUi: AnswerSnapshot }).cqUi.lastAnswer)).toEqual(
      answers[1]!.lastAnswer,
    );
    expect(await page.locator('#offline-notice').textContent()).toBe(
      'The dataset could not be reached. The answers saved below open without a connection.',
    );

    await page.evaluate(() =>
      (window as unknown as { cqUi: { view: { map: { jumpTo(o: unknown): void } } } }).cqUi.view.map.jumpTo({
        center: [23, -30],
        zoom: 4.5,
      }),
    );
    await mapIdle(page);
    // The bundled basemap drew: land (provinces), neighbours and place labels come from the precached files.
    const drawn = await page.evaluate(() => {
      const map = (window as unknown as { cqUi: { view: { map: { queryRenderedFeatures(o: unknown): unknown[] } } } })
        .cqUi.view.map;
      return {
        land: map.queryRenderedFeatures({ layers: ['land'] }).length,
        neighbours: map.queryRenderedFeatures({ layers: ['neighbours'] }).length,
      };
    });
    expect(drawn.land).toBeGreaterThan(0);
    expect(drawn.neighbours).toBeGreaterThan(0);
    // Labels wait for their glyphs (precached too) and are placed in later frames: under load the map
    // can report idle before the first placement, so they get a bounded wait of their own.
    await expect
      .poll(
        () =>
          page.evaluate(
            () =>
              (
                window as unknown as { cqUi: { view: { map: { queryRenderedFeatures(o: unknown): unknown[] } } } }
              ).cqUi.view.map.queryRenderedFeatures({ layers: ['place-labels'] }).length,
          ),
        { timeout: 15_000 },
      )
      .toBeGreaterThan(0);

    // The saved list, as a user reads it.
    const texts = await page.locator('#saved-list .saved-open').allTextContents();
    expect(texts).toHaveLength(2);
    expect(texts[0]).toContain('G1 point -33.3700, 19.3100');
    expect(texts[0]).toContain('Growing degree days per growing season, Grapes (base 10 °C) (annual); 2019 to 2024');
    expect(texts[0]).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);

    // Open the climate-layer answer: chart and table from the device, equal to the engine's answer (computed here in Node).
    await page.locator('#saved-list .saved-open').first().click();
    await page.waitForFunction(
      () => /shown from this device/.test(document.getElementById('status')!.textContent ?? ''),
      undefined,
      { timeout: 10_000 },
    );
    const shown = await page.evaluate(() => {
      const u = (window as unknown as { cqUi: AnswerSnapshot }).cqUi;
      return { lastRequest: u.lastRequest, lastAnswer: u.lastAnswer, chartData: u.chartData, table: u.table };
    });
    const body = shown.lastRequest!.body;
    const fromEngine = (await engine.point(body as never)) as Record<string, Record<string, number | null>>;
    expect(shown.lastAnswer).toEqual(fromEngine);
    const years = Object.keys(fromEngine['POINT (19.31 -33.37)']!);
    expect(years).toEqual(['2019', '2020', '2021', '2022', '2023', '2024']);
    expect(shown.chartData![1]).toEqual(years.map((y) => fromEngine['POINT (19.31 -33.37)']![y]));
    expect(await page.locator('#chart canvas').count()).toBeGreaterThan(0);
    expect(await page.locator('#table tbody tr').count()).toBe(6);
    // This year against the others, from the saved answer alone (it spans every year): no request, no network.
    await page.getByRole('button', { name: 'Compare with other years' }).click();
    await page.waitForFunction(
      () =>
        (window as unknown as { cqUi: { season: { state(): { season: unknown } | null } } }).cqUi.season.state()
          ?.season != null,
      undefined,
      { timeout: 10_000 },
    );
    const season = (await page.evaluate(() =>
      (
        window as unknown as { cqUi: { season: { state(): { reused: boolean; chartData: number[][] } } } }
      ).cqUi.season.state(),
    ))!;
    expect(season.reused).toBe(true);
    const others = years.slice(0, 5).map((y) => fromEngine['POINT (19.31 -33.37)']![y]!);
    expect(season.chartData[3]![0]).toBeCloseTo(others.reduce((a, b) => a + b, 0) / others.length, 9);
    expect(season.chartData[2]![0]).toBe(Math.min(...others));
    expect(season.chartData[1]![0]).toBe(Math.max(...others));
    // The field is back on the map.
    expect(await page.locator('#geometry-list li').allTextContents()).toEqual(['G1: point -33.3700, 19.3100']);

    // Export works offline: the CSV has one line per year with the engine's values at the data's precision.
    const [csvDownload] = await Promise.all([
      page.waitForEvent('download', { timeout: 10_000 }),
      page.click('#download-csv'),
    ]);
    // Headings in words with the unit first; the notes ("# …") after the data say what the file holds.
    const csv = (await readFile((await csvDownload.path())!, 'utf8'))
      .trim()
      .split('\n')
      .filter((l) => !l.startsWith('# '));
    const catalog = JSON.parse(await readFile(`${demo}/catalog.json`, 'utf8')) as {
      rasters: Array<{ dataType: string; subDataType: string; unit: string; description: string }>;
    };
    const layer = catalog.rasters.find((l) => l.dataType === 'gdd' && l.subDataType === 'grapes')!;
    expect(csv[0]).toBe(`Period,"G1 ${layer.description}, grapes (base 10 °C) (${layer.unit})"`);
    expect(csvDownload.suggestedFilename()).toBe('point_gdd-grapes_2019_2024.csv');
    expect(csv.slice(1).map((l) => l.split(',')[0])).toEqual(years);
    csv
      .slice(1)
      .forEach((l, i) =>
        expect(Math.abs(Number(l.split(',')[1]) - fromEngine['POINT (19.31 -33.37)']![years[i]!]!)).toBeLessThanOrEqual(
          0.5,
        ),
      );
    const [jsonDownload] = await Promise.all([
      page.waitForEvent('download', { timeout: 10_000 }),
      page.click('#download-json'),
    ]);
    expect(JSON.parse(await readFile((await jsonDownload.path())!, 'utf8'))).toEqual(fromEngine);

    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${SCREENS}offline-1280x800.png` });
    await page.screenshot({ path: `${SCREENS}offline-1280x800-full.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    // Opened again at phone width, as a phone would draw it (the chart takes the width it is drawn at).
    await page.locator('#saved-list .saved-open').first().click();
    await page.waitForTimeout(400);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${SCREENS}offline-390x844.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });

    // A new question cannot be answered offline: it fails, promptly and in words, and the saved list stays.
    await page.fill('#startDate', '2021');
    await page.locator('#startDate').dispatchEvent('change');
    const t0 = Date.now();
    await page.getByRole('button', { name: 'Run query' }).click();
    await page.waitForFunction(
      () => /Answered|Failed/.test(document.getElementById('status')!.textContent ?? ''),
      undefined,
      { timeout: 60_000 },
    );
    expect(await page.locator('#status').textContent()).toMatch(/^Failed/);
    const why = (await page.locator('#error-request').textContent())!;
    console.log(`offline query failed after ${Date.now() - t0} ms: ${why}`);
    // A grower's words: the cause and what to do; the URL and the browser's reason go to the developer panel.
    expect(why).toBe('The climate data could not be reached: this device is offline. Connect and try again.');
    expect(await page.locator('#raw-error').textContent()).toMatch(/could not be reached/);
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(await page.locator('#saved-list .saved-open').count()).toBe(2);
  });

  it('deletes a saved answer, and the deletion survives a reload offline', async () => {
    await page.locator('#saved-list .saved-delete').nth(1).click();
    await page.waitForFunction(() => document.querySelectorAll('#saved-list .saved-open').length === 1, undefined, {
      timeout: 10_000,
    });
    await page.reload();
    await page.waitForFunction(() => 'cqUi' in window, undefined, { timeout: 20_000 });
    await page.evaluate(() => (window as unknown as SavedUi).cqUi.ready);
    expect(await page.locator('#saved-list .saved-open').allTextContents()).toEqual([
      expect.stringContaining('Growing degree days per growing season, Grapes'),
    ]);
  });
});
