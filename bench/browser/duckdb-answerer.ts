/**
 * The product design's own engine as a station baseline in the bench page
 * (`?mode=duckdb`): DuckDB-WASM with the station rows of the demo as one
 * DuckDB database file attached read-only over HTTP Range (bench/dataset.ts
 * ensureStationDuckDb; its Parquet extension is downloaded from DuckDB's site
 * at run time, which no machine here reaches). The stations are chosen and
 * the JSON assembled by the engine's own pure functions
 * (bench/baselines/station-sql.ts), so it differs from the engine only in how
 * rows are read. Range reads are switched on as DuckDB-WASM's documentation
 * says (`forceFullHTTPReads: false`, `allowFullHTTPReads: false`), else every
 * file is downloaded whole.
 */
import { AsyncDuckDB, VoidLogger, selectBundle } from '@duckdb/duckdb-wasm';
import ehWorker from '@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js?url';
import mvpWorker from '@duckdb/duckdb-wasm/dist/duckdb-browser-mvp.worker.js?url';
import ehWasm from '@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url';
import mvpWasm from '@duckdb/duckdb-wasm/dist/duckdb-mvp.wasm?url';
import { validateNearestStation, validatePolyAggregate } from '../../src/contract/validate.ts';
import { parseStationIndex } from '../../src/stations/station-index.ts';
import {
  coverageOf,
  quote,
  type RowSource,
  type SqlRows,
  sqlNearestStation,
  sqlPolyAggregate,
} from '../baselines/station-sql.ts';

/** Answers `/api/nearest-station/` and `/api/poly-aggregate/` as the engine client's `handle` does. */
export interface DuckDbAnswerer {
  handle(req: { method: string; path: string; body: string }): Promise<{ status: number; body: unknown }>;
}

/** Starts DuckDB-WASM, attaches the database file at `dbUrl` and reads the station index of the dataset at `dataUrl`. */
export async function createDuckDbAnswerer(dataUrl: string, dbUrl: string): Promise<DuckDbAnswerer> {
  const bundle = await selectBundle({
    mvp: { mainModule: mvpWasm, mainWorker: mvpWorker },
    eh: { mainModule: ehWasm, mainWorker: ehWorker },
  });
  const worker = new Worker(bundle.mainWorker!);
  const db = new AsyncDuckDB(new VoidLogger(), worker);
  await db.instantiate(bundle.mainModule, bundle.pthreadWorker);
  await db.open({ filesystem: { forceFullHTTPReads: false, allowFullHTTPReads: false, reliableHeadRequests: true } });
  const con = await db.connect();
  await con.query('SET autoload_known_extensions = false');
  await con.query('SET autoinstall_known_extensions = false');
  await con.query(`ATTACH ${quote(new URL(dbUrl, location.href).href)} AS s (READ_ONLY)`);
  const base = new URL(dataUrl, location.href);
  const [index, coverageText] = await Promise.all([
    fetch(new URL('stations/index.parquet', base)).then((r) => r.arrayBuffer()),
    fetch(new URL('stations/coverage.jsonl', base)).then((r) => r.text()),
  ]);
  const stations = await parseStationIndex(index, 'index.parquet');
  const coverage = coverageOf(coverageText);
  const run: SqlRows = async (sql) =>
    (await con.query(sql)).toArray().map((r) => r.toJSON() as Record<string, unknown>);
  // The stations' rows of the query's scale in the attached file (sorted by station and time).
  const from: RowSource = (q, chosen) =>
    chosen.length === 0
      ? null
      : `(SELECT * FROM s.${q.timeScale} WHERE station_id IN (${chosen.map((c) => quote(c.id)).join(', ')}))`;
  return {
    async handle({ path, body }) {
      try {
        const json = JSON.parse(body) as unknown;
        if (path === '/api/nearest-station/')
          return {
            status: 200,
            body: await sqlNearestStation(run, from, validateNearestStation(json), stations, coverage),
          };
        if (path === '/api/poly-aggregate/')
          return { status: 200, body: await sqlPolyAggregate(run, from, validatePolyAggregate(json), stations) };
        return { status: 404, body: { error: { code: 'not_found', message: path } } };
      } catch (err) {
        return {
          status: 500,
          body: { error: { code: 'internal', message: err instanceof Error ? err.message : String(err) } },
        };
      }
    },
  };
}
