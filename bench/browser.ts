/**
 * Browser runs in headless Chromium (test/helpers/browser.ts): the bench
 * page (bench/browser/) built by Vite as a production bundle and served,
 * with the dataset, by the bench server — so the page's JS and WASM, the
 * catalog, the store and the rasters all pay the same latency and share
 * the 6 connections.
 *
 * - {@link BrowserBench.runs}: a scenario from a fresh browser context
 *   (nothing cached: no HTTP cache, no compiled WASM, new Workers), then
 *   again on the same page (warm);
 * - {@link BrowserBench.coldStart}: navigation → first answer, with the
 *   query issued by the page's own script as it starts.
 *
 * Peak memory is the highest VmHWM (/proc) of the renderer processes the
 * context started: the page and the engine Worker live in that process.
 */
import { readFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { build } from 'vite';
import { launchChromium } from '../test/helpers/browser.ts';
import type { LatencyRuns, RunStat } from './jobs.ts';
import { roundTrips } from './link.ts';
import type { BenchServer, LoggedRequest } from './server.ts';
import { pathOf, type Scenario } from './scenarios.ts';

/**
 * What a request fetched, by kind: `index` is what the engine reads before
 * any station data (the station index and coverage lines), `data` the
 * station files (footers and column chunks).
 */
export type Part = 'code' | 'catalog' | 'index' | 'data' | 'raster' | 'other';

/** Requests and bytes per kind. */
export type Parts = Record<Part, { requests: number; bytes: number }>;

/** A browser run: the run's numbers plus what was fetched, by kind. */
export interface BrowserRunStat extends RunStat {
  parts: Parts;
  /** Reads of the station store: distinct bytes (overlapping ranges counted once) and the largest single read. */
  storeReads?: { distinctBytes: number; largestBytes: number };
  /** Every request of the run (left out of results.json; the scale bench splits footers from data with it). */
  log?: LoggedRequest[];
}

/** Distinct bytes (per file) and the largest read among the range requests of `log` on paths ending in `suffix`. */
export function rangeStats(
  log: readonly LoggedRequest[],
  suffix: string,
): { distinctBytes: number; largestBytes: number } {
  // The station archive is many files: spans are merged per file, never across files.
  const byPath = new Map<string, Array<[number, number]>>();
  let largestBytes = 0;
  for (const e of log) {
    if (!e.path.endsWith(suffix) || e.bytes === 0) continue;
    largestBytes = Math.max(largestBytes, e.bytes);
    const m = e.range ? /bytes=(\d+)-/.exec(e.range) : null;
    const start = m ? Number(m[1]) : 0;
    if (!byPath.has(e.path)) byPath.set(e.path, []);
    byPath.get(e.path)!.push([start, start + e.bytes]);
  }
  let distinctBytes = 0;
  for (const spans of byPath.values()) {
    spans.sort((a, b) => a[0] - b[0]);
    let end = -1;
    for (const [a, b] of spans) {
      if (b <= end) continue;
      distinctBytes += b - Math.max(a, end);
      end = b;
    }
  }
  return { distinctBytes, largestBytes };
}

/** Kind of a request by its path. */
export function partOf(path: string): Part {
  if (/\.(js|mjs|wasm|html|css)$/.test(path)) return 'code';
  if (path.endsWith('/catalog.json')) return 'catalog';
  // The station archive (docs/data.md): index and coverage lines, then one Parquet file per station and scale.
  if (/\/stations\/(index\.parquet|coverage\.jsonl|stations\.parquet)$/.test(path)) return 'index';
  if (path.includes('/stations/')) return 'data';
  // The DuckDB-WASM baseline's database file (bench/dataset.ts ensureStationDuckDb): its station rows.
  if (path.endsWith('.duckdb')) return 'data';
  if (path.endsWith('.tif') || path.includes('.zarr/')) return 'raster';
  return 'other';
}

/** Sums a server log by kind. */
export function partsOf(log: readonly LoggedRequest[]): Parts {
  const parts: Parts = {
    code: { requests: 0, bytes: 0 },
    catalog: { requests: 0, bytes: 0 },
    index: { requests: 0, bytes: 0 },
    data: { requests: 0, bytes: 0 },
    raster: { requests: 0, bytes: 0 },
    other: { requests: 0, bytes: 0 },
  };
  for (const e of log) {
    const p = parts[partOf(e.path)];
    p.requests++;
    p.bytes += e.bytes;
  }
  return parts;
}

/** A file of the built page. */
export interface BuiltFile {
  /** Path relative to the build folder. */
  name: string;
  bytes: number;
  /** Size after gzip -6: about what a CDN that compresses would send. */
  gzipBytes: number;
}

/** Builds bench/browser/ with Vite (production, minified; BENCH_NO_MINIFY=1 keeps names, for reading a profile) into `outDir`. */
export async function buildBenchPage(outDir: string): Promise<BuiltFile[]> {
  await build({
    configFile: false,
    root: new URL('./browser/', import.meta.url).pathname,
    base: './',
    publicDir: false,
    logLevel: 'warn',
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      reportCompressedSize: false,
      minify: !process.env.BENCH_NO_MINIFY,
    },
    worker: { format: 'es' },
  });
  const files: BuiltFile[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const name of await readdir(dir)) {
      const p = join(dir, name);
      if ((await stat(p)).isDirectory()) await walk(p);
      else {
        const bytes = readFileSync(p);
        files.push({ name: relative(outDir, p), bytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 6 }).length });
      }
    }
  };
  await walk(outDir);
  return files;
}

/** A cold-start measurement. */
export interface ColdStartRun {
  /** Navigation start → load event end, ms. */
  loadMs: number;
  /** Navigation start → the answer, ms. */
  answerMs: number;
  status: number;
  requests: number;
  bytes: number;
  parts: Parts;
  /** Paths of the code files fetched before the answer. */
  codeFiles: string[];
  /** Sequential round trips on the critical path, code included (bench/link.ts roundTrips). */
  roundTrips?: number;
  /** Every request of the run (left out of results.json). */
  log?: LoggedRequest[];
}

interface BenchWindow {
  bench: {
    run(
      path: string,
      body: string,
      postAnswer?: boolean,
    ): Promise<{ status: number; body?: unknown; ms: number; at: number }>;
    first: Promise<{ status: number; body?: unknown; ms: number; at: number }> | null;
    /** Resolves once the engine Worker answers (its script downloaded and started). */
    up: Promise<boolean>;
  };
}

/** Chromium plus the bookkeeping of its renderer processes. */
export class BrowserBench {
  private constructor(
    private readonly browser: Browser,
    private readonly cdp: CDPSession,
  ) {}

  /** Launches Chromium. */
  static async start(): Promise<BrowserBench> {
    const browser = await launchChromium();
    return new BrowserBench(browser, await browser.newBrowserCDPSession());
  }

  async close(): Promise<void> {
    await this.browser.close();
  }

  private async renderers(): Promise<Set<number>> {
    const { processInfo } = await this.cdp.send('SystemInfo.getProcessInfo');
    return new Set(processInfo.filter((p) => p.type === 'renderer').map((p) => p.id));
  }

  /**
   * Opens `url` in a fresh context; returns the page, a way to read its renderers' peak memory, and a closer.
   * `settleMs`: then leaves the loaded page idle that long (see {@link BrowserBench.runs}).
   */
  private async fresh(
    url: string,
    settleMs = 0,
  ): Promise<{ page: Page; peak(): Promise<number>; close(): Promise<void> }> {
    const before = await this.renderers();
    // The HTTP/2 profile serves TLS with a throwaway self-signed certificate (bench/link.ts).
    const context = await this.browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    page.setDefaultTimeout(180_000);
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForFunction(() => 'bench' in window);
    // Loaded means the engine Worker is up too (bench/browser/main.ts `up`).
    await page.evaluate(() => (window as unknown as BenchWindow).bench.up);
    if (settleMs > 0) await page.waitForTimeout(settleMs);
    const peak = async () => {
      let max = 0;
      for (const pid of await this.renderers()) if (!before.has(pid)) max = Math.max(max, vmHwm(pid));
      return max;
    };
    return { page, peak, close: () => context.close() };
  }

  /**
   * Runs `s` in `mode` against `server`: `cold` times from a fresh context
   * (the first one keeps its answer), then `warm` times on the last page.
   * `settleMs`: each cold query waits that long after the page has loaded and
   * its engine Worker has answered once, as a person does before drawing.
   */
  async runs(
    server: BenchServer,
    mode: 'engine' | 'naive' | 'duckdb',
    s: Scenario,
    cold: number,
    warm: number,
    data = '../data/',
    settleMs = 0,
  ): Promise<{
    runs: LatencyRuns & { cold: BrowserRunStat[]; warm: BrowserRunStat[] };
    peakRss: number;
    answer: unknown;
  }> {
    const url = `${server.url}app/index.html?mode=${mode}&data=${data}`;
    const body = JSON.stringify(s.body);
    // A scenario with further bodies is one run: each sent after the last is answered, times summed.
    const more = (s.followedBy ?? []).map((b) => JSON.stringify(b));
    const query = async (page: Page, path: string, first: string, postAnswer: boolean) => {
      const r = await queryOne(page, path, first, postAnswer);
      for (const b of more) {
        if (r.status !== 200) break;
        const n = await queryOne(page, path, b, false);
        r.ms += n.ms;
        r.status = n.status;
        if (n.status !== 200) r.body = n.body;
      }
      return r;
    };
    const out: LatencyRuns & { cold: BrowserRunStat[]; warm: BrowserRunStat[] } = {
      latencyMs: server.latencyMs,
      profile: server.profile.id,
      cold: [],
      warm: [],
    };
    let answer: unknown;
    let peakRss = 0;
    for (let i = 0; i < Math.max(1, cold); i++) {
      const f = await this.fresh(url, settleMs);
      try {
        server.reset();
        const r = await query(f.page, pathOf(s), body, i === 0);
        if (r.status !== 200)
          throw new Error(`${s.id} (${mode}) answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
        if (i === 0) answer = JSON.parse(server.takeAnswer() ?? 'null');
        const c = server.counts();
        out.cold.push({
          ms: r.ms,
          requests: c.requests,
          bytes: c.bytes,
          parts: partsOf(c.log),
          storeReads: rangeStats(c.log, '.parquet'),
          roundTrips: roundTrips(c.log),
          log: c.log,
        });
        if (i === Math.max(1, cold) - 1) {
          await query(f.page, pathOf(s), body, false);
          for (let w = 0; w < warm; w++) {
            server.reset();
            const rw = await query(f.page, pathOf(s), body, false);
            const cw = server.counts();
            out.warm.push({ ms: rw.ms, requests: cw.requests, bytes: cw.bytes, parts: partsOf(cw.log) });
          }
        }
        peakRss = Math.max(peakRss, await f.peak());
      } finally {
        await f.close();
      }
    }
    if (cold === 0) out.cold = [];
    return { runs: out, peakRss, answer };
  }

  /**
   * One date's map preview in a fresh context (the page's engine Worker, as the app asks for it),
   * sent 1 s after the page has loaded, as a person picks a layer to look at: its time in the page
   * and the requests it made (the page's own loading and catalog read come before and are left out).
   */
  async layerGrid(
    server: BenchServer,
    data: string,
    request: { dataType: string; subDataType: string; period: string },
  ): Promise<{ ms: number; width: number; log: LoggedRequest[] }> {
    const f = await this.fresh(`${server.url}app/index.html?mode=engine&data=${data}`, 1000);
    try {
      server.reset();
      const r = await f.page.evaluate(
        (req) =>
          (
            window as unknown as {
              bench: { grid(q: typeof req): Promise<{ ms: number; width: number }> };
            }
          ).bench.grid(req),
        request,
      );
      return { ms: r.ms, width: r.width, log: server.counts().log };
    } finally {
      await f.close();
    }
  }

  /** Cold start: a fresh context loads the page, whose script sends `s` at once; `n` times. */
  async coldStart(
    server: BenchServer,
    s: Scenario,
    n: number,
    data = '../data/',
  ): Promise<{ runs: ColdStartRun[]; peakRss: number }> {
    const hash = encodeURIComponent(JSON.stringify({ path: pathOf(s), body: JSON.stringify(s.body) }));
    const runs: ColdStartRun[] = [];
    let peakRss = 0;
    for (let i = 0; i < n; i++) {
      server.reset();
      const f = await this.fresh(`${server.url}app/index.html?mode=engine&data=${data}#${hash}`);
      try {
        const r = await f.page.evaluate(() => (window as unknown as BenchWindow).bench.first!);
        const loadMs = await f.page.evaluate(
          () => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).loadEventEnd,
        );
        const c = server.counts();
        runs.push({
          loadMs,
          answerMs: r.at,
          status: r.status,
          requests: c.requests,
          bytes: c.bytes,
          parts: partsOf(c.log),
          codeFiles: c.log.filter((e) => partOf(e.path) === 'code').map((e) => e.path),
          roundTrips: roundTrips(c.log),
          log: c.log,
        });
        peakRss = Math.max(peakRss, await f.peak());
      } finally {
        await f.close();
      }
    }
    return { runs, peakRss };
  }
}

function queryOne(page: Page, path: string, body: string, postAnswer: boolean) {
  return page.evaluate(([p, b, k]) => (window as unknown as BenchWindow).bench.run(p, b, k), [
    path,
    body,
    postAnswer,
  ] as const);
}

/** Peak resident memory (VmHWM) of a process, bytes; 0 when it is gone. */
function vmHwm(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}
