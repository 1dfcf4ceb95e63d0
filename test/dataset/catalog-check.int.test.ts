/**
 * Every field of catalog.json is checked before the engine relies on it:
 * a damaged or hostile value is `dataset_unavailable` naming the
 * field, never a 500 `internal` from deep in a reader.
 */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { checkCatalog } from '../../src/dataset/catalog-check.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

const demo = inject('demoDataset');
let work: string;
let good: Record<string, unknown>;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cq-catalog-check-'));
  good = (await catalogJson(join(demo, 'catalog.json'))) as Record<string, unknown>;
});
afterAll(() => rm(work, { recursive: true, force: true }));

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const CASES: Array<[string, (c: Json) => void, RegExp]> = [
  ['a negative raster width', (c) => (c.rasters[0].width = -1), /rasters\[0\]\.width is -1/],
  ['a fractional height', (c) => (c.rasters[0].height = 10.5), /rasters\[0\]\.height is 10\.5/],
  ['a scale of 0', (c) => (c.rasters[0].scale = 0), /rasters\[0\]\.scale is 0/],
  ['nodata as text', (c) => (c.rasters[0].nodata = 'x'), /rasters\[0\]\.nodata is "x"/],
  ['a reversed bbox', (c) => (c.rasters[0].bbox = [20, -30, 16, -35]), /rasters\[0\]\.bbox is \[20, -30, 16, -35\]/],
  [
    'a layer without files',
    (c) => (c.rasters[0].files = []),
    /rasters\[0\]\.files is \[\], which must list at least one file/,
  ],
  ['periods that are not text', (c) => (c.rasters[0].files[0].periods = [1, 2]), /rasters\[0\]\.files\[0\]\.periods/],
  ['an unknown time scale', (c) => (c.rasters[0].timeScale = 'weekly'), /rasters\[0\]\.timeScale is "weekly"/],
  ['a tile size of 0', (c) => (c.rasters[0].tileSize = [0, 0]), /rasters\[0\]\.tileSize/],
  [
    'an unknown layout',
    (c) => (c.rasters[0].layout = 'columns'),
    /rasters\[0\]\.layout is "columns", which must be "map" or "zarr"/,
  ],
  [
    'the series layout of earlier versions',
    (c) => (c.rasters[0].layout = 'series'),
    /rasters\[0\]\.layout is "series".*rebuild the layer/,
  ],
  [
    'a zarr layer without its arrays',
    (c) => {
      c.rasters[0].layout = 'zarr';
      delete c.rasters[0].zarr;
    },
    /rasters\[0\]\.zarr\.variable/,
  ],
  [
    'a zarr variable that is a path',
    (c) => (c.rasters.find((l: Json) => l.layout === 'zarr').zarr.variable = '../x'),
    /rasters\[\d+\]\.zarr\.variable is "\.\.\/x"/,
  ],
  [
    'a zarr chunk of a million pixels',
    (c) => (c.rasters.find((l: Json) => l.layout === 'zarr').zarr.chunk = 1000),
    /rasters\[\d+\]\.zarr\.chunk is 1000/,
  ],
  [
    'a zarr preview factor that is not a power of two',
    (c) => (c.rasters.find((l: Json) => l.layout === 'zarr').zarr.previewFactor = 3),
    /rasters\[\d+\]\.zarr\.previewFactor is 3/,
  ],
  [
    'a zarr store claiming 100,000 dates',
    (c) => {
      const l = c.rasters.find((x: Json) => x.layout === 'zarr');
      l.files[0].periods = Array.from({ length: 100_000 }, (_, i) => String(i));
    },
    /rasters\[\d+\]\.files\[0\]\.periods is 100000, which must hold at most 400 dates/,
  ],
  ['a file size as text', (c) => (c.files[0].bytes = '12'), /files\[0\]\.bytes is "12"/],
  ['a short sha256', (c) => (c.files[0].sha256 = 'abc'), /files\[0\]\.sha256 is "abc"/],
  [
    'a header longer than its file',
    (c) => (c.files.find((f: Json) => f.header).header.bytes = 1e12),
    /files\[\d+\]\.header\.bytes is 1000000000000/,
  ],
  [
    'a tile table claiming 64 MiB (read whole as its file opens)',
    (c) => (c.files.find((f: Json) => f.tiles).tiles.bytes = 64 * 1024 * 1024),
    /files\[\d+\]\.tiles\.bytes is 67108864, which must be a whole number of 8-byte digests, at most 4194304/,
  ],
  [
    'a tile table that is not whole digests',
    (c) => (c.files.find((f: Json) => f.tiles).tiles.bytes += 3),
    /files\[\d+\]\.tiles\.bytes is \d+, which must be a whole number of 8-byte digests/,
  ],
  [
    'a tile table inside the header',
    (c) => (c.files.find((f: Json) => f.tiles).tiles.offset = 0),
    /files\[\d+\]\.tiles\.offset is 0, which must lie after the header/,
  ],
  [
    'a tile table past the end of its file',
    (c) => {
      const f = c.files.find((x: Json) => x.tiles);
      f.tiles.offset = f.bytes;
    },
    /files\[\d+\]\.tiles\.offset is \d+, which must lie after the header and within the file/,
  ],
  ['an index size of 3', (c) => (c.stations.indexBytes = 3), /stations\.indexBytes is 3/],
  ['a negative coverage size', (c) => (c.stations.coverageBytes = -1), /stations\.coverageBytes is -1/],
  [
    'data types of an unknown scale',
    (c) => (c.stations.dataTypes = { weekly: ['rain'] }),
    /stations\.dataTypes\.weekly/,
  ],
];

describe('a damaged or hostile catalog.json', () => {
  it('the demo catalog passes', () => {
    expect(() => checkCatalog(structuredClone(good), 'catalog.json')).not.toThrow();
  });
  for (const [what, change, message] of CASES) {
    it(`${what}: dataset_unavailable naming the field`, () => {
      const c = structuredClone(good) as Json;
      change(c);
      expect(() => checkCatalog(c, 'catalog.json')).toThrow(
        expect.objectContaining({ code: 'dataset_unavailable', message: expect.stringMatching(message) }),
      );
    });
  }
  it('through the engine: 503 dataset_unavailable, not 500', async () => {
    const root = join(work, 'width');
    await cp(demo, root, {
      recursive: true,
      filter: (src) => !src.includes('/stations/') || src.endsWith('/stations'),
    });
    const c = structuredClone(good) as Json;
    c.rasters[0].width = -1;
    await writeFile(join(root, 'catalog.json'), JSON.stringify(c));
    const engine = createNodeEngine(root);
    try {
      const body = {
        wkts: 'POINT (19 -33.5)',
        dataTypes: ['rain_sum'],
        options: { timeScale: 'daily' },
        startDate: '2024-01-01',
        endDate: '2024-01-02',
      };
      const answer = await engine.handle({ method: 'POST', path: '/api/nearest-station/', body: JSON.stringify(body) });
      expect(answer.status).toBe(503);
      expect((answer.body as { error: { code: string; message: string } }).error.message).toMatch(
        /rasters\[0\]\.width is -1/,
      );
    } finally {
      await engine.close();
    }
  });
});
