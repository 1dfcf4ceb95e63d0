/**
 * Hostile datasets whose files claim far more than they hold, built from a
 * copy of the demo: a station index claiming 10⁹ rows, a wind layer whose
 * one tile claims 64 MiB of decoded values, and a server whose catalog.json
 * is a gzip bomb. Shared by the engine, `serve` and Chromium tests.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cp, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parquetMetadata } from 'hyparquet';
import { expect } from 'vitest';
import { writeInputGeoTiff } from '../../src/builder/raster-build-input.ts';
import type { Catalog, RasterLayerEntry } from '../../src/dataset/catalog.ts';
import { catalogJson } from './catalog-json.ts';

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

/** A copy of the demo whose station index claims 10⁹ rows, the catalog agreeing with the file as a hostile dataset's would. */
export async function rowsBomb(demo: string, dir: string): Promise<string> {
  await cp(demo, dir, { recursive: true });
  const bytes = claimRows(await readFile(join(dir, 'stations/index.parquet')), 1_000_000_000n);
  await writeFile(join(dir, 'stations/index.parquet'), bytes);
  const catalog = (await catalogJson(join(dir, 'catalog.json'))) as Catalog;
  catalog.stations!.indexBytes = bytes.length;
  for (const f of catalog.files) {
    if (f.path === catalog.stations!.index) {
      f.bytes = bytes.length;
      f.sha256 = createHash('sha256').update(bytes).digest('hex');
    }
  }
  await writeFile(join(dir, 'catalog.json'), JSON.stringify(catalog));
  return dir;
}

export const WIND_POINT = {
  wkts: 'POINT (20 -30)',
  dataType: 'windspeed',
  options: { subDataType: '100', dataExtent: 'sa' },
};
export const STATION_POINT = {
  wkts: 'POINT (18.86 -33.93)',
  dataTypes: ['temperature_mean'],
  options: { timeScale: 'daily' },
  startDate: '2024-01-01',
  endDate: '2024-01-02',
};

/** A copy of the demo whose 100 m wind layer is one DEFLATE tile of 4096² Float32 (under 1 MB, 64 MiB decoded). */
export async function tileBomb(demo: string, dir: string): Promise<string> {
  await cp(demo, dir, { recursive: true });
  const catalog = (await catalogJson(join(dir, 'catalog.json'))) as Catalog;
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
  const bytes = (await stat(join(dir, wind.files[0]!.path))).size;
  expect(bytes).toBeLessThan(1_000_000);
  const layer: RasterLayerEntry = { ...wind, width: side, height: side, resolution: [16.55 / side, 12.8 / side] };
  catalog.rasters = catalog.rasters.map((l) => (l === wind ? layer : l));
  for (const f of catalog.files) {
    if (f.path === wind.files[0]!.path) {
      f.bytes = bytes;
      delete f.sha256;
      delete f.header;
      delete f.tiles;
    }
  }
  await writeFile(join(dir, 'catalog.json'), JSON.stringify(catalog));
  return dir;
}

/** An HTTP server whose every answer is a catalog.json gzip bomb: 713 KB on the wire, 700 MiB undone. */
export async function gzipBombServer(): Promise<{ url: string; server: Server }> {
  const bomb = gzipSync(
    Buffer.concat([Buffer.from('{"format":"climate-query-dataset","x":"'), Buffer.alloc(700 * 1024 * 1024, 0x61)]),
    { level: 9 },
  );
  expect(bomb.length).toBeLessThan(1_000_000);
  const server = createServer((_req, res) => {
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Encoding': 'gzip',
      'Content-Length': bomb.length,
      // Readable from a page too (the Chromium test opens the app on it).
      'Access-Control-Allow-Origin': '*',
    });
    res.end(bomb);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}
