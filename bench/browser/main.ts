/**
 * The benchmark page, built by bench/browser.ts with Vite as a production
 * bundle (what a user's browser downloads) and served by the bench server.
 *
 * `?mode=engine` (default): the project's engine Worker
 * (src/worker/engine-worker.ts), reading the station archive with hyparquet
 * over HTTP Range requests. `?mode=naive`: the same engine with a byte
 * source that downloads every file it touches whole (naive-worker.ts).
 * `?data=` is the dataset root. A `#` fragment holding
 * `{"path", "body"}` (URI-encoded JSON) is queried as soon as the script
 * runs: the cold-start measurement.
 */
import { createEngineClient } from '../../src/browser/engine-client.ts';

/** One answer as the bench sees it. */
interface BenchAnswer {
  status: number;
  /** The body of an error answer. */
  body?: unknown;
  /** Wall time of the query in the page, ms. */
  ms: number;
  /** performance.now() at the answer: ms since navigation start. */
  at: number;
}

const params = new URLSearchParams(location.search);
const mode = params.get('mode') ?? 'engine';
const data = params.get('data') ?? '../data/';
/** `?mode=duckdb`: DuckDB-WASM over the database file at `?db=` (duckdb-answerer.ts), loaded when the page loads. */
const duckdb =
  mode === 'duckdb'
    ? import('./duckdb-answerer.ts').then((m) =>
        m.createDuckDbAnswerer(data, params.get('db') ?? '../duckdb/stations.duckdb'),
      )
    : null;
type Engine = Pick<ReturnType<typeof createEngineClient>, 'handle' | 'layerGrid'>;
const engine: Engine = duckdb
  ? {
      handle: async (req) => (await duckdb).handle({ ...req, body: String(req.body) }) as never,
      layerGrid: () => Promise.reject(new Error('no layers in duckdb mode')),
    }
  : createEngineClient({
      dataset: data,
      worker:
        mode === 'naive'
          ? new Worker(new URL('./naive-worker.ts', import.meta.url), { type: 'module' })
          : new Worker(new URL('../../src/worker/engine-worker.ts', import.meta.url), { type: 'module' }),
    });

/** Runs one query; with `postAnswer`, hands the answer to the bench server (after the clock stops). */
async function run(path: string, body: string, postAnswer = false): Promise<BenchAnswer> {
  const t0 = performance.now();
  const res = await engine.handle({ method: 'POST', path, body });
  const at = performance.now();
  if (postAnswer) await fetch('/__bench/answer', { method: 'POST', body: JSON.stringify(res.body) });
  return { status: res.status, ...(res.status !== 200 ? { body: res.body } : {}), ms: at - t0, at };
}

const first =
  location.hash.length > 1
    ? (JSON.parse(decodeURIComponent(location.hash.slice(1))) as { path: string; body: string })
    : null;

const firstRun = first ? run(first.path, first.body) : null;

/**
 * Resolves once the Worker answers at all (its script downloaded and started): a request to no
 * endpoint, which the Worker refuses without touching the dataset. The load event does not wait
 * for a Worker's script, so without this a query timed "from a loaded page" sometimes included
 * the script's download (351 KB: most of a second at 4 Mbit/s) and sometimes not.
 */
const up = (duckdb ?? engine.handle({ method: 'GET', path: '/__bench/up', body: '' })).then(() => true);

/** One date of a layer for the map, as the app asks for it (engine.layerGrid); time in the page. */
async function grid(request: { dataType: string; subDataType: string; period: string }) {
  const t0 = performance.now();
  const g = await engine.layerGrid(request);
  return { ms: performance.now() - t0, width: g.width, height: g.height, min: g.min, max: g.max };
}

(globalThis as unknown as { bench: unknown }).bench = { run, first: firstRun, up, grid };
