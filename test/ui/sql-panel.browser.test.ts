// The SQL panel as a user drives it in Chromium: nothing of DuckDB loads
// until the first SQL run, every byte comes from the app's own origin (no
// CDN, works offline), and the table and CSV equal native DuckDB's answer
// to the same request in Node.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import type { ClimateEngine } from '../../src/engine/engine.ts';
import { runSqlAndWait } from '../helpers/app-page.ts';
import { useViteApp } from '../helpers/vite-app.ts';
import { SQL_EXAMPLES } from '../../src/ui/sql-examples.ts';

const demo = inject('demoDataset');
const SHOTS = new URL('../../test-results/', import.meta.url).pathname;
const dev = useViteApp({ 'data/demo': demo });
let engine: ClimateEngine;

beforeAll(async () => {
  engine = createNodeEngine(demo);
});
afterAll(async () => {
  await engine?.close();
});

async function openApp(): Promise<{ page: Page; requests: string[]; offsite: string[] }> {
  const page = await dev.browser.newPage({ viewport: { width: 1280, height: 800 } });
  const requests: string[] = [];
  const offsite: string[] = [];
  // A farm with no signal: only the app's own server answers.
  await page.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => {
    offsite.push(route.request().url());
    return route.abort('internetdisconnected');
  });
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${dev.url}index.html`);
  await page.waitForFunction(() => 'cqUi' in window);
  await page.evaluate(() => (window as unknown as { cqUi: { ready: Promise<void> } }).cqUi.ready);
  return { page, requests, offsite };
}

describe('SQL panel', () => {
  it('loads DuckDB-WASM only when asked, from the app itself, and answers as native DuckDB does', async () => {
    const { page, requests, offsite } = await openApp();
    const duck = () => requests.filter((u) => /duckdb/i.test(u));
    expect(duck()).toEqual([]);

    await page.getByText('SQL over station records').click();
    const stations = (await engine.stations()).slice(0, 3).map((s) => s.id);
    await page.locator('#sql-stations').fill(stations.join(', '));
    const example = SQL_EXAMPLES.findIndex((x) => /wettest/.test(x.title));
    await page.locator('#sql-example').selectOption(String(example));
    await expect.poll(() => page.locator('#sql-timeScale').inputValue()).toBe('daily');
    const from = await page.locator('#sql-from').inputValue();
    const to = await page.locator('#sql-to').inputValue();
    expect(from).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(await runSqlAndWait(page)).toBe('');

    // The same request, answered in Node by native DuckDB.
    const want = await engine.sql({
      sql: SQL_EXAMPLES[example]!.sql,
      stations,
      timeScale: 'daily',
      startDate: from,
      endDate: to,
    });
    expect(want.rows.length).toBe(10);
    const headers = await page.locator('#sql-table th').allTextContents();
    expect(headers).toEqual(want.columns.map((c) => c.name));
    const cells = await page
      .locator('#sql-table tbody tr')
      .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));
    expect(cells).toEqual(want.rows.map((r) => r.map((v) => (v === null ? '' : String(v)))));

    // DuckDB came from the app's own server; nothing left the machine.
    expect(duck().length).toBeGreaterThan(0);
    expect(duck().every((u) => u.startsWith(dev.url))).toBe(true);
    expect(offsite).toEqual([]);

    // Bad SQL: DuckDB's own words, and no stale table.
    await page.locator('#sql-text').fill('SELECT nope FROM observations');
    await page.locator('#sql-run').click();
    await expect.poll(() => page.locator('#sql-error').textContent(), { timeout: 30_000 }).toMatch(/nope/);
    expect(await page.locator('#sql-table tr').count()).toBe(0);

    // Not a read-only query: refused before DuckDB is asked.
    await page.locator('#sql-text').fill('DROP TABLE observations');
    await page.locator('#sql-run').click();
    await expect.poll(() => page.locator('#sql-error').textContent(), { timeout: 30_000 }).toMatch(/read-only/);

    await page.locator('#sql-example').selectOption(String(SQL_EXAMPLES.findIndex((x) => /Frost/.test(x.title))));
    await page.locator('#sql-run').click();
    await page.waitForFunction(
      () => /rows from/.test(document.getElementById('sql-status')?.textContent ?? ''),
      undefined,
      { timeout: 60_000 },
    );
    await page.screenshot({ path: `${SHOTS}ui-sql-panel.png`, fullPage: true });
    await page.close();
  });
});
