/**
 * A chunk inside a Zarr v3 shard (`sharding_indexed`): the shard's index — (offset, nbytes) as
 * little-endian uint64 pairs, one per inner chunk in C order, (2⁶⁴−1, 2⁶⁴−1) for a chunk left out,
 * then an optional CRC-32C — is read by range at the shard's start or end (its size comes from the
 * catalog, so one request finds it), then the chunk's bytes. Every claim of the index is bounded by
 * the shard's size and the chunk's largest stored size before anything is read on it.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import type { StoreArray, StoreShard } from '../dataset/catalog.ts';
import { endsWithCrc32c } from '../io/crc32c.ts';
import type { ObjectCache } from './zarr-file.ts';

const EMPTY = 0xffffffffffffffffn;

/** Where inner chunk (t, y, x) is: its shard's key indexes, the shard's number and the chunk's place in it. */
export function shardPlace(a: StoreArray & { shard: StoreShard }, t: number, y: number, x: number) {
  const per = a.chunks.map((c, k) => c / a.shard.chunks[k]!) as [number, number, number];
  const grid = a.shape.map((d, k) => Math.ceil(d / a.chunks[k]!)) as [number, number, number];
  const s = [Math.floor(t / per[0]), Math.floor(y / per[1]), Math.floor(x / per[2])] as [number, number, number];
  return {
    shard: s,
    number: (s[0] * grid[1] + s[1]) * grid[2] + s[2],
    inner: ((t - s[0] * per[0]) * per[1] + (y - s[1] * per[1])) * per[2] + (x - s[2] * per[2]),
    chunks: per[0] * per[1] * per[2],
  };
}

/**
 * The stored bytes of inner chunk (t, y, x), read from the shard at dataset path `path`, and their
 * cache key (null: the store has no such chunk, its fill value stands for it). `maxStored` bounds
 * a chunk's claimed size.
 */
export async function readShardChunk(
  a: StoreArray & { shard: StoreShard },
  cache: ObjectCache,
  path: string,
  what: string,
  place: ReturnType<typeof shardPlace>,
  maxStored: number,
  signal?: AbortSignal,
): Promise<{ bytes: Uint8Array; key: string } | null> {
  const size = a.shard.sizes[place.number];
  if (size === null || size === undefined) return null;
  const indexBytes = place.chunks * 16 + (a.shard.indexChecksum ? 4 : 0);
  const damaged = (why: string) =>
    new ClimateQueryError(
      'dataset_unavailable',
      `${what}: the shard's index ${why}; copy the store to the host again.`,
    );
  if (size < indexBytes) throw damaged(`needs ${indexBytes} bytes, and the shard has ${size}`);
  const indexAt = a.shard.indexAt === 'end' ? size - indexBytes : 0;
  const index = await cache.readRange(path, indexAt, indexBytes, size, signal);
  if (index.length !== indexBytes || (a.shard.indexChecksum && !endsWithCrc32c(index))) {
    cache.drop(`${path}@${indexAt}+${indexBytes}`);
    throw damaged(index.length !== indexBytes ? 'is cut short' : 'fails its CRC-32C');
  }
  const view = new DataView(index.buffer, index.byteOffset, place.chunks * 16);
  const offset = view.getBigUint64(place.inner * 16, true);
  const nbytes = view.getBigUint64(place.inner * 16 + 8, true);
  if (offset === EMPTY && nbytes === EMPTY) return null;
  // The chunks lie beside the index, never over it.
  const [lo, hi] = a.shard.indexAt === 'end' ? [0, size - indexBytes] : [indexBytes, size];
  if (offset < BigInt(lo) || offset + nbytes > BigInt(hi) || nbytes > BigInt(maxStored))
    throw damaged(
      `places chunk ${place.inner} at bytes ${offset} + ${nbytes}, outside its ${size} bytes or larger than a chunk`,
    );
  const bytes = await cache.readRange(path, Number(offset), Number(nbytes), size, signal);
  if (bytes.length !== Number(nbytes)) throw damaged(`places chunk ${place.inner} past the shard's end`);
  return { bytes, key: `${path}@${offset}+${nbytes}` };
}
