/**
 * The app's DuckDB-WASM: its files are emitted by Vite beside the app (no
 * CDN), and this module is imported only when the SQL panel first runs, so
 * the 34 MiB of DuckDB never touch the map or the four endpoints.
 */
import mvpWasm from '@duckdb/duckdb-wasm/dist/duckdb-mvp.wasm?url';
import mvpWorker from '@duckdb/duckdb-wasm/dist/duckdb-browser-mvp.worker.js?url';
import ehWasm from '@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url';
import ehWorker from '@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js?url';
import { createDuckDbWasmRunner } from '../sql/duckdb-wasm-runner.ts';
import type { SqlRunner } from '../sql/station-sql.ts';

let runner: SqlRunner | undefined;

/** The page's one DuckDB-WASM runner (started on its first session). */
export function appSqlRunner(): SqlRunner {
  runner ??= createDuckDbWasmRunner({
    mvp: { mainModule: new URL(mvpWasm, location.href).href, mainWorker: new URL(mvpWorker, location.href).href },
    eh: { mainModule: new URL(ehWasm, location.href).href, mainWorker: new URL(ehWorker, location.href).href },
  });
  return runner;
}
