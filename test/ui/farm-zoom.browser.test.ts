// The offline map at farm zoom, in Chromium with no connection: the bundled
// basemap has towns, not roads, so from zoom 11 a line says that detail needs
// a connection, and the shapes of answers saved on this device stay outlined
// and named on the map — a grower finds "Block 7" by the field drawn there
// last week, even after clearing the drawing (docs/basemaps.md).
import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { openAppPage, runAndWait, zoomTo } from '../helpers/app-page.ts';
import { useBuiltApp } from '../helpers/vite-app.ts';

const demo = inject('demoDataset');
const SHOTS = new URL('../../screens/', import.meta.url).pathname;
const dev = useBuiltApp({ 'data/demo': demo });

const FIELD: Array<[number, number]> = [
  [19.04, -34.155],
  [19.05, -34.155],
  [19.05, -34.147],
  [19.04, -34.147],
  [19.04, -34.155],
];
const BLOCK_7 = JSON.stringify({
  type: 'Feature',
  properties: { name: 'Block 7' },
  geometry: { type: 'Polygon', coordinates: [FIELD] },
});

/** The features of the saved-shapes source, as the map holds them. */
const savedOnMap = (page: Page) =>
  page.evaluate(() => {
    const map = (
      window as unknown as {
        cqUi: { view: { map: { getStyle(): { sources: Record<string, { data?: unknown }> } } } };
      }
    ).cqUi.view.map;
    const data = map.getStyle().sources['climate-query:saved-shapes']?.data as
      | { features: Array<{ geometry: { type: string }; properties: { label: string } }> }
      | undefined;
    return (data?.features ?? []).map((f) => ({ type: f.geometry.type, label: f.properties.label }));
  });

describe('the offline map at farm zoom', () => {
  for (const size of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    it(`says that detail needs a connection, and keeps saved fields outlined and named (${size.width} px)`, async () => {
      const page = await openAppPage(dev.browser, `${dev.url}index.html`, size);
      const detail = page.locator('#map-detail');
      await zoomTo(page, [19.045, -34.151], 8);
      expect(await detail.textContent()).toBe('');
      await zoomTo(page, [19.045, -34.151], 13);
      await expect
        .poll(() => detail.textContent())
        .toMatch(/^The offline map shows towns only at this zoom: roads and farms need a connection/);
      expect(await detail.textContent()).not.toMatch(/saved/);
      expect(await savedOnMap(page)).toEqual([]);

      // A named field pasted, its layer value asked: the answer is saved on the device.
      await page.getByLabel('Climate layer').check();
      await page.getByLabel('Layer', { exact: true }).selectOption('temp');
      await page.locator('#shape-text-box summary').click();
      await page.locator('#shape-text').fill(BLOCK_7);
      await page.getByRole('button', { name: 'Add to map' }).click();
      await runAndWait(page);
      await expect.poll(() => savedOnMap(page), { timeout: 10_000 }).toEqual([{ type: 'Polygon', label: 'Block 7' }]);
      await expect.poll(() => detail.textContent()).toMatch(/Shapes you saved are outlined in grey\.$/);
      // The saved answer is listed under the field's own name too.
      expect(await page.locator('#saved-list .saved-open').first().textContent()).toMatch(/^G1 \(Block 7\) field of /);

      // Cleared from the drawing, the saved field stays on the map; and after a reload.
      await page.getByRole('button', { name: 'Clear', exact: true }).click();
      expect(await savedOnMap(page)).toEqual([{ type: 'Polygon', label: 'Block 7' }]);
      await page.reload();
      await page.waitForFunction(() => 'cqUi' in window);
      await page.evaluate(() => (window as unknown as { cqUi: { ready: Promise<void> } }).cqUi.ready);
      await expect.poll(() => savedOnMap(page), { timeout: 10_000 }).toEqual([{ type: 'Polygon', label: 'Block 7' }]);
      await zoomTo(page, [19.045, -34.151], 13);
      await page.waitForTimeout(500);
      await page.screenshot({ path: `${SHOTS}farm-zoom-saved-${size.width}.png` });
      await page.close();
    });
  }
});
