/**
 * The shape of bench/results.json (raw numbers of one `npm run bench`) and
 * the summaries every report figure is computed from, so that the table in
 * docs/performance.md and the JSON always agree.
 */
import type { LinkProfile } from './link.ts';
import { cpus, platform, release, totalmem } from 'node:os';
import type { Agreement } from './compare.ts';
import type { BrowserRunStat, BuiltFile, ColdStartRun } from './browser.ts';
import type { LatencyRuns, Method, RunStat } from './jobs.ts';
import type { ScenarioFamily } from './scenarios.ts';

/** A run from Node (no parts) or from Chromium (requests by kind). */
export type AnyRun = RunStat & Partial<Pick<BrowserRunStat, 'parts' | 'storeReads'>>;

/** One method's runs on one scenario. */
export interface MethodResult {
  method: Method;
  /** Human label for the report. */
  label: string;
  /** Where it ran. */
  runtime: 'node' | 'chromium';
  latencies: Array<LatencyRuns & { cold: AnyRun[]; warm: AnyRun[] }>;
  /** Node: peak RSS of the child process minus its RSS before the first query. Chromium: peak RSS of the page's renderer process. Bytes. */
  peakMemory: number;
  /** How `peakMemory` was measured. */
  memoryKind: 'node-rss-growth' | 'renderer-peak-rss';
}

/** One scenario's results. */
export interface ScenarioResult {
  id: string;
  title: string;
  family: ScenarioFamily;
  /** Geometries in the request (points or polygons). */
  geometries: number;
  methods: MethodResult[];
  /**
   * Station scenarios: the engine's and the whole-file baseline's cold times (ms) at 40 ms with the
   * query sent as the Worker first answers, no idle second (absent in results written before it).
   */
  atOnce?: { engine: number[]; naive: number[] };
  /** Answer agreement of each other method with the reference (`reference` names it). */
  agreement: Array<{ reference: Method; other: Method; result: Agreement; note?: string }>;
}

/** Cold start in Chromium for one first query at one latency. */
export interface ColdStartResult {
  first: 'raster' | 'station';
  scenarioId: string;
  latencyMs: number;
  runs: ColdStartRun[];
  peakMemory: number;
}

/** Everything one run measured. */
export interface BenchResults {
  startedAt: string;
  durationS: number;
  environment: {
    node: string;
    platform: string;
    cpus: number;
    cpuModel: string;
    memoryGB: number;
    chromium: string;
    /** 1-minute load average before and after the run (other work on the machine skews wall times). */
    loadAverage: { start: number; end: number };
    packages: Record<string, string>;
  };
  setup: {
    latenciesMs: number[];
    maxConnections: number;
    /** The link profiles of the run (bench/link.ts); absent in results written before them. */
    profiles?: LinkProfile[];
    quick: boolean;
    /** How long a loaded page sits idle before a station query's cold run (absent before it: 0). */
    stationSettleMs?: number;
    /** Runs per method and latency, as configured. */
    runs: Record<string, Record<string, { cold: number; warm: number }>>;
  };
  dataset: {
    /** Seconds spent building the demo dataset in this run (0 = cached). */
    demoBuildS: number;
    storeBytes: number;
    catalogBytes: number;
    parquetBytes: Record<string, number>;
    /** The daily raster file the engine reads (one year, every date in it). */
    dailyRasterBytes: number;
    baselines: Record<string, { files: number; bytes: number }>;
  };
  /** The built bench page: every file with raw and gzip sizes. */
  page: BuiltFile[];
  scenarios: ScenarioResult[];
  coldStart: ColdStartResult[];
}

/** Median of `xs` (NaN for none). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Id of a profile's runs: the link profile (bench/link.ts), "local" for local files; a number is a latency's plain profile ("40"). */
export type ProfileKey = string | number | null;

/** The profile id of `key`. */
export function profileKey(key: ProfileKey): string {
  return key === null ? 'local' : String(key);
}

/** The profile id of a method's runs (results written before profiles existed have only a latency). */
export function profileOfRuns(l: { profile?: string; latencyMs: number | null }): string {
  return l.profile ?? profileKey(l.latencyMs);
}

/** The runs of `method` on link profile `key` (null: local), if any. */
export function runsAt(
  s: ScenarioResult,
  method: Method,
  key: ProfileKey,
): MethodResult['latencies'][number] | undefined {
  return s.methods.find((m) => m.method === method)?.latencies.find((l) => profileOfRuns(l) === profileKey(key));
}

/** Median cold or warm wall time of `method` on link profile `key`, ms. */
export function medianMs(s: ScenarioResult, method: Method, key: ProfileKey, which: 'cold' | 'warm'): number {
  return median((runsAt(s, method, key)?.[which] ?? []).map((r) => r.ms));
}

/** The machine a bench ran on, as both reports print it. */
export function hostInfo(): { node: string; platform: string; cpus: number; cpuModel: string; memoryGB: number } {
  return {
    node: process.version,
    platform: `${platform()} ${release()}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? '',
    memoryGB: Math.round(totalmem() / 1e9),
  };
}

/** A targets table in Markdown: one row per target, misses in bold. */
export function targetTable(targets: ReadonlyArray<{ target: string; measured: string; met: boolean }>): string[] {
  return [
    '| target | measured | met |',
    '|---|---|---|',
    ...targets.map((t) => `| ${t.target} | ${t.measured} | ${t.met ? 'yes' : '**no**'} |`),
  ];
}
