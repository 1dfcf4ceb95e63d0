/**
 * Page side of the service-worker routes: registers the worker, answers the
 * requests it relays with the page's engine, and resolves once the page is
 * controlled, so plain `fetch('api/point/', {method: 'POST', …})` works on
 * the very first load.
 */
import type { ApiRequest, ApiResponse } from '../engine/router.ts';
import type { RelayReply, RelayRequest } from '../worker/protocol.ts';

/** Anything that answers HTTP-like requests: the engine, or an EngineClient. */
export interface RequestHandler {
  handle(request: ApiRequest): Promise<ApiResponse>;
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
    void options.engine.handle(ev.data.request).then((response) => port.postMessage({ type: 'response', response } satisfies RelayReply));
  });
  sw.startMessages?.();
  const controlled = sw.controller
    ? Promise.resolve()
    : new Promise<void>((resolve) => sw.addEventListener('controllerchange', () => resolve(), { once: true }));
  const registration = await sw.register(options.scriptUrl, { type: 'module', ...(options.scope ? { scope: options.scope } : {}) });
  await controlled;
  return registration;
}
