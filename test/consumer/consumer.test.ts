// Proof that other web apps can use climate-query: pack the package, install
// the tarball into a separate Vite app, type-check and build it, serve it with
// a dataset, and answer a query in Chromium through the library and through
// the service worker.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { startServer, type RunningServer } from '../../src/node/server.ts';
import { launchChromium } from '../helpers/browser.ts';
import { parityRequests, rasterParityRequests } from '../browser/requests.ts';

const exec = promisify(execFile);
const fx = inject('stationFixture');
const demo = inject('demoDataset');
const repo = new URL('../..', import.meta.url).pathname;
let work: string;
let app: string;
let server: RunningServer | undefined;
let browser: Browser | undefined;

const npm = (args: string[], cwd: string) => exec('npm', args, { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false' } });

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cq-consumer-'));
  await npm(['pack', '--pack-destination', work], repo);
  const tarball = (await readdir(work)).find((f) => f.endsWith('.tgz'))!;
  app = join(work, 'app');
  await cp(join(repo, 'test/consumer/app'), app, { recursive: true });
  const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as { devDependencies: Record<string, string> };
  await writeFile(
    join(app, 'package.json'),
    JSON.stringify({ name: 'consumer-app', private: true, type: 'module', dependencies: { 'climate-query': `file:../${tarball}` }, devDependencies: { vite: pkg.devDependencies.vite ?? '8.3.8', typescript: pkg.devDependencies.typescript } }),
  );
  // Everything is in npm's cache already (this repository installed it).
  await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], app);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('a separate app using the packed package', () => {
  it('type-checks against the published declarations', async () => {
    await exec(join(app, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: app });
  });

  it('builds with Vite and answers a query in Chromium through the library and the service worker', async () => {
    await exec(join(app, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], { cwd: app });
    const dist = join(app, 'dist');
    await symlink(demo, join(dist, 'data'));
    const engine = createNodeEngine(demo, 'wasm');
    server = await startServer({ engine, staticRoot: dist, port: 0 });
    browser = await launchChromium();
    for (const request of [parityRequests(fx.stationsCsv)[1]!, rasterParityRequests()[3]!]) {
      const page = await browser.newPage();
      await page.goto(`${server.url}index.html?request=${encodeURIComponent(JSON.stringify(request))}`);
      await page.waitForFunction(() => 'result' in window, undefined, { timeout: 60_000 });
      const result = (await page.evaluate(() => (window as unknown as { result: unknown }).result)) as {
        viaLibrary: { status: number; body: unknown };
        viaFetch: { status: number; body: unknown };
        error?: string;
      };
      expect(result.error).toBeUndefined();
      const expected = await engine.handle({ method: 'POST', path: request.path, body: JSON.stringify(request.body) });
      expect(expected.status).toBe(200);
      expect(result.viaLibrary).toEqual(expected);
      expect(result.viaFetch).toEqual(expected);
      await page.close();
    }
    await engine.close();
    await mkdir(join(work, 'done'), { recursive: true });
  });
});
