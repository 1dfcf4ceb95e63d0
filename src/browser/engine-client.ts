/**
 * The engine for web pages: the same typed functions as
 * {@link createClimateEngine}, answered by a dedicated Worker so the page
 * never janks. Errors arrive as {@link ClimateQueryError} with their code.
 */
import { ClimateQueryError, type ErrorBody } from '../contract/errors.ts';
import type { Endpoint, ResponseOf } from '../contract/types.ts';
import type { ApiRequest, ApiResponse } from '../engine/router.ts';
import type { CallOptions, ClimateQueries } from '../engine/engine.ts';
import type { FromWorker, ToWorker } from '../worker/protocol.ts';

/** The page side of the engine worker. */
export interface EngineClient extends ClimateQueries {
  /** Stops the worker. */
  terminate(): void;
}

/** Options of {@link createEngineClient}. */
export interface EngineClientOptions {
  /** Dataset root URL (absolute, or relative to the page). */
  dataset: string | URL;
  /**
   * A Worker running the engine (`climate-query/worker`). With Vite:
   * `import EngineWorker from 'climate-query/worker?worker'` and pass
   * `new EngineWorker()`; in this repository,
   * `new Worker(new URL('../worker/engine-worker.ts', import.meta.url), { type: 'module' })`.
   * Bundlers only bundle a worker they can see being created, so the app creates it.
   */
  worker: Worker;
}

/** Starts the engine worker on `dataset`. Cheap: nothing is fetched before the first query. */
export function createEngineClient(options: EngineClientOptions): EngineClient {
  const { worker } = options;
  const dataset = new URL(String(options.dataset), globalThis.location?.href).href;
  worker.postMessage({ type: 'init', dataset } satisfies ToWorker);
  let nextId = 1;
  const pending = new Map<number, (r: ApiResponse) => void>();
  worker.addEventListener('message', (ev: MessageEvent<FromWorker>) => {
    if (ev.data?.type !== 'response') return;
    pending.get(ev.data.id)?.(ev.data.response);
    pending.delete(ev.data.id);
  });

  function handle(request: ApiRequest, opts: CallOptions = {}): Promise<ApiResponse> {
    const id = nextId++;
    const { signal } = opts;
    if (signal?.aborted) return Promise.resolve(abortedResponse());
    return new Promise<ApiResponse>((resolve) => {
      const onAbort = () => {
        worker.postMessage({ type: 'abort', id } satisfies ToWorker);
        pending.delete(id);
        resolve(abortedResponse());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      pending.set(id, (r) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(r);
      });
      worker.postMessage({ type: 'request', id, request } satisfies ToWorker);
    });
  }

  async function query<E extends Endpoint>(endpoint: E, body: unknown, opts: CallOptions = {}): Promise<ResponseOf[E]> {
    const res = await handle({ method: 'POST', path: `/api/${endpoint}/`, body }, opts);
    if (res.status !== 200) {
      const { error } = res.body as ErrorBody;
      throw new ClimateQueryError(error.code, error.message, error.field === undefined ? {} : { field: error.field });
    }
    return res.body as ResponseOf[E];
  }

  return {
    nearestStation: (b, o) => query('nearest-station', b, o),
    polyAggregate: (b, o) => query('poly-aggregate', b, o),
    point: (b, o) => query('point', b, o),
    polygon: (b, o) => query('polygon', b, o),
    query,
    handle,
    terminate: () => worker.terminate(),
  };
}

function abortedResponse(): ApiResponse {
  return { status: 499, body: new ClimateQueryError('aborted', 'The request was aborted.').toBody() };
}
