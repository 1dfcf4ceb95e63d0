/**
 * Native DuckDB (@duckdb/node-api) backend for Node: the fastest way to
 * query a local store, used by the CLI and the server for local datasets.
 * Same SQL as the WASM backends. Local files only (reading a store over
 * HTTP natively needs the httpfs extension, which cannot be downloaded here).
 */
import { DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';
import { ClimateQueryError, throwIfAborted } from '../../contract/errors.ts';
import { OFFLINE_SETTINGS, type OpenSqlBackend, type SqlBackend } from '../sql-backend.ts';

/** Opens a store file read-only with native DuckDB. */
export const openNativeDuckDB: OpenSqlBackend = async (location) => {
  if (/^https?:/i.test(location)) {
    throw new ClimateQueryError('dataset_unavailable', `Native DuckDB reads local stores only; ${location} is a URL. Use the DuckDB-WASM backend for URLs.`);
  }
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  for (const s of OFFLINE_SETTINGS) await con.run(s);
  try {
    await con.run(`ATTACH '${location.replace(/'/g, "''")}' AS store (READ_ONLY)`);
    await con.run('USE store');
  } catch (cause) {
    throw new ClimateQueryError('dataset_unavailable', `Cannot open the station store ${location}: ${(cause as Error).message}`, { cause });
  }
  const backend: SqlBackend = {
    async query(sql, params, signal) {
      throwIfAborted(signal);
      const reader = await con.runAndReadAll(sql, params as DuckDBValue[]);
      throwIfAborted(signal);
      return reader.getRowObjectsJS() as Record<string, unknown>[];
    },
    async close() {
      con.closeSync();
      db.closeSync();
    },
  };
  return backend;
};
