/**
 * DuckDB-WASM backend for the browser: the async API in DuckDB's own
 * Worker, the store attached by URL and read with HTTP range requests
 * (never downloaded whole). Started lazily by the engine on the first
 * station query that needs data, so raster-only pages never load it.
 */
import { AsyncDuckDB, ConsoleLogger, LogLevel, VoidLogger } from '@duckdb/duckdb-wasm';
import { ClimateQueryError, throwIfAborted } from '../../contract/errors.ts';
import { OFFLINE_SETTINGS, type OpenSqlBackend, type SqlBackend, type SqlRow } from '../sql-backend.ts';

/** URLs of the DuckDB-WASM files to load (import them with your bundler, e.g. Vite's `?url`). */
export interface DuckDBBundleUrls {
  /** `@duckdb/duckdb-wasm/dist/duckdb-eh.wasm` */
  mainModule: string;
  /** `@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js` */
  mainWorker: string;
  /** Log DuckDB's messages to the console. */
  debug?: boolean;
}

/** An {@link OpenSqlBackend} for browsers, from the bundle URLs. */
export function duckdbWasmBrowser(bundle: DuckDBBundleUrls): OpenSqlBackend {
  return async (location, signal) => {
    const worker = new Worker(bundle.mainWorker);
    const db = new AsyncDuckDB(bundle.debug ? new ConsoleLogger(LogLevel.DEBUG) : new VoidLogger(), worker);
    try {
      await db.instantiate(bundle.mainModule);
      // Range reads: without these flags every file is downloaded whole (FIELD-NOTES).
      await db.open({ filesystem: { forceFullHTTPReads: false, allowFullHTTPReads: false, reliableHeadRequests: true } });
    } catch (cause) {
      worker.terminate();
      throw new ClimateQueryError('engine_unavailable', `DuckDB-WASM failed to start: ${(cause as Error).message}`, { cause });
    }
    throwIfAborted(signal);
    const con = await db.connect();
    for (const s of OFFLINE_SETTINGS) await con.query(s);
    try {
      await con.query(`ATTACH '${location.replace(/'/g, "''")}' AS store (READ_ONLY)`);
      await con.query('USE store');
    } catch (cause) {
      throw new ClimateQueryError('dataset_unavailable', `Cannot open the station store ${location}: ${(cause as Error).message}. The server must answer Range and HEAD requests.`, { cause });
    }
    const backend: SqlBackend = {
      async query(sql, params, sig) {
        throwIfAborted(sig);
        const onAbort = () => void con.cancelSent();
        sig?.addEventListener('abort', onAbort, { once: true });
        try {
          const stmt = await con.prepare(sql);
          try {
            const table = await stmt.query(...params);
            throwIfAborted(sig);
            return table.toArray().map((r: { toJSON(): unknown }) => r.toJSON() as SqlRow);
          } finally {
            await stmt.close();
          }
        } finally {
          sig?.removeEventListener('abort', onAbort);
        }
      },
      async close() {
        await con.close();
        await db.terminate();
      },
    };
    return backend;
  };
}
