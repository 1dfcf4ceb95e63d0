/**
 * Measurement jobs and their results, shared by the runner (bench/run.ts),
 * the Node child process that runs a job (bench/child.ts) and the browser
 * runs (bench/browser.ts). Plain data, so they cross process boundaries as
 * JSON.
 */
import { fork } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** One timed query. */
export interface RunStat {
  /** Wall time from sending the request to having the answer, ms. */
  ms: number;
  /** HTTP requests the bench server answered during the run. */
  requests: number;
  /** Body bytes it sent. */
  bytes: number;
  /** Sequential round trips on the run's critical path (bench/link.ts roundTrips); absent for local runs. */
  roundTrips?: number;
}

/** Runs at one latency. */
export interface LatencyRuns {
  /** Added per request by the server; null where nothing goes over HTTP (local files). */
  latencyMs: number | null;
  /** The link profile's id (bench/link.ts), or "local" for local files. */
  profile: string;
  /** Each from nothing cached (new engine, new page, new instance). */
  cold: RunStat[];
  /** The same query again on the same engine/page/instance, after one unmeasured run. */
  warm: RunStat[];
  /** Engine only: after a query that read the catalog and the file headers (a point in the sea), what this query costs on top. */
  primed?: RunStat;
  /** Engine only: what that priming query cost (catalog + headers). */
  prime?: RunStat;
}

/**
 * Ways a scenario is answered. `engine-*` is the project's engine (in Node
 * over HTTP, or in Chromium); `engine-node-wasm` and `engine-node-native`
 * run the station engine in Node on the local store (DuckDB-WASM in-process
 * or native DuckDB), to tell the cost of WASM from that of the browser's
 * Workers; the rest are baselines.
 */
export type Method =
  | 'engine-node'
  | 'engine-chromium'
  | 'geotiff'
  | 'geoblaze'
  | 'duckdb-native'
  | 'duckdb-wasm-chromium'
  | 'naive-chromium'
  | 'engine-node-wasm'
  | 'engine-node-native';

/** Methods a Node child process runs. */
export type NodeMethod =
  | 'engine-node'
  | 'geotiff'
  | 'geoblaze'
  | 'duckdb-native'
  | 'engine-node-wasm'
  | 'engine-node-native';

/** A job for a Node child process. */
export interface NodeJob {
  scenarioId: string;
  method: NodeMethod;
  /** Bench servers to run against: base URL for Node (mounts /data/ and /baseline/), their profile id and latency. */
  servers: Array<{ url: string; profile: string; latencyMs: number }>;
  /** Local dataset folder (native DuckDB reads its Parquet files). */
  demoDir: string;
  /** For raster baselines: the per-period files under /baseline/<folder>/. */
  baseline?: { folder: string; files: string[]; periods: string[] };
  /** Runs per link profile, by profile id (bench/link.ts); "local" for jobs without HTTP. */
  runs: Record<string, { cold: number; warm: number }>;
  /** Where to write the first cold answer (JSON). */
  answerFile: string;
}

/** What a Node job reports. */
export interface NodeJobResult {
  latencies: LatencyRuns[];
  /** Resident memory after a warm-up query, just before the first measured one, bytes. */
  rssBefore: number;
  /** Peak resident memory of the process from then to the end of the job, bytes. */
  peakRss: number;
}

/** Runs `job` in a fresh Node process (tsx, --expose-gc) and returns its result. */
export async function runInChild(job: NodeJob, jobFile: string): Promise<NodeJobResult> {
  await writeFile(jobFile, JSON.stringify(job));
  const child = fork(fileURLToPath(new URL('./child.ts', import.meta.url)), [jobFile], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    // tsx applies tsconfig "paths" at run time; the root tsconfig maps DuckDB's blocking
    // bundle to its .d.ts for type checking, which must not be what Node loads.
    env: process.env,
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
    if (stderr.length > 20_000) stderr = stderr.slice(-20_000);
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  if (code !== 0)
    throw new Error(
      `bench job ${job.scenarioId}/${job.method} failed (exit ${code}):\n${stderr
        .split('\n')
        .filter((l) => !/worker_threads not available/.test(l))
        .join('\n')}`,
    );
  return JSON.parse(await readFile(`${jobFile}.result.json`, 'utf8')) as NodeJobResult;
}
