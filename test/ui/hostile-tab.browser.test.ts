// The bombs of test/helpers/hostile-datasets.ts opened in the app, as a
// grower would follow a link with ?data= to a dataset someone else controls:
// Chromium's whole process tree (page, engine Worker, GPU) stays within
// 1 GB of the app idle on the demo, and the page says the dataset cannot be
// used instead of freezing or dying.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openAppPage } from '../helpers/app-page.ts';
import { launchChromium, startVite } from '../helpers/browser.ts';
import { gzipBombServer, rowsBomb, tileBomb, WIND_POINT } from '../helpers/hostile-datasets.ts';

const demo = inject('demoDataset');
let browser: Browser;
let vite: { server: ViteDevServer; url: string };
let work: string;
let bomb: { url: string; server: Server };

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cq-tab-'));
  const rows = await rowsBomb(demo, join(work, 'rows'));
  const tile = await tileBomb(demo, join(work, 'tile'));
  bomb = await gzipBombServer();
  browser = await launchChromium();
  vite = await startVite({ 'data/demo': demo, 'data/rows': rows, 'data/tile': tile });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await vite?.server.close();
  bomb?.server.close();
  await rm(work, { recursive: true, force: true });
});

/** Resident memory of every process this test process started (Chromium's tree), summed, in bytes. */
async function treeRss(): Promise<number> {
  const parent = new Map<number, number>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    // "pid (comm) state ppid …": the command may hold spaces, so read after its closing bracket.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid) parent.set(Number(name), ppid);
  }
  const ours = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined; p = parent.get(p)) if (p === process.pid) return true;
    return false;
  };
  let total = 0;
  for (const pid of parent.keys()) {
    if (!ours(pid)) continue;
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    total += Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
  }
  return total;
}

/** The highest tree RSS seen while `work` runs (sampled every 100 ms). */
async function peakWhile(work: () => Promise<unknown>): Promise<number> {
  let peak = await treeRss();
  let done = false;
  const sampler = (async () => {
    while (!done) {
      peak = Math.max(peak, await treeRss());
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  try {
    await work();
  } finally {
    done = true;
    await sampler;
  }
  return Math.max(peak, await treeRss());
}

const MiB = 2 ** 20;

describe('a tab opened on a hostile dataset', () => {
  let page: Page;
  let idle: number;
  beforeAll(async () => {
    page = await openAppPage(browser, `${vite.url}index.html?data=./data/demo/`);
    await page.waitForTimeout(1000);
    idle = await treeRss();
  }, 120_000);
  afterAll(() => page?.close());

  const dataError = () => page.locator('#data-error').textContent({ timeout: 30_000 });

  for (const [name, data] of [
    ['a station index claiming 10⁹ rows', './data/rows/'],
    ['a gzip-bombed catalog.json', 'bomb'],
  ] as const) {
    it(`${name}: the page says so, within 1 GB of idle`, async () => {
      const url = `${vite.url}index.html?data=${encodeURIComponent(data === 'bomb' ? bomb.url : data)}`;
      const peak = await peakWhile(async () => {
        await page.goto(url);
        await expect.poll(dataError, { timeout: 30_000 }).not.toBe('');
      });
      console.log(
        `[bombs in Chromium] ${name}: tree peak ${((peak - idle) / MiB).toFixed(0)} MiB above idle (${(idle / MiB).toFixed(0)} MiB)`,
      );
      expect(await dataError()).toMatch(/claims|more than|could not be read|damaged|bytes/i);
      expect(peak - idle).toBeLessThan(1024 * MiB);
    });
  }

  it('a tile claiming 64 MiB: the query is refused naming the claim, within 1 GB of idle', async () => {
    await page.goto(`${vite.url}index.html?data=./data/tile/`);
    await page.waitForFunction(() => 'cqUi' in window);
    await page.evaluate(() => (window as unknown as { cqUi: { ready: Promise<void> } }).cqUi.ready);
    let answer: { status: number; body: { error?: { code: string; message: string } } } | undefined;
    const peak = await peakWhile(async () => {
      answer = await page.evaluate(
        (body) =>
          (
            window as unknown as {
              cqUi: { engine: { handle(r: unknown): Promise<{ status: number; body: never }> } };
            }
          ).cqUi.engine.handle({ method: 'POST', path: '/api/point/', body: JSON.stringify(body) }),
        WIND_POINT,
      );
    });
    console.log(
      `[bombs in Chromium] tile claiming 64 MiB: tree peak ${((peak - idle) / MiB).toFixed(0)} MiB above idle`,
    );
    expect(answer?.status).toBe(503);
    expect(answer?.body.error).toMatchObject({
      code: 'dataset_unavailable',
      message: expect.stringMatching(/claims tiles of 4096×4096 px/),
    });
    expect(peak - idle).toBeLessThan(1024 * MiB);
  });
});
