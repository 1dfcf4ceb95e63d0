/**
 * The demo agrees with itself where a grower looks: at the Stellenbosch
 * station, the chill the station's records give in "Chill and heat" and the
 * `chill/dpcu` layer at the same place and at a field 2.5 km away tell the
 * same story, and the dataset notice no longer has to warn that they do
 * not. (test/dataset/demo-agreement.int.test.ts checks every demo station.)
 */
import { describe, expect, inject, it } from 'vitest';
import { drawPoint, drawPolygon, runAndWait, zoomTo } from '../helpers/app-page.ts';
import { useServedApp } from '../helpers/served-app.ts';

const demo = inject('demoDataset');
const SCREENS = new URL('../../screens/', import.meta.url).pathname;
const served = useServedApp(demo, SCREENS);

/** Stellenbosch 1: a demo station whose listed height is its pixel's (402 m against 403 m). */
const STATION: [number, number] = [18.861, -33.947];

describe('the demo agrees with itself in the app', () => {
  it("a station's chill and the chill layer at it and at a field 2.5 km away", async () => {
    const page = await served.app.open({ width: 1280, height: 800 });
    expect(await page.locator('#dataset-notice').textContent()).toMatch(/same synthetic weather/);
    expect(await page.locator('#dataset-notice').textContent()).not.toMatch(/do not agree/);

    // Station records at the station, then "Chill and heat": the 2024 winter's daily positive chill units.
    await drawPoint(page, STATION);
    await runAndWait(page);
    await page.getByRole('button', { name: 'Chill and heat', exact: true }).click();
    const row = page.locator('#indices figure[data-family=chill] tr', { hasText: '2024' }).first();
    await expect.poll(() => row.count(), { timeout: 30_000 }).toBe(1);
    const heads = await page.locator('#indices figure[data-family=chill] th').allTextContents();
    const column = heads.indexOf('Daily positive Utah chill units');
    expect(column).toBeGreaterThan(0);
    const station = Number((await row.locator('td, th').nth(column).textContent())!.replace(/\s/g, ''));
    expect(station).toBeGreaterThan(500);

    // The chill layer's 2024 season at the same point, then for a field about 2.5 km east.
    await page.check('input[name=source][value=raster]');
    await page.selectOption('#dataType', 'chill');
    await page.getByLabel('Variant').selectOption('dpcu');
    const layerAt = async () => {
      const ui = await runAndWait(page);
      const i = ui.table!.rows.findIndex((r) => r.startsWith('2024'));
      return ui.table!.series[0]!.values[i]!;
    };
    const here = await layerAt();
    await page.getByRole('button', { name: 'Clear' }).click();
    await zoomTo(page, [18.888, -33.947], 13);
    await drawPolygon(page, [
      [18.883, -33.951],
      [18.893, -33.951],
      [18.893, -33.943],
      [18.883, -33.943],
    ]);
    const field = await layerAt();

    // Before the demo had one weather the station gave 1,531 against the layer’s 970 here and 1,002 at the field.
    expect(Math.abs(here - station) / station).toBeLessThan(0.05);
    expect(Math.abs(field - station) / station).toBeLessThan(0.1);
    await page.screenshot({ path: `${SCREENS}demo-agreement-field-1280x800.png` });
    await page.close();
  });
});
