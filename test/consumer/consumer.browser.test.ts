// Proof that other web apps can use climate-query: pack the package, install
// the tarball into a separate Vite app with production dependencies only
// (what the library forces on an app: at most 40 MB, no native DuckDB, no
// LGPL gdal3.js, no map or build tools), then add the app's own build tools,
// type-check and build it, serve it with a dataset, and answer a station and
// a raster query in Chromium through the library and the service worker.
import { execFile, spawn } from 'node:child_process';
import { cp, lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
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

/** Bytes of every file under `dir` (apparent sizes, symlinks not followed). */
async function treeBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) total += await treeBytes(p);
    else total += (await lstat(p)).size;
  }
  return total;
}

/** The bound on what installing the library adds to an app. */
const MAX_PRODUCTION_BYTES = 40 * 1024 * 1024;
let productionBytes = 0;
let productionPackages: string[] = [];

const npm = (args: string[], cwd: string) =>
  exec('npm', args, { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false' } });

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cq-consumer-'));
  await npm(['pack', '--pack-destination', work], repo);
  const tarball = (await readdir(work)).find((f) => f.endsWith('.tgz'))!;
  app = join(work, 'app');
  await cp(join(repo, 'test/consumer/app'), app, { recursive: true });
  const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as {
    devDependencies: Record<string, string>;
  };
  await writeFile(
    join(app, 'package.json'),
    JSON.stringify({
      name: 'consumer-app',
      private: true,
      type: 'module',
      dependencies: { 'climate-query': `file:../${tarball}` },
      devDependencies: { vite: pkg.devDependencies.vite ?? '8.3.8', typescript: pkg.devDependencies.typescript },
    }),
  );
  // Everything is in npm's cache already (this repository installed it).
  // First what an app gets from the library alone: production dependencies only.
  await npm(['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], app);
  productionBytes = await treeBytes(join(app, 'node_modules'));
  const top = await readdir(join(app, 'node_modules'));
  productionPackages = (
    await Promise.all(
      top.map(async (d) =>
        d.startsWith('@') ? (await readdir(join(app, 'node_modules', d))).map((s) => `${d}/${s}`) : [d],
      ),
    )
  ).flat();
  await cliChecks();
  // Then the app's own build tools (its devDependencies: Vite, TypeScript).
  await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], app);
}, 600_000);

/** What the installed CLI does without the optional packages, recorded for the tests below. */
const cliResults: Record<string, { code: number; stdout: string; stderr: string }> = {};
async function cliChecks(): Promise<void> {
  const bin = join(app, 'node_modules/.bin/climate-query');
  const run = async (name: string, args: string[]) => {
    try {
      const { stdout, stderr } = await exec(bin, args, { cwd: app, timeout: 120_000 });
      cliResults[name] = { code: 0, stdout, stderr };
    } catch (e) {
      const err = e as { code: number; stdout: string; stderr: string };
      cliResults[name] = { code: err.code, stdout: err.stdout, stderr: err.stderr };
    }
  };
  await run('version', ['--version']);
  await run('help', ['query', '--help']);
  await writeFile(join(work, 'stations.csv'), 'station_id,name,lat,lon\n1,A,-33,19\n');
  await writeFile(join(work, 'daily.csv'), 'station_id,time,temperature_mean\n1,2024-01-01,20.5\n');
  // A complete build command, so the arguments pass and the build gets as far as native DuckDB.
  await run('build', [
    'build',
    '--out',
    join(work, 'built'),
    '--stations',
    join(work, 'stations.csv'),
    '--daily',
    join(work, 'daily.csv'),
  ]);
  await writeFile(
    join(work, 'wind.json'),
    JSON.stringify({
      wkts: 'POINT (19.31 -33.37)',
      dataType: 'windspeed',
      options: { subDataType: '50', dataExtent: 'sa' },
    }),
  );
  await run('raster', ['query', 'point', join(work, 'wind.json'), '--data', demo]);
  // The Node library without native DuckDB: it must import, and its engine answer, as the CLI does.
  // (An archive to index whose stations.parquet exists, so indexing gets as far as opening DuckDB.)
  await mkdir(join(work, 'to-index/stations'), { recursive: true });
  await writeFile(join(work, 'to-index/stations/stations.parquet'), '');
  await writeFile(
    join(app, 'node-lib.mjs'),
    [
      "import { createNodeEngine, createNativeSqlRunner, indexStations } from 'climate-query/node';",
      'const engine = createNodeEngine(process.argv[2]);',
      "const answer = await engine.query('point', JSON.parse(process.argv[3]));",
      'const runner = createNativeSqlRunner();',
      "const missing = await indexStations(process.argv[4]).then(() => 'no error', (e) => String(e.message));",
      'process.stdout.write(JSON.stringify({ answer, runner: typeof runner.session, missing }));',
    ].join('\n'),
  );
  try {
    const { stdout, stderr } = await exec(
      process.execPath,
      ['node-lib.mjs', demo, await readFile(join(work, 'wind.json'), 'utf8'), join(work, 'to-index')],
      { cwd: app, timeout: 120_000 },
    );
    cliResults.nodeLib = { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    cliResults.nodeLib = { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
  // A station the demo has, so the request is valid and only native DuckDB is missing.
  const probe = createNodeEngine(demo);
  const stationId = (await probe.stations())[0]!.id;
  await probe.close();
  await run('sql', [
    'sql',
    'SELECT 1',
    '--data',
    demo,
    '--stations',
    stationId,
    '--time-scale',
    'daily',
    '--from',
    '2024-01-01',
    '--to',
    '2024-01-02',
  ]);
}

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('a separate app using the packed package', () => {
  it(`gets at most ${MAX_PRODUCTION_BYTES / 1024 / 1024} MB of node_modules from the library, without native DuckDB, gdal3.js (LGPL), map or build packages`, () => {
    expect(productionPackages).toContain('climate-query');
    for (const heavy of [
      '@duckdb/node-api',
      '@duckdb/duckdb-wasm',
      'gdal3.js',
      'maplibre-gl',
      'terra-draw',
      'uplot',
      'vite',
      'tsx',
      'typescript',
    ]) {
      expect(productionPackages, heavy).not.toContain(heavy);
    }
    expect(productionPackages.filter((p) => p.startsWith('@duckdb/'))).toEqual([]);
    expect(productionBytes).toBeGreaterThan(1024 * 1024);
    expect(productionBytes).toBeLessThanOrEqual(MAX_PRODUCTION_BYTES);
  });

  it('runs the installed CLI without the optional packages: --version, help, a raster query, and a clear message for a station build', async () => {
    const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as { version: string };
    expect(cliResults.version).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    expect(cliResults.help!.code).toBe(0);
    expect(cliResults.help!.stdout).toContain('Exit codes:');
    expect(cliResults.raster!.code).toBe(0);
    expect(typeof JSON.parse(cliResults.raster!.stdout)['POINT (19.31 -33.37)']).toBe('number');
    expect(cliResults.build!.code).toBe(1);
    expect(cliResults.build!.stderr).toContain('npm install @duckdb/node-api');
    expect(cliResults.build!.stderr).not.toMatch(/\n\s+at /);
    // Station SQL needs native DuckDB in Node: a sentence saying what to install, not a stack.
    expect(cliResults.sql!.code).toBe(1);
    expect(JSON.parse(cliResults.sql!.stdout).error.code).toBe('sql_unavailable');
    expect(cliResults.sql!.stderr).toContain('npm install @duckdb/node-api');
    // climate-query/node imports without native DuckDB; only what needs it fails, naming the package.
    expect(cliResults.nodeLib!.stderr).toBe('');
    expect(cliResults.nodeLib!.code).toBe(0);
    const lib = JSON.parse(cliResults.nodeLib!.stdout) as {
      answer: Record<string, unknown>;
      runner: string;
      missing: string;
    };
    expect(lib.answer).toEqual(JSON.parse(cliResults.raster!.stdout));
    expect(lib.runner).toBe('function');
    expect(lib.missing).toContain('@duckdb/node-api');
  });

  it('type-checks against the published declarations', async () => {
    await exec(join(app, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: app });
  });

  it('builds with Vite and answers a query in Chromium through the library and the service worker', async () => {
    await exec(join(app, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], { cwd: app });
    const dist = join(app, 'dist');
    // An app that never imports climate-query/sql-wasm bundles nothing of DuckDB.
    const built = await readdir(dist, { recursive: true });
    expect(built.filter((f) => /duckdb/i.test(String(f)))).toEqual([]);
    for (const f of built.filter((f) => String(f).endsWith('.js'))) {
      expect(await readFile(join(dist, String(f)), 'utf8'), String(f)).not.toMatch(/duckdb-wasm|AsyncDuckDB/);
    }
    // A copy, not a symlink: serve refuses symlinks that lead out of its root (docs/reliability.md).
    await cp(demo, join(dist, 'data'), { recursive: true });
    const engine = createNodeEngine(demo);
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

  it('answers the same in `vite dev` (npm run dev), the service worker included', async () => {
    // As the app's developer runs it: its own Vite, its own config, the dataset in its public folder.
    await cp(demo, join(app, 'public/data'), { recursive: true });
    const dev = spawn(
      join(app, 'node_modules/.bin/vite'),
      ['--host', '127.0.0.1', '--port', '0', '--strictPort', 'false'],
      { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let out = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`vite dev did not start: ${out}`)), 60_000);
        const onData = (d: Buffer) => {
          out += d.toString();
          const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out.replace(/\u001b\[[0-9;]*m/g, ''));
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        };
        dev.stdout.on('data', onData);
        dev.stderr.on('data', onData);
        dev.once('exit', () => reject(new Error(`vite dev exited: ${out}`)));
      });
      browser ??= await launchChromium();
      const engine = createNodeEngine(demo);
      const sw = await fetch(`${url}sw.js`);
      expect(sw.headers.get('content-type')).toMatch(/javascript/);
      for (const request of [parityRequests(fx.stationsCsv)[1]!, rasterParityRequests()[3]!]) {
        const page = await browser.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(String(e)));
        await page.goto(`${url}?request=${encodeURIComponent(JSON.stringify(request))}`);
        await page.waitForFunction(() => 'result' in window, undefined, { timeout: 90_000 });
        const result = (await page.evaluate(() => (window as unknown as { result: unknown }).result)) as {
          viaLibrary: unknown;
          viaFetch: unknown;
          error?: string;
        };
        expect(result.error).toBeUndefined();
        expect(errors).toEqual([]);
        const expected = await engine.handle({
          method: 'POST',
          path: request.path,
          body: JSON.stringify(request.body),
        });
        expect(expected.status).toBe(200);
        expect(result.viaLibrary).toEqual(expected);
        expect(result.viaFetch).toEqual(expected);
        await page.close();
      }
      await engine.close();
    } finally {
      dev.kill();
    }
  });
});
