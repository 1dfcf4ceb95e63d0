/**
 * The engine in a dedicated Worker, so queries never block the page.
 * DuckDB-WASM (its own nested Worker) starts only when a station query
 * needs it; raster queries use geotiff.js here directly.
 */
/// <reference lib="webworker" />
import duckdbWasmUrl from '@duckdb/duckdb-wasm/dist/duckdb-eh.wasm?url';
import duckdbWorkerUrl from '@duckdb/duckdb-wasm/dist/duckdb-browser-eh.worker.js?url';
import { createClimateEngine, type ClimateEngine } from '../engine/engine.ts';
import type { FromWorker, ToWorker } from './protocol.ts';

declare const self: DedicatedWorkerGlobalScope;

let engine: ClimateEngine | undefined;
const inFlight = new Map<number, AbortController>();

self.addEventListener('message', (ev: MessageEvent<ToWorker>) => {
  const msg = ev.data;
  if (msg.type === 'init') {
    const bundle = { mainModule: new URL(duckdbWasmUrl, self.location.href).href, mainWorker: new URL(duckdbWorkerUrl, self.location.href).href };
    engine = createClimateEngine({
      dataset: msg.dataset,
      // DuckDB-WASM's JavaScript loads with the first station query, never for rasters.
      openSqlBackend: async (location, signal) => (await import('../stations/backends/duckdb-wasm-browser.ts')).duckdbWasmBrowser(bundle)(location, signal),
    });
  } else if (msg.type === 'abort') {
    inFlight.get(msg.id)?.abort();
  } else if (msg.type === 'request') {
    const controller = new AbortController();
    inFlight.set(msg.id, controller);
    const reply = (response: FromWorker['response']) => {
      inFlight.delete(msg.id);
      self.postMessage({ type: 'response', id: msg.id, response } satisfies FromWorker);
    };
    if (!engine) {
      reply({ status: 503, body: { error: { code: 'engine_unavailable', message: 'The engine worker was not initialised with a dataset.' } } });
      return;
    }
    void engine.handle(msg.request, { signal: controller.signal }).then(reply);
  }
});
