/**
 * The engine in a dedicated Worker, so queries never block the page.
 * Station queries read Parquet with hyparquet and raster queries read COGs
 * with geotiff.js, both here directly over HTTP Range requests.
 */
/// <reference lib="webworker" />
import { createClimateEngine, type ClimateEngine } from '../engine/engine.ts';
import { ClimateQueryError, toClimateQueryError } from '../contract/errors.ts';
import type { ApiResponse } from '../engine/router.ts';
import type { PeriodTable } from '../contract/period-table.ts';
import {
  WORKER_CALLS,
  partMessage,
  responseMessage,
  type FromWorker,
  type ToWorker,
  type WorkerCall,
} from './protocol.ts';
import { TablesAhead } from './packed-tables.ts';
import { warmWhenIdle, workerDataset, type WorkerDataset } from './worker-dataset.ts';

declare const self: DedicatedWorkerGlobalScope;

let engine: ClimateEngine | undefined;
/** Where the page's read-ahead messages go (worker-dataset.ts). */
let takeAhead: WorkerDataset['take'] = () => undefined;
const inFlight = new Map<number, AbortController>();
/** Tells the idle reader of the station index that a request came (worker-dataset.ts warmWhenIdle). */
let touched: () => void = () => undefined;

self.addEventListener('message', (ev: MessageEvent<ToWorker>) => {
  const msg = ev.data;
  if (msg.type === 'init') {
    const dataset = workerDataset(msg);
    takeAhead = dataset.take;
    engine = createClimateEngine({ dataset: dataset.dataset });
    // Every query, raster or station, reads the catalog first, and a page is loaded long before
    // someone draws their first field: load it now (the page's read of it, or our own), not on
    // that query's critical path. Its failure is the first query's to report: a failed load is not kept.
    engine.catalog().catch(() => undefined);
    // The station index too, once the Worker is idle (worker-dataset.ts).
    touched = warmWhenIdle(engine, () => inFlight.size > 0);
  } else if (msg.type === 'catalog' || msg.type === 'file') {
    takeAhead(msg);
  } else if (msg.type === 'abort') {
    inFlight.get(msg.id)?.abort();
  } else if (msg.type === 'request') {
    touched();
    const controller = new AbortController();
    inFlight.set(msg.id, controller);
    const ahead = new TablesAhead();
    const reply = (response: ApiResponse) => {
      inFlight.delete(msg.id);
      touched();
      const { message, transfer } = responseMessage(msg.id, response, msg.as, ahead);
      self.postMessage(message, transfer);
    };
    if (!engine) {
      reply({
        status: 503,
        body: {
          error: { code: 'engine_unavailable', message: 'The engine worker was not initialised with a dataset.' },
        },
      });
      return;
    }
    // Object answers keep their period tables as columns: sent as they are, made into objects on the
    // page, each as soon as it is final (the page makes its objects while this Worker reads on).
    const objects = msg.as !== 'json';
    const onPeriodTable = (table: PeriodTable) => {
      if (controller.signal.aborted) return;
      const { message, transfer } = partMessage(msg.id, table, ahead);
      self.postMessage(message, transfer);
    };
    void engine
      .handle(msg.request, { signal: controller.signal, periodTables: objects, ...(objects ? { onPeriodTable } : {}) })
      .then(reply);
  } else if (msg.type === 'call') {
    touched();
    const controller = new AbortController();
    inFlight.set(msg.id, controller);
    const answer = (m: FromWorker) => {
      inFlight.delete(msg.id);
      touched();
      self.postMessage(m);
    };
    void call(msg.method, msg.args, controller.signal).then(
      (value) => answer({ type: 'result', id: msg.id, value }),
      (err: unknown) => answer({ type: 'result', id: msg.id, error: toClimateQueryError(err).toBody().error }),
    );
  }
});

/** Runs one {@link WorkerCall} on the engine. */
function call(method: WorkerCall, args: unknown[], signal: AbortSignal): Promise<unknown> {
  if (!engine)
    return Promise.reject(
      new ClimateQueryError('engine_unavailable', 'The engine worker was not initialised with a dataset.'),
    );
  if (!WORKER_CALLS.includes(method))
    return Promise.reject(new ClimateQueryError('not_found', `The engine worker has no method "${String(method)}".`));
  const fn = engine[method] as (...a: unknown[]) => Promise<unknown>;
  return fn(...args, { signal });
}
