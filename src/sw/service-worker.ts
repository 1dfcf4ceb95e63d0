/**
 * The service worker behind `POST <scope>api/<endpoint>/`. It relays each
 * request over a MessageChannel to a page of this origin, whose engine
 * Worker answers, so the routes and the page's own calls share one engine
 * and its caches (a service worker is stopped when idle and would lose
 * them; docs/decisions/0002-platform-facts.md §Service worker). It checks path, method and
 * size itself, and answers 503 with what to do when no page can answer.
 * Outside `<scope>api/` it only serves the offline caches (offline-cache.ts).
 */
/// <reference lib="webworker" />
import { ClimateQueryError } from '../contract/errors.ts';
import { preflight, type ApiJsonResponse, type ApiResponse } from '../engine/router.ts';
import { relayedAnswer, type RelayReply, type RelayRequest } from '../worker/protocol.ts';
import {
  dropOldShells,
  hasShell,
  isKept,
  keepFiles,
  keptLoaded,
  offlineAnswer,
  precacheShell,
  type KeepRequest,
} from './offline-cache.ts';

declare const self: ServiceWorkerGlobalScope;

/** How long a page has to acknowledge a relayed request before the next is tried. */
const ACK_TIMEOUT_MS = 3000;

self.addEventListener('install', (event) => {
  void self.skipWaiting();
  event.waitUntil(precacheShell());
});
self.addEventListener('activate', (event) => event.waitUntil(dropOldShells().then(() => self.clients.claim())));

self.addEventListener('message', (event) => {
  const data = event.data as KeepRequest | undefined;
  if (data?.type === 'climate-query:keep' && Array.isArray(data.urls)) event.waitUntil(keepFiles(data, event.ports[0]));
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  const apiRoot = `${new URL(self.registration.scope).pathname}api/`;
  if (url.origin !== self.location.origin || !url.pathname.startsWith(apiRoot)) {
    // Only a built app has offline caches. respondWith must be called now, so a miss is fetched as the page asked.
    if (!hasShell() || event.request.method !== 'GET') return;
    // A Range read is answered here only for a kept file (the station index); until the kept list is read, ask it.
    const kept = event.request.headers.has('Range') ? isKept(event.request.url) : true;
    if (kept === false) return;
    const offline =
      kept === null
        ? keptLoaded.then(() => (isKept(event.request.url) ? offlineAnswer(event.request) : null))
        : offlineAnswer(event.request);
    event.respondWith(offline.then((r) => r ?? fetch(event.request)));
    return;
  }
  event.respondWith(answer(event));
});

function json(r: ApiResponse | ApiJsonResponse): Response {
  return new Response('json' in r ? r.json : JSON.stringify(r.body), {
    status: r.status,
    headers: { 'Content-Type': 'application/json' },
  });
}

async function answer(event: FetchEvent): Promise<Response> {
  const req = event.request;
  const path = new URL(req.url).pathname;
  const early = preflight({ method: req.method, path, body: undefined });
  if ('error' in early) return json(early.error);
  const body = await req.text();
  const pre = preflight({ method: req.method, path, body });
  if ('error' in pre) return json(pre.error);

  // Prefer the page that asked (or whose Worker asked), then any other page of ours.
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const asking = windows.find((c) => c.id === event.clientId || c.id === event.resultingClientId);
  const order = asking ? [asking, ...windows.filter((c) => c !== asking)] : windows;
  for (const client of order) {
    const response = await relay(client, {
      type: 'climate-query:request',
      request: { method: req.method, path, body },
    });
    if (response) return json(response);
  }
  const e = new ClimateQueryError(
    'engine_unavailable',
    'No page of this site is open to run the query engine. Open the app (a page that calls registerClimateServiceWorker) and retry.',
  );
  return json({ status: e.status, body: e.toBody() });
}

/** Sends one request to a page; null when it does not acknowledge in time. */
function relay(client: Client, message: RelayRequest): Promise<ApiJsonResponse | null> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => {
      channel.port1.close();
      resolve(null);
    }, ACK_TIMEOUT_MS);
    channel.port1.onmessage = (ev: MessageEvent<RelayReply>) => {
      if (ev.data.type === 'ack') clearTimeout(timer);
      else {
        channel.port1.close();
        resolve(relayedAnswer(ev.data));
      }
    };
    client.postMessage(message, [channel.port2]);
  });
}
