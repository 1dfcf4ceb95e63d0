/**
 * What raster queries cost on the wire, through a real HTTP server that
 * counts requests and bytes: a point costs one chunk object for a whole year
 * of daily values and nothing before it, and repeating a query costs
 * nothing. The numbers are printed for docs/performance.md.
 */
import { chooseLayout } from '../../src/builder/raster-tiling.ts';
import { urlLocation } from '../../src/dataset/location.ts';
import { join } from 'node:path';
import { statSync } from 'node:fs';
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

describe('raster reads over HTTP Range', () => {
  it('10 points × 365 daily dates: one chunk object per point and its 8-byte digest, nothing read before them', async () => {
    const g = FIXTURE_GRID;
    const layer = fx.catalog.rasters.find((l) => l.dataType === 'temp' && l.subDataType === 'mean')!;
    const file = layer.files[0]!;
    // The build chose the layout from the band count (raster-tiling.ts): a 365-day stack is a Zarr
    // store of 8 × 8 px chunks, each holding every date.
    expect(layer.layout).toBe(chooseLayout(365));
    expect(layer.layout).toBe('zarr');
    const tile = layer.tileSize![0];
    expect(tile).toBe(8);
    expect(layer.zarr!.chunk).toBe(8);

    // One valid point in each of 10 different chunks, spread over the grid.
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
    for (const v of Object.values(res))
      expect(Object.values(v as object).every((x) => typeof x === 'number')).toBe(true);
    // Exactly the chunks of the points, each read once and whole: no header, no index, no neighbour;
    // and beside each its 8 bytes of the store's digests (docs/decisions/0004-chunk-digests.md).
    const digests = `/${file.path}/chunk-digests`;
    const want = tiles.map(([tx, ty]) => `/${file.path}/${layer.zarr!.variable}/0.${ty}.${tx}`).sort();
    const chunks = cold.filter((e) => decodeURIComponent(e.path) !== digests);
    expect(chunks.map((e) => decodeURIComponent(e.path)).sort()).toEqual(want);
    for (const e of chunks) {
      expect(e.status).toBe(206);
      const path = join(fx.dataset, decodeURIComponent(e.path));
      expect(e.bytes).toBe(statSync(path).size);
    }
    const digestReads = cold.filter((e) => decodeURIComponent(e.path) === digests);
    expect(digestReads).toHaveLength(10);
    for (const e of digestReads) expect(e.bytes).toBe(8);

    server.reset();
    t = performance.now();
    const again = await engine.query(q);
    const warmMs = performance.now() - t;
    expect(again).toEqual(res);
    expect(server.requests).toBe(0);

    // Other dates of the same pixels come from the same chunks: nothing read.
    server.reset();
    const one = await engine.query({
      ...q,
      range: parseRange('daily', '2023-07-01', '2023-07-31'),
      geometries: q.geometries.slice(0, 1),
    });
    expect(Object.keys(one.P0 as object)).toHaveLength(31);
    expect(server.requests).toBe(0);
    await engine.close();

    const bytes = cold.reduce((s, e) => s + e.bytes, 0);
    console.log(
      `[raster reads] fixture temp/mean (365 dates, ${g.width}×${g.height} px, ${tile} px chunks): 10 points × 365 days cold: ` +
        `${cold.length} requests, ${(bytes / 1024).toFixed(0)} KiB, ${coldMs.toFixed(0)} ms; warm: 0 requests, ${warmMs.toFixed(1)} ms`,
    );
  });

  it('a polygon reads only the tiles its covered pixels fall in', async () => {
    const g = FIXTURE_GRID;
    const engine = createRasterEngine({ catalog: fx.catalog, dataset: urlLocation(server.url) });
    const at = (c: number, r: number): Position => [g.west + c * g.res, g.north - r * g.res];
    // Warm the engine with a polygon far away, then ask for a small polygon on a tile corner (4 tiles).
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
    // Four tiles, each with its digest; neighbours asked for in the same tick may share a request.
    expect(server.requests).toBeGreaterThanOrEqual(1);
    expect(server.requests).toBeLessThanOrEqual(8);
    console.log(
      `[raster reads] polygon on a corner of 4 tiles, header already read: ${server.requests} requests, ${(server.bytes / 1024).toFixed(0)} KiB`,
    );
    await engine.close();
  });
});
