// Chromium and the app's server for one test file, started before its tests
// and closed after them (kept apart from browser.ts, which the bench imports
// outside Vitest).
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, inject } from 'vitest';
import { launchChromium, startBuiltApp, startVite } from './browser.ts';

/** Chromium and the app's server for one test file, as `ref.browser` and `ref.url` once its tests run. */
export interface ViteApp {
  browser: Browser;
  url: string;
}

/** Registers the file's beforeAll/afterAll: Chromium and the server `start` makes, closed after the file. */
function useApp(start: () => Promise<{ server: { close(): Promise<void> }; url: string }>): ViteApp {
  const ref = {} as ViteApp;
  let server: { close(): Promise<void> } | undefined;
  beforeAll(async () => {
    ref.browser = await launchChromium();
    const app = await start();
    server = app.server;
    ref.url = app.url;
  }, 120_000);
  afterAll(async () => {
    await ref.browser?.close();
    await server?.close();
  });
  return ref;
}

/** Chromium and Vite's dev server with `datasets` mounted (as {@link startVite}): for tests of `npm start`. */
export function useViteApp(datasets: Record<string, string>): ViteApp {
  return useApp(() => startVite(datasets));
}

/**
 * Chromium and the built site (made once per run by test/global-setup.ts) with `datasets` mounted,
 * as {@link startBuiltApp}: for tests of the app.
 */
export function useBuiltApp(datasets: Record<string, string>): ViteApp {
  return useApp(() => startBuiltApp(inject('builtSite'), datasets));
}
