/**
 * axe-core (@axe-core/playwright) over the app in Chromium at 1280 × 800 and at a phone's 390 × 844,
 * in each main state with its panels open: empty; a station point's answer with the developer
 * panel and "Chill and heat" open; a field's answer with the SQL panel open. WCAG 2.1 A and AA:
 * no violation. At the phone's width the results table says it scrolls and keeps its first
 * column in view.
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { drawPoint, drawPolygon, openAppPage, runAndWait } from '../helpers/app-page.ts';
import { useBuiltApp } from '../helpers/vite-app.ts';

const dev = useBuiltApp({ 'data/demo': inject('demoDataset') });

/** axe's violations, each as its rule and the elements it names. */
async function violations(page: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page: page as never })
    // In the page itself (the app has no frames): the tests' pages are not opened from a shared context.
    .setLegacyMode(true)
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    // The map's canvas and its tiles are MapLibre's; the app's own controls over it are checked.
    .exclude('.maplibregl-canvas-container')
    .analyze();
  return r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe.each([
  ['1280×800', { width: 1280, height: 800 }],
  ['390×844', { width: 390, height: 844 }],
] as const)('axe-core at %s', (_name, size) => {
  it('finds no WCAG 2.1 A/AA violation in any main state, with every panel open', async () => {
    const page = await openAppPage(dev.browser, `${dev.url}index.html`, size);
    expect({ state: 'empty', found: await violations(page) }).toEqual({ state: 'empty', found: [] });

    await page.getByLabel('Time scale').selectOption('daily');
    await page
      .locator('#dataTypes input[type=checkbox]')
      .evaluateAll((boxes) => boxes.slice(0, 5).forEach((b) => ((b as HTMLInputElement).checked = true)));
    await page.locator('#dataTypes input[type=checkbox]').first().dispatchEvent('change');
    await drawPoint(page, [18.861, -33.947]);
    await runAndWait(page);
    await page.locator('#developer summary').click();
    await page.getByRole('button', { name: 'Chill and heat', exact: true }).click();
    await expect.poll(() => page.locator('#indices figure').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    expect({ state: 'point', found: await violations(page) }).toEqual({ state: 'point', found: [] });
    if (size.width < 500) {
      // The value columns scroll inside the table, which says so; the period column stays in view.
      const wrap = page.locator('#table-wrap');
      const wide = await wrap.evaluate((w) => w.scrollWidth > w.clientWidth);
      expect(await page.locator('#table-scroll-hint').isVisible()).toBe(wide);
      await wrap.evaluate((w) => w.scrollBy(400, 0));
      const first = (await page.locator('#table tbody tr td').first().boundingBox())!;
      const box = (await wrap.boundingBox())!;
      expect(Math.abs(first.x - box.x)).toBeLessThan(2);
    }

    await page.getByRole('button', { name: 'Clear' }).click();
    await drawPolygon(page, [
      [18.7, -34.2],
      [19.5, -34.2],
      [19.5, -33.6],
      [18.7, -33.6],
    ]);
    await runAndWait(page);
    await page.locator('#sql-panel > summary').click();
    expect({ state: 'field', found: await violations(page) }).toEqual({ state: 'field', found: [] });
    await page.close();
  });
});
