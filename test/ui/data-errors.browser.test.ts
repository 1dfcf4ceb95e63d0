// `?data=URL` that fails, in Chromium against real HTTP servers on
// 127.0.0.1: the message at the top of the page names the URL and the
// cause — not found (404) or another HTTP status, a web page instead of
// the catalog, a host that cannot be reached or refuses cross-origin
// reads (CORS) — and a host that ignores Range gets a warning while
// queries still answer.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { drawPoint, openAppPage, runAndWait } from '../helpers/app-page.ts';
import { startVite } from '../helpers/browser.ts';
import { useBuiltApp } from '../helpers/vite-app.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';

const demo = inject('demoDataset');
const SHOTS = new URL('../../screens/', import.meta.url).pathname;
const dev = useBuiltApp({ 'data/demo': demo });
let empty = '';
const servers: RangeServer[] = [];

beforeAll(async () => {
  empty = await mkdtemp(join(tmpdir(), 'cq-empty-'));
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  if (empty) await rm(empty, { recursive: true, force: true });
});

async function serve(root: string, options: Parameters<typeof startRangeServer>[1]): Promise<RangeServer> {
  const s = await startRangeServer(root, options);
  servers.push(s);
  return s;
}

/** Opens the app on `data`, waits (bounded) for its start to end, and returns the page with the message shown at the top. */
async function openOn(
  data: string,
  size = { width: 1280, height: 800 },
): Promise<{ page: Page; error: string; warning: string }> {
  const page = await dev.browser.newPage({ viewport: size });
  await page.goto(`${dev.url}index.html?data=${encodeURIComponent(data)}`);
  await page.waitForFunction(() => 'cqUi' in window, undefined, { timeout: 20_000 });
  await page.evaluate(() =>
    Promise.race([
      (window as unknown as { cqUi: { ready: Promise<void> } }).cqUi.ready.catch(() => undefined),
      new Promise((r) => setTimeout(r, 20_000)),
    ]),
  );
  return {
    page,
    error: (await page.locator('#data-error').textContent()) ?? '',
    warning: (await page.locator('#data-warning').textContent()) ?? '',
  };
}

/** A port on 127.0.0.1 where nothing listens: one the OS gave us, then closed. */
async function deadPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('?data= that cannot be used says which URL and why', () => {
  it('a folder without catalog.json: not found (HTTP 404)', async () => {
    const s = await serve(empty, { cors: true });
    const { page, error } = await openOn(`${s.url}nothing/`);
    expect(error).toBe(
      `The dataset's catalog ${s.url}nothing/catalog.json was not found (HTTP 404). Check that ?data= points to the folder that holds catalog.json.`,
    );
    // The server really answered 404 to that URL.
    expect(s.log.some((e) => e.path === '/nothing/catalog.json' && e.status === 404)).toBe(true);
    expect(await page.locator('#data-error').isVisible()).toBe(true);
    await page.screenshot({ path: `${SHOTS}error-404-1280.png` });
    await page.close();
  });

  it('another HTTP status is named with its number', async () => {
    const s = await serve(demo, { cors: true, status: { '/catalog.json': 503 } });
    const { page, error } = await openOn(s.url);
    expect(error).toMatch(
      new RegExp(
        `^The dataset's catalog ${s.url}catalog\\.json could not be read: the server answered HTTP 503 Service Unavailable\\.`,
      ),
    );
    await page.close();
  });

  it('a web page where the catalog should be: says HTML, not JSON', async () => {
    const s = await serve(empty, {
      cors: true,
      htmlFallback: '<!doctype html><html><head><title>My farm site</title></head><body>Welcome</body></html>',
    });
    const { page, error } = await openOn(`${s.url}data/`);
    expect(error).toMatch(
      new RegExp(
        `^${s.url.replace(/[.]/g, '\\.')}data/catalog\\.json is a web page \\(HTML\\), not a dataset catalog \\(JSON\\); the server may answer every address with its home page\\. Check that \\?data= points to the folder that holds catalog\\.json\\.$`,
      ),
    );
    expect(s.log.find((e) => e.path === '/data/catalog.json')?.status).toBe(200);
    await page.close();
  });

  it('a host that is down: could not be reached', async () => {
    const url = `http://127.0.0.1:${await deadPort()}/data/`;
    const { page, error } = await openOn(url);
    expect(error).toBe(
      `${url}catalog.json could not be reached — the server may be down or not allow cross-origin requests (CORS).`,
    );
    await page.close();
  });

  it('a host that sends no CORS headers: the same words, as the browser cannot tell the two apart', async () => {
    const s = await serve(demo, { cors: false });
    const { page, error } = await openOn(s.url);
    expect(error).toBe(
      `${s.url}catalog.json could not be reached — the server may be down or not allow cross-origin requests (CORS).`,
    );
    // The server did answer (200): it is the browser that refused the page the bytes.
    expect(s.log.find((e) => e.path === '/catalog.json')?.status).toBe(200);
    await page.screenshot({ path: `${SHOTS}error-cors-1280.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await page.screenshot({ path: `${SHOTS}error-cors-390.png` });
    await page.close();
  });

  it('without ?data= and no demo built: says how to build it', async () => {
    const bare = await startVite({}, { withoutPublic: true });
    try {
      const page = await dev.browser.newPage();
      await page.goto(`${bare.url}index.html`);
      await page.evaluate(() =>
        Promise.race([
          (window as unknown as { cqUi: { ready: Promise<void> } }).cqUi.ready.catch(() => undefined),
          new Promise((r) => setTimeout(r, 20_000)),
        ]),
      );
      expect(await page.locator('#data-error').textContent()).toMatch(
        new RegExp(
          `^.*${bare.url.replace(/[.]/g, '\\.')}data/demo/catalog\\.json .*Build the demo dataset with \`npx climate-query demo\`, or open the app with \\?data= and the address of your own dataset\\.$`,
        ),
      );
      await page.close();
    } finally {
      await bare.server.close();
    }
  });

  it('a host that ignores Range: a warning, and queries still answer (from whole files)', async () => {
    const s = await serve(demo, { cors: true, ranges: false });
    const page = await openAppPage(dev.browser, `${dev.url}index.html?data=${encodeURIComponent(s.url)}`);
    await expect
      .poll(() => page.locator('#data-warning').textContent(), { timeout: 10_000 })
      .toBe(
        `The server ${new URL(s.url).host} does not support HTTP Range requests (it answered 200 instead of 206 to a request for one byte of ${s.url}catalog.json). Station and layer reads need Range support to fetch only the bytes a query uses; here each query downloads whole files, so answers will be slow and use much more data.`,
      );
    expect(await page.locator('#data-error').textContent()).toBe('');
    await page.screenshot({ path: `${SHOTS}warning-no-range-1280.png` });
    // The check asked for one byte and got the whole file with 200.
    expect(s.log.some((e) => e.path === '/catalog.json' && e.status === 200 && e.bytes > 1)).toBe(true);
    await drawPoint(page, [18.87, -33.93]);
    const ui = await runAndWait(page);
    const engine = createNodeEngine(demo);
    expect(ui.lastAnswer).toEqual(await engine.query('nearest-station', ui.lastRequest!.body));
    await engine.close();
    await page.close();
  });

  it('a host with Range support: no warning', async () => {
    const s = await serve(demo, { cors: true });
    const page = await openAppPage(dev.browser, `${dev.url}index.html?data=${encodeURIComponent(s.url)}`);
    // The check ran (a Range request for byte 0 answered 206) and said nothing.
    await expect
      .poll(() => s.log.some((e) => e.path === '/catalog.json' && e.range === 'bytes=0-0' && e.status === 206), {
        timeout: 10_000,
      })
      .toBe(true);
    expect(await page.locator('#data-warning').textContent()).toBe('');
    expect(await page.locator('#data-error').textContent()).toBe('');
    await page.close();
  });
});
