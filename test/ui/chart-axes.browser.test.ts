/**
 * Chart axes fit the data: frost days per month are totals, drawn as bars
 * from zero to just above the largest count, and a month-by-month series of
 * zeros does not get an axis running to 100 days.
 */
import { describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { drawPoint, runAndWait } from '../helpers/app-page.ts';
import { useServedApp } from '../helpers/served-app.ts';

const demo = inject('demoDataset');
const SCREENS = new URL('../../screens/', import.meta.url).pathname;
const served = useServedApp(demo, SCREENS);

type ChartUi = {
  cqUi: {
    chart: {
      scales: Record<string, { min: number; max: number }>;
      series: Array<{ label: string; scale: string; paths?: unknown }>;
      data: Array<Array<number | null>>;
    };
  };
};

/** The frost layer at a point: the y scale the chart drew and the values it holds. */
async function frostChart(page: Page, at: [number, number]) {
  await page.check('input[name=source][value=raster]');
  await page.selectOption('#dataType', 'frost');
  await drawPoint(page, at);
  await runAndWait(page);
  return page.evaluate(() => {
    const u = (window as unknown as ChartUi).cqUi.chart;
    const s = u.series[1]!;
    return {
      scale: u.scales[s.scale]!,
      values: u.data[1]!.filter((v): v is number => v !== null),
      bars: typeof s.paths === 'function',
    };
  });
}

describe('chart axes fit the data', () => {
  it('frost days at a frosty place: bars from zero to just above the largest month', async () => {
    const page = await served.app.open({ width: 1280, height: 800 });
    const c = await frostChart(page, [20.66, -32.4]); // Sutherland
    const top = Math.max(...c.values);
    expect(c.values).toHaveLength(12);
    expect(top).toBeGreaterThan(5);
    expect(c.bars).toBe(true);
    expect(c.scale.min).toBe(0);
    expect(c.scale.max).toBeGreaterThanOrEqual(top);
    expect(c.scale.max).toBeLessThanOrEqual(top * 1.1);
    await page.locator('#chart').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENS}frost-sutherland-1280x800.png` });
    await page.close();
  });

  it('frost days where it never frosts: an axis of one day, not of a hundred', async () => {
    const page = await served.app.open({ width: 390, height: 844 });
    const c = await frostChart(page, [18.86, -33.93]); // Stellenbosch
    expect(c.values).toHaveLength(12);
    expect(Math.max(...c.values)).toBe(0);
    expect(c.scale.min).toBe(0);
    expect(c.scale.max).toBeLessThanOrEqual(1);
    await page.close();
  });
});
