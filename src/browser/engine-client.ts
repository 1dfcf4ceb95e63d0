/**
 * The engine for web pages: the same typed functions as
 * {@link createClimateEngine}, answered by a dedicated Worker so the page
 * never janks. Errors arrive as {@link ClimateQueryError} with their code.
 */
import { ClimateQueryError, type ErrorBody, errorFromBody } from '../contract/errors.ts';
import type { Endpoint, ResponseOf } from '../contract/types.ts';
import { endpointOf, type ApiJsonResponse, type ApiRequest, type ApiResponse } from '../engine/router.ts';
import type { CallOptions, ClimateQueries, DatasetViews } from '../engine/engine.ts';
import { TablesReceived } from '../worker/packed-tables.ts';
import { bodyOf, type FromWorker, type ToWorker, type WorkerCall, type WorkerCalls } from '../worker/protocol.ts';
import { urlLocation } from '../dataset/location.ts';
import { LinkMeter } from '../io/link-meter.ts';
import { runStationSql, type SqlRunner, type StationSqlResult } from '../sql/station-sql.ts';

/** The page side of the engine worker: the routes, and the dataset's catalog, stations and layer grids, all read in the Worker (the catalog and station index read ahead for it, `readAhead`). */
export interface EngineClient extends ClimateQueries, DatasetViews {
  /**
   * Read-only SQL over chosen stations' records (docs/sql.md): the worker
   * reads the rows, the page's DuckDB-WASM (`sqlRunner`) runs the query.
   */
  sql(body: unknown, options?: CallOptions): Promise<StationSqlResult>;
  /** Like `handle`, with the body as the JSON text the worker wrote (what a service worker answers with). */
  handleJson(request: ApiRequest, options?: CallOptions): Promise<ApiJsonResponse>;
  /** Stops the worker. */
  terminate(): void;
}

/** Options of {@link createEngineClient}. */
export interface EngineClientOptions {
  /** Dataset root URL (absolute, or relative to the page). */
  dataset: string | URL;
  /**
   * A Worker running the engine (`climate-query/worker`). With Vite:
   * `import EngineWorker from 'climate-query/worker?worker'` and pass
   * `new EngineWorker()`; in this repository,
   * `new Worker(new URL('../worker/engine-worker.ts', import.meta.url), { type: 'module' })`.
   * Bundlers only bundle a worker they can see being created, so the app creates it.
   */
  worker: Worker;
  /**
   * Starts the DuckDB that `sql` runs on, on its first use: e.g.
   * `() => import('climate-query/sql-wasm').then((m) => m.createDuckDbWasmRunner(bundles))`.
   * Without it, `sql` fails with `sql_unavailable`.
   */
  sqlRunner?: () => Promise<SqlRunner>;
  /**
   * Read the dataset's catalog.json and its station index here, as the Worker's code downloads,
   * and hand them over (default true): every query reads the catalog first and every station
   * query the index next, and a Worker could only ask for them once its own script had arrived
   * and run. Set false for a worker that is not climate-query's engine Worker.
   */
  readAhead?: boolean;
}

/**
 * Starts the engine worker on `dataset`, and reads for it meanwhile what every first query reads
 * first: the catalog (a small JSON file) and, when it lists stations, the station index.
 */
export function createEngineClient(options: EngineClientOptions): EngineClient {
  const { worker } = options;
  const dataset = new URL(String(options.dataset), globalThis.location?.href).href;
  const ahead = options.readAhead ?? typeof fetch === 'function';
  worker.postMessage({ type: 'init', dataset, readAhead: ahead } satisfies ToWorker);
  // Measured on the scale bench's cold start (40 ms per request): the Worker asked for the catalog
  // 100–250 ms after the page's script ran (its own 200 KB script fetched, compiled and run first).
  /** Whether a station query or view has been asked of this client: the station index is then worth reading ahead. */
  let stationsAsked = false;
  if (ahead) void readAhead(dataset, worker, () => stationsAsked);
  let nextId = 1;
  type Answer = { response: Extract<FromWorker, { type: 'response' }>; received?: TablesReceived };
  const pending = new Map<number, (a: Answer) => void>();
  /** Period tables of answers still being made, made into objects as they arrive (packed-tables.ts). */
  const parts = new Map<number, TablesReceived>();
  const calls = new Map<number, (m: Extract<FromWorker, { type: 'result' }>) => void>();
  worker.addEventListener('message', (ev: MessageEvent<FromWorker>) => {
    const m = ev.data;
    if (m?.type === 'part') {
      // Only for a request still waited on (an aborted one's parts are dropped).
      if (pending.has(m.id)) {
        let received = parts.get(m.id);
        if (!received) parts.set(m.id, (received = new TablesReceived()));
        try {
          received.add(m.table);
        } catch {
          // Left out: the answer that names it becomes engine_unavailable (handle).
        }
      }
    } else if (m?.type === 'response') {
      const received = parts.get(m.id);
      parts.delete(m.id);
      pending.get(m.id)?.(received ? { response: m, received } : { response: m });
      pending.delete(m.id);
    } else if (m?.type === 'result') {
      calls.get(m.id)?.(m);
      calls.delete(m.id);
    }
  });

  /** Calls one engine method in the worker; rejects with its ClimateQueryError. */
  function call<M extends WorkerCall>(
    method: M,
    args: WorkerCalls[M]['args'],
    signal?: AbortSignal,
  ): Promise<WorkerCalls[M]['result']> {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new ClimateQueryError('aborted', 'The request was aborted.'));
      if (method === 'stations' || method === 'stationTable') stationsAsked = true;
      const onAbort = () => {
        worker.postMessage({ type: 'abort', id } satisfies ToWorker);
        calls.delete(id);
        reject(new ClimateQueryError('aborted', 'The request was aborted.'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      calls.set(id, (m) => {
        signal?.removeEventListener('abort', onAbort);
        if ('value' in m) resolve(m.value as WorkerCalls[M]['result']);
        else reject(errorFromBody(m.error));
      });
      worker.postMessage({ type: 'call', id, method, args } as ToWorker);
    });
  }

  /** Sends a request; the answer's body comes back as an object (with the tables sent ahead of it) or, with `as: 'json'`, as JSON text. */
  function ask(request: ApiRequest, as: 'json' | 'object', opts: CallOptions): Promise<Answer> {
    const id = nextId++;
    const { signal } = opts;
    const aborted = () => ({ response: { type: 'response' as const, id, ...abortedResponse() } });
    if (signal?.aborted) return Promise.resolve(aborted());
    const endpoint = endpointOf(request.path);
    if (endpoint && STATION_ENDPOINTS.has(endpoint)) stationsAsked = true;
    return new Promise((resolve) => {
      const onAbort = () => {
        worker.postMessage({ type: 'abort', id } satisfies ToWorker);
        pending.delete(id);
        parts.delete(id);
        resolve(aborted());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      pending.set(id, (r) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(r);
      });
      worker.postMessage({ type: 'request', id, request, as } satisfies ToWorker);
    });
  }

  async function handle(request: ApiRequest, opts: CallOptions = {}): Promise<ApiResponse> {
    const { response, received } = await ask(request, 'object', opts);
    try {
      return { status: response.status, body: bodyOf(response, received) };
    } catch (cause) {
      // The Worker named a table part that never arrived: not a state a query can be answered from.
      const e = new ClimateQueryError(
        'engine_unavailable',
        `The engine Worker's answer was incomplete (${(cause as Error).message}). Reload the page and retry.`,
        { cause },
      );
      return { status: e.status, body: e.toBody() };
    }
  }

  async function handleJson(request: ApiRequest, opts: CallOptions = {}): Promise<ApiJsonResponse> {
    const { response: r } = await ask(request, 'json', opts);
    return { status: r.status, json: 'json' in r ? r.json : JSON.stringify(bodyOf(r)) };
  }

  async function query<E extends Endpoint>(endpoint: E, body: unknown, opts: CallOptions = {}): Promise<ResponseOf[E]> {
    const res = await handle({ method: 'POST', path: `/api/${endpoint}/`, body }, opts);
    if (res.status !== 200) {
      const { error } = res.body as ErrorBody;
      throw errorFromBody(error);
    }
    return res.body as ResponseOf[E];
  }

  return {
    nearestStation: (b, o) => query('nearest-station', b, o),
    polyAggregate: (b, o) => query('poly-aggregate', b, o),
    point: (b, o) => query('point', b, o),
    polygon: (b, o) => query('polygon', b, o),
    stationIndices: (b, o) => query('station-indices', b, o),
    query,
    handle,
    handleJson,
    catalog: (o = {}) => call('catalog', [], o.signal),
    stations: (o = {}) => call('stations', [], o.signal),
    layerGrid: (request, o = {}) => call('layerGrid', [request], o.signal),
    rangeSupport: (o = {}) => call('rangeSupport', [], o.signal),
    sql(body, o = {}) {
      const runner = options.sqlRunner;
      if (!runner)
        return Promise.reject(
          new ClimateQueryError(
            'sql_unavailable',
            'This engine client was created without a SQL runner: pass `sqlRunner` (createDuckDbWasmRunner from climate-query/sql-wasm).',
          ),
        );
      return runStationSql(body, (request, signal) => call('stationTable', [request], signal), runner, o.signal);
    },
    terminate: () => worker.terminate(),
  };
}

function abortedResponse(): ApiJsonResponse {
  return { status: 499, json: JSON.stringify(new ClimateQueryError('aborted', 'The request was aborted.').toBody()) };
}

/** Largest station index read ahead: a bigger one is the Worker's to read when a query needs it. */
const MAX_INDEX_AHEAD = 16 * 1024 * 1024;

/** The endpoints that read the station archive. */
const STATION_ENDPOINTS: ReadonlySet<Endpoint> = new Set(['nearest-station', 'poly-aggregate', 'station-indices']);

/**
 * Reads the dataset's catalog and, when it lists stations and a station query has been asked
 * meanwhile (`stationsAsked`: a raster query needs nothing of stations, and reads nothing of
 * them), the station index, as the engine reads them (the same location code: paths confined to
 * the dataset, sizes checked, the same time limits, no retries: the Worker retries), and sends
 * them to `worker`. The catalog's text is sent as soon as it is in, with the index announced; the
 * index follows with the times of its read, for the Worker's link meter. Anything not read is sent
 * as null: the Worker reads it.
 */
async function readAhead(dataset: string, worker: Worker, stationsAsked: () => boolean): Promise<void> {
  const meter = new LinkMeter();
  const location = urlLocation(dataset, { meter, retry: { retries: 0, baseDelayMs: 0 }, multiRange: false });
  const text = await location.readText('catalog.json').catch(() => null);
  const index = text === null || !stationsAsked() ? null : stationIndexIn(text);
  worker.postMessage({ type: 'catalog', text, files: index ? [index.path] : [] } satisfies ToWorker);
  if (!index) return;
  let bytes: Uint8Array | null = null;
  try {
    const read = await location.open(index.path, { bytes: index.bytes }).read(0, index.bytes);
    // On a buffer of its own, to be transferred, not copied.
    if (read.length === index.bytes) bytes = read.byteLength === read.buffer.byteLength ? read : read.slice();
  } catch {
    bytes = null;
  }
  worker.postMessage(
    { type: 'file', path: index.path, bytes, transfers: meter.measured() } satisfies ToWorker,
    bytes ? [bytes.buffer as ArrayBuffer] : [],
  );
}

/** The station index a catalog's text lists (path and size), if it lists one worth reading ahead. */
function stationIndexIn(text: string): { path: string; bytes: number } | null {
  try {
    const stations = (JSON.parse(text) as { stations?: { index?: unknown; indexBytes?: unknown } }).stations;
    const path = stations?.index;
    const bytes = stations?.indexBytes;
    return typeof path === 'string' &&
      typeof bytes === 'number' &&
      Number.isSafeInteger(bytes) &&
      bytes > 0 &&
      bytes <= MAX_INDEX_AHEAD
      ? { path, bytes }
      : null;
  } catch {
    return null;
  }
}
