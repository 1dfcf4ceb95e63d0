/**
 * The naive way to serve station queries from the same store in a
 * browser: download the whole DuckDB file, hand it to DuckDB-WASM as a
 * buffer, then run the engine's own queries on it. Speaks the engine
 * worker's protocol (src/worker/protocol.ts), so the page drives it like
 * the real engine Worker.
 */
/// <reference lib="webworker" />
import duckdbWasmUrl from '@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url';
import duckdbWorkerUrl from '@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js?url';
import { AsyncDuckDB, VoidLogger } from '@duckdb/duckdb-wasm';
import { createClimateEngine, type ClimateEngine } from '../../src/engine/engine.ts';
import { OFFLINE_SETTINGS, type OpenSqlBackend, type SqlRow } from '../../src/stations/sql-backend.ts';
import type { FromWorker, ToWorker } from '../../src/worker/protocol.ts';

declare const self: DedicatedWorkerGlobalScope;

/** Opens the store by downloading it whole (in parallel with starting DuckDB-WASM). */
const openWhole: OpenSqlBackend = async (location) => {
  const db = new AsyncDuckDB(new VoidLogger(), new Worker(new URL(duckdbWorkerUrl, self.location.href).href));
  const [bytes] = await Promise.all([
    fetch(location).then(async (r) => {
      if (!r.ok) throw new Error(`GET ${location}: HTTP ${r.status}`);
      return new Uint8Array(await r.arrayBuffer());
    }),
    db.instantiate(new URL(duckdbWasmUrl, self.location.href).href).then(() => db.open({})),
  ]);
  await db.registerFileBuffer('store.duckdb', bytes);
  const con = await db.connect();
  for (const s of OFFLINE_SETTINGS) await con.query(s);
  await con.query(`ATTACH 'store.duckdb' AS store (READ_ONLY)`);
  await con.query('USE store');
  return {
    async query(sql, params) {
      const stmt = await con.prepare(sql);
      try {
        return (await stmt.query(...params)).toArray().map((r: { toJSON(): unknown }) => r.toJSON() as SqlRow);
      } finally {
        await stmt.close();
      }
    },
    async close() {
      await con.close();
      await db.terminate();
    },
  };
};

let engine: ClimateEngine | undefined;
self.addEventListener('message', (ev: MessageEvent<ToWorker>) => {
  const msg = ev.data;
  if (msg.type === 'init') engine = createClimateEngine({ dataset: msg.dataset, openSqlBackend: openWhole });
  else if (msg.type === 'request') {
    void engine!.handle(msg.request).then((response) => self.postMessage({ type: 'response', id: msg.id, response } satisfies FromWorker));
  }
});
