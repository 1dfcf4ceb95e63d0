/**
 * The seam between the station query planner and a SQL engine. The browser
 * uses DuckDB-WASM in a Worker; Node tests use the same DuckDB-WASM build;
 * the CLI may use native DuckDB. All run the same SQL, written in
 * station-sql.ts, against the tables of the serving store
 * (`stations`, `hourly`, `daily`, `monthly`).
 */

/** A bound parameter value. Request text only ever reaches SQL this way. */
export type SqlParam = string | number;

/** One result row: column name → JS value (numbers for DOUBLE/INTEGER, strings for VARCHAR). */
export type SqlRow = Record<string, unknown>;

/** A SQL engine with the serving store attached and selected. */
export interface SqlBackend {
  /** Runs one parameterised statement (`?` placeholders) and returns its rows. */
  query(sql: string, params: readonly SqlParam[], signal?: AbortSignal): Promise<SqlRow[]>;
  /** Releases the engine. */
  close(): Promise<void>;
}

/**
 * Opens a backend on the serving store at `location` (a URL, or a file path
 * in Node). Called at most once per engine, lazily, on the first station query.
 */
export type OpenSqlBackend = (location: string, signal?: AbortSignal) => Promise<SqlBackend>;

/** Settings every backend applies: never try to download an extension (there is no network to do it). */
export const OFFLINE_SETTINGS = ['SET autoload_known_extensions = false', 'SET autoinstall_known_extensions = false'];
