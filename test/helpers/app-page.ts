/**
 * Driving the map app in Chromium as a person does: open it with the
 * network cut off (only the test servers on 127.0.0.1 answer), wait for
 * the map, draw with the mouse, run a query and read the table as shown.
 * Shared by the UI test files so each asserts behaviour, not plumbing.
 */
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';

/** What the tests read of the app's console handle (window.cqUi). */
export type Ui = {
  ready: Promise<void>;
  view: { map: { project(l: [number, number]): { x: number; y: number } } };
  lastRequest?: { endpoint: string; path: string; body: Record<string, unknown> };
  lastAnswer?: unknown;
  chartData?: Array<Array<number | null>>;
  table?: {
    rows: string[];
    series: Array<{ label: string; title?: string; unit: string; values: Array<number | null> }>;
  };
};

/** Cuts the page off from everything but the test servers, as on a farm with no signal; returns the URLs it blocked. */
export async function networkOff(page: Page): Promise<string[]> {
  const blocked: string[] = [];
  await page.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => {
    blocked.push(route.request().url());
    return route.abort('internetdisconnected');
  });
  return blocked;
}

/** Waits until the map has loaded its style and tiles (bounded: 20 s). */
export async function mapIdle(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const map = (window as unknown as { cqUi: { view: { map: { loaded(): boolean; areTilesLoaded(): boolean } } } })
        .cqUi.view.map;
      return map.loaded() && map.areTilesLoaded();
    },
    undefined,
    { timeout: 20_000 },
  );
  await page.waitForTimeout(250);
}

/** Opens the app at `url` in a new page of `browser` with the network off, and waits for it and its map. */
export async function openAppPage(
  browser: Browser,
  url: string,
  size = { width: 1280, height: 800 },
  before?: (page: Page) => Promise<unknown>,
): Promise<Page> {
  const page = await browser.newPage({ viewport: size });
  // Tests never reach the internet: whatever the app asks of it fails.
  await networkOff(page);
  await before?.(page);
  await page.goto(url);
  await page.waitForFunction(() => 'cqUi' in window);
  await page.evaluate(() => (window as unknown as { cqUi: Ui }).cqUi.ready);
  // Let the map draw the stations and the basemap.
  await mapIdle(page);
  return page;
}

/** Clicks the map at a longitude/latitude. */
export async function clickAt(page: Page, lonLat: [number, number]): Promise<void> {
  // On a phone the map scrolls away under a long answer: bring all of it back into view, as a person would.
  await page.locator('#map').evaluate((m) => {
    const r = m.getBoundingClientRect();
    if (r.top < 0 || r.bottom > innerHeight) m.scrollIntoView({ block: 'start' });
  });
  const box = (await page.locator('#map').boundingBox())!;
  const p = await page.evaluate((ll) => (window as unknown as { cqUi: Ui }).cqUi.view.map.project(ll), lonLat);
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

/** Moves the map at once. */
export async function zoomTo(page: Page, center: [number, number], zoom: number): Promise<void> {
  await page.evaluate(
    ([c, z]) => {
      const map = (window as unknown as { cqUi: { view: { map: { jumpTo(o: unknown): void } } } }).cqUi.view.map;
      map.jumpTo({ center: c, zoom: z });
    },
    [center, zoom] as const,
  );
  await page.waitForTimeout(200);
}

/** Presses Run, waits (60 s at most) for the answer, expects it answered, and returns what the app holds. */
export async function runAndWait(page: Page): Promise<Ui> {
  await page.getByRole('button', { name: 'Run query' }).click();
  await page.waitForFunction(
    () => /Answered|Failed|Cancelled|Empty/.test(document.getElementById('status')!.textContent ?? ''),
    undefined,
    { timeout: 60_000 },
  );
  expect(await page.locator('#status').textContent()).toMatch(/Answered/);
  return page.evaluate(() => {
    const u = (window as unknown as { cqUi: Ui }).cqUi;
    return { lastRequest: u.lastRequest, lastAnswer: u.lastAnswer, chartData: u.chartData, table: u.table } as Ui;
  });
}

/** Presses "Run SQL" and waits (bounded) until the SQL panel shows rows or an error; returns the error ("" when it answered). */
export async function runSqlAndWait(page: Page, timeout = 60_000): Promise<string> {
  await page.locator('#sql-run').click();
  await page.waitForFunction(
    () =>
      /rows from/.test(document.getElementById('sql-status')?.textContent ?? '') ||
      (document.getElementById('sql-error')?.textContent ?? '') !== '',
    undefined,
    { timeout },
  );
  return (await page.locator('#sql-error').textContent()) ?? '';
}

/** The table as the user sees it: header labels and cell texts. */
export async function tableCells(page: Page): Promise<{ head: string[]; rows: string[][] }> {
  return page.evaluate(() => {
    const t = document.getElementById('table') as HTMLTableElement;
    return {
      head: [...t.querySelectorAll('thead th')].map((th) => th.textContent ?? ''),
      rows: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent ?? '')),
    };
  });
}

/** What the tests read of `window.cqUi` after a query. */
export type AnswerSnapshot = Pick<Ui, 'lastRequest' | 'lastAnswer' | 'chartData' | 'table'>;
