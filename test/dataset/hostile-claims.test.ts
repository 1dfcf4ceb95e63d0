/**
 * A hostile dataset's files claim sizes far beyond what they hold: a station
 * index whose footer claims 10⁹ rows, a GeoTIFF whose one tile claims 64 MiB
 * of decoded values, a catalog.json gzip bomb. Each is refused as
 * `dataset_unavailable` naming the claim, quickly and without the memory
 * the claim asks for; the server stays up.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parquetMetadata } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { writeInputGeoTiff } from '../../src/builder/raster-build-input.ts';
import type { Catalog, RasterLayerEntry } from '../../src/dataset/catalog.ts';
import { urlLocation } from '../../src/dataset/location.ts';
import { createClimateEngine } from '../../src/engine/engine.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';

const demo = inject('demoDataset');
let work: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'cq-claims-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const zigzagVarint = (n: bigint): number[] => {
  let v = n >= 0n ? n << 1n : (-n << 1n) - 1n;
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return out;
};

/** `bytes` of a Parquet file with its footer's num_rows (FileMetaData field 3, compact i64) set to `rows`. */
function claimRows(bytes: Buffer, rows: bigint): Buffer {
  const meta = parquetMetadata(new Uint8Array(bytes).buffer);
  const footerLength = bytes.readUInt32LE(bytes.length - 8);
  const footer = bytes.subarray(bytes.length - 8 - footerLength, bytes.length - 8);
  const old = Buffer.from([0x16, ...zigzagVarint(BigInt(meta.num_rows))]);
  const at = footer.indexOf(old);
  expect(at, 'num_rows field found in the footer').toBeGreaterThan(0);
  const patched = Buffer.concat([
    footer.subarray(0, at),
    Buffer.from([0x16, ...zigzagVarint(rows)]),
    footer.subarray(at + old.length),
  ]);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(patched.length);
  return Buffer.concat([bytes.subarray(0, bytes.length - 8 - footerLength), patched, length, Buffer.from('PAR1')]);
}

describe('a dataset that claims more than it holds', () => {
  it('a station index claiming 10⁹ rows: dataset_unavailable in under 5 s, without the memory', async () => {
    const dir = join(work, 'rows');
    await cp(demo, dir, { recursive: true });
    const bytes = claimRows(await readFile(join(dir, 'stations/index.parquet')), 1_000_000_000n);
    await writeFile(join(dir, 'stations/index.parquet'), bytes);
    // The catalog agrees with the file, as a hostile dataset's would.
    const catalog = JSON.parse(await readFile(join(dir, 'catalog.json'), 'utf8')) as Catalog;
    catalog.stations!.indexBytes = bytes.length;
    for (const f of catalog.files) {
      if (f.path === catalog.stations!.index) {
        f.bytes = bytes.length;
        f.sha256 = createHash('sha256').update(bytes).digest('hex');
      }
    }
    await writeFile(join(dir, 'catalog.json'), JSON.stringify(catalog));
    const engine = createNodeEngine(dir);
    const before = process.memoryUsage().rss;
    const t0 = performance.now();
    const err = await engine
      .query('nearest-station', {
        wkts: 'POINT (18.86 -33.93)',
        dataTypes: ['temperature_mean'],
        options: { timeScale: 'daily' },
        startDate: '2024-01-01',
        endDate: '2024-01-02',
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'dataset_unavailable',
      message: expect.stringMatching(/claims 1000000000 rows/),
    });
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(process.memoryUsage().rss - before).toBeLessThan(300 * 1024 * 1024);
    await engine.close();
  });

  it('a GeoTIFF whose one tile claims 64 MiB of values: refused before decoding, naming the claim', async () => {
    const dir = join(work, 'tile');
    await cp(demo, dir, { recursive: true });
    const catalog = JSON.parse(await readFile(join(dir, 'catalog.json'), 'utf8')) as Catalog;
    const wind = catalog.rasters.find((l) => l.dataType === 'windspeed' && l.subDataType === '100')!;
    const side = 4096;
    await writeInputGeoTiff(join(dir, wind.files[0]!.path), {
      width: side,
      height: side,
      geoTransform: [16.4, 16.55 / side, 0, -22.1, 0, -12.8 / side],
      bands: 1,
      fill: (_b, out) => out.fill(0),
      creationOptions: [
        '-co',
        'TILED=YES',
        '-co',
        `BLOCKXSIZE=${side}`,
        '-co',
        `BLOCKYSIZE=${side}`,
        '-co',
        'COMPRESS=DEFLATE',
      ],
    });
    const stat = (await import('node:fs/promises')).stat;
    const bytes = (await stat(join(dir, wind.files[0]!.path))).size;
    expect(bytes).toBeLessThan(1_000_000);
    const layer: RasterLayerEntry = { ...wind, width: side, height: side, resolution: [16.55 / side, 12.8 / side] };
    catalog.rasters = catalog.rasters.map((l) => (l === wind ? layer : l));
    for (const f of catalog.files) {
      if (f.path === wind.files[0]!.path) {
        f.bytes = bytes;
        delete f.sha256;
        delete f.header;
      }
    }
    await writeFile(join(dir, 'catalog.json'), JSON.stringify(catalog));
    const engine = createNodeEngine(dir);
    const err = await engine
      .query('point', {
        wkts: 'POINT (20 -30)',
        dataType: 'windspeed',
        options: { subDataType: '100', dataExtent: 'sa' },
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'dataset_unavailable',
      message: expect.stringMatching(/claims tiles of 4096×4096 px/),
    });
    await engine.close();
  });

  it('a catalog.json gzip bomb (700 MiB in under 1 MB): dataset_unavailable naming the bound, not 500 internal', async () => {
    const bomb = gzipSync(
      Buffer.concat([Buffer.from('{"format":"climate-query-dataset","x":"'), Buffer.alloc(700 * 1024 * 1024, 0x61)]),
      {
        level: 9,
      },
    );
    expect(bomb.length).toBeLessThan(1_000_000);
    const server = createServer((_req, res) => {
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Content-Encoding': 'gzip',
        'Content-Length': bomb.length,
      });
      res.end(bomb);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as AddressInfo;
    const engine = createClimateEngine({ dataset: urlLocation(`http://127.0.0.1:${port}/`) });
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
