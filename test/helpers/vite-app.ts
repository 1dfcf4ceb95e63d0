// Chromium and Vite's dev server for one test file, started before its tests
// and closed after them (kept apart from browser.ts, which the bench imports
// outside Vitest).
import type { Browser } from 'playwright-core';
import type { ViteDevServer } from 'vite';
import { afterAll, beforeAll, inject } from 'vitest';
import { launchChromium, startBuiltApp, startVite } from './browser.ts';

/** Chromium and Vite's dev server for one test file, as `ref.browser` and `ref.url` once its tests run. */
export interface ViteApp {
  browser: Browser;
  url: string;
}

/**
 * Registers the file's beforeAll/afterAll: Chromium and Vite's dev server
 * with `datasets` mounted (as {@link startVite}), closed after the file.
 */
export function useViteApp(datasets: Record<string, string>): ViteApp {
  const ref = {} as ViteApp;
  let server: ViteDevServer | undefined;
  beforeAll(async () => {
    ref.browser = await launchChromium();
    const vite = await startVite(datasets);
    server = vite.server;
    ref.url = vite.url;
  }, 120_000);
  afterAll(async () => {
    await ref.browser?.close();
    await server?.close();
  });
  return ref;
}

/**
 * Registers the file's beforeAll/afterAll: Chromium and the built site (made once per run by
 * test/global-setup.ts) with `datasets` mounted, as {@link startBuiltApp}; closed after the file.
 */
export function useBuiltApp(datasets: Record<string, string>): ViteApp {
  const ref = {} as ViteApp;
  let server: { close(): Promise<void> } | undefined;
  beforeAll(async () => {
    ref.browser = await launchChromium();
    const app = await startBuiltApp(inject('builtSite'), datasets);
    server = app.server;
    ref.url = app.url;
  }, 120_000);
  afterAll(async () => {
    await ref.browser?.close();
    await server?.close();
  });
  return ref;
}
