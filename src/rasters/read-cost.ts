/**
 * What a raster read will cost, known before it starts. A published store's chunking may not suit
 * a query (one date × the whole grid per chunk: a point-year of ARCO-ERA5 is 8,760 chunks, about
 * 20 GB), so every query and preview over a layer whose file states a cost is planned in decoded
 * bytes from its chunk shapes, and refused past the engine's bound before the first data read.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import type { RasterFile } from './raster-reader.ts';

/** Default most bytes one query (or one map preview) may decode from a layer's chunks: 256 MiB. */
export const DEFAULT_MAX_READ_BYTES = 256 * 1024 * 1024;

/** A read planned in chunks and the bytes they decode to. */
export interface ReadCost {
  chunks: number;
  bytes: number;
}

/** Adds up what reading `tiles` of `file` with `bands` decodes (nothing where the file states no cost). */
export function tilesCost(file: RasterFile, tiles: Iterable<readonly [number, number]>, bands: number[]): ReadCost {
  const total: ReadCost = { chunks: 0, bytes: 0 };
  if (!file.readCost) return total;
  for (const [tx, ty] of tiles) {
    const c = file.readCost(tx, ty, bands);
    total.chunks += c.chunks;
    total.bytes += c.bytes;
  }
  return total;
}

/** Throws `query_too_costly` when `cost` is over `maxBytes`, naming the estimate and the way out. */
export function checkReadCost(cost: ReadCost, maxBytes: number, what: string): void {
  if (cost.bytes <= maxBytes) return;
  const mib = (n: number) => `${Math.round(n / 2 ** 20).toLocaleString('en')} MiB`;
  throw new ClimateQueryError(
    'query_too_costly',
    `${what} would decode ${cost.chunks.toLocaleString('en')} chunks, ${mib(cost.bytes)}, more than the ${mib(maxBytes)} one query may: the layer's chunking does not suit it. Ask fewer dates or pixels, build the layer from its store (climate-query build), or rechunk the store with xarray (more dates, fewer pixels per chunk).`,
    { params: { estimateBytes: cost.bytes, maxBytes, chunks: cost.chunks } },
  );
}
