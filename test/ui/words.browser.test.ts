import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { GDD_BASE, dailyGdd, isFrostDay, utahUnits } from '../../src/builder/demo-rasters-agro.ts';
import { hourlyTemperature } from '../../src/builder/demo-weather.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { STATION_TYPES } from '../../src/contract/station-data-types.ts';
import type { Catalog } from '../../src/dataset/catalog.ts';
import { RASTER_FAMILIES } from '../../src/contract/raster-layers.ts';
import { layerDefinition } from '../../src/ui/words.ts';
import { STATION_TYPE_INFO_NAMES } from '../../src/contract/station-type-info.ts';
import { drawPoint, drawPolygon, openAppPage, runAndWait, zoomTo, type Ui } from '../helpers/app-page.ts';
import { useBuiltApp } from '../helpers/vite-app.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

const demo = inject('demoDataset');
const SHOTS = new URL('../../screens/', import.meta.url).pathname;
const dev = useBuiltApp({ 'data/demo': demo });
let catalog: Catalog;

beforeAll(async () => {
  catalog = (await catalogJson(join(demo, 'catalog.json'))) as Catalog;
}, 120_000);

const open = (size?: { width: number; height: number }) => openAppPage(dev.browser, `${dev.url}index.html`, size);
/** What is on screen outside the (closed) developer panel. */
const visibleText = (page: Page) => page.evaluate(() => document.body.innerText);
/** Contract names a person should not have to read. */
const JARGON =
  /\/api\/|POST |wkts|solar_radation|leaf_wetnes_min|temperature_max|rain_sum|POINT \(|POLYGON \(|dataExtent|"tc"|subDataType/;

describe('plain words for data types and layers', () => {
  it('every station data type of the contract has a plain name', () => {
    const all = new Set(Object.values(STATION_TYPES).flat());
    expect([...all].filter((t) => !STATION_TYPE_INFO_NAMES.includes(t))).toEqual([]);
  });

  it('station data types are offered by name and unit, the contract name only as a tooltip', async () => {
    const page = await open();
    for (const scale of ['hourly', 'daily', 'monthly'] as const) {
      await page.getByLabel('Time scale').selectOption(scale);
      const labels = await page
        .locator('#dataTypes label')
        .evaluateAll((ls) => ls.map((l) => ({ text: (l.textContent ?? '').trim(), title: (l as HTMLElement).title })));
      expect(labels.map((l) => l.title)).toEqual([...STATION_TYPES[scale]]);
      for (const l of labels) {
        // A name with a unit in brackets, and no snake_case contract name.
        expect(l.text).toMatch(/^[A-Z][^_]* \([^)]+\)$/);
      }
    }
    // A few read as a South African adviser would write them (written here, not taken from the app's table).
    await page.getByLabel('Time scale').selectOption('daily');
    expect(await page.locator('#dataTypes label[title=temperature_max]').textContent()).toBe(
      ' Air temperature, daily maximum (°C)',
    );
    expect(await page.locator('#dataTypes label[title=rain_sum]').textContent()).toBe(' Rainfall, daily total (mm)');
    expect(await page.locator('#dataTypes label[title=et0]').textContent()).toBe(
      ' Reference evapotranspiration (ET₀, FAO-56) (mm)',
    );
    await page.getByLabel('Time scale').selectOption('hourly');
    expect(await page.locator('#dataTypes label[title=solar_radation]').textContent()).toBe(
      ' Solar radiation, hourly mean (W/m²)',
    );
    await page.close();
  });

  it('layers are named by their catalog description and unit; variants by name', async () => {
    const page = await open();
    await page.getByLabel('Climate layer').check();
    const options = await page
      .locator('#dataType option')
      .evaluateAll((os) => os.map((o) => [(o as HTMLOptionElement).value, o.textContent]));
    const fromCatalog = [...new Set(catalog.rasters.map((l) => l.dataType))].map((d) => {
      const l = catalog.rasters.find((r) => r.dataType === d)!;
      return [d, `${l.description} (${l.unit})`];
    });
    expect(options).toEqual(fromCatalog);
    await page.getByLabel('Layer', { exact: true }).selectOption('chill');
    expect(await page.locator('#subDataType option').allTextContents()).toEqual(
      catalog.rasters
        .filter((l) => l.dataType === 'chill')
        .map(
          (l) =>
            ({
              dpcu: 'Daily Positive Chill Units (DPCU)',
              dpcui: 'DPCU, interim (to 30 June)',
              ucu: 'Utah chill units (UCU)',
              ucui: 'UCU, interim (to 30 June)',
            })[l.subDataType],
        ),
    );
    expect(await page.locator('#layer-info').textContent()).toMatch(
      /^Winter chill per season \(chill units\), annual values; holds 2019-07-01 to 2024-07-01\.$|^Winter chill per season \(chill units\), annual values; holds \d{4}/,
    );
    await page.close();
  });
});

describe('definitions say what the demo build computes', () => {
  // One page for the three read-only checks below, each choosing the layer it reads: opening the app
  // costs about 5 s of a page (docs/performance.md).
  let page: Page;
  beforeAll(async () => {
    page = await open();
    await page.getByLabel('Climate layer').check();
  });
  afterAll(() => page?.close());

  /** The definition shown for a layer and variant. */
  async function definitionOf(page: Page, dataType: string, sub: string): Promise<string> {
    await page.getByLabel('Layer', { exact: true }).selectOption(dataType);
    if (sub !== '-') await page.getByLabel('Variant').selectOption(sub);
    return (await page.locator('#layer-definition').textContent()) ?? '';
  }

  it('chill: the Utah bands quoted are the bands the build scores; DPCU drops negative days', async () => {
    const ucu = await definitionOf(page, 'chill', 'ucu');
    // Every band the text states, checked against the build's utahUnits at both ends.
    const bands = [...ucu.matchAll(/(−?[½\d]+) (?:unit an hour )?at (−?\d+(?:\.\d+)?)–(\d+(?:\.\d+)?) °C/g)].map(
      (m) => ({ units: m[1]!, lo: Number(m[2]), hi: Number(m[3]) }),
    );
    expect(bands.length).toBeGreaterThanOrEqual(3);
    const num = (u: string) => Number(u.replace('−', '-').replace('½', '0.5').replace('-0.5', '-0.5'));
    for (const b of bands) {
      expect(utahUnits(b.lo)).toBe(num(b.units));
      expect(utahUnits(b.hi)).toBe(num(b.units));
    }
    expect(ucu).toContain('−1 above 18 °C');
    expect(utahUnits(18.1)).toBe(-1);
    expect(ucu).toContain('1 May to 31 August');
    expect(ucu).toContain('warm spells take chill away');
    const dpcu = await definitionOf(page, 'chill', 'dpcu');
    expect(dpcu).toMatch(
      /^Daily Positive Chill Units .* a day that comes out negative counts as 0, and the days from 1 May to 31 August are summed\./,
    );
    // Its short Utah summary agrees with the build too: 1 unit at both ends of 2.5–9.1 °C, less either side, negative above 16 °C.
    expect(dpcu).toContain('1 at 2.5–9.1 °C, less either side, negative above 16 °C');
    expect([utahUnits(2.5), utahUnits(9.1), utahUnits(2.4), utahUnits(9.2), utahUnits(16), utahUnits(15.9)]).toEqual([
      1, 1, 0.5, 0.5, -0.5, 0,
    ]);
    expect(await definitionOf(page, 'chill', 'dpcui')).toContain('1 May to 30 June');
    await page.screenshot({ path: `${SHOTS}words-chill-1280.png` });
  });

  it('growing degree days: the base stated is the one the build subtracts', async () => {
    for (const sub of Object.keys(GDD_BASE)) {
      const text = await definitionOf(page, 'gdd', sub);
      const base = Number(/minus the base of ([\d.]+) °C/.exec(text)![1]);
      // A day at the base adds nothing, a day 3 °C above it adds 3: the build's own function.
      expect(dailyGdd(base - 2, base + 2, GDD_BASE[sub as keyof typeof GDD_BASE])).toBe(0);
      expect(dailyGdd(base + 1, base + 5, GDD_BASE[sub as keyof typeof GDD_BASE])).toBe(3);
      expect(text).toContain('(minimum + maximum) ÷ 2');
      expect(text).toContain('1 September of the year before to 31 March');
    }
  });

  it("a user's layer under a contract name, with words of its own, gets no borrowed definition", () => {
    expect(layerDefinition('gdd', 'apples', 'Growing degree days above 7 °C, our own model')).toBeNull();
    expect(layerDefinition('gdd', 'apples', RASTER_FAMILIES.gdd.title)).toContain(`base of ${GDD_BASE.apples} °C`);
  });

  it('frost days: a minimum below 0 °C, as the build and the station indices count', async () => {
    const text = await definitionOf(page, 'frost', '-');
    expect(text).toBe('Frost days: how many days of the month had a minimum temperature below 0 °C.');
    expect(isFrostDay(-0.1)).toBe(true);
    expect(isFrostDay(0)).toBe(false);
    // Temperature needs no definition.
    expect(await definitionOf(page, 'temp', 'mean')).toBe('');
  });
});

describe('the definitions agree with the demo layers themselves', () => {
  // Read through the Node engine: the daily temperature layers at a cold and a mild farm,
  // and the chill and frost layers at the same pixel (all on the same 0.02° grid).
  const farms: Array<[string, number, number]> = [
    ['Sutherland', 20.66, -32.4],
    ['Ceres', 19.31, -33.37],
  ];
  const engine = () => createNodeEngine(demo);

  async function daily(
    e: ReturnType<typeof createNodeEngine>,
    lon: number,
    lat: number,
    sub: string,
    from: string,
    to: string,
  ): Promise<Record<string, number | null>> {
    const a = (await e.query('point', {
      wkts: `POINT (${lon} ${lat})`,
      dataType: 'temp',
      options: { subDataType: sub, dataExtent: 'tc', timeScale: 'daily' },
      startDate: from,
      endDate: to,
    })) as Record<string, Record<string, number | null>>;
    return Object.values(a)[0]!;
  }
  async function one(
    e: ReturnType<typeof createNodeEngine>,
    lon: number,
    lat: number,
    dataType: string,
    sub: string,
    scale: string,
    date: string,
  ): Promise<number | null> {
    const a = (await e.query('point', {
      wkts: `POINT (${lon} ${lat})`,
      dataType,
      options: { subDataType: sub, dataExtent: 'tc', timeScale: scale },
      startDate: date,
      endDate: date,
    })) as Record<string, Record<string, number | null>>;
    return Object.values(Object.values(a)[0]!)[0]!;
  }

  it('frost days = days of the month with a minimum below 0 °C, counted from the daily minimum layer', async () => {
    const e = engine();
    let total = 0;
    for (const [, lon, lat] of farms) {
      for (const m of ['06', '07', '08']) {
        const last = new Date(Date.UTC(2024, Number(m), 0)).getUTCDate();
        const tmin = await daily(e, lon, lat, 'min', `2024-${m}-01`, `2024-${m}-${last}`);
        const counted = Object.values(tmin).filter((v) => v !== null && v < 0).length;
        expect(await one(e, lon, lat, 'frost', '-', 'monthly', `2024-${m}`)).toBe(counted);
        total += counted;
      }
    }
    // Frost really happens at these farms, so a wrong threshold would show.
    expect(total).toBeGreaterThan(10);
    await e.close();
  });

  it('UCU sums every hour; DPCU drops negative days — 1 May to 31 August, from the daily layers', async () => {
    // Utah scores as the definition states them, with chillR's band edges (each band excludes its lower
    // bound and includes its upper one), which the station indices and the layers now share.
    const score = (t: number) =>
      t <= 1.4 ? 0 : t <= 2.4 ? 0.5 : t <= 9.1 ? 1 : t <= 12.4 ? 0.5 : t <= 15.9 ? 0 : t <= 18 ? -0.5 : -1;
    const e = engine();
    let negativeDays = 0;
    for (const [, lon, lat] of farms) {
      const tmin = await daily(e, lon, lat, 'min', '2024-05-01', '2024-08-31');
      const tmax = await daily(e, lon, lat, 'max', '2024-05-01', '2024-08-31');
      let ucu = 0;
      let dpcu = 0;
      for (const d of Object.keys(tmin)) {
        let day = 0;
        for (let h = 0; h < 24; h++) day += score(hourlyTemperature(tmin[d]!, tmax[d]!, h));
        ucu += day;
        dpcu += Math.max(0, day);
        if (day < 0) negativeDays++;
      }
      expect(Object.keys(tmin).length).toBe(123);
      expect(Math.abs((await one(e, lon, lat, 'chill', 'ucu', 'annual', '2024'))! - ucu)).toBeLessThanOrEqual(
        0.5 + 1e-6,
      );
      expect(Math.abs((await one(e, lon, lat, 'chill', 'dpcu', 'annual', '2024'))! - dpcu)).toBeLessThanOrEqual(
        0.5 + 1e-6,
      );
    }
    // The two differ somewhere, or the test would not tell them apart.
    expect(negativeDays).toBeGreaterThan(0);
    await e.close();
  });
});

describe('the contract stays in the developer panel', () => {
  it('no contract names on screen; the panel has endpoint, request JSON and a fetch() that copies', async () => {
    const context = await dev.browser.newContext({
      viewport: { width: 1280, height: 800 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const page = await context.newPage();
    await page.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (r) => r.abort('internetdisconnected'));
    await page.goto(`${dev.url}index.html`);
    await page.evaluate(() => (window as unknown as { cqUi: Ui }).cqUi.ready);
    await drawPoint(page, [18.87, -33.93]);
    const ui = await runAndWait(page);
    expect(await page.locator('#ask-info').textContent()).toBe(
      'Records of the nearest weather station to the point (G1).',
    );
    expect(await visibleText(page)).not.toMatch(JARGON);
    // Table headings in words too.
    const head = await page.locator('#table thead th').allTextContents();
    expect(head).toEqual([
      'Period',
      ...(ui.lastRequest!.body.dataTypes as string[]).map(
        (t) =>
          ({ temperature_max: 'G1 Air temperature, daily maximum (°C)', rain_sum: 'G1 Rainfall, daily total (mm)' })[t],
      ),
    ]);
    await page.screenshot({ path: `${SHOTS}point-answer-1280.png` });

    expect(await page.locator('#developer').getAttribute('open')).toBeNull();
    await page.getByText('For developers').click();
    expect(await page.locator('#endpoint-info').textContent()).toBe('Endpoint: POST /api/nearest-station/');
    const json = (await page.locator('#request-json').textContent())!;
    expect(JSON.parse(json)).toEqual(ui.lastRequest!.body);
    await page.getByRole('button', { name: 'Copy fetch()' }).click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(await page.locator('#fetch-snippet').textContent());
    // The copied snippet works: run on this page, through the service worker, it gets the same answer.
    await page.evaluate(() => navigator.serviceWorker.ready);
    const answer = await page.evaluate(async (code) => {
      // eslint-disable-next-line @typescript-eslint/no-implied-eval
      return new Function(`return (async () => { ${code}\nreturn answer; })()`)() as Promise<unknown>;
    }, copied);
    expect(answer).toEqual(ui.lastAnswer);
    await page.screenshot({ path: `${SHOTS}developer-panel-1280.png`, fullPage: true });
    await context.close();
  });

  it('a field over the limit is "field G2" on screen; the raw message is in the panel', async () => {
    const page = await open();
    await page.getByLabel('Climate layer').check();
    await zoomTo(page, [19.05, -34.15], 13);
    await drawPolygon(page, [
      [19.04, -34.155],
      [19.05, -34.155],
      [19.05, -34.147],
      [19.04, -34.147],
    ]);
    await drawPolygon(page, [
      [19.03, -34.16],
      [19.07, -34.16],
      [19.07, -34.135],
      [19.03, -34.135],
    ]);
    const shown = (await page.locator('#error-wkts').textContent())!;
    const area =
      /^Field G2 has an area of (\d+\.\d{3}) km²; each field may be at most 2 km²\. Draw it smaller or split it\.$/.exec(
        shown,
      )?.[1];
    expect(area, shown).toBeDefined();
    // The same area in the contract's words, from the same error's params.
    expect(await page.locator('#raw-error').textContent()).toBe(
      `Raw error: wkts item 2 has an area of ${area} km²; each polygon may be at most 2 km².`,
    );
    expect(await visibleText(page)).not.toMatch(JARGON);
    await page.screenshot({ path: `${SHOTS}error-field-1280.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('#error-wkts').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}error-field-390.png` });
    await page.close();
  });
});

describe('dates read yyyy-mm-dd whatever the browser locale', () => {
  it('in an en-US Chromium the date fields show and take 2024-12-01, not 12/01/2024', async () => {
    const context = await dev.browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    const page = await context.newPage();
    await page.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (r) => r.abort('internetdisconnected'));
    await page.goto(`${dev.url}index.html`);
    await page.evaluate(() => (window as unknown as { cqUi: Ui }).cqUi.ready);
    expect(await page.evaluate(() => navigator.language)).toBe('en-US');
    const from = page.getByLabel('From', { exact: true });
    expect(await from.evaluate((i: HTMLInputElement) => [i.type, i.placeholder])).toEqual(['text', 'yyyy-mm-dd']);
    expect(await from.inputValue()).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // What is painted in the field is the value itself (a text field has no locale display).
    expect(await from.evaluate((i: HTMLInputElement) => i.value)).toBe(await from.inputValue());
    // An American date is refused next to the field, in plain words.
    await from.fill('12/01/2024');
    await from.dispatchEvent('change');
    await expect.poll(() => page.locator('#error-startDate').textContent()).toMatch(/^The From date .*12\/01\/2024/);
    await from.fill('2024-11-01');
    await from.dispatchEvent('change');
    await expect.poll(() => page.locator('#error-startDate').textContent()).toBe('');
    // Hourly: "yyyy-mm-dd hh:mm" in the field, seconds added in the request.
    await page.getByLabel('Time scale').selectOption('hourly');
    expect(await from.inputValue()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
    await from.fill('2024-06-01 06:00');
    await from.dispatchEvent('change');
    await drawPoint(page, [18.87, -33.93]);
    expect(JSON.parse((await page.locator('#request-json').textContent())!).startDate).toBe('2024-06-01T06:00:00');
    await page.getByLabel('Time scale').selectOption('monthly');
    expect(await from.evaluate((i: HTMLInputElement) => [i.type, i.placeholder])).toEqual(['text', 'yyyy-mm']);
    expect(await from.inputValue()).toMatch(/^\d{4}-\d{2}$/);
    await context.close();
  });
});
