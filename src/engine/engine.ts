/**
 * The engine: the four contract endpoints as typed functions over one
 * dataset, plus `handle`, the router every adapter (worker, service worker,
 * Node server, CLI) calls. Validation happens here, so every adapter
 * rejects the same requests with the same errors.
 *
 * Nothing is loaded up front: the catalog is read on the first query, the
 * station archive is opened on the first station query (its index is the
 * first thing it downloads), and the raster engine is created on the first
 * raster query. Both sides read files through the same ByteSource seam, so
 * raster queries download nothing about stations.
 */
import { directForeign, type ForeignOpener, noForeign } from '../dataset/foreign.ts';
import { toClimateQueryError, throwIfAborted, ClimateQueryError } from '../contract/errors.ts';
import type { Endpoint, RequestOf, ResponseOf, StationQuery } from '../contract/types.ts';
import type { PeriodTable } from '../contract/period-table.ts';
import { validateNearestStation, validatePoint, validatePolyAggregate, validatePolygon } from '../contract/validate.ts';
import { checkRasterShape } from '../contract/raster-options.ts';
import type { Catalog } from '../dataset/catalog.ts';
import { loadCatalog, urlLocation, withOpener, type DatasetLocation } from '../dataset/location.ts';
import { abortable } from '../io/abortable.ts';
import { nearestStation } from '../stations/nearest-station.ts';
import { extentOf, refuseSwapped } from '../contract/swapped-coordinates.ts';
import { polyAggregate } from '../stations/poly-aggregate.ts';
import { stationIndices } from '../stations/station-indices.ts';
import { validateStationIndices } from '../contract/station-indices.ts';
import type { IndexedStation } from '../stations/station-index.ts';
import { openStationArchive, type StationArchive } from '../stations/station-archive.ts';
import type { LayerGrid, LayerGridRequest, RasterEngine } from '../rasters/raster-engine.ts';
import type { ByteSource, ExpectedFile } from '../io/byte-source.ts';
import { MemoryBudget } from '../io/memory-budget.ts';
import { DEFAULT_QUERY_BUDGET_MS, isAbortedError, isDatasetChange, withBudget } from './query-budget.ts';
import { routeRequest, type ApiRequest, type ApiResponse } from './router.ts';
import {
  runStationSql,
  type SqlRunner,
  type StationSqlResult,
  type StationTable,
  type StationTableRequest,
} from '../sql/station-sql.ts';
import { readStationTable } from '../stations/station-table.ts';

/** Options of {@link createClimateEngine}. */
export interface ClimateEngineOptions {
  /** The dataset root: a URL (string or URL) or a {@link DatasetLocation}. */
  dataset: string | URL | DatasetLocation;
  /** Opens a byte source on a station or raster file's resolved URL or path, told what the catalog or index says of it; default: the location's own (HTTP Range reads, or local files in Node). */
  openByteSource?: (location: string, expected?: ExpectedFile) => ByteSource;
  /** Overall time budget of one query in milliseconds (default 30 000); past it the query fails with `upstream_timeout`. */
  timeoutMs?: number;
  /**
   * Most bytes every cache of this engine holds together (decoded station columns, station file
   * ranges, raster blocks and chunks; default 128 MiB, src/io/memory-budget.ts); the least
   * recently used go first, whichever cache holds them.
   */
  memoryBytes?: number;
  /**
   * Most bytes one raster query or map preview may decode from a published store's chunks,
   * planned before any is read (default 256 MiB, src/rasters/read-cost.ts); past it the query fails
   * with `query_too_costly`.
   */
  maxReadBytes?: number;
  /**
   * How a layer whose source the catalog names by absolute URL (a published store read where it
   * is) is fetched. Default in a page or Worker: directly, under the browser's CORS rules
   * ({@link directForeign}); in Node: not at all (a server must not fetch what any catalog names:
   * `climate-query/node`'s engine takes the origins its operator allows).
   */
  foreign?: ForeignOpener;
  /**
   * Starts the DuckDB that {@link ClimateEngine.sql} runs on, the first time it is
   * used (native DuckDB in Node: `climate-query/node`; DuckDB-WASM in a page:
   * `climate-query/sql-wasm`). Without it, `sql` fails with `sql_unavailable`.
   */
  sqlRunner?: () => Promise<SqlRunner>;
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
  /**
   * Leave the station answers' period tables (nearest-station's `data`,
   * poly-aggregate's `aggregated_data`) as PeriodTables (contract/period-table.ts), columns
   * standing in for the objects, for a transport that sends columns (the
   * engine Worker, worker/packed-tables.ts). Written as JSON they are the
   * same text. Default: the contract's objects.
   */
  periodTables?: boolean;
  /**
   * With `periodTables`, on an engine (not an EngineClient, whose Worker
   * uses it itself): called with a period table of the answer as soon as it
   * is final, before the call resolves; the answer holds that same
   * PeriodTable object. Nearest-station calls it for each point whose
   * station has data, as that station's rows are read, so a transport can
   * send the table while the rest is read (worker/packed-tables.ts,
   * TablesAhead); the other tables (a point with no data, poly-aggregate's)
   * are only in the answer. The callee may transfer the table's columns:
   * the engine does not read them again. A table made in an attempt the
   * engine then starts over (a dataset changed under it) is not in the
   * answer.
   */
  onPeriodTable?: (table: PeriodTable) => void;
}

/** The four endpoints as typed functions and the router: what every engine, local or in a Worker, offers. */
export interface ClimateQueries {
  nearestStation(body: RequestOf['nearest-station'], options?: CallOptions): Promise<ResponseOf['nearest-station']>;
  polyAggregate(body: RequestOf['poly-aggregate'], options?: CallOptions): Promise<ResponseOf['poly-aggregate']>;
  point(body: RequestOf['point'], options?: CallOptions): Promise<ResponseOf['point']>;
  polygon(body: RequestOf['polygon'], options?: CallOptions): Promise<ResponseOf['polygon']>;
  /** The extension /api/station-indices/: chill and heat indices from station temperatures (docs/indices.md). */
  stationIndices(body: RequestOf['station-indices'], options?: CallOptions): Promise<ResponseOf['station-indices']>;
  /** Runs one endpoint on an unvalidated body (any JSON value); rejects with ClimateQueryError. */
  query<E extends Endpoint>(endpoint: E, body: unknown, options?: CallOptions): Promise<ResponseOf[E]>;
  /** Answers an HTTP-like request: never rejects; errors become their status and JSON. */
  handle(request: ApiRequest, options?: CallOptions): Promise<ApiResponse>;
}

/**
 * What an app shows of the dataset besides answers, read by the engine (the
 * page asks the engine Worker for these; its engine client reads only the
 * catalog and the station index, for the Worker, as it starts).
 */
export interface DatasetViews {
  /** The dataset's catalog (loads it if needed). */
  catalog(options?: CallOptions): Promise<Catalog>;
  /** Every station of the dataset's index, sorted by id (downloads the index once; for maps and lists). */
  stations(options?: CallOptions): Promise<IndexedStation[]>;
  /** Every pixel of one date of a layer, in its unit: a map preview reads the whole band. */
  layerGrid(request: LayerGridRequest, options?: CallOptions): Promise<LayerGrid>;
  /** Whether the host answers Range requests (true), sends whole files (false), or could not be told (null); true for a folder. */
  rangeSupport(options?: CallOptions): Promise<boolean | null>;
}

/** An engine over one dataset in this thread. */
export interface ClimateEngine extends ClimateQueries, DatasetViews {
  /** The rows station SQL loads (validated request), read like the endpoints read them. */
  stationTable(request: StationTableRequest, options?: CallOptions): Promise<StationTable>;
  /**
   * Runs one read-only SQL query over the chosen stations' rows
   * (docs/sql.md): a `StationSqlRequest` body in, columns and rows
   * out; bad SQL is a 400 `invalid_sql` carrying DuckDB's message.
   */
  sql(body: unknown, options?: CallOptions): Promise<StationSqlResult>;
  /**
   * Reads now what a first station query reads first, so that it need not wait for it: the
   * catalog and, when it lists stations, the station index (its stations; each time scale's files
   * are parsed when a query asks for them), which also starts the host's probe of several ranges
   * per request. A failure is left for the next query to report: nothing failed is kept.
   */
  warm(): Promise<void>;
  /**
   * Forgets the catalog and every file opened from it, so the next query reads the dataset as it is
   * now (`serve` calls it when a build, merge or remove switched the catalog.json it serves).
   */
  reload(): void;
  /** Releases open files and caches. */
  close(): Promise<void>;
}

/** Foreign sources as the platform allows them: a browser's fetch is bounded by CORS; Node's by nothing. */
function defaultForeign(): ForeignOpener {
  const node = typeof process !== 'undefined' && typeof process.versions?.node === 'string';
  return node
    ? noForeign(
        'this engine reads no source outside its dataset; allow its origin (climate-query serve or query --allow-origin ORIGIN).',
      )
    : directForeign();
}

/** Creates an engine over one dataset. Cheap: nothing is fetched until the first query. */
export function createClimateEngine(options: ClimateEngineOptions): ClimateEngine {
  const given =
    typeof options.dataset === 'string' || options.dataset instanceof URL
      ? urlLocation(options.dataset)
      : options.dataset;
  // One dataset object resolves, confines and opens every file, for both readers.
  const location = options.openByteSource ? withOpener(given, options.openByteSource) : given;
  let catalogP: Promise<Catalog> | undefined;
  let archive: StationArchive | undefined;
  let rasters: RasterEngine | undefined;
  // One bound over every cache of both readers (a phone's tab, a `serve` process).
  const memory = new MemoryBudget(options.memoryBytes);

  let catalogLoad = new AbortController();
  /** Counts reloads of the dataset state (catalog, opened files). */
  let generation = 0;

  const catalog = (signal?: AbortSignal) => {
    // A failed load is not cached: the next query tries again. (Only this load is forgotten: one
    // aborted by a dataset reload may fail after a newer load has started.)
    if (!catalogP) {
      // A catalog is data: its fields, paths and owners are checked as it loads (docs/reliability.md).
      const load: Promise<Catalog> = loadCatalog(location, catalogLoad.signal).catch((err: unknown) => {
        if (catalogP === load) catalogP = undefined;
        throw err;
      });
      catalogP = load;
    }
    return abortable(catalogP, signal);
  };

  const stationArchive = async (signal?: AbortSignal): Promise<StationArchive> => {
    const c = await catalog(signal);
    if (!c.stations)
      throw new ClimateQueryError(
        'dataset_unavailable',
        `The dataset at ${location.base} has no station data; build it with station inputs.`,
      );
    archive ??= openStationArchive({ location, section: c.stations, budget: memory });
    return archive;
  };

  /**
   * The raster engine, its code (geotiff.js and its decoders) loaded with the
   * first raster query or preview: station queries never run it, and it was
   * 54 of the engine Worker's 357 KB, parsed at every cold start. The load
   * starts before the catalog is awaited, so the two overlap.
   */
  const rasterEngine = async (signal: AbortSignal | undefined): Promise<RasterEngine> => {
    const code = loadRasterCode();
    code.catch(() => undefined);
    const c = await catalog(signal);
    const { createRasterEngine } = await abortable(code, signal);
    rasters ??= createRasterEngine({
      catalog: c,
      dataset: location,
      cache: { budget: memory },
      ...(options.maxReadBytes !== undefined ? { maxReadBytes: options.maxReadBytes } : {}),
      foreign: options.foreign ?? defaultForeign(),
    });
    return rasters;
  };

  /**
   * Starts reading the catalog and the station index before the request is
   * validated: in a cold Worker, validating a year of hours (making its 8,760
   * keys with code not yet compiled) took as long as the catalog's round trip,
   * and nothing depends on it. A request refused by validation has then
   * started a read the next query uses anyway; its failure is the query's.
   */
  const stationsEarly = (signal: AbortSignal): Promise<StationArchive> => {
    const p = stationArchive(signal);
    // The stations only: the query parses the one time scale it reads (station-index.ts).
    p.then((a) => a.stations(signal, [])).catch(() => undefined);
    p.catch(() => undefined);
    return p;
  };

  /** Forgets the catalog and everything opened from it (files, blocks), so the next query starts from the dataset as it is now. */
  function forgetDataset(seen: number): void {
    // Concurrent queries may all fail on the same change: only the first reloads.
    if (seen !== generation) return;
    generation++;
    // Reads still in flight (a stalled catalog, a file being opened) are aborted, not awaited.
    catalogLoad.abort();
    catalogLoad = new AbortController();
    catalogP = undefined;
    const r = rasters;
    const a = archive;
    rasters = undefined;
    archive = undefined;
    void r?.close().catch(() => undefined);
    void a?.close().catch(() => undefined);
  }

  async function query<E extends Endpoint>(endpoint: E, body: unknown, opts: CallOptions = {}): Promise<ResponseOf[E]> {
    throwIfAborted(opts.signal);
    let seen = generation;
    const tables = opts.periodTables === true;
    const early = tables ? opts.onPeriodTable : undefined;
    try {
      return await withBudget(
        options.timeoutMs ?? DEFAULT_QUERY_BUDGET_MS,
        opts.signal,
        location.base,
        async (signal) => {
          try {
            return await run(endpoint, body, signal, tables, early);
          } catch (err) {
            if (isDatasetChange(err)) {
              // A file no longer matches the catalog (a redeploy): read the catalog
              // again and answer once more from the new state; a second mismatch
              // means the deploy is still under way, and the caller gets 409.
              forgetDataset(seen);
            } else if (!(isAbortedError(err) && !signal.aborted)) {
              throw err;
            }
            // (An abort this query did not ask for: a concurrent query tore down
            // the shared files to reload them. Answer from the new state too.)
            seen = generation;
            return await run(endpoint, body, signal, tables, early);
          }
        },
      );
    } catch (err) {
      const error = toClimateQueryError(err);
      // A timed-out read may be shared work later queries would wait on: start them afresh.
      if (error.code === 'upstream_timeout') forgetDataset(seen);
      throw error;
    }
  }

  async function run<E extends Endpoint>(
    endpoint: E,
    body: unknown,
    signal: AbortSignal,
    tables: boolean,
    early?: (table: PeriodTable) => void,
  ): Promise<ResponseOf[E]> {
    try {
      switch (endpoint) {
        case 'nearest-station': {
          const opening = stationsEarly(signal);
          const q = validateNearestStation(body);
          const archive = await opening;
          await refuseSwappedStations(q, archive, signal);
          return (await nearestStation(q, archive, signal, tables, early)) as ResponseOf[E];
        }
        case 'poly-aggregate': {
          const opening = stationsEarly(signal);
          const q = validatePolyAggregate(body);
          const archive = await opening;
          await refuseSwappedStations(q, archive, signal);
          return (await polyAggregate(q, archive, signal, tables)) as ResponseOf[E];
        }
        case 'point':
        case 'polygon': {
          // Fields and types first (no dataset needed), then the layer against what the catalog declares.
          checkRasterShape(body, endpoint);
          const engine = rasterEngine(signal);
          engine.catch(() => undefined);
          const c = await catalog(signal);
          const q = endpoint === 'point' ? validatePoint(body, c.rasters) : validatePolygon(body, c.rasters);
          return (await (await engine).query(q, signal)) as ResponseOf[E];
        }
        case 'station-indices': {
          const q = validateStationIndices(body);
          return (await stationIndices(q, await stationArchive(signal), signal)) as ResponseOf[E];
        }
        default:
          throw new ClimateQueryError('not_found', `Unknown endpoint "${String(endpoint)}".`);
      }
    } catch (err) {
      throw toClimateQueryError(err);
    }
  }

  /** A point or field outside every station's reach that swapped lies among them: the commonest WKT mistake. */
  async function refuseSwappedStations(q: StationQuery, archive: StationArchive, signal: AbortSignal) {
    // One degree around the stations: the nearest station of a point beyond it is still an answer.
    const extent = extentOf(await archive.stations(signal, [q.timeScale]), 1);
    if (extent) refuseSwapped(q.geometries, [extent], "the dataset's stations");
  }

  async function stationTable(request: StationTableRequest, o: CallOptions = {}): Promise<StationTable> {
    const a = await stationArchive(o.signal);
    const held = (await catalog(o.signal)).stations?.dataTypes[request.timeScale] ?? [];
    return readStationTable(request, a, held, o.signal);
  }

  return {
    nearestStation: (body, o) => query('nearest-station', body, o),
    polyAggregate: (body, o) => query('poly-aggregate', body, o),
    point: (body, o) => query('point', body, o),
    polygon: (body, o) => query('polygon', body, o),
    stationIndices: (body, o) => query('station-indices', body, o),
    query,
    handle: (request, o = {}) => routeRequest(request, (endpoint, body) => query(endpoint, body, o)),
    catalog: (o = {}) => catalog(o.signal),
    stations: async (o = {}) => (await stationArchive(o.signal)).stations(o.signal),
    async layerGrid(request, o = {}) {
      // A preview is a query like the others: within the same time budget (and, while it waits its
      // turn behind other previews, aborted when that runs out).
      return withBudget(options.timeoutMs ?? DEFAULT_QUERY_BUDGET_MS, o.signal, location.base, async (signal) =>
        (await rasterEngine(signal)).grid(request, signal),
      ).catch((err: unknown) => {
        throw toClimateQueryError(err);
      });
    },
    rangeSupport: async (o = {}) => (location.probeRange ? location.probeRange('catalog.json', o.signal) : true),
    stationTable,
    warm: () =>
      catalog()
        .then((c) => (c.stations ? stationArchive().then((a) => a.stations(undefined, [])) : undefined))
        .then(
          () => undefined,
          () => undefined,
        ),
    async sql(body, o = {}) {
      const runner = options.sqlRunner;
      if (!runner)
        throw new ClimateQueryError(
          'sql_unavailable',
          'This engine was created without a SQL runner: pass `sqlRunner` (createNodeEngine does when @duckdb/node-api is installed; in a page, createDuckDbWasmRunner from climate-query/sql-wasm).',
        );
      return withBudget(options.timeoutMs ?? DEFAULT_QUERY_BUDGET_MS, o.signal, location.base, (signal) =>
        runStationSql(body, (request) => stationTable(request, { signal }), runner, signal),
      ).catch((err: unknown) => {
        throw toClimateQueryError(err);
      });
    },
    reload: () => forgetDataset(generation),
    async close() {
      const a = archive;
      archive = undefined;
      const r = rasters;
      rasters = undefined;
      await Promise.all([a?.close(), r?.close()]);
    },
  };
}

let rasterCode: Promise<typeof import('../rasters/raster-engine.ts')> | undefined;

/** Loads the raster engine's module once (a chunk of its own in a bundle); a failed load is tried again next time. */
function loadRasterCode(): Promise<typeof import('../rasters/raster-engine.ts')> {
  rasterCode ??= import('../rasters/raster-engine.ts').catch((cause: unknown) => {
    rasterCode = undefined;
    throw new ClimateQueryError(
      'engine_unavailable',
      `The code that reads raster layers could not be loaded (${(cause as Error)?.message ?? String(cause)}). Reload the page when online.`,
      { cause },
    );
  });
  return rasterCode;
}
