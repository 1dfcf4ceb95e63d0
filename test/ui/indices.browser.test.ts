// "Chill and heat" in Chromium on the built site served by `climate-query
// serve --static`: after a station answer at a point and a raster answer
// for a field, one click shows every season the stations hold, and every
// number on screen is the Node engine's own answer to the same request at
// the shown precision; blanks carry their reason, the latest season is
// marked, the definitions open with one click. Screenshots go to screens/.
import { describe, expect, inject, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { IndexAnswer } from '../../src/contract/station-indices.ts';
import { drawPoint, drawPolygon, runAndWait, zoomTo } from '../helpers/app-page.ts';
import { useServedApp } from '../helpers/served-app.ts';

const demo = inject('demoDataset');
const SCREENS = new URL('../../screens/', import.meta.url).pathname;
const served = useServedApp(demo, SCREENS);

type State = { request: { path: string; body: Record<string, unknown> }; answer: unknown };
type IndicesUi = { cqUi: { ready: Promise<void>; indices: { state(): State | null } } };

const openApp = (size?: { width: number; height: number }): Promise<Page> => served.app.open(size);

/** Clicks "Chill and heat" and waits (bounded) for the tables. */
async function chillAndHeat(page: Page): Promise<State> {
  await page.getByRole('button', { name: 'Chill and heat', exact: true }).click();
  await page.waitForFunction(() => (window as unknown as IndicesUi).cqUi.indices.state() != null, undefined, {
    timeout: 30_000,
  });
  return (await page.evaluate(() => (window as unknown as IndicesUi).cqUi.indices.state()))!;
}

/** The tables as shown: per family, header texts and rows of cell texts. */
async function shown(page: Page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('#indices figure')].map((f) => ({
      family: (f as HTMLElement).dataset.family!,
      caption: f.querySelector('figcaption')!.textContent!,
      head: [...f.querySelectorAll('th')].map((t) => t.textContent!),
      rows: [...f.querySelectorAll('tr')].slice(1).map((tr) => ({
        latest: tr.classList.contains('latest'),
        cells: [...tr.children].map((td) => ({ text: td.textContent!, title: (td as HTMLElement).title })),
      })),
      summary: f.querySelector('.indices-summary')!.textContent!,
      blanks: f.querySelector('.indices-blanks')?.textContent ?? '',
    })),
  );
}

const fmt = (v: number | null, d: number) => (v === null ? '–' : v.toFixed(d));

describe('chill and heat in the app', () => {
  it('a point after a station answer: every season the stations hold, each number the engine’s own at the shown precision', async () => {
    const page = await openApp();
    await drawPoint(page, [19.31, -33.37]);
    await runAndWait(page);
    const state = await chillAndHeat(page);
    expect(state.request.path).toBe('/api/station-indices/');
    expect(state.request.body).toMatchObject({
      wkts: 'POINT (19.31 -33.37)',
      startDate: '2023-01-01',
      endDate: '2024-12-31',
      options: { by: 'season' },
    });
    // The independent side: the Node engine asked the same request.
    const direct = (await served.app.engine.stationIndices(state.request.body as never)) as Record<
      string,
      { indices: Record<string, IndexAnswer> }
    >;
    expect(state.answer).toEqual(direct);
    const indices = direct['POINT (19.31 -33.37)']!.indices;
    const tables = await shown(page);
    expect(tables.map((t) => t.family)).toEqual(['chill', 'heat', 'frost']);
    expect(tables[0]!.caption).toBe('Winter chill, 1 May – 31 August');
    expect(tables[1]!.caption).toBe('Growing-season heat, 1 September – 31 March');
    // Headers in words, each unit said once.
    expect(tables.map((t) => t.head)).toEqual([
      ['Season', 'Chill portions (Dynamic Model)', 'Daily positive Utah chill units', 'Hours known'],
      // The base the engine used (the default: grapes' 10 °C) said in the column's heading.
      ['Season', 'Growing degree days, base 10 °C (°C·d)', 'Growing degree hours (°C·h)', 'Hours known'],
      ['Season', 'Days with a minimum below 0 °C', 'Hours below 0 °C', 'Hours known'],
    ]);
    const order = {
      chill: ['chill_portions', 'dpcu'],
      heat: ['gdd', 'gdh'],
      frost: ['frost_days', 'frost_hours'],
    } as const;
    let checked = 0;
    for (const t of tables) {
      const names = order[t.family as keyof typeof order];
      const labels = Object.keys(indices[names[0]]!.periods);
      expect(t.rows).toHaveLength(labels.length);
      labels.forEach((label, i) => {
        const row = t.rows[i]!;
        expect(row.latest).toBe(i === labels.length - 1);
        names.forEach((n, k) => {
          const p = indices[n]!.periods[label]!;
          expect(row.cells[k + 1]!.text, `${t.family} ${label} ${n}`).toBe(
            fmt(p.value, n === 'chill_portions' ? 1 : 0),
          );
          // A blank says why, next to it, and in words under its table.
          if (p.value === null) {
            expect(row.cells[k + 1]!.title).toBe(p.reason);
            expect(t.blanks).toContain(`${row.cells[0]!.text.replace(' (part)', '')}: `);
          }
          checked++;
        });
        const p0 = indices[names[0]]!.periods[label]!;
        expect(row.cells[names.length + 1]!.text).toBe(
          `${Math.floor((p0.hours_used / p0.hours_expected) * 1000) / 10} %`,
        );
      });
    }
    expect(checked).toBeGreaterThanOrEqual(12);
    // The 2024 chill season against 2023's, in words, with how few there are to compare with.
    const cp = indices.chill_portions!.periods;
    expect(tables[0]!.summary).toBe(
      `2024: ${fmt(cp['2024-05-01/2024-08-31']!.value, 1)} chill portions. The other whole season: ${fmt(cp['2023-05-01/2023-08-31']!.value, 1)} chill portions. Only 1 other season to compare with.`,
    );
    // Heat seasons clipped by the record's ends are marked as parts of their season.
    expect(tables[1]!.rows.map((r) => r.cells[0]!.text)).toEqual(['2022/23 (part)', '2023/24', '2024/25 (part)']);
    // Definitions one click away.
    await expect.poll(() => page.locator('#indices-definitions p').first().isVisible()).toBe(false);
    await page.locator('#indices-definitions summary').click();
    expect(await page.locator('#indices-definitions').textContent()).toContain('Linsley-Noakes');
    await page.locator('#indices').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENS}indices-point-1280x800.png`, fullPage: true });
    await page.locator('#indices').screenshot({ path: `${SCREENS}indices-panel-1280.png` });
    await page.close();
  });

  it("a field on a phone: the nearest station to the field's centre", async () => {
    const page = await openApp({ width: 390, height: 844 });
    await page.check('input[name=source][value=raster]');
    await page.selectOption('#dataType', 'temp');
    await zoomTo(page, [19.035, -34.147], 13);
    await drawPolygon(page, [
      [19.031, -34.15],
      [19.04, -34.15],
      [19.04, -34.144],
      [19.031, -34.144],
    ]);
    await runAndWait(page);
    const state = await chillAndHeat(page);
    const wkt = String(state.request.body.wkts);
    expect(wkt).toMatch(/^POINT \(19\.03\d+ -34\.14\d+\)$/);
    expect(await page.locator('#indices-body').textContent()).toContain(
      "From the nearest station to the field's centre.",
    );
    expect(state.answer).toEqual(await served.app.engine.stationIndices(state.request.body as never));
    await page.locator('#indices').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENS}indices-field-390x844.png`, fullPage: true });
    await page.close();
  });
});
