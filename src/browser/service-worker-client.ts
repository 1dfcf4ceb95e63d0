/**
 * Page side of the service-worker routes: registers the worker, answers the
 * requests it relays with the page's engine, and resolves once the page is
 * controlled, so plain `fetch('api/point/', {method: 'POST', …})` works on
 * the very first load.
 */
import type { ApiJsonResponse, ApiRequest, ApiResponse } from '../engine/router.ts';
import type { RelayReply, RelayRequest } from '../worker/protocol.ts';

/** Anything that answers HTTP-like requests: the engine, or an EngineClient. */
export interface RequestHandler {
  handle(request: ApiRequest): Promise<ApiResponse>;
  /** The answer as JSON text, when the handler has it as text already (an EngineClient does): relayed untouched. */
  handleJson?(request: ApiRequest): Promise<ApiJsonResponse>;
}

/** Options of {@link registerClimateServiceWorker}. */
export interface ServiceWorkerOptions {
  /** URL of the built service worker (`sw.js`), served from the scope's root. */
  scriptUrl: string | URL;
  /** Scope; default the folder of `scriptUrl`. API paths are `<scope>api/<endpoint>/`. */
  scope?: string;
  /** Answers the relayed requests. */
  engine: RequestHandler;
}

/**
 * Registers the service worker and resolves with its registration once this
 * page is controlled by it. Safe to call on every load.
 */
export async function registerClimateServiceWorker(options: ServiceWorkerOptions): Promise<ServiceWorkerRegistration> {
  const sw = navigator.serviceWorker;
  // Listen before registering, so no relayed request is missed.
  sw.addEventListener('message', (ev: MessageEvent<RelayRequest>) => {
    if (ev.data?.type !== 'climate-query:request' || !ev.ports[0]) return;
    const port = ev.ports[0];
    port.postMessage({ type: 'ack' } satisfies RelayReply);
    const { engine } = options;
    const answer = engine.handleJson
      ? engine.handleJson(ev.data.request)
      : engine.handle(ev.data.request).then((r) => ({ status: r.status, json: JSON.stringify(r.body) }));
    void answer.then((r) =>
      port.postMessage({ type: 'response', status: r.status, json: r.json } satisfies RelayReply),
    );
  });
  sw.startMessages?.();
  const controlled = sw.controller
    ? Promise.resolve()
    : new Promise<void>((resolve) => sw.addEventListener('controllerchange', () => resolve(), { once: true }));
  const registration = await sw.register(options.scriptUrl, {
    type: 'module',
    ...(options.scope ? { scope: options.scope } : {}),
  });
  await controlled;
  return registration;
}
