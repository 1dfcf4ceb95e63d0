/**
 * A hostile dataset's files claim sizes far beyond what they hold: a station
 * index whose footer claims 10⁹ rows, a GeoTIFF whose one tile claims 64 MiB
 * of decoded values, a catalog.json gzip bomb (test/helpers/hostile-datasets.ts).
 * Each is refused as `dataset_unavailable` naming the claim, quickly and
 * without the memory the claim asks for, by the engine and through `serve`,
 * which stays up and keeps answering.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { urlLocation } from '../../src/dataset/location.ts';
import { createClimateEngine } from '../../src/engine/engine.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { startServeProcess } from '../helpers/serve-process.ts';
import { gzipBombServer, rowsBomb, STATION_POINT, tileBomb, WIND_POINT } from '../helpers/hostile-datasets.ts';

const demo = inject('demoDataset');
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cq-claims-'));
});
// Each bomb is built once and read by the engine, then by `serve` (reading changes nothing).
let rowsP: Promise<string> | undefined;
let tileP: Promise<string> | undefined;
const rowsDir = () => (rowsP ??= rowsBomb(demo, join(work, 'rows')));
const tileDir = () => (tileP ??= tileBomb(demo, join(work, 'tile')));

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('a dataset that claims more than it holds', () => {
  it('a station index claiming 10⁹ rows: dataset_unavailable in under 5 s, without the memory', async () => {
    const engine = createNodeEngine(await rowsDir());
    const before = process.memoryUsage().rss;
    const t0 = performance.now();
    const err = await engine.query('nearest-station', STATION_POINT).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'dataset_unavailable',
      message: expect.stringMatching(/claims 1000000000 rows/),
    });
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(process.memoryUsage().rss - before).toBeLessThan(300 * 1024 * 1024);
    await engine.close();
  });

  it('a GeoTIFF whose one tile claims 64 MiB of values: refused before decoding, naming the claim', async () => {
    const engine = createNodeEngine(await tileDir());
    const err = await engine.query('point', WIND_POINT).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'dataset_unavailable',
      message: expect.stringMatching(/claims tiles of 4096×4096 px/),
    });
    await engine.close();
  });

  it('a catalog.json gzip bomb (700 MiB in under 1 MB): dataset_unavailable naming the bound, not 500 internal', async () => {
    const { url, server } = await gzipBombServer();
    const engine = createClimateEngine({ dataset: urlLocation(url) });
    const before = process.memoryUsage().rss;
    const err = await engine.catalog().catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'dataset_unavailable',
      message: expect.stringMatching(/sent more than 33,554,432 bytes \(after undoing its gzip encoding\)/),
    });
    expect(process.memoryUsage().rss - before).toBeLessThan(400 * 1024 * 1024);
    await engine.close();
    await new Promise<void>((r) => server.close(() => r()));
  });
});

/** Peak resident memory of a process so far (Linux: VmHWM), in bytes. */
async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

describe('the same bombs through `serve`, as an operator runs it over datasets they did not build', () => {
  const post = async (url: string, endpoint: string, body: unknown) => {
    const t0 = performance.now();
    const res = await fetch(`${url}api/${endpoint}/`, { method: 'POST', body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as { error?: { code: string } }, ms: performance.now() - t0 };
  };
  const cases: Array<
    [string, () => Promise<{ data: string; close?: () => void }>, string, unknown, string | null, unknown]
  > = [
    [
      'station index claiming 10⁹ rows',
      async () => ({ data: await rowsDir() }),
      'nearest-station',
      STATION_POINT,
      'point',
      WIND_POINT,
    ],
    [
      'tile claiming 64 MiB',
      async () => ({ data: await tileDir() }),
      'point',
      WIND_POINT,
      'nearest-station',
      STATION_POINT,
    ],
    [
      'gzip-bombed catalog.json',
      async () => {
        const { url, server } = await gzipBombServer();
        return { data: url, close: () => server.close() };
      },
      'nearest-station',
      STATION_POINT,
      null,
      null,
    ],
  ];
  it.each(cases)(
    '%s: 503 dataset_unavailable in ≤ 5 s, peak RSS ≤ 1 GB, and serve answers on',
    async (_name, make, endpoint, body, cleanEndpoint, cleanBody) => {
      const { data, close } = await make();
      const serve = await startServeProcess(data);
      try {
        for (let i = 0; i < 3; i++) {
          const bad = await post(serve.url, endpoint, body);
          expect(bad.status).toBe(503);
          expect(bad.body.error?.code).toBe('dataset_unavailable');
          expect(bad.ms).toBeLessThan(5000);
        }
        // Still up: the rest of the dataset answers (a dataset without a catalog answers its error again).
        if (cleanEndpoint) expect((await post(serve.url, cleanEndpoint, cleanBody)).status).toBe(200);
        expect((await fetch(`${serve.url}api/openapi.json`)).status).toBe(200);
        const peak = await peakRss(serve.child.pid!);
        console.log(`[bombs through serve] ${_name}: peak RSS ${(peak / 2 ** 20).toFixed(0)} MiB`);
        expect(peak).toBeLessThan(1024 ** 3);
        expect(serve.child.exitCode).toBeNull();
      } finally {
        serve.child.kill();
        close?.();
      }
    },
  );
});
