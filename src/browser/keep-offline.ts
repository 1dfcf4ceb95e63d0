/**
 * Page side of the offline dataset cache: asks the service worker to keep
 * the dataset files the app needs to start (catalog.json, the station
 * index), so a later visit with no connection still opens. The page asks
 * because the service worker cannot know the dataset (`?data=` picks it),
 * and the first visit's own reads happen before the worker controls the page.
 */
import type { KeepReply, KeepRequest } from '../sw/offline-cache.ts';

/**
 * Sends the URLs to the controlling service worker and resolves with what
 * it stored; null when no service worker controls the page or it does not
 * answer within `timeoutMs`.
 */
export function keepForOffline(urls: string[], timeoutMs = 20_000): Promise<KeepReply | null> {
  const controller = navigator.serviceWorker?.controller;
  if (!controller) return Promise.resolve(null);
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    const timer = setTimeout(() => {
      channel.port1.close();
      resolve(null);
    }, timeoutMs);
    channel.port1.onmessage = (ev: MessageEvent<KeepReply>) => {
      clearTimeout(timer);
      channel.port1.close();
      resolve(ev.data);
    };
    controller.postMessage({ type: 'climate-query:keep', urls } satisfies KeepRequest, [channel.port2]);
  });
}
