/**
 * The built site served by `climate-query serve --static`, a Chromium and a
 * Node engine on the same dataset: the setup of the UI tests that compare
 * what the page shows with what the engine answers.
 */
import { mkdir } from 'node:fs/promises';
import { afterAll, beforeAll } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import type { ClimateEngine } from '../../src/engine/engine.ts';
import { mapIdle, networkOff } from './app-page.ts';
import { launchChromium } from './browser.ts';
import { buildSite, type BuiltSite } from './built-site.ts';
import { startServeProcess, type ServeProcess } from './serve-process.ts';

/** A served app and an engine beside it. */
export interface ServedApp {
  browser: Browser;
  engine: ClimateEngine;
  /** Opens the app (network off, no service worker) and waits for it and its map. */
  open(size?: { width: number; height: number }): Promise<Page>;
  close(): Promise<void>;
}

/** Builds the site over `dataset`, serves it and starts Chromium and a Node engine on the same dataset. */
export async function startServedApp(dataset: string): Promise<ServedApp> {
  const built: BuiltSite = await buildSite(dataset);
  const serve: ServeProcess = await startServeProcess(built.dataset, ['--static', built.site]);
  const browser = await launchChromium();
  const engine = createNodeEngine(dataset);
  return {
    browser,
    engine,
    async open(size = { width: 1280, height: 800 }) {
      // ?sw=0: these tests are about the page, not the service worker (offline.browser.test.ts covers it).
      const page = await browser.newPage({ viewport: size });
      await networkOff(page);
      await page.goto(`${serve.url}index.html?sw=0`);
      await page.waitForFunction(() => 'cqUi' in window);
      await page.evaluate(() => (window as unknown as { cqUi: { ready: Promise<void> } }).cqUi.ready);
      await mapIdle(page);
      return page;
    },
    async close() {
      await browser.close();
      serve.child.kill();
      await engine.close();
      await built.remove();
    },
  };
}

/**
 * Registers the file's beforeAll/afterAll for a served app over `dataset`
 * (and makes `screens`, where its screenshots go); the app is `ref.app`
 * once the tests run.
 */
export function useServedApp(dataset: string, screens: string): { app: ServedApp } {
  const ref = {} as { app: ServedApp };
  beforeAll(async () => {
    await mkdir(screens, { recursive: true });
    ref.app = await startServedApp(dataset);
  }, 300_000);
  afterAll(() => ref.app?.close());
  return ref;
}
