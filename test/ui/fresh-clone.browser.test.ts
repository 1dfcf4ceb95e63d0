/**
 * `npm start` on a fresh clone: Vite's dev server with an empty dependency
 * cache and hot reload on. The first query of each kind must not make Vite
 * discover a dependency late and reload the page mid-query (the raster
 * reader's geotiff.js did: "new dependencies optimized: geotiff … reloading").
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { drawPoint, openAppPage, runAndWait, runSqlAndWait } from '../helpers/app-page.ts';
import { launchChromium, startVite } from '../helpers/browser.ts';

let browser: Browser;
let vite: { server: ViteDevServer; url: string };
let cache: string;

beforeAll(async () => {
  cache = await mkdtemp(join(tmpdir(), 'cq-vite-cache-'));
  browser = await launchChromium();
  vite = await startVite({ 'data/demo': inject('demoDataset') }, { asNpmStart: { cacheDir: cache } });
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await vite?.server.close();
  await rm(cache, { recursive: true, force: true });
});

describe('npm start on a fresh clone', () => {
  it('a first station query, climate-layer query, chill and SQL, and no reload of the page', async () => {
    let navigations = 0;
    const page = await openAppPage(browser, `${vite.url}index.html`, undefined, async (p) => {
      // Whole loads only (the app writes its view into the URL, which is a same-document navigation).
      p.on('load', () => navigations++);
    });
    expect(navigations).toBe(1);
    await drawPoint(page, [18.86, -33.93]);
    expect((await runAndWait(page)).lastRequest!.endpoint).toBe('nearest-station');
    await page.getByLabel('Climate layer').check();
    await page.getByLabel('Layer', { exact: true }).selectOption('temp');
    expect((await runAndWait(page)).lastRequest!.endpoint).toBe('point');
    await page.getByRole('button', { name: 'Show layer on map' }).click();
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toMatch(/^Showing /);
    // Chill and heat at the point: the indices' modules load on first use too.
    await page.getByRole('button', { name: 'Chill and heat', exact: true }).click();
    await expect.poll(() => page.locator('#indices figure').count(), { timeout: 30_000 }).toBe(3);
    // SQL over station records: DuckDB-WASM and what it imports, loaded on first use.
    await page.getByText('SQL over station records').click();
    await page.locator('#sql-stations').fill('SYN-001');
    expect(await runSqlAndWait(page, 120_000)).toBe('');
    // Still the page the person opened: nothing reloaded it.
    expect(navigations).toBe(1);
    await page.close();
  });
});
