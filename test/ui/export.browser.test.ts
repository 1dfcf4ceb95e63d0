// A CSV a person can file, and numbers at the data's precision, in
// Chromium on Vite's dev server: the file is named from the place, the data
// and the dates; its notes (after the data) say which station (name, position,
// elevation, distance), which shape (WKT), which time zone, which dataset
// and which query; its headings are words with units; and every value is
// the engine's (Node, asked independently) at the type's own step, as the
// table on screen shows it.
import { readFile } from 'node:fs/promises';
import { describe, expect, inject, it } from 'vitest';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { stationTypeInfo } from '../../src/contract/station-type-info.ts';
import { drawPoint, drawPolygon, openAppPage, runAndWait, tableCells, zoomTo } from '../helpers/app-page.ts';
import { useBuiltApp } from '../helpers/vite-app.ts';

const demo = inject('demoDataset');
const app = useBuiltApp({ 'data/demo': demo });

type Meta = {
  station_lat: number;
  station_lon: number;
  station_elevation: number | null;
  distance_from_point_m: number;
};

describe('CSV export', () => {
  it("nearest-station daily: named file, headings first, notes after the data, values at each type's step", async () => {
    const page = await openAppPage(app.browser, `${app.url}index.html`);
    await zoomTo(page, [18.8668, -33.9346], 11);
    await page.fill('#startDate', '2024-06-01');
    await page.fill('#endDate', '2024-06-10');
    await page.locator('#endDate').dispatchEvent('change');
    await page.locator('#dataTypes input[value=temperature_mean]').check();
    await drawPoint(page, [18.87, -33.93]);
    const ui = await runAndWait(page);
    const body = ui.lastRequest!.body;
    const engine = createNodeEngine(demo);
    const want = (await engine.nearestStation(body as never)) as Record<
      string,
      { metadata: Meta; data: Record<string, Record<string, number | null>> }
    >;
    await engine.close();
    const [wkt, answer] = Object.entries(want)[0]!;
    const index = JSON.parse(await readFile(`${demo}/catalog.json`, 'utf8')) as { name: string };

    const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 10_000 }), page.click('#download-csv')]);
    const m = answer.metadata;
    const first = (await page.locator('#metadata li').first().textContent())!;
    const station = first.slice('G1: '.length, first.indexOf(` (${m.station_lat}, ${m.station_lon})`));
    const slug = station
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '');
    expect(dl.suggestedFilename()).toBe(
      `${slug}_${(body.dataTypes as string[]).map((t) => t.replace(/_/g, '-')).join('-')}_2024-06-01_2024-06-10.csv`,
    );
    const file = await readFile((await dl.path())!);
    // A byte-order mark first, so a spreadsheet that guesses the encoding reads °C, not Â°C.
    expect([...file.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = file
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\n');
    // The headings are the first line; the notes follow the data.
    expect(lines[0]).toMatch(/^Period \(UTC\+02:00\),/);
    expect(lines.findIndex((l) => l.startsWith('# '))).toBe(lines.filter((l) => !l.startsWith('# ')).length);
    const about = lines.filter((l) => l.startsWith('# ')).join('\n');
    expect(about).toContain(`Dataset: ${index.name} (${app.url}data/demo/)`);
    // The records' sources (the catalog's attribution) travel with them.
    expect(about).toMatch(/^# Sources: Demo station records are synthetic weather/m);
    expect(about).toContain(`Query: POST ${app.url}api/nearest-station/ ${JSON.stringify(body)}`);
    expect(about).toContain(`G1: ${wkt}`);
    expect(about).toContain(
      `${station} (${m.station_lat}, ${m.station_lon}), ${m.station_elevation} m, ${(m.distance_from_point_m / 1000).toFixed(2)} km away`,
    );
    expect(about).toMatch(/local standard time, UTC\+02:00/);
    const rows = lines.filter((l) => !l.startsWith('# '));
    const types = body.dataTypes as string[];
    expect(rows[0]).toBe(
      [
        'Period (UTC+02:00)',
        ...types.map((t) =>
          `"G1 ${stationTypeInfo('daily', t).name} (${stationTypeInfo('daily', t).unit})"`.replace(/^"([^,]*)"$/, '$1'),
        ),
      ].join(','),
    );
    const keys = Object.keys(answer.data);
    expect(rows.slice(1).map((r) => r.split(',')[0])).toEqual(keys);
    // Each value at its type's step, and within half a step of the engine's.
    const screen = await tableCells(page);
    rows.slice(1).forEach((r, i) => {
      const cells = r.split(',').slice(1);
      types.forEach((t, k) => {
        const v = answer.data[keys[i]!]![t] ?? null;
        const d = stationTypeInfo('daily', t).decimals;
        if (v === null) expect(cells[k]).toBe('');
        else {
          expect(cells[k]).toBe(v.toFixed(d));
          expect(cells[k]!.split('.')[1]?.length ?? 0).toBe(d);
        }
        // The table on screen shows the same text.
        expect(screen.rows[i]![k + 1]).toBe(cells[k]);
      });
    });
    await page.close();
  });

  it('a field over a climate layer: the file says how pixels were combined, and the chart caption too', async () => {
    const page = await openAppPage(app.browser, `${app.url}index.html`);
    await page.check('input[name=source][value=raster]');
    await page.selectOption('#dataType', 'temp');
    await page.selectOption('#subDataType', 'max');
    await page.selectOption('#aggregationMethod', 'max');
    await page.fill('#startDate', '2024-01-01');
    await page.fill('#endDate', '2024-01-05');
    await page.locator('#endDate').dispatchEvent('change');
    await zoomTo(page, [19.0, -33.6], 13);
    await drawPolygon(page, [
      [18.995, -33.6],
      [19.005, -33.6],
      [19.005, -33.592],
      [18.995, -33.592],
    ]);
    const ui = await runAndWait(page);
    expect(ui.lastRequest!.endpoint).toBe('polygon');
    const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 10_000 }), page.click('#download-csv')]);
    expect(dl.suggestedFilename()).toBe('field_temp-max_2024-01-01_2024-01-05.csv');
    const text = await readFile((await dl.path())!, 'utf8');
    expect(text).toContain('# Pixels of each field combined by max');
    // The headings are the file's first row (after the byte-order mark Excel reads UTF-8 by).
    expect(text).toMatch(/^\uFEFF?Period,"G1 Daily air temperature, daily maximum, max over the field \(°C\)"\n/);
    expect(await page.locator('#chart .u-legend').textContent()).toContain('max over the field');
    // Temperatures at 0.1 °C in every cell.
    for (const row of text
      .trimEnd()
      .split('\n')
      .filter((l) => /^\d{4}-/.test(l)))
      expect(row.split(',')[1]).toMatch(/^-?\d+\.\d$/);
    await page.close();
  });
});
