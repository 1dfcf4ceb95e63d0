/**
 * `npm run bench`: measures the four endpoints the way users meet them and
 * the conventional alternatives, in one run on the same data, then writes
 * bench/results.json (raw numbers) and docs/performance.md (the tables).
 *
 *   npm run bench                 full run (≤ 10 minutes on 2 cores)
 *   npm run bench -- --quick      one run of everything (a smoke test)
 *   npm run bench -- --rebuild    rebuild the cached demo dataset and baseline files
 *   npm run bench -- --out DIR    write results.json and performance.md to DIR instead
 *   npm run bench -- --only a,b   only these scenario ids (and "cold-start"); for development
 *   npm run bench -- --scale      the scale bench instead (bench/scale-run.ts; ≤ 30 minutes on 2 cores)
 *   npm run bench -- --scale --scale-size small   the same on small archives, for development
 *   npm run bench -- --real-size  climate layers at the real size (bench/raster-scale-run.ts; ≈ 15 minutes
 *                                 the first time, which generates and builds; ≈ 5 minutes cached)
 *   npm run bench -- --foreign      published Zarr stores and a COG collection read in place beside zarrita.js and geoblaze (bench/foreign-stores.ts)
 *   npm run bench -- --ghcnh-scale [--stations 600] [--years 10]   `import ghcnh` of a network's
 *                                 hourly archive under GNU time (bench/ghcnh-scale.ts)
 *
 * Everything runs one after another (the machine has 2 cores): a bench
 * server per latency (bench/server.ts), Node jobs each in their own child
 * process (bench/child.ts), Chromium runs from this process (bench/browser.ts).
 */
import { runGhcnhScaleBench } from './ghcnh-scale.ts';
import { runForeignBench } from './foreign-stores.ts';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BrowserBench, buildBenchPage } from './browser.ts';
import { compareAnswers } from './compare.ts';
import {
  cacheDir,
  ensureBaselineLayer,
  ensureDemo,
  ensureSeasons,
  ensureStationDuckDb,
  layerOf,
  readCatalog,
  REPO,
  type BaselineLayer,
} from './dataset.ts';
import { runInChild, type NodeMethod } from './jobs.ts';
import { renderPerformanceDoc } from './report.ts';
import {
  hostInfo,
  type BenchResults,
  type ColdStartResult,
  type MethodResult,
  type ScenarioResult,
} from './results.ts';
import { DAILY_LAYER, SCENARIOS, UNDATED_LAYER, type Scenario } from './scenarios.ts';
import { runScaleBench } from './scale-run.ts';
import { runRealSizeBench } from './raster-scale-run.ts';
import { PROFILES } from './link.ts';
import { startBenchServer, type BenchServer } from './server.ts';

type Runs = Record<string, { cold: number; warm: number }>;

/**
 * How long a loaded page sits idle before each cold run of a station query, engine and whole-file
 * baseline alike: a person looks at the map before drawing, and both Workers read the station index
 * once they have had no request for 400 ms (src/worker/worker-dataset.ts). The scale bench waits as
 * long (bench/scale-run.ts). Sent as the Worker first answered, the cold JIT and the index's read
 * and parse fell in the query's time: engine and whole files then differed by less than the
 * run-to-run scatter (nearest-daily at 40 ms, 11 alternating runs: 270 vs 287 ms; one full bench
 * put the engine ×1.1 slower on 5). `AT_ONCE` keeps that measurement in every run.
 */
const STATION_SETTLE_MS = 1000;
/** Station scenarios also run sent at once (no idle), paired, cold, at 40 ms: what the idle second changes. */
const AT_ONCE = { ids: new Set(['nearest-daily', 'poly-aggregate-daily']), cold: 5 };

/**
 * Runs per method and link profile (bench/link.ts: "0" and "40" are 0 or
 * 40 ms over six unlimited connections; the others add a bandwidth or
 * HTTP/2). Slow baselines get fewer, to stay within 10 minutes on 2
 * cores: geoblaze on 365 per-date files takes tens of seconds per query,
 * so it runs once, at 40 ms only; geotiff.js on them runs twice per
 * latency (dated layers; 10 s a run at 40 ms) or three times (undated),
 * cold only, and not on the rural link (7.4 MiB at 4 Mbit/s: one run took
 * 33 s); the engine's station queries in Chromium run at 40 ms
 * and on the links, not at 0 ms; the other links are cold only (warm
 * queries make no requests, so the link does not enter). Station queries
 * in Chromium run five times at 40 ms and on HTTP/2, where engine and whole files are
 * closest: with two runs each, the medians of one run put the engine ×1.2
 * slower (801 vs 664 ms) and a probe of six alternating runs each ×1.04
 * faster (513 vs 536 ms).
 */
const LINKS = (cold: number, h2 = cold) => ({
  '40-20mbit': { cold, warm: 0 },
  '150-4mbit': { cold, warm: 0 },
  '40-h2': { cold: h2, warm: 0 },
});
const FULL: Record<string, Runs> = {
  'engine-node': { '0': { cold: 3, warm: 5 }, '40': { cold: 5, warm: 5 }, ...LINKS(2) },
  'geotiff (daily)': { '0': { cold: 2, warm: 0 }, '40': { cold: 2, warm: 0 } },
  'geoblaze (daily)': { '40': { cold: 1, warm: 0 } },
  'geotiff (undated)': { '0': { cold: 3, warm: 3 }, '40': { cold: 3, warm: 3 }, '150-4mbit': { cold: 1, warm: 0 } },
  'geoblaze (undated)': { '0': { cold: 3, warm: 3 }, '40': { cold: 3, warm: 3 } },
  'engine-chromium (raster)': { '40': { cold: 3, warm: 3 }, ...LINKS(2) },
  'engine-chromium (station)': { '40': { cold: 5, warm: 9 }, ...LINKS(2, 5) },
  'engine-chromium (indices)': { '40': { cold: 3, warm: 3 } },
  'naive-chromium': { '40': { cold: 5, warm: 3 }, ...LINKS(2, 5) },
  'duckdb-native': { local: { cold: 3, warm: 5 } },
  // The design's own engine in the browser: a fresh page each cold run (DuckDB-WASM instantiated and the
  // file attached as the page loads, like the engine Worker reading ahead), at 40 ms only.
  'duckdb-wasm-chromium': { '40': { cold: 3, warm: 3 } },
  'engine-node-native': { local: { cold: 1, warm: 5 } },
  'cold start': { '40': { cold: 3, warm: 0 } },
};

const QUICK: Record<string, Runs> = Object.fromEntries(
  Object.entries(FULL).map(([k, v]) => [
    k,
    Object.fromEntries(
      Object.entries(v).map(([l, r]) => [l, { cold: Math.min(1, r.cold), warm: Math.min(1, r.warm) }]),
    ),
  ]),
);

const LABELS: Record<string, string> = {
  'engine-node': 'engine (Node, HTTP range)',
  'engine-chromium': 'engine (Chromium)',
  geotiff: 'geotiff.js, one COG per date',
  geoblaze: 'geoblaze, one COG per date',
  'duckdb-native': 'native DuckDB on local Parquet',
  'duckdb-wasm-chromium': 'DuckDB-WASM (Chromium), a DuckDB file attached over HTTP Range',
  'naive-chromium': 'whole files downloaded (Chromium)',
  'engine-node-wasm': 'engine in Node, local files',
  'engine-node-native': 'engine in Node, local files (hyparquet)',
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean' },
      rebuild: { type: 'boolean' },
      out: { type: 'string' },
      only: { type: 'string' },
      scale: { type: 'boolean' },
      'scale-size': { type: 'string' },
      'real-size': { type: 'boolean' },
      'ghcnh-scale': { type: 'boolean' },
      foreign: { type: 'boolean' },
      stations: { type: 'string' },
      years: { type: 'string' },
    },
  });
  const quick = values.quick ?? false;
  if (values['real-size']) {
    const t0 = performance.now();
    const say = (s: string) =>
      process.stdout.write(`[${((performance.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${s}\n`);
    return runRealSizeBench({ quick, rebuild: values.rebuild ?? false, log: say });
  }
  if (values.foreign) {
    const t0 = performance.now();
    const say = (s: string) =>
      process.stdout.write(`[${((performance.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${s}\n`);
    await runForeignBench({ log: say });
    return;
  }
  if (values['ghcnh-scale']) {
    const t0 = performance.now();
    const say = (s: string) =>
      process.stdout.write(`[${((performance.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${s}\n`);
    await runGhcnhScaleBench({ stations: Number(values.stations ?? 600), years: Number(values.years ?? 10), log: say });
    return;
  }
  if (values.scale) {
    const size = values['scale-size'] ?? 'full';
    if (size !== 'full' && size !== 'small') throw new Error(`--scale-size is full or small, not ${size}`);
    const t0 = performance.now();
    const say = (s: string) =>
      process.stdout.write(`[${((performance.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${s}\n`);
    return runScaleBench({ size, quick, rebuild: values.rebuild ?? false, out: values.out, log: say });
  }
  const RUNS = quick ? QUICK : FULL;
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const load0 = loadavg()[0]!;
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s`;
  const log = (s: string) => process.stdout.write(`[${elapsed()}] ${s}\n`);
  if (load0 > 0.8)
    log(`note: load average is ${load0.toFixed(2)} before the run; other work on this machine will slow wall times`);

  // Data: the demo dataset and the conventional per-date files, cached.
  const demo = await ensureDemo(values.rebuild ?? false, (s) => log(s));
  log(
    demo.builtInMs
      ? `demo dataset built in ${(demo.builtInMs / 1000).toFixed(0)} s`
      : `demo dataset: cached (${demo.dir})`,
  );
  const catalog = await readCatalog(demo.dir);
  await ensureStationDuckDb(demo.dir, log);
  const baselines: Record<string, BaselineLayer> = {};
  if (values.rebuild) await rm(join(cacheDir(), 'baseline'), { recursive: true, force: true });
  for (const l of [DAILY_LAYER, UNDATED_LAYER]) {
    baselines[l.dataType] = await ensureBaselineLayer(demo.dir, layerOf(catalog, l.dataType, l.subDataType), log);
  }
  const appDir = join(cacheDir(), 'app');
  const page = await buildBenchPage(appDir);
  log(`bench page built: ${page.length} files`);
  const work = join(cacheDir(), 'work');
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });

  const mounts: Record<string, string> = {
    '/data/': demo.dir,
    '/baseline/': join(cacheDir(), 'baseline'),
    '/app/': appDir,
    '/duckdb/': join(cacheDir(), 'duckdb'),
  };
  const only0 = values.only ? new Set(values.only.split(',')) : null;
  if (SCENARIOS.some((x) => x.dataset === 'seasons' && (!only0 || only0.has(x.id)))) {
    const seasons = await ensureSeasons(values.rebuild ?? false, (x) => log(x));
    log(
      seasons.builtInMs
        ? `seasons dataset built in ${(seasons.builtInMs / 1000).toFixed(0)} s`
        : `seasons dataset: cached (${seasons.dir})`,
    );
    mounts['/seasons/'] = seasons.dir;
  }
  // One server per link profile any method runs on.
  const used = new Set(Object.values(RUNS).flatMap((r) => Object.keys(r)));
  const servers: BenchServer[] = [];
  for (const profile of PROFILES.filter((p) => used.has(p.id)))
    servers.push(await startBenchServer({ mounts, profile }));
  const serverList = servers.map((s) => ({ url: s.nodeUrl, profile: s.profile.id, latencyMs: s.latencyMs }));
  const serverAt = (id: string) => servers.find((s) => s.profile.id === id)!;
  const browser = await BrowserBench.start();

  const scenarios: ScenarioResult[] = [];
  const answers = new Map<string, unknown>();
  const answerFile = (s: Scenario, m: string) => join(work, `${s.id}.${m}.answer.json`);

  const nodeJob = async (s: Scenario, method: NodeMethod, runs: Runs): Promise<MethodResult> => {
    const t = performance.now();
    const baseline = s.family === 'raster' ? baselines[(s.body as { dataType: string }).dataType] : undefined;
    const r = await runInChild(
      {
        scenarioId: s.id,
        method,
        servers: serverList,
        demoDir: demo.dir,
        ...(baseline
          ? { baseline: { folder: baseline.folder, files: baseline.files, periods: baseline.periods } }
          : {}),
        runs,
        answerFile: answerFile(s, method),
      },
      join(work, `${s.id}.${method}.job.json`),
    );
    answers.set(`${s.id}/${method}`, JSON.parse(await readFile(answerFile(s, method), 'utf8')));
    log(`${s.id}: ${method} done in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    return {
      method,
      label: LABELS[method]!,
      runtime: 'node',
      latencies: r.latencies.filter((l) => l.cold.length + l.warm.length > 0),
      peakMemory: Math.max(0, r.peakRss - r.rssBefore),
      memoryKind: 'node-rss-growth',
    };
  };

  /**
   * The engine's and the whole-file baseline's runs of a station scenario, alternating run by run
   * on each link (each cold run a fresh page; the warm runs after the last). Run as two blocks,
   * half a minute apart, the two methods' medians on HTTP/2 swapped order from one full bench to
   * the next (the same code: hourly 396 vs 470 ms, then 534 vs 479 ms): the machine's drift fell on
   * one method only.
   */
  const pairedRuns = async (
    s: Scenario,
    engineRuns: Runs,
    naiveRuns: Runs,
    settleMs = STATION_SETTLE_MS,
  ): Promise<MethodResult[]> => {
    const t = performance.now();
    const want = { engine: engineRuns, naive: naiveRuns };
    const out = {
      engine: {
        method: 'engine-chromium',
        label: LABELS['engine-chromium']!,
        runtime: 'chromium',
        latencies: [],
        peakMemory: 0,
        memoryKind: 'renderer-peak-rss',
      } as MethodResult,
      naive: {
        method: 'naive-chromium',
        label: LABELS['naive-chromium']!,
        runtime: 'chromium',
        latencies: [],
        peakMemory: 0,
        memoryKind: 'renderer-peak-rss',
      } as MethodResult,
    };
    for (const latency of new Set([...Object.keys(engineRuns), ...Object.keys(naiveRuns)])) {
      const runs: Partial<Record<'engine' | 'naive', MethodResult['latencies'][number]>> = {};
      const rounds = Math.max(engineRuns[latency]?.cold ?? 0, naiveRuns[latency]?.cold ?? 0);
      for (let i = 0; i < rounds; i++) {
        for (const mode of ['engine', 'naive'] as const) {
          const n = want[mode][latency];
          if (!n || i >= n.cold) continue;
          const method = out[mode].method;
          const r = await browser.runs(
            serverAt(latency),
            mode,
            s,
            1,
            i === n.cold - 1 ? n.warm : 0,
            s.dataset ? `../${s.dataset}/` : undefined,
            settleMs,
          );
          const acc = runs[mode];
          if (!acc) runs[mode] = r.runs;
          else {
            acc.cold.push(...r.runs.cold);
            acc.warm.push(...r.runs.warm);
          }
          out[mode].peakMemory = Math.max(out[mode].peakMemory, r.peakRss);
          if (!answers.has(`${s.id}/${method}`)) answers.set(`${s.id}/${method}`, r.answer);
        }
      }
      for (const mode of ['engine', 'naive'] as const) if (runs[mode]) out[mode].latencies.push(runs[mode]!);
    }
    log(
      `${s.id}: engine-chromium and naive-chromium, alternating, done in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
    return [out.engine, out.naive];
  };

  const chromiumRuns = async (s: Scenario, mode: 'engine' | 'naive' | 'duckdb', runs: Runs): Promise<MethodResult> => {
    const t = performance.now();
    const method = mode === 'engine' ? 'engine-chromium' : mode === 'naive' ? 'naive-chromium' : 'duckdb-wasm-chromium';
    const out: MethodResult = {
      method,
      label: LABELS[method]!,
      runtime: 'chromium',
      latencies: [],
      peakMemory: 0,
      memoryKind: 'renderer-peak-rss',
    };
    for (const [latency, n] of Object.entries(runs)) {
      const r = await browser.runs(
        serverAt(latency),
        mode,
        s,
        n.cold,
        n.warm,
        s.dataset ? `../${s.dataset}/` : undefined,
      );
      out.latencies.push(r.runs);
      out.peakMemory = Math.max(out.peakMemory, r.peakRss);
      if (!answers.has(`${s.id}/${method}`)) answers.set(`${s.id}/${method}`, r.answer);
    }
    log(`${s.id}: ${method} done in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    return out;
  };

  const only = values.only ? new Set(values.only.split(',')) : null;
  for (const s of SCENARIOS) {
    if (only && !only.has(s.id)) continue;
    const result: ScenarioResult = {
      id: s.id,
      title: s.title,
      family: s.family,
      geometries: String(s.body.wkts).split(';').length,
      methods: [],
      agreement: [],
    };
    if (s.family === 'raster') {
      const dated = 'startDate' in s.body;
      result.methods.push(await nodeJob(s, 'engine-node', RUNS['engine-node']!));
      result.methods.push(await nodeJob(s, 'geotiff', RUNS[dated ? 'geotiff (daily)' : 'geotiff (undated)']!));
      result.methods.push(await nodeJob(s, 'geoblaze', RUNS[dated ? 'geoblaze (daily)' : 'geoblaze (undated)']!));
      result.methods.push(await chromiumRuns(s, 'engine', RUNS['engine-chromium (raster)']!));
      const ref = answers.get(`${s.id}/engine-node`);
      const layer = layerOf(
        catalog,
        (s.body as { dataType: string }).dataType,
        (s.body.options as { subDataType: string }).subDataType,
      );
      // The engine rounds polygon means to 3 decimals finer than the stored step.
      const tol = s.endpoint === 'polygon' ? 0.5 * 10 ** -(decimals(layer.scale) + 3) + 1e-9 : 1e-9;
      result.agreement.push({
        reference: 'engine-node',
        other: 'engine-chromium',
        result: compareAnswers(ref, answers.get(`${s.id}/engine-chromium`), 0),
      });
      result.agreement.push({
        reference: 'engine-node',
        other: 'geotiff',
        result: compareAnswers(ref, answers.get(`${s.id}/geotiff`), tol),
      });
      result.agreement.push({
        reference: 'engine-node',
        other: 'geoblaze',
        result: compareAnswers(ref, answers.get(`${s.id}/geoblaze`), tol),
        ...(s.endpoint === 'polygon'
          ? {
              note: 'geoblaze averages whole pixels with equal weight, the ones its own selection rules pick (for an axis-aligned rectangle, the bounding box snapped to the pixel grid); the engine weights every pixel the polygon touches by the exact fraction it covers (exactextract). Every benchmark polygon (1.9 km²) is smaller than one pixel (0.02° ≈ 4.1 km² on the temp grid, 0.05° on the windspeed grid), so both come down to one to four neighbouring pixels and the differences stay small; where the polygon sits symmetrically on a pixel corner (Ceres) the two rules agree exactly.',
            }
          : {}),
      });
    } else if (s.family === 'indices') {
      // Compared with each other (bench/report.ts), not with baselines: no other tool computes these indices.
      result.methods.push(await chromiumRuns(s, 'engine', RUNS['engine-chromium (indices)']!));
    } else {
      result.methods.push(...(await pairedRuns(s, RUNS['engine-chromium (station)']!, RUNS['naive-chromium']!)));
      if (AT_ONCE.ids.has(s.id)) {
        const once = { '40': { cold: quick ? 1 : AT_ONCE.cold, warm: 0 } };
        const [e, n] = await pairedRuns(s, once, once, 0);
        const ms = (m: MethodResult | undefined) => m?.latencies[0]?.cold.map((c) => c.ms) ?? [];
        result.atOnce = { engine: ms(e), naive: ms(n) };
      }
      result.methods.push(await nodeJob(s, 'duckdb-native', RUNS['duckdb-native']!));
      if (!s.dataset) result.methods.push(await chromiumRuns(s, 'duckdb', RUNS['duckdb-wasm-chromium']!));
      result.methods.push(await nodeJob(s, 'engine-node-native', RUNS['engine-node-native']!));
      const ref = answers.get(`${s.id}/engine-chromium`);
      for (const other of ['duckdb-native', 'duckdb-wasm-chromium', 'naive-chromium', 'engine-node-native'] as const) {
        if (!answers.has(`${s.id}/${other}`)) continue;
        result.agreement.push({
          reference: 'engine-chromium',
          other,
          result: compareAnswers(ref, answers.get(`${s.id}/${other}`), 1e-9),
        });
      }
    }
    scenarios.push(result);
  }

  // Cold start in Chromium: navigation → first raster answer, → first station answer.
  const coldStart: ColdStartResult[] = [];
  for (const [first, id] of [
    ['raster', 'point-daily'],
    ['station', 'nearest-daily'],
  ] as const) {
    if (only && !only.has('cold-start')) break;
    for (const [latency, n] of Object.entries(RUNS['cold start']!)) {
      const r = await browser.coldStart(serverAt(latency), SCENARIOS.find((x) => x.id === id)!, n.cold);
      coldStart.push({ first, scenarioId: id, latencyMs: Number(latency), runs: r.runs, peakMemory: r.peakRss });
    }
    log(`cold start, ${first} first: done`);
  }

  await browser.close();
  for (const s of servers) await s.close();

  // The station archive is one file per station and scale (docs/data.md): sizes are folder totals.
  const dirBytes = async (d: string) => {
    let n = 0;
    for (const e of await readdir(d, { withFileTypes: true, recursive: true }))
      if (e.isFile()) n += (await stat(join(e.parentPath, e.name))).size;
    return n;
  };
  const sizeOf = async (p: string) => (await stat(join(demo.dir, p))).size;
  const results: BenchResults = {
    startedAt,
    durationS: (performance.now() - started) / 1000,
    environment: {
      ...hostInfo(),
      chromium: chromiumVersion(),
      loadAverage: { start: round2(load0), end: round2(loadavg()[0]!) },
      packages: await packageVersions([
        'geotiff',
        'geoblaze',
        '@duckdb/node-api',
        '@duckdb/duckdb-wasm',
        'gdal3.js',
        'playwright-core',
        'vite',
      ]),
    },
    setup: {
      latenciesMs: [0, 40],
      maxConnections: 6,
      profiles: servers.map((s) => s.profile),
      quick,
      stationSettleMs: STATION_SETTLE_MS,
      runs: RUNS,
    },
    dataset: {
      demoBuildS: demo.builtInMs / 1000,
      storeBytes: await dirBytes(join(demo.dir, 'stations')),
      catalogBytes: await sizeOf('catalog.json'),
      parquetBytes: Object.fromEntries(
        await Promise.all(
          ['hourly', 'daily', 'monthly'].map(async (t) => [t, await dirBytes(join(demo.dir, 'stations', t))] as const),
        ),
      ),
      // A zarr store is a folder: its data array, without the preview (which no point or polygon reads).
      dailyRasterBytes: await (async () => {
        const l = layerOf(catalog, DAILY_LAYER.dataType, DAILY_LAYER.subDataType);
        const path = l.files[0]!.path;
        return l.layout === 'zarr' ? dirBytes(join(demo.dir, path, l.zarr!.variable)) : sizeOf(path);
      })(),
      baselines: Object.fromEntries(
        Object.entries(baselines).map(([k, b]) => [k, { files: b.files.length, bytes: b.bytes }]),
      ),
    },
    page,
    scenarios,
    coldStart,
  };
  const outDir = values.out ?? null;
  const jsonPath = outDir ? join(outDir, 'results.json') : join(REPO, 'bench/results.json');
  const docPath = outDir ? join(outDir, 'performance.md') : join(REPO, 'docs/performance.md');
  if (outDir) await mkdir(outDir, { recursive: true });
  const json = JSON.stringify(results, roundJson, 1);
  await writeFile(jsonPath, `${json}\n`);
  // The page is rendered from the JSON as written, so `npx tsx bench/report.ts` reproduces it exactly.
  const current = await readFile(join(REPO, 'docs/performance.md'), 'utf8').catch(() => '');
  await writeFile(docPath, renderPerformanceDoc(JSON.parse(json) as BenchResults, current));
  log(`wrote ${jsonPath} and ${docPath}; total ${(results.durationS / 60).toFixed(1)} min`);
}

function decimals(x: number): number {
  for (let d = 0; d <= 10; d++) if (Math.abs(Math.round(x * 10 ** d) - x * 10 ** d) < 1e-9 * 10 ** d) return d;
  return 10;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Keeps results.json readable: times to 0.1 ms, other fractions to 6 significant digits. */
function roundJson(key: string, value: unknown): unknown {
  // Request logs are for the run's own bookkeeping (bench/scale-run.ts splits footers with them), not for results.json.
  if (key === 'log') return undefined;
  if (typeof value !== 'number' || Number.isInteger(value)) return value;
  if (key === 'ms' || key.endsWith('Ms') || key.endsWith('S')) return Math.round(value * 10) / 10;
  return Number(value.toPrecision(6));
}

function chromiumVersion(): string {
  try {
    return execFileSync(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', ['--version'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'unknown';
  }
}

async function packageVersions(names: string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const n of names)
    out[n] = (
      JSON.parse(await readFile(join(REPO, 'node_modules', n, 'package.json'), 'utf8')) as { version: string }
    ).version;
  return out;
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
