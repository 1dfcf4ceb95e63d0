// `npm run build` makes a static site that works from any static host:
// relative paths, the service worker at the root, the engine in a Worker.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, stat, symlink, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { startServer, type RunningServer } from '../../src/node/server.ts';
import { launchChromium } from '../helpers/browser.ts';

const exec = promisify(execFile);
const demo = inject('demoDataset');
const repo = new URL('../..', import.meta.url).pathname;
let out: string;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'cq-site-'));
  // The same build as `npm run build`, into a temp folder, without copying public/.
  await exec(
    join(repo, 'node_modules/.bin/vite'),
    ['build', '--outDir', join(out, 'site'), '--emptyOutDir', '--logLevel', 'warn'],
    { cwd: repo, env: { ...process.env, CQ_NO_PUBLIC: '1' } },
  );
  await mkdir(join(out, 'site/data'), { recursive: true });
  await rm(join(out, 'site/data/demo'), { recursive: true, force: true });
  // A copy, not a symlink: serve refuses symlinks that lead out of its root (docs/reliability.md).
  await cp(demo, join(out, 'site/data/demo'), { recursive: true });
  // An API-less static host: the sub-path /app/ proves every path is relative.
  server = await startServer({ engine: createNodeEngine(demo), staticRoot: out, port: 0 });
  await symlink(join(out, 'site'), join(out, 'app'));
  browser = await launchChromium();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (out) await rm(out, { recursive: true, force: true });
});

describe('the built site', () => {
  it('has the service worker at its root and only relative asset paths', async () => {
    expect((await stat(join(out, 'site/sw.js'))).size).toBeGreaterThan(500);
    const html = await readFile(join(out, 'site/index.html'), 'utf8');
    expect(html).not.toMatch(/(src|href)="\//);
  });

  it('answers a query from a sub-path of a plain static host, and fetch() through its service worker', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${server.url}app/index.html`);
    await page.waitForFunction(() => 'cqUi' in window);
    await page.evaluate(() => (window as unknown as { cqUi: { ready: Promise<void> } }).cqUi.ready);
    const body = {
      wkts: 'POINT (19.31 -33.37)',
      dataType: 'gdd',
      options: { subDataType: 'grapes', timeScale: 'annual', dataExtent: 'tc' },
      startDate: '2019',
      endDate: '2024',
    };
    const viaSw = await page.evaluate(async (b) => {
      // The app registers its service worker; wait until it controls the page.
      if (!navigator.serviceWorker.controller)
        await new Promise((r) => navigator.serviceWorker.addEventListener('controllerchange', r, { once: true }));
      const res = await fetch('./api/point/', { method: 'POST', body: JSON.stringify(b) });
      // The Node server adds CORS headers to its answers; the service worker's have none.
      return { status: res.status, cors: res.headers.get('access-control-allow-origin'), body: await res.json() };
    }, body);
    expect(viaSw.status).toBe(200);
    expect(viaSw.cors).toBeNull();
    const engine = createNodeEngine(demo);
    expect(viaSw.body).toEqual(await engine.point(body as never));
    await engine.close();
    await page.close();
  });
});
