// The same engine three ways, in real Chromium and over real HTTP:
// library call (engine Worker), plain fetch() answered by the service worker,
// and `climate-query serve`. Their JSON must be deep-equal.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { ViteDevServer } from 'vite';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { startServer, type RunningServer } from '../../src/node/server.ts';
import type { ClimateEngine } from '../../src/engine/engine.ts';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseStationIndex } from '../../src/stations/station-index.ts';
import { launchChromium, startVite } from '../helpers/browser.ts';
import { startRangeServer } from '../helpers/range-server.ts';
import { parityRequests, rasterParityRequests } from './requests.ts';

const fx = inject('stationFixture');
const demo = inject('demoDataset');
let browser: Browser;
let vite: { server: ViteDevServer; url: string };
let serve: RunningServer;
let nodeEngine: ClimateEngine;
let context: BrowserContext;
let page: Page;

type Answer = { status: number; body: unknown; contentType?: string | null; text?: string };

async function openEnginePage(ctx: BrowserContext): Promise<Page> {
  const p = await ctx.newPage();
  await p.goto(`${vite.url}test/browser/pages/engine.html?data=/test-data/`);
  await p.waitForFunction(() => 'cq' in window);
  await p.evaluate(() => (window as unknown as { cq: { ready: Promise<unknown> } }).cq.ready);
  return p;
}

const viaLibrary = (p: Page, path: string, body: string) =>
  p.evaluate(
    ([path, body]) =>
      (window as unknown as { cq: { engine: { handle(r: unknown): Promise<Answer> } } }).cq.engine.handle({
        method: 'POST',
        path,
        body,
      }),
    [path, body] as const,
  );

const viaFetch = (p: Page, path: string, body: string, method = 'POST') =>
  p.evaluate(
    async ([path, body, method]) => {
      const res = await fetch(
        path,
        method === 'POST' ? { method, body, headers: { 'Content-Type': 'application/json' } } : { method },
      );
      const text = await res.text();
      return {
        status: res.status,
        contentType: res.headers.get('content-type'),
        body: JSON.parse(text) as unknown,
        text,
      } as Answer;
    },
    [path, body, method] as const,
  );

async function viaServe(path: string, body: string): Promise<Answer> {
  const res = await fetch(new URL(path.slice(1), serve.url), { method: 'POST', body });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type'), body: JSON.parse(text) as unknown, text };
}

beforeAll(async () => {
  browser = await launchChromium();
  vite = await startVite({ 'test-data': demo });
  nodeEngine = createNodeEngine(demo);
  serve = await startServer({ engine: nodeEngine, staticRoot: demo, port: 0 });
  context = await browser.newContext();
  page = await openEnginePage(context);
}, 180_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await vite?.server.close();
  await serve?.close();
  await nodeEngine?.close();
});

describe('library, service worker and serve agree', () => {
  it('on every request of the parity set, on the first load of the page (no reload)', async () => {
    const requests = [...rasterParityRequests(), ...parityRequests(fx.stationsCsv)];
    expect(requests.length).toBeGreaterThanOrEqual(16);
    for (const { path, body } of requests) {
      const text = JSON.stringify(body);
      const lib = await viaLibrary(page, path, text);
      const sw = await viaFetch(page, path, text);
      const http = await viaServe(path, text);
      expect(lib.status, `${path} ${text}`).toBe(200);
      expect(sw.status).toBe(200);
      expect(sw.contentType).toBe('application/json');
      expect(http.status).toBe(200);
      expect(sw.body).toEqual(lib.body);
      expect(http.body).toEqual(lib.body);
      // Byte for byte: the Worker's JSON text, relayed by the service worker, is what serve sends (docs/contract.md).
      const libText = await page.evaluate(
        ([path, body]) =>
          (window as unknown as { cq: { engine: { handleJson(r: unknown): Promise<{ json: string }> } } }).cq.engine
            .handleJson({ method: 'POST', path, body })
            .then((r) => r.json),
        [path, text] as const,
      );
      expect(sw.text === http.text, `${path} ${text}: service worker and serve differ`).toBe(true);
      expect(libText === http.text, `${path} ${text}: library and serve differ`).toBe(true);
      // The object answer crosses from the Worker with its period tables as columns (packed-tables.ts):
      // written out in the page, it is the same text, key order included.
      const objectText = await page.evaluate(
        ([path, body]) =>
          (window as unknown as { cq: { engine: { handle(r: unknown): Promise<{ body: unknown }> } } }).cq.engine
            .handle({ method: 'POST', path, body })
            .then((r) => JSON.stringify(r.body)),
        [path, text] as const,
      );
      expect(objectText === http.text, `${path} ${text}: the library's object answer and serve differ`).toBe(true);
    }
  });

  it('answers concurrent requests independently', async () => {
    const requests = [...parityRequests(fx.stationsCsv).slice(0, 3), ...rasterParityRequests().slice(0, 3)];
    const answers = await page.evaluate(
      (reqs) =>
        Promise.all(
          reqs.map(async (r) => {
            const res = await fetch(r.path, { method: 'POST', body: JSON.stringify(r.body) });
            return res.json();
          }),
        ),
      requests,
    );
    for (const [i, r] of requests.entries()) {
      const lib = await viaLibrary(page, r.path, JSON.stringify(r.body));
      expect(answers[i]).toEqual(lib.body);
    }
  });

  it('answers fetch() from a dedicated Worker of the page', async () => {
    const [r] = parityRequests(fx.stationsCsv);
    const text = JSON.stringify(r!.body);
    const fromWorker = await page.evaluate(
      ([path, body]) =>
        new Promise<Answer>((resolve) => {
          const w = new Worker('/test/browser/pages/fetch-worker.js');
          w.onmessage = (ev) => resolve(ev.data as Answer);
          w.postMessage({ path, body });
        }),
      [r!.path, text] as const,
    );
    expect(fromWorker.status).toBe(200);
    expect(fromWorker.contentType).toBe('application/json');
    expect(fromWorker.body).toEqual((await viaLibrary(page, r!.path, text)).body);
  });

  it('still answers after the browser stops the idle service worker', async () => {
    const cdp = await context.newCDPSession(page);
    await cdp.send('ServiceWorker.enable');
    await cdp.send('ServiceWorker.stopAllWorkers');
    const [r] = parityRequests(fx.stationsCsv);
    const text = JSON.stringify(r!.body);
    const sw = await viaFetch(page, r!.path, text);
    expect(sw.status).toBe(200);
    expect(sw.body).toEqual((await viaLibrary(page, r!.path, text)).body);
  });
});

describe('service-worker errors', () => {
  it('400 for an invalid body, with the contract error JSON, like serve', async () => {
    const bad = JSON.stringify({
      wkts: 'POINT (19 -33)',
      dataTypes: ['rain'],
      options: { timeScale: 'weekly' },
      startDate: '2024-01-01',
      endDate: '2024-01-02',
    });
    const sw = await viaFetch(page, '/api/nearest-station/', bad);
    expect(sw.status).toBe(400);
    expect(sw.body).toMatchObject({ error: { code: 'invalid_field', field: '/options/timeScale' } });
    expect(await viaServe('/api/nearest-station/', bad)).toMatchObject({ status: 400, body: sw.body });
    const notJson = await viaFetch(page, '/api/point/', '{"wkts":');
    expect(notJson).toMatchObject({ status: 400, body: { error: { code: 'invalid_json' } } });
  });

  it('404 for an unknown API path, 405 for GET, 413 past 1 MiB', async () => {
    expect(await viaFetch(page, '/api/nearest/', '{}')).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found' } },
    });
    expect(await viaFetch(page, '/api/point/', '', 'GET')).toMatchObject({
      status: 405,
      body: { error: { code: 'method_not_allowed' } },
    });
    const big = JSON.stringify({ wkts: 'x'.repeat(1_100_000) });
    expect(await viaFetch(page, '/api/point/', big)).toMatchObject({
      status: 413,
      body: { error: { code: 'body_too_large' } },
    });
    expect(await viaServe('/api/point/', big)).toMatchObject({
      status: 413,
      body: { error: { code: 'body_too_large' } },
    });
  });

  it('does not intercept requests outside its routes', async () => {
    const res = await page.evaluate(async () => {
      const r = await fetch('/test-data/catalog.json');
      return { status: r.status, type: r.headers.get('content-type') };
    });
    expect(res).toEqual({ status: 200, type: 'application/json' });
  });

  it('503 with what to do when no page hosts an engine', async () => {
    const ctx = await browser.newContext();
    const host = await openEnginePage(ctx);
    // A page of the site that is controlled but runs no engine, then the engine page goes away.
    const bare = await ctx.newPage();
    await bare.goto(`${vite.url}test/browser/pages/bare.html`);
    await bare.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await host.close();
    const res = await viaFetch(bare, '/api/point/', JSON.stringify({}));
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ error: { code: 'engine_unavailable' } });
    expect((res.body as { error: { message: string } }).error.message).toContain('Open the app');
    await ctx.close();
  });
});

describe('reads over HTTP', () => {
  it('sends the ranges of one file at the same time, not one after another', async () => {
    // Chromium's HTTP cache lets one request per URL be in flight (a single-writer lock);
    // ranges of one file must bypass it or they queue. Four stations whose coverage lines lie
    // far apart in coverage.jsonl make four ranges of one file in one round.
    const bytes = await readFile(join(demo, 'stations/index.parquet'));
    const stations = (
      await parseStationIndex(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), 'index')
    ).filter((s) => s.files.hourly);
    const picked: typeof stations = [];
    for (const st of stations) {
      const at = st.files.hourly!.coverageAt[0];
      if (picked.every((p) => Math.abs(p.files.hourly!.coverageAt[0] - at) > 16 * 1024)) picked.push(st);
      if (picked.length === 4) break;
    }
    expect(picked).toHaveLength(4);
    const host = await startRangeServer(demo, { cors: true, delayMs: 150 });
    const ctx = await browser.newContext();
    try {
      const p = await ctx.newPage();
      await p.goto(`${vite.url}test/browser/pages/engine.html?data=${encodeURIComponent(host.url)}`);
      await p.waitForFunction(() => 'cq' in window);
      const body = JSON.stringify({
        wkts: picked.map((st) => `POINT (${st.lon} ${st.lat})`).join(';'),
        dataTypes: ['temperature_mean', 'rain'],
        options: { timeScale: 'hourly' },
        startDate: '2024-02-01T00:00:00',
        endDate: '2024-02-01T23:00:00',
      });
      const got = await viaLibrary(p, '/api/nearest-station/', body);
      expect(got.status).toBe(200);
      expect(got.body).toEqual((await nodeEngine.handle({ method: 'POST', path: '/api/nearest-station/', body })).body);
      expect(host.log.filter((e) => e.path === '/stations/coverage.jsonl').length).toBeGreaterThanOrEqual(4);
      expect(host.maxInFlight.get('/stations/coverage.jsonl')).toBeGreaterThanOrEqual(2);
    } finally {
      await ctx.close();
      await host.close();
    }
  });

  it("sends each point's table ahead of the answer, and the answer still equals Node's", async () => {
    // The Worker posts each point's period table as its station's rows are read (engine-worker.ts);
    // the page makes its objects then, and the answer names those parts (packed-tables.ts).
    const ctx = await browser.newContext();
    try {
      const p = await openEnginePage(ctx);
      await p.evaluate(() => {
        const w = window as unknown as { cq: { worker: Worker }; seen: string[] };
        w.seen = [];
        w.cq.worker.addEventListener('message', (e: MessageEvent<{ type: string }>) => w.seen.push(e.data.type));
      });
      const station = parityRequests(fx.stationsCsv)[0]!;
      const points = String(station.body.wkts).split(';').length;
      const body = JSON.stringify(station.body);
      const got = await viaLibrary(p, station.path, body);
      expect(got.status).toBe(200);
      const node = await nodeEngine.handle({ method: 'POST', path: station.path, body });
      expect(JSON.stringify(got.body)).toBe(JSON.stringify(node.body));
      const seen = await p.evaluate(() => (window as unknown as { seen: string[] }).seen);
      expect(seen).toEqual([...Array<string>(points).fill('part'), 'response']);
    } finally {
      await ctx.close();
    }
  });

  it('loads the raster reader only for the first raster query: a station query fetches none of its code', async () => {
    // The engine Worker's own code is what a station query runs; geotiff.js and the raster engine
    // come with the first raster query (src/engine/engine.ts), which must still answer as Node does.
    const ctx = await browser.newContext();
    const code: string[] = [];
    ctx.on('request', (r) => {
      const path = new URL(r.url()).pathname;
      if (/\.(ts|js)$/.test(path)) code.push(path);
    });
    try {
      const p = await openEnginePage(ctx);
      const station = parityRequests(fx.stationsCsv).find((r) => r.path === '/api/nearest-station/')!;
      const body = JSON.stringify(station.body);
      const got = await viaLibrary(p, station.path, body);
      expect(got.status).toBe(200);
      expect(got.body).toEqual((await nodeEngine.handle({ method: 'POST', path: station.path, body })).body);
      const rasterCode = (paths: string[]) => paths.filter((x) => /\/src\/rasters\/|geotiff/.test(x));
      expect(code.some((x) => x.endsWith('/src/worker/engine-worker.ts'))).toBe(true);
      expect(rasterCode(code)).toEqual([]);

      const raster = rasterParityRequests()[0]!;
      const rasterBody = JSON.stringify(raster.body);
      const answer = await viaLibrary(p, raster.path, rasterBody);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(
        (await nodeEngine.handle({ method: 'POST', path: raster.path, body: rasterBody })).body,
      );
      expect(rasterCode(code).some((x) => x.endsWith('/src/rasters/raster-engine.ts'))).toBe(true);
    } finally {
      await ctx.close();
    }
  });
});
