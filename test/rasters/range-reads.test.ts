/**
 * What raster queries cost on the wire, through a real HTTP server that
 * counts requests and bytes: after the header reads, a point costs at most
 * one tile read for a whole year of daily values, and repeating a query
 * costs nothing. The numbers are printed for docs/performance.md.
 */
import { chooseLayout } from '../../src/builder/raster-tiling.ts';
import { urlLocation } from '../../src/dataset/location.ts';
import { join } from 'node:path';
import { fromFile } from 'geotiff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRange } from '../../src/contract/periods.ts';
import type { RasterQuery } from '../../src/contract/types.ts';
import type { Position } from '../../src/contract/wkt.ts';
import { createRasterEngine } from '../../src/rasters/raster-engine.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';
import { buildRasterFixture, FIXTURE_GRID, isNodataPixel, type RasterFixture } from '../helpers/raster-fixture.ts';
import { rng } from '../helpers/random-shapes.ts';

let fx: RasterFixture;
let server: RangeServer;
beforeAll(async () => {
  fx = await buildRasterFixture();
  server = await startRangeServer(fx.dataset);
});
afterAll(async () => {
  await server?.close();
  await fx?.cleanup();
});

/** Byte offset where tile data starts in `file`: requests starting before it are header reads. */
async function firstTileOffset(file: string): Promise<number> {
  const tiff = await fromFile(file);
  const offsets = (await (await tiff.getImage()).fileDirectory.loadValue('TileOffsets')) as ArrayLike<number>;
  await tiff.close();
  return Math.min(
    ...Array.from(offsets)
      .filter((o) => o > 0)
      .map(Number),
  );
}

describe('raster reads over HTTP Range', () => {
  it('10 points × 365 daily dates: at most one tile read per point after the header', async () => {
    const g = FIXTURE_GRID;
    const layer = fx.catalog.rasters.find((l) => l.dataType === 'temp' && l.subDataType === 'mean')!;
    const file = layer.files[0]!;
    const dataStart = await firstTileOffset(join(fx.dataset, file.path));
    // The build chose the layout from the band count (raster-tiling.ts): a 365-day stack is a series
    // file of 8 × 8 px blocks, each one tile of 64 columns × every date.
    expect(layer.layout).toBe(chooseLayout(365));
    expect(layer.layout).toBe('series');
    const tile = layer.tileSize![0];
    expect(tile).toBe(8);
    const tileSizes = Array.from(
      (await (
        await (await fromFile(join(fx.dataset, file.path))).getImage()
      ).fileDirectory.loadValue('TileByteCounts')) as ArrayLike<number>,
    ).map(Number);

    // One valid point in each of 10 different blocks, spread over the grid.
    const rand = rng(11);
    const tiles = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => [(i % 4) * 3 + 1, Math.floor(i / 4) * 3 + 1] as const);
    const points: Position[] = tiles.map(([tx, ty]) => {
      for (;;) {
        const c = Math.min(g.width - 1, tx * tile + Math.floor(rand() * tile));
        const r = Math.min(g.height - 1, ty * tile + Math.floor(rand() * tile));
        if (!isNodataPixel(c, r)) return [g.west + (c + 0.5) * g.res, g.north - (r + 0.5) * g.res];
      }
    });
    const q: RasterQuery = {
      endpoint: 'point',
      dataType: 'temp',
      subDataType: 'mean',
      extent: 'tc',
      range: parseRange('daily', '2023-01-01', '2023-12-31'),
      geometries: points.map((p, i) => ({ kind: 'point', key: `P${i}`, index: i, position: p })),
      aggregationMethod: null,
    };

    const engine = createRasterEngine({ catalog: fx.catalog, dataset: urlLocation(server.url) });
    server.reset();
    let t = performance.now();
    const res = await engine.query(q);
    const coldMs = performance.now() - t;
    const cold = [...server.log];
    const header = cold.filter((e) => Number(/bytes=(\d+)/.exec(e.range ?? '')?.[1] ?? 0) < dataStart);
    const tileReads = cold.length - header.length;
    for (const v of Object.values(res))
      expect(Object.values(v as object).every((x) => typeof x === 'number')).toBe(true);
    expect(cold.every((e) => e.status === 206)).toBe(true);
    expect(tileReads).toBeLessThanOrEqual(points.length);
    expect(header.length).toBeLessThanOrEqual(4);
    // Bytes near the tiles: each tile's own bytes plus at most one 4 KiB cache block on either side.
    const tileBytesRead = cold.filter((e) => !header.includes(e)).reduce((sum, e) => sum + e.bytes, 0);
    const across = Math.ceil(g.width / tile);
    const own = tiles.reduce((sum, [bx, by]) => sum + tileSizes[by * across + bx]!, 0);
    expect(tileBytesRead).toBeGreaterThanOrEqual(own);
    expect(tileBytesRead).toBeLessThanOrEqual(own + points.length * 2 * 4096);

    server.reset();
    t = performance.now();
    const again = await engine.query(q);
    const warmMs = performance.now() - t;
    expect(again).toEqual(res);
    expect(server.requests).toBe(0);

    // A second layer file opened later costs its header once, then tiles only.
    server.reset();
    const one = await engine.query({
      ...q,
      range: parseRange('daily', '2023-07-01', '2023-07-31'),
      geometries: q.geometries.slice(0, 1),
    });
    expect(Object.keys(one.P0 as object)).toHaveLength(31);
    expect(server.requests).toBe(0);
    await engine.close();

    const headerBytes = header.reduce((s, e) => s + e.bytes, 0);
    const tileBytes = cold.reduce((s, e) => s + e.bytes, 0) - headerBytes;
    console.log(
      `[raster reads] fixture temp/mean (365 bands, ${g.width}×${g.height} px, ${tile} px tiles): 10 points × 365 days cold: ` +
        `${cold.length} requests (${header.length} header, ${tileReads} tile), ${(headerBytes / 1024).toFixed(0)} KiB header + ${(tileBytes / 1024).toFixed(0)} KiB tiles, ` +
        `${coldMs.toFixed(0)} ms; warm: 0 requests, ${warmMs.toFixed(1)} ms`,
    );
  });

  it('a polygon reads only the tiles its covered pixels fall in', async () => {
    const g = FIXTURE_GRID;
    const engine = createRasterEngine({ catalog: fx.catalog, dataset: urlLocation(server.url) });
    const at = (c: number, r: number): Position => [g.west + c * g.res, g.north - r * g.res];
    // Warm the header with a point far away, then ask for a small polygon on a tile corner (4 tiles).
    const base: Omit<RasterQuery, 'geometries'> = {
      endpoint: 'polygon',
      dataType: 'temp',
      subDataType: 'mean',
      extent: 'tc',
      range: parseRange('daily', '2023-05-01', '2023-05-03'),
      aggregationMethod: 'mean',
    };
    await engine.query({
      ...base,
      geometries: [
        {
          kind: 'polygon',
          key: 'warm',
          index: 0,
          multi: false,
          polygons: [[[at(97, 65), at(98, 65), at(98, 66), at(97, 65)]]],
        },
      ],
    });
    server.reset();
    const corner = [at(31.5, 31.5), at(32.5, 31.5), at(32.5, 32.5), at(31.5, 32.5), at(31.5, 31.5)];
    const res = await engine.query({
      ...base,
      geometries: [{ kind: 'polygon', key: 'corner', index: 0, multi: false, polygons: [[corner]] }],
    });
    expect(Object.values(res.corner as object).every((v) => typeof v === 'number')).toBe(true);
    // Four tiles; neighbours asked for in the same tick may share a request.
    expect(server.requests).toBeGreaterThanOrEqual(1);
    expect(server.requests).toBeLessThanOrEqual(4);
    console.log(
      `[raster reads] polygon on a corner of 4 tiles, header already read: ${server.requests} requests, ${(server.bytes / 1024).toFixed(0)} KiB`,
    );
    await engine.close();
  });
});
