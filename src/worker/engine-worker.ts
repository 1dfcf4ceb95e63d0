/**
 * The engine in a dedicated Worker, so queries never block the page.
 * Station queries read Parquet with hyparquet and raster queries read COGs
 * with geotiff.js, both here directly over HTTP Range requests.
 */
/// <reference lib="webworker" />
import { createClimateEngine, type ClimateEngine } from '../engine/engine.ts';
import type { FromWorker, ToWorker } from './protocol.ts';

declare const self: DedicatedWorkerGlobalScope;

let engine: ClimateEngine | undefined;
const inFlight = new Map<number, AbortController>();

self.addEventListener('message', (ev: MessageEvent<ToWorker>) => {
  const msg = ev.data;
  if (msg.type === 'init') {
    engine = createClimateEngine({ dataset: msg.dataset });
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
