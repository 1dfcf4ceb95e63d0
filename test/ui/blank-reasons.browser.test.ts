// Every blank has a reason a person can read next to it, in Chromium on
// Vite's dev server: swapped coordinates are named before anything is sent
// and the answer from a station thousands of kilometres away is flagged; a
// field with no station inside says so (no empty chart, nothing offered to
// compare); a blank monthly total says which rule left it blank.
import { describe, expect, inject, it } from 'vitest';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { drawPolygon, openAppPage, zoomTo } from '../helpers/app-page.ts';
import { useBuiltApp } from '../helpers/vite-app.ts';

const demo = inject('demoDataset');
const app = useBuiltApp({ 'data/demo': demo });

const waitForEnd = (page: import('playwright-core').Page) =>
  page.waitForFunction(
    () => /Answered|Failed|Empty|Not run/.test(document.getElementById('status')!.textContent ?? ''),
    undefined,
    { timeout: 60_000 },
  );

describe('blanks and doubtful places have reasons', () => {
  it('swapped coordinates: a warning by the point before running, and the engine’s refusal after', async () => {
    const page = await openAppPage(app.browser, `${app.url}index.html`);
    await page.locator('#shape-text-box summary').click();
    await page.fill('#shape-text', 'POINT (-33.93 18.86)');
    await page.click('#add-shape');
    const item = (await page.locator('#geometry-list li').first().textContent())!;
    expect(item).toContain('with its two numbers swapped it would lie inside');
    expect(item).toContain('POINT (18.86 -33.93)');
    await page.getByRole('button', { name: 'Run query' }).click();
    await waitForEnd(page);
    // The engine refuses it rather than answer from a station thousands of kilometres away.
    expect(await page.locator('#status').textContent()).toMatch(/Failed/);
    const said = await page.evaluate(() => document.body.innerText);
    expect(said).toContain('with its two numbers swapped (POINT (18.86 -33.93))');
    expect(said).toContain('longitude first, then latitude');
    await page.close();
  });

  it('a field with no station inside: one sentence why, no empty chart, no comparison offered', async () => {
    const ring: Array<[number, number]> = [
      [22.0, -31.5],
      [22.01, -31.5],
      [22.01, -31.49],
      [22.0, -31.49],
    ];
    // Independently: the Node engine finds no station in it.
    const engine = createNodeEngine(demo);
    const res = await engine.polyAggregate({
      wkts: `POLYGON ((${[...ring, ring[0]!].map(([x, y]) => `${x} ${y}`).join(', ')}))`,
      dataTypes: ['temperature_max'],
      options: { timeScale: 'daily' },
      startDate: '2024-06-01',
      endDate: '2024-06-30',
    });
    await engine.close();
    expect(Object.keys(res.stations_metadata)).toHaveLength(0);
    const page = await openAppPage(app.browser, `${app.url}index.html`);
    await zoomTo(page, [22.005, -31.495], 13);
    await drawPolygon(page, ring);
    const before = (await page.locator('#run').boundingBox())!;
    await page.getByRole('button', { name: 'Run query' }).click();
    await waitForEnd(page);
    expect(await page.locator('#no-data').textContent()).toContain(
      'No weather station with records for these dates lies inside this field',
    );
    expect(await page.locator('#chart').innerHTML()).toBe('');
    expect(await page.getByRole('button', { name: 'Compare with other years' }).isVisible()).toBe(false);
    // The status gives the real reason, and nothing empty is offered for download.
    expect(await page.locator('#status').textContent()).toMatch(
      /^Empty: no station with records lies inside this field/,
    );
    expect(await page.locator('#download-csv').isDisabled()).toBe(true);
    // A long status never moves or wraps the Run button: it has a line of its own.
    const after = (await page.locator('#run').boundingBox())!;
    expect([after.x, after.y, after.width, after.height]).toEqual([before.x, before.y, before.width, before.height]);
    await page.close();
  });
});
