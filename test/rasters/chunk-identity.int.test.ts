/**
 * A store's objects prove they are its own (src/rasters/chunk-digest.ts): two chunks swapped, a
 * chunk rewritten with other values, another year's store in its place, or a host answering one
 * key with another's bytes are refused by name, never answered; bytes that fail are not cached,
 * so once the host heals the next query is right. The digest costs no sequential round trip: a
 * point-year reads its chunk and 8 bytes of the digests file in one round.
 */
import { createReadStream } from 'node:fs';
import { cp, mkdtemp, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync, inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRasterLayer } from '../../src/builder/raster-build.ts';
import type { Catalog, RasterLayerEntry } from '../../src/dataset/catalog.ts';
import { createClimateEngine } from '../../src/engine/engine.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { DIGESTS_KEY } from '../../src/rasters/chunk-digest.ts';
import { daysOfYear, writeGridInput } from '../helpers/grid-inputs.ts';
import { dataChunkKey, previewChunkKey } from '../../src/rasters/zarr-layout.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

const G = { west: 18, north: -33, res: 0.02, width: 40, height: 24 };
let root: string;
let clean: string;
let layer: RasterLayerEntry;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-identity-'));
  clean = join(root, 'clean');
  for (const y of [2022, 2023, 2024]) {
    await writeGridInput(
      join(root, `t${y}.tif`),
      G,
      daysOfYear(y),
      (c, r, b) => y - 2020 + 0.3 * c - 0.2 * r + 6 * Math.sin(b / 58 + c / 7),
    );
  }
  await buildRasterLayer({
    dir: clean,
    dataType: 'temp',
    subDataType: 'mean',
    extent: 'tc',
    inputs: [join(root, 't2023.tif'), join(root, 't2024.tif')],
  });
  layer = ((await catalogJson(join(clean, 'catalog.json'))) as Catalog).rasters[0]!;
}, 300_000);
afterAll(() => rm(root, { recursive: true, force: true }));

/** Pixel (c, r) as a point, and the query of its year `y`. */
const at = (c: number, r: number) => `POINT (${G.west + (c + 0.5) * G.res} ${G.north - (r + 0.5) * G.res})`;
const yearAt = (c: number, r: number, y = 2024) => ({
  wkts: at(c, r),
  dataType: 'temp',
  options: { subDataType: 'mean', timeScale: 'daily', dataExtent: 'tc' },
  startDate: `${y}-01-01`,
  endDate: `${y}-12-31`,
});

async function ask(engine: { handle: ReturnType<typeof createNodeEngine>['handle'] }, body: object) {
  return engine.handle({ method: 'POST', path: '/api/point/', body: JSON.stringify(body) });
}

/** A copy of the clean dataset changed by `change` (given the folder and the 2024 store's path). */
async function tampered(name: string, change: (dir: string, store: string) => Promise<void>) {
  const dir = join(root, name);
  await cp(clean, dir, { recursive: true });
  await change(dir, join(dir, layer.files[1]!.path));
  return dir;
}

const V = 'temp_mean';

describe('objects that are not their store’s', () => {
  it('a store’s objects each have their digest, and the catalog names the store’s id', async () => {
    for (const f of layer.files) {
      expect(f.id).toMatch(/^\d{4}-[0-9a-f]{8}$/);
      // range + 365/366 preview planes + 5 × 3 data chunks, 8 bytes each.
      expect((await stat(join(clean, f.path, DIGESTS_KEY))).size).toBe(8 * (1 + f.periods.length + 15));
    }
  });

  it('two chunks swapped are refused by name, never answered as the other pixel', async () => {
    const dir = await tampered('swapped', async (_dir, store) => {
      const a = join(store, dataChunkKey(V, 0, 0));
      const b = join(store, dataChunkKey(V, 1, 0));
      await rename(a, `${a}.x`);
      await rename(b, a);
      await rename(`${a}.x`, b);
    });
    const engine = createNodeEngine(dir);
    try {
      for (const [c, r] of [
        [1, 1],
        [9, 1],
      ] as const) {
        const res = await ask(engine, yearAt(c, r));
        expect(res.status, JSON.stringify(res.body)).toBe(503);
        expect(JSON.stringify(res.body)).toMatch(/is not the object its build wrote/);
      }
      // The other year's store is untouched and answers.
      expect((await ask(engine, yearAt(1, 1, 2023))).status).toBe(200);
    } finally {
      await engine.close();
    }
  });

  it('a chunk rewritten with a wrapping delta (it decodes, to 3,000 °C) is refused', async () => {
    const dir = await tampered('rewritten', async (_dir, store) => {
      const path = join(store, dataChunkKey(V, 2, 1));
      const raw = inflateSync(await readFile(path));
      const values = new Int16Array(raw.buffer, raw.byteOffset, raw.byteLength / 2);
      values[0] = (values[0]! + 30_000) | 0;
      await writeFile(path, deflateSync(raw));
    });
    const engine = createNodeEngine(dir);
    try {
      const res = await ask(engine, yearAt(17, 9));
      expect(res.status).toBe(503);
      expect(JSON.stringify(res.body)).toMatch(/0\.1\.2 is not the object its build wrote/);
    } finally {
      await engine.close();
    }
  });

  it('another year’s store of the same shape in its place (its chunks and digests consistent) is refused: digests are bound to the store’s id', async () => {
    // 2022 built elsewhere: 365 dates like 2023, so every object and the digests file have the 2023 store's sizes.
    const other = join(root, 'built-2022');
    await buildRasterLayer({
      dir: other,
      dataType: 'temp',
      subDataType: 'mean',
      extent: 'tc',
      inputs: [join(root, 't2022.tif')],
    });
    const store2022 = ((await catalogJson(join(other, 'catalog.json'))) as Catalog).rasters[0]!.files[0]!;
    const dir = await tampered('other-store', async (d) => {
      const store2023 = join(d, layer.files[0]!.path);
      await rm(store2023, { recursive: true });
      await cp(join(other, store2022.path), store2023, { recursive: true });
    });
    const engine = createNodeEngine(dir);
    try {
      const res = await ask(engine, yearAt(3, 3, 2023));
      expect(res.status).toBe(503);
      expect(JSON.stringify(res.body)).toMatch(/is not the object its build wrote/);
    } finally {
      await engine.close();
    }
  });

  it('a preview plane of another date is refused', async () => {
    const dir = await tampered('preview', async (_dir, store) => {
      await cp(join(store, previewChunkKey(V, 10)), join(store, previewChunkKey(V, 0)));
    });
    const engine = createNodeEngine(dir);
    try {
      await expect(
        engine.layerGrid({ dataType: 'temp', subDataType: 'mean', period: '2024-01-01' }),
      ).rejects.toMatchObject({ code: 'dataset_unavailable', message: expect.stringMatching(/is not the object/) });
      const fine = await engine.layerGrid({ dataType: 'temp', subDataType: 'mean', period: '2024-01-11' });
      expect(fine.width).toBe(G.width);
    } finally {
      await engine.close();
    }
  });

  it('a chunk that is a link out of the dataset is refused by name, not taken for a dataset changed', async () => {
    const dir = await tampered('linked-out', async (_dir, store) => {
      const chunk = join(store, dataChunkKey(V, 0, 0));
      await cp(chunk, join(root, 'outside-chunk'));
      await rm(chunk);
      await symlink(join(root, 'outside-chunk'), chunk);
    });
    const engine = createNodeEngine(dir);
    try {
      const res = await ask(engine, yearAt(1, 1));
      expect(res.status).toBe(503);
      expect(JSON.stringify(res.body)).toMatch(/is a link to .*outside-chunk, outside the dataset folder/);
      expect(JSON.stringify(res.body)).not.toMatch(/redeploy/);
    } finally {
      await engine.close();
    }
  });

  it('a store written before digests (no id in its entry) still answers, unchecked', async () => {
    const dir = await tampered('no-id', async (d) => {
      const c = (await catalogJson(join(d, 'catalog.json'))) as Catalog;
      for (const f of c.rasters[0]!.files) delete f.id;
      await writeFile(join(d, 'catalog.json'), JSON.stringify(c));
    });
    const [old, now] = [createNodeEngine(dir), createNodeEngine(clean)];
    try {
      expect(await ask(old, yearAt(5, 5))).toEqual(await ask(now, yearAt(5, 5)));
    } finally {
      await old.close();
      await now.close();
    }
  });
});

/** A static host that answers `swaps` keys with another file's bytes until healed; Range as hosts do. */
async function lyingHost(dir: string, delayMs = 0) {
  const swaps = new Map<string, string>();
  /** Each request: its path, when it arrived and when its answer ended, and the bytes sent. */
  const log: Array<{ path: string; start: number; end: number; bytes: number }> = [];
  const server: Server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).slice(1);
    const entry = { path, start: performance.now(), end: Number.NaN, bytes: 0 };
    log.push(entry);
    res.on('finish', () => {
      entry.end = performance.now();
    });
    if (delayMs) await new Promise((ok) => setTimeout(ok, delayMs));
    const file = join(dir, swaps.get(path) ?? path);
    let size: number;
    try {
      size = (await stat(file)).size;
    } catch {
      res.writeHead(404).end();
      return;
    }
    const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (!m) {
      res.writeHead(200, { 'Content-Length': size, 'Accept-Ranges': 'bytes' });
      createReadStream(file).pipe(res);
      return;
    }
    const start = Number(m[1]);
    const end = Math.min(size - 1, m[2] ? Number(m[2]) : size - 1);
    entry.bytes = end - start + 1;
    res.writeHead(206, { 'Content-Length': end - start + 1, 'Content-Range': `bytes ${start}-${end}/${size}` });
    createReadStream(file, { start, end }).pipe(res);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { url, swaps, log, close: () => new Promise<void>((ok) => server.close(() => ok())) };
}

describe('a host that answers one key with another’s bytes', () => {
  it('is refused every time while it lies, nothing is cached, and the next query after it heals is right', async () => {
    const host = await lyingHost(clean);
    const engine = createClimateEngine({ dataset: host.url });
    const truth = createNodeEngine(clean);
    try {
      const store = layer.files[1]!.path;
      host.swaps.set(`${store}/${dataChunkKey(V, 4, 2)}`, `${store}/${dataChunkKey(V, 3, 2)}`);
      for (let i = 0; i < 3; i++) {
        const res = await ask(engine, yearAt(35, 20));
        expect(res.status).toBe(503);
        expect(JSON.stringify(res.body)).toMatch(/0\.2\.4 is not the object its build wrote/);
      }
      host.swaps.clear();
      const healed = await ask(engine, yearAt(35, 20));
      expect(healed.status).toBe(200);
      expect(healed).toEqual(await ask(truth, yearAt(35, 20)));
    } finally {
      await engine.close();
      await truth.close();
      await host.close();
    }
  });
});

describe('what the digest costs', () => {
  it('a point-year reads its chunk and its 8-byte digest in one round, nothing before; warm, nothing', async () => {
    const host = await lyingHost(clean, 50);
    const engine = createClimateEngine({ dataset: host.url });
    try {
      await engine.catalog();
      host.log.length = 0;
      expect((await ask(engine, yearAt(12, 12))).status).toBe(200);
      const store = layer.files[1]!.path;
      expect(host.log.map((l) => l.path).sort()).toEqual(
        [`${store}/${DIGESTS_KEY}`, `${store}/${dataChunkKey(V, 1, 1)}`].sort(),
      );
      const [digest, chunk] = [DIGESTS_KEY, dataChunkKey(V, 1, 1)].map(
        (k) => host.log.find((l) => l.path.endsWith(k))!,
      );
      expect(digest!.bytes).toBe(8);
      // One round: each request arrived before the other's answer ended (not one after the other).
      expect(digest!.start).toBeLessThan(chunk!.end);
      expect(chunk!.start).toBeLessThan(digest!.end);
      host.log.length = 0;
      expect((await ask(engine, yearAt(12, 12))).status).toBe(200);
      expect(host.log).toEqual([]);
    } finally {
      await engine.close();
      await host.close();
    }
  });
});
