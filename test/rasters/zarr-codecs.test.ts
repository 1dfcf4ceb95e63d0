/**
 * A published store's chunks decode to exactly their chunk's size (src/rasters/zarr-codecs.ts): a
 * frame whose header claims another size is refused before anything is allocated, and dtypes of
 * either byte order and the filters numcodecs writes are undone.
 */
import { deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decompress, elements, unfilter } from '../../src/rasters/zarr-codecs.ts';

const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => i % 251);

describe('a chunk’s codec', () => {
  it('zlib and gzip give the chunk back; a stream of another size is damaged', async () => {
    const raw = bytes(4000);
    expect(await decompress({ id: 'zlib' }, deflateSync(raw), 4000, 'c')).toEqual(raw);
    expect(await decompress({ id: 'gzip' }, gzipSync(raw), 4000, 'c')).toEqual(raw);
    await expect(decompress({ id: 'zlib' }, deflateSync(raw), 3000, 'c')).rejects.toThrow(/more than the 3000 bytes/);
  });

  it('a Blosc or LZ4 header claiming 1 GiB is refused before decoding', async () => {
    const blosc = new Uint8Array(32);
    new DataView(blosc.buffer).setUint32(4, 2 ** 30, true);
    await expect(decompress({ id: 'blosc' }, blosc, 4000, 'c/0.0.0')).rejects.toThrow(
      /c\/0\.0\.0 is damaged: its Blosc header says 1073741824 bytes, not the 4000 of its chunk/,
    );
    const lz4 = new Uint8Array(8);
    new DataView(lz4.buffer).setUint32(0, 2 ** 30, true);
    await expect(decompress({ id: 'lz4' }, lz4, 4000, 'c')).rejects.toThrow(/its LZ4 header says 1073741824 bytes/);
  });

  it('an unknown compressor is named', async () => {
    await expect(decompress({ id: 'bz2' }, bytes(10), 10, 'c')).rejects.toThrow(/compressed with "bz2"/);
  });
});

describe('values', () => {
  it('read big-endian int16 and undo delta and fixedscaleoffset', () => {
    const be = new Uint8Array([0x00, 0x05, 0xff, 0xfe, 0x00, 0x03]);
    const v = elements(be, '>i2');
    expect([...v]).toEqual([5, -2, 3]);
    unfilter(v, [{ id: 'delta', dtype: '<i2' }]);
    expect([...v]).toEqual([5, 3, 6]);
    unfilter(v, [{ id: 'fixedscaleoffset', scale: 100, offset: 10, dtype: '<f8', astype: '<i2' }]);
    expect([...v]).toEqual([10.05, 10.03, 10.06]);
  });
});
