/**
 * A layer whose store is published on another host (added by URL), in the app in Chromium: the
 * dataset on one origin, the store on a second (CORS), the app on a third. The layer is listed,
 * its map preview is drawn, and a point and a field answer what a Node engine allowed that origin
 * answers, in the page and as a POST to the app's API through its service worker; the store's host
 * is asked for the chunks only. A store host that sends no CORS
 * headers fails the query with words, never a number.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { drawPoint, drawPolygon, openAppPage, type Ui, zoomTo } from '../helpers/app-page.ts';
import { cli } from '../helpers/cli.ts';
import { type RangeServer, startRangeServer } from '../helpers/range-server.ts';
import { useViteApp } from '../helpers/vite-app.ts';

const SHOTS = new URL('../../screens/', import.meta.url).pathname;
const dev = useViteApp({});
let root: string;
const servers: RangeServer[] = [];
let storeHost: RangeServer;

/** A dataset folder served with CORS whose one layer is `url`. */
async function datasetOf(name: string, url: string): Promise<RangeServer> {
  const dir = join(root, name);
  await mkdir(dir);
  const added = await cli([
    'layers',
    'add',
    url,
    '--layer',
    'tas',
    '--time-scale',
    'daily',
    '--extent',
    'far',
    '--data',
    dir,
  ]);
  expect(added.code, added.stderr).toBe(0);
  const s = await startRangeServer(dir, { cors: true });
  servers.push(s);
  return s;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-foreign-ui-'));
  await mkdir(join(root, 'host'));
  execFileSync(
    '/usr/bin/python3',
    [
      '-c',
      `
import sys, numpy as np, pandas as pd, xarray as xr
t = pd.date_range('2024-01-01', periods=31, freq='D')
lat = np.round(np.arange(-33.0, -34.6, -0.05), 6); lon = np.round(np.arange(18.0, 20.0, 0.05), 6)
a = (16 + 5*np.sin(np.arange(31)/5)[:,None,None] + lat[None,:,None]*0.4 + lon[None,None,:]*0.3).astype('float32')
ds = xr.Dataset({'tas': (('time','lat','lon'), a, {'units': 'degC', 'long_name': 'Air temperature from another host'})},
  coords={'time': t, 'lat': ('lat', lat, {'units': 'degrees_north'}), 'lon': ('lon', lon, {'units': 'degrees_east'})})
ds.tas.encoding['chunks'] = (31, 8, 8)
ds.to_zarr(sys.argv[1] + '/tas.zarr')
`,
      join(root, 'host'),
    ],
    { stdio: 'pipe' },
  );
  storeHost = await startRangeServer(join(root, 'host'), { cors: true });
  servers.push(storeHost);
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  if (root) await rm(root, { recursive: true, force: true });
});

const snapshot = (page: import('playwright-core').Page) =>
  page.evaluate(() => {
    const u = (window as unknown as { cqUi: Ui }).cqUi;
    return { lastRequest: u.lastRequest, lastAnswer: u.lastAnswer };
  });

async function run(page: import('playwright-core').Page): Promise<string> {
  await page.getByRole('button', { name: 'Run query' }).click();
  await page.waitForFunction(
    () => /Answered|Failed|Cancelled|Empty/.test(document.getElementById('status')!.textContent ?? ''),
    undefined,
    { timeout: 60_000 },
  );
  return (await page.locator('#status').textContent()) ?? '';
}

describe('a layer read from another host', () => {
  it('is listed, previewed, and answers a point and a field as a Node engine allowed its origin does', async () => {
    const data = await datasetOf('ds', `${storeHost.url}tas.zarr`);
    const origin = new URL(storeHost.url).origin;
    storeHost.reset();
    const page = await openAppPage(dev.browser, `${dev.url}index.html?data=${encodeURIComponent(data.url)}`);
    expect(await page.locator('#data-error').textContent()).toBe('');
    await page.getByLabel('Climate layer').check();
    await page.getByLabel('Layer', { exact: true }).selectOption('tas');
    const engine = createNodeEngine(join(root, 'ds'), { allowOrigins: [origin] });
    try {
      await zoomTo(page, [18.9, -33.6], 12);
      await drawPoint(page, [18.9, -33.6]);
      expect(await run(page)).toMatch(/Answered/);
      let ui = await snapshot(page);
      expect(ui.lastAnswer).toEqual(await engine.query('point', ui.lastRequest!.body));
      expect(
        Object.values(ui.lastAnswer as Record<string, Record<string, number | null>>)[0]!['2024-01-01'],
      ).toBeTypeOf('number');
      await drawPolygon(page, [
        [18.895, -33.605],
        [18.905, -33.605],
        [18.905, -33.597],
        [18.895, -33.597],
      ]);
      expect(await run(page)).toMatch(/Answered/);
      ui = await snapshot(page);
      expect(ui.lastAnswer).toEqual(await engine.query('polygon', ui.lastRequest!.body));
      // The same question as a POST to the app's own API: its service worker relays it to the page's
      // engine, which reads the store where it is published.
      const viaSw = await page.evaluate(async (b) => {
        if (!navigator.serviceWorker.controller)
          await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
        const res = await fetch('./api/polygon/', { method: 'POST', body: JSON.stringify(b) });
        return { status: res.status, body: await res.json() };
      }, ui.lastRequest!.body);
      expect(viaSw.status).toBe(200);
      expect(viaSw.body).toEqual(await engine.query('polygon', ui.lastRequest!.body));
    } finally {
      await engine.close();
    }
    await page.getByRole('button', { name: 'Show layer on map' }).click();
    await expect
      .poll(() => page.locator('#status').textContent(), { timeout: 30_000 })
      .toMatch(/^Showing .* on the map\.$/);
    expect(await page.locator('#legend-min').textContent()).toMatch(/degC$/);
    await zoomTo(page, [19, -33.8], 7);
    await page.waitForTimeout(500);
    await page.screenshot({ path: `${SHOTS}ui-foreign-layer-preview.png` });
    // The store's host was asked for its chunks, nothing of the dataset's.
    expect(storeHost.log.length).toBeGreaterThan(0);
    expect(storeHost.log.every((e) => /^\/tas\.zarr\/tas\/\d+\.\d+\.\d+$/.test(e.path))).toBe(true);
    await page.close();
  });

  it('from a host that sends no CORS headers: the query fails with words, never a number', async () => {
    const bare = await startRangeServer(join(root, 'host'));
    servers.push(bare);
    const data = await datasetOf('bare', `${bare.url}tas.zarr`);
    const page = await openAppPage(dev.browser, `${dev.url}index.html?data=${encodeURIComponent(data.url)}`);
    await page.getByLabel('Climate layer').check();
    await page.getByLabel('Layer', { exact: true }).selectOption('tas');
    await zoomTo(page, [18.9, -33.6], 12);
    await drawPoint(page, [18.9, -33.6]);
    expect(await run(page)).toMatch(/Failed/);
    // The grower reads a cause and a remedy; the URL that failed is in the developer panel.
    expect(await page.locator('#error-request').textContent()).toMatch(/^The climate data could not be reached/);
    await page.locator('#developer summary').click();
    expect(await page.locator('#developer').textContent()).toContain(`${bare.url}tas.zarr`);
    await page.screenshot({ path: `${SHOTS}ui-foreign-layer-no-cors.png` });
    await page.close();
  });
});
