/**
 * `climate-query demo`, raster half: synthesises every raster layer family
 * (demo-rasters-model.ts, demo-rasters-agro.ts), writes each as an
 * ordinary multi-band GeoTIFF input and runs it through the same
 * {@link buildRasterLayer} users run on their own files.
 *
 * Layers: temp min/mean/max daily for 2024; gdd apples/citrus/grapes and
 * chill dpcu/dpcui/ucu/ucui for the seasons 2019–2024, computed from daily
 * temperatures generated for 2018-09-01..2024-12-31 with the same model;
 * frost days per month of 2024; rain monthly median (12 calendar months)
 * and windspeed at 20/50/100/150 m on the South Africa grid. Sea pixels are
 * nodata everywhere. Deterministic: the same build every time.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { EXTENT_BBOX, type RasterDataType } from '../contract/raster-layers.ts';
import { updateCatalog } from './dataset/dataset-writer.ts';
import { CHILL_SEASON, GDD_BASE, GDD_SEASON, UtahTable, dailyGdd, isFrostDay } from './demo-rasters-agro.ts';
import {
  DEMO_RESOLUTION,
  gridFor,
  landSites,
  monthlyMedianRain,
  staticFields,
  windSpeed,
  type StaticFields,
} from './demo-rasters-model.ts';
import { DailyTemperature, SiteClimates } from './demo-weather.ts';
import { writeInputGeoTiff } from './raster-build-input.ts';
import { buildRasterLayer } from './raster-build.ts';
import { loadElevation } from './elevation.ts';
import { workFolder } from './work-folder.ts';

/** Year of the daily temperature and monthly frost layers. */
export const DEMO_YEAR = 2024;
/** Seasons (labelled by the year they end) of the gdd and chill layers. */
export const DEMO_SEASONS = [2019, 2020, 2021, 2022, 2023, 2024] as const;

const INPUT_NODATA = -9999;
const DEMO_ATTRIBUTION =
  'Synthetic (climate-query demo), not observations; terrain from ETOPO5, NOAA NGDC (public domain).';
const GDD_SUBS = ['apples', 'citrus', 'grapes'] as const;
const CHILL_SUBS = ['dpcu', 'dpcui', 'ucu', 'ucui'] as const;
const WIND_HEIGHTS = [20, 50, 100, 150] as const;

/** Options of {@link buildDemoRasters}. */
export interface DemoRasterOptions {
  /** Progress lines. */
  log?: (line: string) => void;
}

/** Builds all demo raster layers into the dataset folder `outDir` and registers them in its catalog.json. */
export async function buildDemoRasters(outDir: string, options: DemoRasterOptions = {}): Promise<void> {
  const log = options.log ?? (() => undefined);
  const started = Date.now();
  await mkdir(outDir, { recursive: true });
  const work = await workFolder('demo-rasters');
  try {
    const elevationAt = await loadElevation();
    const tc = staticFields(gridFor(EXTENT_BBOX.tc, DEMO_RESOLUTION.tc), elevationAt);
    const sa = staticFields(gridFor(EXTENT_BBOX.sa, DEMO_RESOLUTION.sa), elevationAt);

    log('simulating daily temperatures 2018-09-01..2024-12-31');
    const daily = simulate(tc);
    log(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const build = async (dataType: RasterDataType, subDataType: string, file: string) => {
      const r = await buildRasterLayer({
        dir: outDir,
        datasetName: 'demo',
        dataType,
        subDataType,
        inputs: [file],
        attribution: DEMO_ATTRIBUTION,
      });
      log(
        `  ${dataType}/${subDataType}: ${r.files.map((f) => `${f.path} ${(f.bytes / 1e6).toFixed(2)} MB`).join(', ')} (${r.seconds.toFixed(1)} s)`,
      );
    };
    const write = (
      name: string,
      f: StaticFields,
      descriptions: string[] | undefined,
      bands: Array<ArrayLike<number>> | ((b: number) => ArrayLike<number>),
      count: number,
    ) => writeLand(join(work, name), f, descriptions, typeof bands === 'function' ? bands : (b) => bands[b]!, count);

    // Daily temperatures of the demo year.
    const days = daysOf(DEMO_YEAR);
    const n = tc.landIndex.length;
    for (const sub of ['min', 'mean', 'max'] as const) {
      const file = `temp-${sub}.tif`;
      const day = new Float32Array(n);
      await write(
        file,
        tc,
        days,
        (b) => {
          const lo = daily.tmin10.subarray(b * n, (b + 1) * n);
          const hi = daily.tmax10.subarray(b * n, (b + 1) * n);
          for (let k = 0; k < n; k++) {
            // Mean = (min + max) / 2 rounded to the stored 0.1 °C.
            day[k] = sub === 'min' ? lo[k]! / 10 : sub === 'max' ? hi[k]! / 10 : Math.round((lo[k]! + hi[k]!) / 2) / 10;
          }
          return day;
        },
        days.length,
      );
      await build('temp', sub, join(work, file));
    }
    const seasons = DEMO_SEASONS.map(String);
    for (const sub of GDD_SUBS) {
      await write(`gdd-${sub}.tif`, tc, seasons, daily.gdd[sub], seasons.length);
      await build('gdd', sub, join(work, `gdd-${sub}.tif`));
    }
    for (const sub of CHILL_SUBS) {
      await write(`chill-${sub}.tif`, tc, seasons, daily.chill[sub], seasons.length);
      await build('chill', sub, join(work, `chill-${sub}.tif`));
    }
    const months = Array.from({ length: 12 }, (_, m) => `${DEMO_YEAR}-${String(m + 1).padStart(2, '0')}`);
    await write('frost.tif', tc, months, daily.frost, 12);
    await build('frost', '-', join(work, 'frost.tif'));

    log('rain and wind on the South Africa grid');
    const rain = monthlyMedianRain(sa);
    await write(
      'rain.tif',
      sa,
      Array.from({ length: 12 }, (_, m) => String(m + 1).padStart(2, '0')),
      rain,
      12,
    );
    await build('rain', 'monthly_median', join(work, 'rain.tif'));
    const wind = windSpeed(sa, [...WIND_HEIGHTS]);
    for (const [j, h] of WIND_HEIGHTS.entries()) {
      await write(`wind-${h}.tif`, sa, undefined, [wind[j]!], 1);
      await build('windspeed', String(h), join(work, `wind-${h}.tif`));
    }

    await updateCatalog(outDir, 'demo', (c) => {
      for (const line of [
        'Elevation behind the demo raster layers: ETOPO5, NOAA National Geophysical Data Center (public domain).',
        'Demo raster layers are synthetic (climate-query demo), not observations.',
      ]) {
        if (!c.attribution.includes(line)) c.attribution.push(line);
      }
    });
    log(`demo rasters built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The daily keys of `year`. */
function daysOf(year: number): string[] {
  const out: string[] = [];
  for (let t = Date.UTC(year, 0, 1); t < Date.UTC(year + 1, 0, 1); t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

interface Simulation {
  /** Tmin/Tmax of every day of the demo year, tenths of °C, day-major then land pixel. */
  tmin10: Int16Array;
  tmax10: Int16Array;
  gdd: Record<(typeof GDD_SUBS)[number], Float32Array[]>;
  chill: Record<(typeof CHILL_SUBS)[number], Float32Array[]>;
  frost: Float32Array[];
}

/** Runs the weather from 1 Sep 2018 (start of the first gdd season) to 31 Dec of the demo year, accumulating every index. */
function simulate(tc: StaticFields): Simulation {
  const n = tc.landIndex.length;
  const weather = new DailyTemperature(new SiteClimates(landSites(tc)));
  const utah = new UtahTable();
  const perSeason = () => DEMO_SEASONS.map(() => new Float32Array(n));
  const gdd = { apples: perSeason(), citrus: perSeason(), grapes: perSeason() };
  const chill = { dpcu: perSeason(), dpcui: perSeason(), ucu: perSeason(), ucui: perSeason() };
  const frost = Array.from({ length: 12 }, () => new Float32Array(n));
  const yearDays = daysOf(DEMO_YEAR).length;
  const tmin10 = new Int16Array(yearDays * n);
  const tmax10 = new Int16Array(yearDays * n);
  const first = Date.UTC(DEMO_SEASONS[0] - 1, GDD_SEASON.startMonth - 1, GDD_SEASON.startDay);
  const last = Date.UTC(DEMO_YEAR, 11, 31);
  const afterOrOn = (m: number, d: number, m0: number, d0: number) => m > m0 || (m === m0 && d >= d0);
  const beforeOrOn = (m: number, d: number, m1: number, d1: number) => m < m1 || (m === m1 && d <= d1);

  for (let t = first; t <= last; t += 86_400_000) {
    const date = new Date(t);
    const y = date.getUTCFullYear();
    const m = date.getUTCMonth() + 1;
    const d = date.getUTCDate();
    weather.step(date);
    const lo = weather.tmin10;
    const hi = weather.tmax10;

    // GDD season: Sep 1 (y−1) .. Mar 31 (y), labelled y.
    const gddSeason = afterOrOn(m, d, GDD_SEASON.startMonth, GDD_SEASON.startDay)
      ? y + 1
      : beforeOrOn(m, d, GDD_SEASON.endMonth, GDD_SEASON.endDay)
        ? y
        : null;
    const gi = gddSeason === null ? -1 : DEMO_SEASONS.indexOf(gddSeason as (typeof DEMO_SEASONS)[number]);
    if (gi >= 0) {
      for (const sub of GDD_SUBS) {
        const acc = gdd[sub][gi]!;
        const base = GDD_BASE[sub];
        for (let k = 0; k < n; k++) acc[k] = acc[k]! + dailyGdd(lo[k]! / 10, hi[k]! / 10, base);
      }
    }
    // Chill season: May 1 .. Aug 31 of y; interim up to Jun 30.
    const ci = DEMO_SEASONS.indexOf(y as (typeof DEMO_SEASONS)[number]);
    if (
      ci >= 0 &&
      afterOrOn(m, d, CHILL_SEASON.startMonth, CHILL_SEASON.startDay) &&
      beforeOrOn(m, d, CHILL_SEASON.endMonth, CHILL_SEASON.endDay)
    ) {
      const interim = beforeOrOn(m, d, CHILL_SEASON.interimEndMonth, CHILL_SEASON.interimEndDay);
      const [ucu, dpcu, ucui, dpcui] = [chill.ucu[ci]!, chill.dpcu[ci]!, chill.ucui[ci]!, chill.dpcui[ci]!];
      for (let k = 0; k < n; k++) {
        const u = utah.get(lo[k]!, hi[k]!);
        const positive = u > 0 ? u : 0;
        ucu[k] = ucu[k]! + u;
        dpcu[k] = dpcu[k]! + positive;
        if (interim) {
          ucui[k] = ucui[k]! + u;
          dpcui[k] = dpcui[k]! + positive;
        }
      }
    }
    if (y === DEMO_YEAR) {
      const doy = Math.round((t - Date.UTC(y, 0, 1)) / 86_400_000);
      tmin10.set(lo, doy * n);
      tmax10.set(hi, doy * n);
      const f = frost[m - 1]!;
      for (let k = 0; k < n; k++) if (isFrostDay(lo[k]! / 10)) f[k] = f[k]! + 1;
    }
  }
  return { tmin10, tmax10, gdd, chill, frost };
}

/** Writes land-pixel values as a full-grid GeoTIFF input, sea pixels as nodata. */
async function writeLand(
  path: string,
  f: StaticFields,
  descriptions: string[] | undefined,
  band: (b: number) => ArrayLike<number>,
  count: number,
): Promise<void> {
  const g = f.grid;
  await writeInputGeoTiff(path, {
    width: g.width,
    height: g.height,
    geoTransform: [g.west, g.res, 0, g.north, 0, -g.res],
    ...(descriptions ? { descriptions } : {}),
    nodata: INPUT_NODATA,
    bands: count,
    fill(b, out) {
      out.fill(INPUT_NODATA);
      const values = band(b);
      for (let k = 0; k < f.landIndex.length; k++) out[f.landIndex[k]!] = values[k]!;
    },
  });
}
