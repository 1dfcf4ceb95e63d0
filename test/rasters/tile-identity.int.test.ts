/**
 * A `map` GeoTIFF's tiles prove they are its own (src/rasters/tile-digests.ts): a tile rewritten in
 * place at the same size, or a host answering a tile's range with another tile's bytes, is refused
 * by name, never answered; failed bytes are not cached, so once the host heals the next query is
 * right. The table costs no sequential round trip (it is read beside the header), GDAL still reads
 * the file, and a catalog write refuses to list a file whose tiles no longer match their digests.
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromFile } from 'geotiff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRasterLayer } from '../../src/builder/raster-build.ts';
import type { Catalog, CatalogFile, RasterLayerEntry } from '../../src/dataset/catalog.ts';
import { createClimateEngine } from '../../src/engine/engine.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { TILE_DIGESTS_MAGIC } from '../../src/rasters/tile-digests.ts';
import { writeGridInput } from '../helpers/grid-inputs.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

const G = { west: 18, north: -33, res: 0.02, width: 40, height: 24 };
const MONTHS = Array.from({ length: 12 }, (_, m) => `2024-${String(m + 1).padStart(2, '0')}`);
let root: string;
let clean: string;
let layer: RasterLayerEntry;
let entry: CatalogFile;
/** The built file's tiles: [offset, byte count], in TileOffsets order (16 px tiles: 3 across, 2 down). */
let tiles: Array<[number, number]>;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-tile-identity-'));
  clean = join(root, 'clean');
  await writeGridInput(join(root, 'frost.tif'), G, MONTHS, (c, r, b) => ((c * 3 + r * 5 + b * 7) % 23) + 0.5 * (b % 2));
  await buildRasterLayer({
    dir: clean,
    dataType: 'frost',
    subDataType: '-',
    extent: 'tc',
    inputs: [join(root, 'frost.tif')],
    tileSize: 16,
  });
  const catalog = (await catalogJson(join(clean, 'catalog.json'))) as Catalog;
  layer = catalog.rasters[0]!;
  entry = catalog.files.find((f) => f.path === layer.files[0]!.path)!;
  const tiff = await fromFile(join(clean, entry.path));
  try {
    const image = await tiff.getImage();
    const offsets = (await image.fileDirectory.loadValue('TileOffsets')) as ArrayLike<number>;
    const counts = (await image.fileDirectory.loadValue('TileByteCounts')) as ArrayLike<number>;
    tiles = Array.from({ length: offsets.length }, (_, k) => [Number(offsets[k]), Number(counts[k])]);
  } finally {
    tiff.close();
  }
}, 300_000);
afterAll(() => rm(root, { recursive: true, force: true }));

/** Pixel (c, r) as a point, and the query of its year of months. */
const at = (c: number, r: number) => `POINT (${G.west + (c + 0.5) * G.res} ${G.north - (r + 0.5) * G.res})`;
const monthsAt = (c: number, r: number) => ({
  wkts: at(c, r),
  dataType: 'frost',
  options: { timeScale: 'monthly', dataExtent: 'tc' },
  startDate: '2024-01',
  endDate: '2024-12',
});
/** The tile index holding pixel (c, r). */
const tileOf = (c: number, r: number) => Math.floor(r / 16) * Math.ceil(G.width / 16) + Math.floor(c / 16);

async function ask(engine: { handle: ReturnType<typeof createNodeEngine>['handle'] }, body: object) {
  return engine.handle({ method: 'POST', path: '/api/point/', body: JSON.stringify(body) });
}

/** A copy of the clean dataset whose map file is changed by `change` (given the file's path). */
async function tampered(name: string, change: (file: string) => Promise<void>) {
  const dir = join(root, name);
  await cp(clean, dir, { recursive: true });
  await change(join(dir, entry.path));
  return dir;
}

/** Flips one byte in the middle of tile `k`, in place: the file keeps its size and its header. */
const flipInTile = (k: number) => async (file: string) => {
  const [offset, length] = tiles[k]!;
  const fh = await open(file, 'r+');
  try {
    const b = Buffer.alloc(1);
    await fh.read(b, 0, 1, offset + Math.floor(length / 2));
    b[0] = b[0]! ^ 0x5a;
    await fh.write(b, 0, 1, offset + Math.floor(length / 2));
  } finally {
    await fh.close();
  }
};

describe('a map file’s tiles', () => {
  it('carry a digest each, in a table after the tiles that the catalog locates; GDAL reads the file as before', async () => {
    expect(tiles).toHaveLength(6);
    const size = (await stat(join(clean, entry.path))).size;
    expect(entry.tiles).toMatchObject({ bytes: 8 * tiles.length, offset: size - TILE_DIGESTS_MAGIC.length - 48 });
    expect(Math.max(...tiles.map(([o, n]) => o + n))).toBeLessThanOrEqual(entry.tiles!.offset);
    const tail = (await readFile(join(clean, entry.path))).subarray(size - TILE_DIGESTS_MAGIC.length);
    expect(tail.toString('latin1')).toBe(TILE_DIGESTS_MAGIC);
    // GDAL, the oracle, reads the stored value of pixel (21, 17) in March as the engine answers it.
    const engine = createNodeEngine(clean);
    try {
      const res = await ask(engine, monthsAt(21, 17));
      expect(res.status).toBe(200);
      const stored = Number(
        execFileSync('gdallocationinfo', ['-valonly', '-b', '3', join(clean, entry.path), '21', '17'], {
          encoding: 'utf8',
        }).trim(),
      );
      const march = (res.body as Record<string, Record<string, number | null>>)[at(21, 17)]?.['2024-03-01'];
      expect(march, JSON.stringify(res.body)).toBeTypeOf('number');
      expect(march).toBeCloseTo(stored * layer.scale + layer.offset, 6);
    } finally {
      await engine.close();
    }
  });

  it('a tile rewritten in place at the same size is refused by name; the other tiles answer', async () => {
    const dir = await tampered('rewritten', flipInTile(tileOf(21, 17)));
    const engine = createNodeEngine(dir);
    const truth = createNodeEngine(clean);
    try {
      const res = await ask(engine, monthsAt(21, 17));
      expect(res.status, JSON.stringify(res.body)).toBe(503);
      expect(JSON.stringify(res.body)).toMatch(new RegExp(`tile ${tileOf(21, 17)} is not the tile its build wrote`));
      const other = await ask(engine, monthsAt(2, 2));
      expect(other).toEqual(await ask(truth, monthsAt(2, 2)));
    } finally {
      await engine.close();
      await truth.close();
    }
  });

  it('a file whose table was not written (built before tiles had digests) still answers, unchecked', async () => {
    const dir = await tampered('no-table', async () => undefined);
    const c = (await catalogJson(join(dir, 'catalog.json'))) as Catalog;
    for (const f of c.files) delete f.tiles;
    await writeFile(join(dir, 'catalog.json'), JSON.stringify(c));
    const [old, now] = [createNodeEngine(dir), createNodeEngine(clean)];
    try {
      expect(await ask(old, monthsAt(30, 5))).toEqual(await ask(now, monthsAt(30, 5)));
    } finally {
      await old.close();
      await now.close();
    }
  });

  it('a catalog write refuses to list a file whose tile no longer matches, naming it; the catalog is kept', async () => {
    const dir = await tampered('damaged-then-built', flipInTile(0));
    const before = await readFile(join(dir, 'catalog.json'), 'utf8');
    await writeGridInput(join(root, 'other.tif'), G, ['2024'], (c, r) => c + r);
    await expect(
      buildRasterLayer({
        dir,
        dataType: 'gdd',
        subDataType: 'apples',
        extent: 'tc',
        inputs: [join(root, 'other.tif')],
      }),
    ).rejects.toMatchObject({
      code: 'unreadable_input',
      message: expect.stringContaining(`${entry.path} is damaged: a tile does not match the digest its build recorded`),
    });
    expect(await readFile(join(dir, 'catalog.json'), 'utf8')).toBe(before);
  });
});

/** A static host that, while `lying`, answers a range holding tile `victim` with tile `donor`'s bytes there. */
async function lyingHost(dir: string, file: string) {
  const state = { lying: false, victim: 0, donor: 1, tileRequests: 0 };
  const server: Server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).slice(1);
    let all: Buffer;
    try {
      all = await readFile(join(dir, path));
    } catch {
      res.writeHead(404).end();
      return;
    }
    const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const start = m ? Number(m[1]) : 0;
    const end = m ? Math.min(all.length - 1, m[2] ? Number(m[2]) : all.length - 1) : all.length - 1;
    const body = Buffer.from(all.subarray(start, end + 1));
    const [vo, vn] = tiles[state.victim]!;
    if (path === file && start <= vo && vo + vn - 1 <= end) {
      state.tileRequests++;
      if (state.lying) {
        const [dOff, dn] = tiles[state.donor]!;
        body.fill(0, vo - start, vo - start + vn);
        all.copy(body, vo - start, dOff, dOff + Math.min(dn, vn));
      }
    }
    res.writeHead(m ? 206 : 200, {
      'Content-Length': body.length,
      'Accept-Ranges': 'bytes',
      ...(m ? { 'Content-Range': `bytes ${start}-${end}/${all.length}` } : {}),
    });
    res.end(body);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { url, state, close: () => new Promise<void>((ok) => server.close(() => ok())) };
}

describe('a host that answers a tile with another tile’s bytes', () => {
  it('is refused every time while it lies, nothing is cached, and the next query after it heals is right', async () => {
    const host = await lyingHost(clean, entry.path);
    const engine = createClimateEngine({ dataset: host.url });
    const truth = createNodeEngine(clean);
    try {
      Object.assign(host.state, { lying: true, victim: tileOf(35, 20), donor: tileOf(2, 2) });
      for (let i = 0; i < 3; i++) {
        const before = host.state.tileRequests;
        const res = await ask(engine, monthsAt(35, 20));
        expect(res.status, JSON.stringify(res.body)).toBe(503);
        expect(JSON.stringify(res.body)).toMatch(new RegExp(`tile ${tileOf(35, 20)} is not the tile its build wrote`));
        // Read afresh each time, and once more within the query in case the host's fault passed: nothing was cached.
        expect(host.state.tileRequests - before).toBeGreaterThanOrEqual(2);
      }
      host.state.lying = false;
      const healed = await ask(engine, monthsAt(35, 20));
      expect(healed.status).toBe(200);
      expect(healed).toEqual(await ask(truth, monthsAt(35, 20)));
    } finally {
      await engine.close();
      await truth.close();
      await host.close();
    }
  });
});
