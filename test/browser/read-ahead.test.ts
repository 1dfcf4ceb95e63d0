// The page reads the dataset's catalog and station index for its engine Worker
// (browser/engine-client.ts `readAhead`), in real Chromium on Vite's dev server: one read of each per
// page, made by the page (its Referer is the page, not the Worker's script); when the page's read
// of the catalog fails, the Worker reads both itself and the query is answered as before.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { ViteDevServer } from 'vite';
import { launchChromium, startVite } from '../helpers/browser.ts';
import { parityRequests } from './requests.ts';

const fx = inject('stationFixture');
const demo = inject('demoDataset');
let browser: Browser;
let vite: { server: ViteDevServer; url: string };
/** Reads of the catalog and the station index: which, who asked (the Referer) and what they got. */
const reads: Array<{ file: 'catalog' | 'index'; referer: string; status: number }> = [];
/** Catalog reads still to refuse with a 503. */
let refuse = 0;

beforeAll(async () => {
  browser = await launchChromium();
  vite = await startVite(
    { 'test-data': demo },
    {
      onRequest: (req, res) => {
        const path = (req.url ?? '').split('?')[0]!;
        const file = path.endsWith('/test-data/catalog.json')
          ? 'catalog'
          : path.endsWith('/test-data/stations/index.parquet')
            ? 'index'
            : null;
        // Not the host's probe of several ranges (two bytes near the index's end).
        if (!file || String(req.headers.range ?? '').includes(',')) return false;
        const referer = String(req.headers.referer ?? '');
        if (file === 'catalog' && refuse > 0) {
          refuse--;
          reads.push({ file, referer, status: 503 });
          res.writeHead(503).end();
          return true;
        }
        reads.push({ file, referer, status: 200 });
        return false;
      },
    },
  );
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await vite?.server.close();
});

async function query(page: Page): Promise<{ status: number; body: unknown }> {
  const { path, body } = parityRequests(fx.stationsCsv)[0]!;
  return page.evaluate(
    ([path, body]) =>
      (
        window as unknown as { cq: { engine: { handle(r: unknown): Promise<{ status: number; body: unknown }> } } }
      ).cq.engine.handle({
        method: 'POST',
        path,
        body,
      }),
    [path, JSON.stringify(body)] as const,
  );
}

async function freshPage(): Promise<{ page: Page; close(): Promise<void> }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${vite.url}test/browser/pages/engine.html?data=/test-data/`);
  await page.waitForFunction(() => 'cq' in window);
  return { page, close: () => context.close() };
}

describe('the catalog and station index read ahead by the page', () => {
  it('are read once, by the page, and answer the first query', async () => {
    reads.length = 0;
    const { page, close } = await freshPage();
    try {
      const first = await query(page);
      expect(first.status).toBe(200);
      expect(Object.keys(first.body as object).length).toBeGreaterThan(0);
      expect(await query(page)).toEqual(first);
      expect(reads.map((r) => r.file).sort()).toEqual(['catalog', 'index']);
      for (const r of reads) expect(r.referer, r.file).toContain('engine.html');
    } finally {
      await close();
    }
  });

  it('are read by the Worker when the page could not read the catalog', async () => {
    reads.length = 0;
    refuse = 1;
    const { page, close } = await freshPage();
    try {
      const answer = await query(page);
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
