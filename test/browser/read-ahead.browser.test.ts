// What the page reads for its engine Worker (browser/engine-client.ts `readAhead`), in real
// Chromium on Vite's dev server. The catalog: once per page, by the page (its Referer is the page,
// not the Worker's script). The station index: by the page too when a station query was asked
// before the catalog came in (a page that queries as it opens), else by the Worker once it has been
// idle a moment (worker-dataset.ts warmWhenIdle), never before a first raster query's answer. When
// the page's read of the catalog fails, the Worker reads both itself and the query is answered.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { ViteDevServer } from 'vite';
import { launchChromium, startVite } from '../helpers/browser.ts';
import { parityRequests, rasterParityRequests } from './requests.ts';

const fx = inject('stationFixture');
const demo = inject('demoDataset');
let browser: Browser;
let vite: { server: ViteDevServer; url: string };
/** Reads of the catalog and the station index: which, who asked (the Referer) and what they got. */
const reads: Array<{ file: 'catalog' | 'index'; referer: string; status: number }> = [];
/** Catalog reads still to refuse with a 503. */
let refuse = 0;
/** How long the catalog's answer is held: long enough for the test to ask its query first. */
let holdCatalogMs = 0;

beforeAll(async () => {
  browser = await launchChromium();
  vite = await startVite(
    { 'test-data': demo },
    {
      onRequest: (req, res, next) => {
        const path = (req.url ?? '').split('?')[0]!;
        const file = path.endsWith('/test-data/catalog.json')
          ? 'catalog'
          : path.endsWith('/test-data/stations/index.parquet')
            ? 'index'
            : null;
        // Not the host's probe of several ranges (two bytes near the index's end).
        if (!file || String(req.headers.range ?? '').includes(',')) return next();
        const referer = String(req.headers.referer ?? '');
        if (file === 'catalog' && refuse > 0) {
          refuse--;
          reads.push({ file, referer, status: 503 });
          res.writeHead(503).end();
          return;
        }
        reads.push({ file, referer, status: 200 });
        if (file === 'catalog' && holdCatalogMs > 0) setTimeout(next, holdCatalogMs);
        else next();
      },
    },
  );
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await vite?.server.close();
});

type Answer = { status: number; body: unknown };

async function query(page: Page, path: string, body: unknown): Promise<Answer> {
  return page.evaluate(
    ([path, body]) =>
      (window as unknown as { cq: { engine: { handle(r: unknown): Promise<Answer> } } }).cq.engine.handle({
        method: 'POST',
        path,
        body,
      }),
    [path, JSON.stringify(body)] as const,
  );
}

const stationQuery = (page: Page) => {
  const { path, body } = parityRequests(fx.stationsCsv)[0]!;
  return query(page, path, body);
};

async function freshPage(): Promise<{ page: Page; close(): Promise<void> }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${vite.url}test/browser/pages/engine.html?data=/test-data/`);
  await page.waitForFunction(() => 'cq' in window);
  return { page, close: () => context.close() };
}

describe('what the page reads ahead for its engine Worker', () => {
  it('a station query asked as the page opens: catalog and index read once each, by the page', async () => {
    reads.length = 0;
    holdCatalogMs = 1_500;
    const { page, close } = await freshPage();
    try {
      const first = await stationQuery(page);
      expect(first.status).toBe(200);
      expect(Object.keys(first.body as object).length).toBeGreaterThan(0);
      expect(await stationQuery(page)).toEqual(first);
      expect(reads.map((r) => r.file).sort()).toEqual(['catalog', 'index']);
      for (const r of reads) expect(r.referer, r.file).toContain('engine.html');
    } finally {
      holdCatalogMs = 0;
      await close();
    }
  });

  it('a raster query first: the catalog by the page, nothing of stations before its answer; then the index by the idle Worker, once', async () => {
    reads.length = 0;
    holdCatalogMs = 1_500;
    const { page, close } = await freshPage();
    try {
      const { path, body } = rasterParityRequests()[0]!;
      expect((await query(page, path, body)).status).toBe(200);
      expect(reads.map((r) => r.file)).toEqual(['catalog']);
      expect(reads[0]!.referer).toContain('engine.html');
      // Idle: the Worker reads the index on its own.
      await expect.poll(() => reads.map((r) => r.file), { timeout: 5_000 }).toEqual(['catalog', 'index']);
      expect(reads[1]!.referer).toContain('engine-worker');
      // The station query reads it no more.
      expect((await stationQuery(page)).status).toBe(200);
      expect(reads.map((r) => r.file)).toEqual(['catalog', 'index']);
    } finally {
      holdCatalogMs = 0;
      await close();
    }
  });

  it('are read by the Worker when the page could not read the catalog', async () => {
    reads.length = 0;
    refuse = 1;
    const { page, close } = await freshPage();
    try {
      const answer = await stationQuery(page);
      expect(answer.status).toBe(200);
      expect(reads.map((r) => `${r.file} ${r.status}`)).toEqual(['catalog 503', 'catalog 200', 'index 200']);
      expect(reads[0]!.referer).toContain('engine.html');
      expect(reads[1]!.referer).toContain('engine-worker');
      expect(reads[2]!.referer).toContain('engine-worker');
    } finally {
      refuse = 0;
      await close();
    }
  });
});
