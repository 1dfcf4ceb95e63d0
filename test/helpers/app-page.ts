/**
 * Driving the map app in Chromium as a user does: wait for the map to
 * draw, click on the map at a longitude/latitude, draw points and fields
 * with terra-draw's tools, run the query. Shared by the UI test files.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** What the tests read of `window.cqUi` after a query. */
export interface AnswerSnapshot {
  lastRequest?: { endpoint: string; path: string; body: Record<string, unknown> };
  lastAnswer?: unknown;
  chartData?: Array<Array<number | null>>;
  table?: { rows: string[]; series: Array<{ label: string; unit?: string; values: Array<number | null> }> };
}

type MapUi = { cqUi: { view: { map: { project(l: [number, number]): { x: number; y: number }; loaded(): boolean; areTilesLoaded(): boolean } } } };

/** Cuts the page off from everything but the test server, as on a farm with no signal; returns the blocked URLs. */
export async function networkOff(page: Page): Promise<string[]> {
  const blocked: string[] = [];
  await page.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => {
    blocked.push(route.request().url());
    return route.abort('internetdisconnected');
  });
  return blocked;
}

/** Waits (bounded) until the map has loaded its style and tiles, then a moment for the last frame. */
export async function mapIdle(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const map = (window as unknown as MapUi).cqUi.view.map;
    return map.loaded() && map.areTilesLoaded();
  }, undefined, { timeout: 20_000 });
  await page.waitForTimeout(250);
}

/** A mouse click on the map at [lon, lat]. */
export async function clickAt(page: Page, lonLat: [number, number]): Promise<void> {
  const box = (await page.locator('#map').boundingBox())!;
  const p = await page.evaluate((ll) => (window as unknown as MapUi).cqUi.view.map.project(ll), lonLat);
  await page.mouse.click(box.x + p.x, box.y + p.y);
  await page.waitForTimeout(120);
}

/** Draws a point with the Point tool. */
export async function drawPoint(page: Page, lonLat: [number, number]): Promise<void> {
  await page.getByRole('button', { name: 'Point', exact: true }).click();
  await clickAt(page, lonLat);
}

/** Draws a field with the Polygon tool, closing it on its first vertex. */
export async function drawPolygon(page: Page, ring: Array<[number, number]>): Promise<void> {
  await page.getByRole('button', { name: 'Polygon', exact: true }).click();
  for (const v of ring) await clickAt(page, v);
  await clickAt(page, ring[0]!);
}

/** Clicks Run query, waits (bounded) for the status to settle, expects an answer, and returns what the page holds of it. */
export async function runAndWait(page: Page): Promise<AnswerSnapshot> {
  await page.getByRole('button', { name: 'Run query' }).click();
  await page.waitForFunction(() => /Answered|Failed|Cancelled/.test(document.getElementById('status')!.textContent ?? ''), undefined, { timeout: 60_000 });
  expect(await page.locator('#status').textContent()).toMatch(/Answered/);
  return page.evaluate(() => {
    const u = (window as unknown as { cqUi: AnswerSnapshot }).cqUi;
    return { lastRequest: u.lastRequest, lastAnswer: u.lastAnswer, chartData: u.chartData, table: u.table };
  });
}
