/**
 * Runs one {@link NodeJob} in its own Node process, so that its peak
 * memory is its own: `node --import tsx --expose-gc bench/child.ts JOB.json`.
 * Writes `JOB.json.result.json` and the first cold answer to `job.answerFile`.
 *
 * Methods:
 * - `engine-node`: the project's engine over HTTP exactly as the browser
 *   Worker runs it (`createClimateEngine` with fetch Range reads), rasters;
 * - `geotiff`, `geoblaze`: bench/baselines/raster.ts on the per-date files;
 * - `duckdb-native`: bench/baselines/stations.ts on the local Parquet files;
 * - `engine-node-wasm`, `engine-node-native`: the station engine on the
 *   local store (`createNodeEngine`), DuckDB-WASM in-process or native.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  validateNearestStation,
  validatePoint,
  validatePolyAggregate,
  validatePolygon,
} from '../src/contract/validate.ts';
import type { RasterQuery } from '../src/contract/types.ts';
import { createClimateEngine, type ClimateEngine } from '../src/engine/engine.ts';
import { createNodeEngine } from '../src/node/node-engine.ts';
import {
  clearGeoblazeCache,
  geoblazePerDate,
  geotiffPerDate,
  newGeotiffState,
  type BaselineFiles,
} from './baselines/raster.ts';
import { loadLocalIndex, nativeNearestStation, nativePolyAggregate, openNative } from './baselines/stations.ts';
import { readCatalog, layerOf } from './dataset.ts';
import type { LatencyRuns, NodeJob, NodeJobResult, RunStat } from './jobs.ts';
import { scenario, SEA_POINT, type Scenario } from './scenarios.ts';
import { roundTrips } from './link.ts';
import { remoteCounts, remoteReset } from './server.ts';

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

/** A query run against a server: how long, how many requests and bytes. */
async function timed(
  serverUrl: string | null,
  run: () => Promise<unknown>,
): Promise<{ stat: RunStat; answer: unknown }> {
  if (serverUrl) await remoteReset(serverUrl);
  const t0 = performance.now();
  const answer = await run();
  const ms = performance.now() - t0;
  if (!serverUrl) return { stat: { ms, requests: 0, bytes: 0 }, answer };
  const counts = await remoteCounts(serverUrl);
  return {
    stat: { ms, requests: counts.requests, bytes: counts.bytes, roundTrips: roundTrips(counts.log) },
    answer,
  };
}

/** The body of a query that opens the same layer file but reads no tile: one point in the sea, one date. */
function primeBody(s: Scenario): Record<string, unknown> {
  const { aggregationMethod: _drop, ...options } = s.body.options as Record<string, unknown>;
  const body: Record<string, unknown> = { ...s.body, wkts: SEA_POINT, options };
  if (body.startDate) body.endDate = body.startDate;
  return body;
}

/**
 * The scenario's body cut to its first period: the warm-up query, which
 * loads the code paths (decoders, WASM) before anything is measured.
 */
function warmUpBody(s: Scenario): Record<string, unknown> {
  return s.body.startDate ? { ...s.body, endDate: s.body.startDate } : s.body;
}

/** A query answerer of one method: `fresh()` forgets everything (cold), `query()` answers a body. */
interface Answerer {
  fresh(serverUrl: string | null): Promise<void>;
  query(body: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

async function rasterAnswerer(job: NodeJob, s: Scenario): Promise<Answerer> {
  const catalog = await readCatalog(job.demoDir);
  if (job.method === 'engine-node') {
    let engine: ClimateEngine | null = null;
    return {
      async fresh(url) {
        await engine?.close();
        engine = createClimateEngine({ dataset: `${url}data/` });
      },
      query: (body) => engine!.query(s.endpoint, body),
      close: async () => engine?.close(),
    };
  }
  const b = job.baseline!;
  let base = '';
  const parse = (body: Record<string, unknown>): { q: RasterQuery; files: BaselineFiles } => {
    const q = s.endpoint === 'point' ? validatePoint(body) : validatePolygon(body);
    const layer = layerOf(catalog, q.dataType, q.subDataType);
    const wanted = q.range ? new Set(q.range.keys) : null;
    const keep = b.periods.map((p) => !wanted || wanted.has(p));
    const files: BaselineFiles = {
      urls: b.files.filter((_, i) => keep[i]).map((f) => `${base}baseline/${b.folder}/${f}`),
      periods: b.periods.filter((_, i) => keep[i]),
      scale: layer.scale,
      offset: layer.offset,
      nodata: layer.nodata,
    };
    return { q, files };
  };
  if (job.method === 'geotiff') {
    let state = newGeotiffState();
    return {
      async fresh(url) {
        state = newGeotiffState();
        base = url!;
      },
      query(body) {
        const { q, files } = parse(body);
        return geotiffPerDate(q, files, state);
      },
      close: async () => undefined,
    };
  }
  return {
    async fresh(url) {
      clearGeoblazeCache();
      base = url!;
    },
    query(body) {
      const { q, files } = parse(body);
      return geoblazePerDate(q, files);
    },
    close: async () => undefined,
  };
}

async function nodeEngineAnswerer(job: NodeJob, s: Scenario): Promise<Answerer> {
  let engine: ClimateEngine | null = null;
  return {
    async fresh() {
      await engine?.close();
      engine = createNodeEngine(job.demoDir);
    },
    query: (body) => engine!.query(s.endpoint, body),
    close: async () => engine?.close(),
  };
}

async function nativeAnswerer(job: NodeJob, s: Scenario): Promise<Answerer> {
  const { stations, coverage } = await loadLocalIndex(job.demoDir);
  const dir = join(job.demoDir, 'stations');
  let db: Awaited<ReturnType<typeof openNative>> | null = null;
  return {
    async fresh() {
      db?.close();
      db = await openNative();
    },
    query(body) {
      const q = s.endpoint === 'nearest-station' ? validateNearestStation(body) : validatePolyAggregate(body);
      return s.endpoint === 'nearest-station'
        ? nativeNearestStation(db!.con, dir, q, stations, coverage)
        : nativePolyAggregate(db!.con, dir, q, stations);
    },
    close: async () => db?.close(),
  };
}

/** Resident memory now, and the peak since the last {@link resetPeak} (Linux /proc), bytes. */
function memory(): { rss: number; peak: number } {
  const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return { rss: process.memoryUsage().rss, peak: m ? Number(m[1]) * 1024 : process.resourceUsage().maxRSS * 1024 };
}

/** Resets the kernel's peak-RSS mark to the current RSS, so the peak covers only what follows. */
function resetPeak(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // Not Linux, or not allowed: the peak then also covers start-up.
  }
}

async function main(): Promise<void> {
  const jobFile = process.argv[2]!;
  const job = JSON.parse(await readFile(jobFile, 'utf8')) as NodeJob;
  const s = scenario(job.scenarioId);
  const local =
    job.method === 'duckdb-native' || job.method === 'engine-node-wasm' || job.method === 'engine-node-native';
  const answerer =
    job.method === 'duckdb-native'
      ? await nativeAnswerer(job, s)
      : local
        ? await nodeEngineAnswerer(job, s)
        : await rasterAnswerer(job, s);
  const targets: Array<{ url: string | null; latencyMs: number | null; key: string }> = local
    ? [{ url: null, latencyMs: null, key: 'local' }]
    : job.servers
        .filter((x) => job.runs[x.profile])
        .map((x) => ({ url: x.url, latencyMs: x.latencyMs, key: x.profile }));

  // Warm-up: load every code path once on a one-period query, then measure memory from here.
  await answerer.fresh(targets[0]!.url);
  await answerer.query(warmUpBody(s));
  gc();
  resetPeak();
  const rssBefore = memory().rss;
  let answerWritten = false;
  const latencies: LatencyRuns[] = [];
  for (const target of targets) {
    const runs = job.runs[target.key] ?? { cold: 0, warm: 0 };
    const out: LatencyRuns = { latencyMs: target.latencyMs, profile: target.key, cold: [], warm: [] };
    for (let i = 0; i < runs.cold; i++) {
      await answerer.fresh(target.url);
      gc();
      const { stat, answer } = await timed(target.url, () => answerer.query(s.body));
      out.cold.push(stat);
      if (!answerWritten) {
        await writeFile(job.answerFile, JSON.stringify(answer));
        answerWritten = true;
      }
    }
    if (runs.warm > 0) {
      if (runs.cold === 0) await answerer.fresh(target.url);
      await answerer.query(s.body);
      for (let i = 0; i < runs.warm; i++) out.warm.push((await timed(target.url, () => answerer.query(s.body))).stat);
    }
    if (job.method === 'engine-node' && target.url) {
      // What the query costs once the catalog and the file's header are known.
      const s2 = { ...s, endpoint: 'point' as const };
      const engine = createClimateEngine({ dataset: `${target.url}data/` });
      const prime = await timed(target.url, () => engine.query(s2.endpoint, primeBody(s)));
      const primed = await timed(target.url, () => engine.query(s.endpoint, s.body));
      out.prime = prime.stat;
      out.primed = primed.stat;
      await engine.close();
    }
    latencies.push(out);
  }
  await answerer.close();
  const result: NodeJobResult = { latencies, rssBefore, peakRss: memory().peak };
  await writeFile(`${jobFile}.result.json`, JSON.stringify(result));
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(
      `${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n${err instanceof Error && err.cause ? `cause: ${String((err.cause as Error).stack ?? err.cause)}\n` : ''}`,
    );
    process.exit(1);
  },
);
