/**
 * DuckDB-WASM backend for Node: the same WASM engine and the same SQL the
 * browser runs, so Node tests exercise the browser's query path. Uses the
 * blocking Node bundle, which has no HTTP client and cannot open a store
 * file by path (FIELD-NOTES), so the store is read whole into memory and
 * registered as a buffer. Fine for tests and the CLI; the browser backend
 * reads over HTTP range requests instead.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ClimateQueryError, throwIfAborted } from '../../contract/errors.ts';
import { OFFLINE_SETTINGS, type OpenSqlBackend, type SqlBackend, type SqlRow } from '../sql-backend.ts';

// The package's "exports" hide this bundle's types, so the few calls used here are typed by hand.
interface BlockingConnection {
  query(sql: string): unknown;
  prepare(sql: string): { query(...params: unknown[]): { toArray(): Array<{ toJSON(): unknown }> }; close(): void };
  close(): void;
}
interface Db {
  instantiate(): Promise<unknown>;
  open(config: object): void;
  connect(): BlockingConnection;
  registerFileBuffer(name: string, buffer: Uint8Array): void;
  dropFile(name: string): void;
}
interface Blocking {
  createDuckDB(bundles: object, logger: unknown, runtime: unknown): Promise<Db>;
  VoidLogger: new () => unknown;
  NODE_RUNTIME: unknown;
}

let instance: Promise<{ duck: Blocking; db: Db }> | undefined;

/** One shared WASM instance per process: starting it costs about a second. */
function wasm(): Promise<{ duck: Blocking; db: Db }> {
  instance ??= (async () => {
    const require = createRequire(import.meta.url);
    const duck = require('@duckdb/duckdb-wasm/dist/duckdb-node-blocking.cjs') as Blocking;
    const dist = dirname(require.resolve('@duckdb/duckdb-wasm/dist/duckdb-node-blocking.cjs'));
    const bundles = {
      mvp: { mainModule: join(dist, 'duckdb-mvp.wasm'), mainWorker: '' },
      eh: { mainModule: join(dist, 'duckdb-eh.wasm'), mainWorker: '' },
    };
    const db = await duck.createDuckDB(bundles, new duck.VoidLogger(), duck.NODE_RUNTIME);
    await db.instantiate();
    db.open({});
    return { duck, db };
  })();
  return instance;
}

let opened = 0;

async function readStore(location: string, signal?: AbortSignal): Promise<Uint8Array> {
  if (/^https?:/i.test(location)) {
    const res = await fetch(location, signal ? { signal } : {});
    if (!res.ok) throw new ClimateQueryError('dataset_unavailable', `Cannot fetch the station store ${location}: HTTP ${res.status}.`);
    return new Uint8Array(await res.arrayBuffer());
  }
  return new Uint8Array(await readFile(location));
}

/** Opens a store (file path or URL) in DuckDB-WASM under Node. */
export const openDuckDBWasmNode: OpenSqlBackend = async (location, signal) => {
  const { db } = await wasm();
  let bytes: Uint8Array;
  try {
    bytes = await readStore(location, signal);
  } catch (cause) {
    if (cause instanceof ClimateQueryError) throw cause;
    throw new ClimateQueryError('dataset_unavailable', `Cannot read the station store ${location}: ${(cause as Error).message}`, { cause });
  }
  throwIfAborted(signal);
  // Each backend gets its own file name and schema, so several datasets can share the instance.
  const id = ++opened;
  const file = `store-${id}.duckdb`;
  const schema = `store_${id}`;
  db.registerFileBuffer(file, bytes);
  const con = db.connect();
  for (const s of OFFLINE_SETTINGS) con.query(s);
  try {
    con.query(`ATTACH '${file}' AS ${schema} (READ_ONLY)`);
    con.query(`USE ${schema}`);
  } catch (cause) {
    throw new ClimateQueryError('dataset_unavailable', `The station store ${location} is not a readable DuckDB file: ${(cause as Error).message}`, { cause });
  }
  const backend: SqlBackend = {
    async query(sql, params, sig) {
      throwIfAborted(sig);
      const stmt = con.prepare(sql);
      try {
        const table = stmt.query(...params);
        return table.toArray().map((r) => r.toJSON() as SqlRow);
      } finally {
        stmt.close();
      }
    },
    async close() {
      con.query('USE memory');
      con.query(`DETACH ${schema}`);
      con.close();
      db.dropFile(file);
    },
  };
  return backend;
};
