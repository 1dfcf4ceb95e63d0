/**
 * `npm run bench -- --real-size`: climate layers at the size of the service
 * the project replaces — daily mean temperature of the Western Cape at
 * 0.0025° (1,800 × 1,150 px), two years made by the seeded generator of
 * bench/raster-scale-model.ts — built with the real CLI and read over HTTP
 * through the bench server (bench/server.ts) at 40 ms per request and on a
 * 150 ms, 4 Mbit/s rural link, 6 requests at once.
 *
 * Measured: the build's wall time and peak RSS (GNU time over the CLI) from
 * band- and pixel-interleaved inputs; a point's year, ten points' year, a
 * point over both years, a 1.9 km² polygon's year and one date's map preview
 * (in Node and, for the preview, in Chromium through the app's engine
 * Worker), each with requests, bytes by kind, sequential round trips after
 * the catalog (bench/link.ts) and time; a point over 20 years on a dataset
 * whose 20 stores are hard links of the two built years (the grower's "how
 * has it changed on my farm"); and arithmetic for 20 built years from the
 * per-year figures, labelled as such. Answers are checked against native
 * GDAL's reads of the inputs.
 *
 * Cached under the bench cache (inputs ≈ 1.5 GB, datasets ≈ 1.2 GB); the
 * builds spill about 3 GB a year to the temp folder. `--rebuild` rebuilds.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { fromFile } from 'geotiff';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { Catalog, RasterLayerEntry } from '../src/dataset/catalog.ts';
import { urlLocation } from '../src/dataset/location.ts';
import { createClimateEngine } from '../src/engine/engine.ts';
import { BrowserBench, buildBenchPage } from './browser.ts';
import { cacheDir, REPO } from './dataset.ts';
import { profileOf, roundTrips } from './link.ts';
import { ensureRealSizeInputs, ensureRealSizeMonthly } from './raster-scale-inputs.ts';
import { REAL_SIZE_GRID } from './raster-scale-model.ts';
import { renderRealSizeSection, spliceRealSizeSection, type RealSizeResults } from './raster-scale-report.ts';
import { hostInfo } from './results.ts';
import { parseGnuTime } from './scale-build.ts';
import { startBenchServer, type LoggedRequest } from './server.ts';
import { checkCatalog } from '../src/dataset/catalog-check.ts';

/** The two built years: one of 365 days, one of 366, so 20 linked years can hold leap years. */
const YEARS = [2023, 2024] as const;
/** The years of the linked 20-year dataset. */
const TWENTY = Array.from({ length: 20 }, (_, i) => 2005 + i);
const LINKS = ['40', '150-4mbit'] as const;

/** Options of {@link runRealSizeBench}. */
export interface RealSizeOptions {
  rebuild: boolean;
  quick: boolean;
  log(line: string): void;
}

/** What one build cost. */
export interface RealSizeBuild {
  /** The input's interleave, for the daily builds; `monthly`: the monthly layer (`map` layout). */
  input: 'band' | 'pixel' | 'monthly';
  years: number;
  wallS: number;
  cpuS: number;
  peakRssBytes: number;
  storeBytes: number;
  objects: number;
  command: string;
  /** The monthly layer's file: its bytes and its full grid's tile bytes. */
  tileBytes?: { file: number; fullGrid: number };
}

/** Where a request's bytes went. */
type Kind = 'catalog' | 'chunk' | 'preview' | 'other';

function kindOf(path: string): Kind {
  if (path.endsWith('/catalog.json')) return 'catalog';
  // A map file is read by the monthly preview alone: its header, overview tiles and tile digests.
  if (/\.zarr\/preview\//.test(path) || path.endsWith('.tif')) return 'preview';
  if (/\.zarr\/[^/]+\/0\.\d+\.\d+$/.test(path)) return 'chunk';
  return 'other';
}

/** One measured run of a scenario. */
export interface RealSizeRun {
  ms: number;
  requests: number;
  bytes: number;
  byKind: Record<Kind, { requests: number; bytes: number }>;
  roundTrips: number;
}

function summarise(log: readonly LoggedRequest[], ms: number): RealSizeRun {
  const byKind: RealSizeRun['byKind'] = {
    catalog: { requests: 0, bytes: 0 },
    chunk: { requests: 0, bytes: 0 },
    preview: { requests: 0, bytes: 0 },
    other: { requests: 0, bytes: 0 },
  };
  for (const e of log) {
    const k = byKind[kindOf(e.path)];
    k.requests++;
    k.bytes += e.bytes;
  }
  return {
    ms,
    requests: log.length,
    bytes: log.reduce((s, e) => s + e.bytes, 0),
    byKind,
    roundTrips: roundTrips(log),
  };
}

const time = (cmd: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  new Promise<string>((resolve, reject) =>
    execFile(
      '/usr/bin/time',
      ['-v', cmd, ...args],
      { env: { ...process.env, ...env }, maxBuffer: 64 << 20 },
      (err, out, errOut) =>
        err
          ? reject(new Error(`${cmd} ${args.join(' ')} failed: ${errOut.slice(-2000)}`))
          : resolve(`${out}\n${errOut}`),
    ),
  );

/** Builds `inputs` into `dir` with the CLI under GNU time, unless a build of them is cached there. */
async function ensureBuild(
  dir: string,
  inputs: string[],
  input: 'band' | 'pixel' | 'monthly',
  rebuild: boolean,
  log: (s: string) => void,
): Promise<RealSizeBuild> {
  const stamp = join(dir, 'build.json');
  if (!rebuild && existsSync(stamp)) return JSON.parse(await readFile(stamp, 'utf8')) as RealSizeBuild;
  const building = `${dir}.building`;
  await rm(building, { recursive: true, force: true });
  // What an operator types: the layer, its unit and time scale, the extent; the step is chosen from the values.
  const args = [
    'build',
    '--out',
    building,
    '--layer',
    'tmean',
    '--unit',
    '°C',
    '--time-scale',
    input === 'monthly' ? 'monthly' : 'daily',
    '--extent',
    'tc',
    ...inputs,
  ];
  log(
    `building ${inputs.length} year(s) from ${input === 'monthly' ? 'monthly means' : `${input}-interleaved inputs`}: climate-query ${args.join(' ')}`,
  );
  const out = await time(process.execPath, [join(REPO, 'bin/climate-query.js'), ...args]);
  const t = parseGnuTime(out);
  const objects = Number(/(\d+) objects/.exec(out)?.[1] ?? Number.NaN);
  const catalog = checkCatalog(JSON.parse(await readFile(join(building, 'catalog.json'), 'utf8')), 'catalog.json');
  const storeBytes = Number(
    execFileSync('du', ['-sb', join(building, 'rasters')], { encoding: 'utf8' }).split('\t')[0],
  );
  const build: RealSizeBuild = {
    input,
    years: catalog.rasters[0]!.files.length,
    ...t,
    storeBytes,
    objects: objects * inputs.length,
    command: `climate-query ${args
      .join(' ')
      .replace(building, 'DIR')
      .replace(/\S+\/(tmean_\d+_\w+\.tif)/g, '$1')}`,
    ...(input === 'monthly' ? { tileBytes: await tileBytesOf(building, catalog) } : {}),
  };
  await writeFile(join(building, 'build.json'), JSON.stringify(build));
  await rm(dir, { recursive: true, force: true });
  await rename(building, dir);
  log(`  ${t.wallS.toFixed(0)} s, peak RSS ${(t.peakRssBytes / 1e6).toFixed(0)} MB`);
  return build;
}

/** A built `map` layer's file: its bytes, and those of its full grid's tiles (what a preview without overviews reads). */
async function tileBytesOf(dir: string, catalog: Catalog): Promise<{ file: number; fullGrid: number }> {
  const path = join(dir, catalog.rasters[0]!.files[0]!.path);
  const tiff = await fromFile(path);
  try {
    const counts = (await (await tiff.getImage(0)).fileDirectory.loadValue('TileByteCounts')) as ArrayLike<number>;
    return { file: (await stat(path)).size, fullGrid: Array.from(counts, Number).reduce((a, b) => a + b, 0) };
  } finally {
    tiff.close();
  }
}

/**
 * A dataset of 20 years whose stores are hard links of the two built ones (a leap year links the
 * 366-day store): the same bytes a 20-year build would hold per year, without building 20.
 */
async function ensureTwenty(built: string, dir: string): Promise<void> {
  if (existsSync(join(dir, 'catalog.json'))) return;
  const catalog = checkCatalog(JSON.parse(await readFile(join(built, 'catalog.json'), 'utf8')), 'catalog.json');
  const layer = catalog.rasters[0]!;
  const byDays = new Map(layer.files.map((f) => [f.periods.length, f]));
  const tmp = `${dir}.building`;
  await rm(tmp, { recursive: true, force: true });
  const files: RasterLayerEntry['files'] = [];
  for (const y of TWENTY) {
    const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
    const from = byDays.get(leap ? 366 : 365)!;
    const path = from.path.replace(/\/\d{4}-/, `/${y}-`);
    await mkdir(join(tmp, path, '..'), { recursive: true });
    execFileSync('cp', ['-al', join(built, from.path), join(tmp, path)]);
    const days: string[] = [];
    for (let t = Date.UTC(y, 0, 1); t < Date.UTC(y + 1, 0, 1); t += 86_400_000)
      days.push(new Date(t).toISOString().slice(0, 10));
    // The store's id goes with it: its chunk-digests are bound to it (docs/decisions/0004-chunk-digests.md).
    files.push({ path, periods: days, ...(from.id ? { id: from.id } : {}) });
  }
  const twenty: Catalog = {
    ...catalog,
    name: 'real-size-20-years',
    files: [],
    rasters: [{ ...layer, files }],
  };
  await writeFile(join(tmp, 'catalog.json'), `${JSON.stringify(twenty)}\n`);
  await rm(dir, { recursive: true, force: true });
  await rename(tmp, dir);
}

/** Land points spread over the grid, checked with native GDAL on the first input (its value is not nodata). */
function landPoints(input: string, n: number): Array<[number, number]> {
  const g = REAL_SIZE_GRID;
  const out: Array<[number, number]> = [];
  for (let k = 0; out.length < n && k < 400; k++) {
    // A low-discrepancy walk over the grid, at pixel centres offset a third of a pixel.
    const c = Math.floor(((k * 0.618034) % 1) * g.width);
    const r = Math.floor(((k * 0.754878 + 0.3) % 1) * g.height);
    const lon = g.west + (c + 0.33) * g.res;
    const lat = g.north - (r + 0.33) * g.res;
    const v = execFileSync('gdallocationinfo', ['-valonly', '-geoloc', '-b', '1', input, String(lon), String(lat)], {
      encoding: 'utf8',
    }).trim();
    if (v !== '' && !Number.isNaN(Number(v))) out.push([lon, lat]);
  }
  return out;
}

const wkt = (p: [number, number]) => `POINT (${p[0]} ${p[1]})`;

/** A square of 1.9 km² centred on `p` (1.378 km a side). */
function field(p: [number, number]): string {
  const half = 1.378 / 2;
  const dLat = half / 110.57;
  const dLon = half / (111.32 * Math.cos((p[1] * Math.PI) / 180));
  const [x, y] = p;
  return `POLYGON ((${x - dLon} ${y - dLat}, ${x + dLon} ${y - dLat}, ${x + dLon} ${y + dLat}, ${x - dLon} ${y + dLat}, ${x - dLon} ${y - dLat}))`;
}

/** Runs the real-size bench and writes bench/raster-scale-results.json and its section of docs/performance.md. */
export async function runRealSizeBench(o: RealSizeOptions): Promise<void> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const load0 = loadavg()[0]!;
  const cache = join(cacheDir(), 'real-size');
  await mkdir(cache, { recursive: true });
  const band = await ensureRealSizeInputs(cacheDir(), [...YEARS], 'band', o.log);
  const pixel = await ensureRealSizeInputs(cacheDir(), [YEARS[0]], 'pixel', o.log);
  const monthly = await ensureRealSizeMonthly(cacheDir(), YEARS[0], o.log);

  const builds = [
    await ensureBuild(join(cache, 'band'), band, 'band', o.rebuild, o.log),
    await ensureBuild(join(cache, 'pixel'), pixel, 'pixel', o.rebuild, o.log),
    await ensureBuild(join(cache, 'monthly'), [monthly], 'monthly', o.rebuild, o.log),
  ];
  const twentyDir = join(cache, 'twenty');
  if (o.rebuild) await rm(twentyDir, { recursive: true, force: true });
  await ensureTwenty(join(cache, 'band'), twentyDir);

  const points = landPoints(band[0]!, 10);
  const [y0, y1] = YEARS;
  const base = { dataType: 'tmean', options: { dataExtent: 'tc', timeScale: 'daily' } };
  const scenarios = [
    {
      id: 'point-year',
      label: '1 point × 365 days',
      path: 'point',
      body: { ...base, wkts: wkt(points[0]!), startDate: `${y0}-01-01`, endDate: `${y0}-12-31` },
    },
    {
      id: 'ten-points-year',
      label: '10 points × 365 days',
      path: 'point',
      body: { ...base, wkts: points.map(wkt).join('; '), startDate: `${y0}-01-01`, endDate: `${y0}-12-31` },
    },
    {
      id: 'point-all-years',
      label: `1 point × all years built (${YEARS.length}, 731 days)`,
      path: 'point',
      body: { ...base, wkts: wkt(points[1]!), startDate: `${y0}-01-01`, endDate: `${y1}-12-31` },
    },
    {
      id: 'polygon-year',
      label: '1 polygon 1.9 km² × 365 days (mean)',
      path: 'polygon',
      body: {
        ...base,
        wkts: field(points[2]!),
        options: { ...base.options, aggregationMethod: 'mean' },
        startDate: `${y0}-01-01`,
        endDate: `${y0}-12-31`,
      },
    },
    {
      id: 'point-twenty-years',
      label: '1 point × 20 years (2005–2024, 7,305 days; stores linked from the built two)',
      path: 'point',
      data: 'twenty',
      body: { ...base, wkts: wkt(points[3]!), startDate: '2005-01-01', endDate: '2024-12-31' },
    },
  ] as const;

  const runs = o.quick ? 1 : 3;
  const results: RealSizeResults['queries'] = {};
  const oracle: RealSizeResults['oracle'] = [];
  for (const link of LINKS) {
    const server = await startBenchServer({
      mounts: { '/data/': join(cache, 'band'), '/twenty/': twentyDir, '/monthly/': join(cache, 'monthly') },
      profile: profileOf(link),
    });
    try {
      for (const s of scenarios) {
        const root = `${server.nodeUrl}${'data' in s ? s.data : 'data'}/`;
        const list: RealSizeRun[] = [];
        for (let i = 0; i < runs; i++) {
          const engine = createClimateEngine({ dataset: urlLocation(root) });
          server.reset();
          const t = performance.now();
          const answer = await engine.query(s.path, s.body);
          const ms = performance.now() - t;
          list.push(summarise(server.counts().log, ms));
          await engine.close();
          // The answer is the inputs' values (native GDAL) at the first point, three dates.
          if (link === LINKS[0] && i === 0 && s.path === 'point' && !('data' in s)) {
            const first = Object.values(answer)[0] as Record<string, number | null>;
            const p = s.id === 'point-all-years' ? points[1]! : points[0]!;
            for (const [b, key] of [
              [1, `${y0}-01-01`],
              [152, `${y0}-06-01`],
              [365, `${y0}-12-31`],
            ] as const) {
              const input = Number(
                execFileSync(
                  'gdallocationinfo',
                  ['-valonly', '-geoloc', '-b', String(b), band[0]!, String(p[0]), String(p[1])],
                  {
                    encoding: 'utf8',
                  },
                ),
              );
              oracle.push({ scenario: s.id, date: key, engine: first[key] ?? null, gdal: input });
            }
          }
        }
        (results[s.id] ??= { label: s.label, links: {} }).links[link] = list;
        o.log(
          `${s.id} at ${link}: ${list.map((r) => `${r.requests} req ${(r.bytes / 1024).toFixed(0)} KiB ${r.ms.toFixed(0)} ms`).join('; ')}`,
        );
      }
      // One date's map preview, as the app asks for it (engine.layerGrid), in Node.
      const list: RealSizeRun[] = [];
      for (let i = 0; i < runs; i++) {
        const engine = createClimateEngine({ dataset: urlLocation(`${server.nodeUrl}data/`) });
        server.reset();
        const t = performance.now();
        await engine.layerGrid({ dataType: 'tmean', subDataType: '-', period: `${y0}-06-01` });
        list.push(summarise(server.counts().log, performance.now() - t));
        await engine.close();
      }
      (results['preview-node'] ??= { label: 'map preview of one date (Node)', links: {} }).links[link] = list;
      // A month's map preview of the monthly layer (`map` layout: a COG whose overview it reads).
      const months: RealSizeRun[] = [];
      for (let i = 0; i < runs; i++) {
        const engine = createClimateEngine({ dataset: urlLocation(`${server.nodeUrl}monthly/`) });
        server.reset();
        const t = performance.now();
        await engine.layerGrid({ dataType: 'tmean', subDataType: '-', period: `${y0}-06-01` });
        months.push(summarise(server.counts().log, performance.now() - t));
        await engine.close();
      }
      (results['preview-monthly-node'] ??= {
        label: 'map preview of one month of the monthly layer (Node)',
        links: {},
      }).links[link] = months;
      o.log(
        `monthly preview at ${link}: ${months.map((r) => `${r.requests} req ${(r.bytes / 1024).toFixed(0)} KiB ${r.ms.toFixed(0)} ms`).join('; ')}`,
      );
    } finally {
      await server.close();
    }
  }

  // The same preview in Chromium: the app's engine Worker, a fresh page each run, at 40 ms.
  const pageDir = join(cacheDir(), 'bench-page');
  await buildBenchPage(pageDir);
  const browser = await BrowserBench.start();
  try {
    for (const link of LINKS) {
      const server = await startBenchServer({
        mounts: { '/data/': join(cache, 'band'), '/app/': pageDir },
        profile: profileOf(link),
      });
      try {
        const list: RealSizeRun[] = [];
        for (let i = 0; i < runs; i++) {
          const r = await browser.layerGrid(server, '../data/', {
            dataType: 'tmean',
            subDataType: '-',
            period: `${y0}-06-01`,
          });
          list.push(
            summarise(
              r.log.filter((e) => !e.path.startsWith('/app/')),
              r.ms,
            ),
          );
        }
        (results['preview-chromium'] ??= {
          label: 'map preview of one date (Chromium, the app’s Worker)',
          links: {},
        }).links[link] = list;
        o.log(
          `preview in Chromium at ${link}: ${list.map((r) => `${r.requests} req ${(r.bytes / 1024).toFixed(0)} KiB ${r.ms.toFixed(0)} ms`).join('; ')}`,
        );
      } finally {
        await server.close();
      }
    }
  } finally {
    await browser.close();
  }

  const catalog = checkCatalog(JSON.parse(await readFile(join(cache, 'band', 'catalog.json'), 'utf8')), 'catalog.json');
  const results2: RealSizeResults = {
    startedAt,
    durationS: (performance.now() - started) / 1000,
    environment: {
      ...hostInfo(),
      loadAverage: { start: Math.round(load0 * 100) / 100, end: Math.round(loadavg()[0]! * 100) / 100 },
    },
    grid: { width: REAL_SIZE_GRID.width, height: REAL_SIZE_GRID.height, res: REAL_SIZE_GRID.res },
    years: [...YEARS],
    runs,
    builds,
    layer: {
      scale: catalog.rasters[0]!.scale,
      chunk: catalog.rasters[0]!.zarr!.chunk,
      previewFactor: catalog.rasters[0]!.zarr!.previewFactor,
    },
    queries: results,
    oracle,
  };
  const json = `${JSON.stringify(results2, (_k, v: unknown) => (typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(6)) : v), 1)}\n`;
  const section = renderRealSizeSection(JSON.parse(json) as RealSizeResults);
  if (o.quick) {
    await writeFile(join(cache, 'raster-scale-results.json'), json);
    await writeFile(join(cache, 'raster-scale-section.md'), section);
    o.log(`quick run: wrote ${cache}/raster-scale-results.json and raster-scale-section.md (not the docs)`);
  } else {
    await writeFile(join(REPO, 'bench/raster-scale-results.json'), json);
    const docPath = join(REPO, 'docs/performance.md');
    await writeFile(docPath, spliceRealSizeSection(await readFile(docPath, 'utf8'), section));
    o.log('wrote bench/raster-scale-results.json and the real-size section of docs/performance.md');
  }
  const bad = oracle.filter((x) => x.engine === null || Math.abs(x.engine - x.gdal) > results2.layer.scale / 2 + 1e-6);
  if (bad.length) throw new Error(`answers differ from GDAL's reads of the inputs: ${JSON.stringify(bad)}`);
}
