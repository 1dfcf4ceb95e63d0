/**
 * Reads a Zarr v2 array from a folder by what its own `.zarray` says (shape,
 * chunks, dtype, fill value, the `delta` filter and the `zlib` compressor),
 * with Node's zlib: a second decoder of the stores the build writes, sharing
 * nothing with src/rasters, for tests and the bench's baseline files. Whole
 * arrays in memory: for demo-sized grids.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';

/** One array: its values in C order, its shape, its attributes. */
export interface ZarrArrayData {
  shape: number[];
  data: Int16Array;
  fill: number;
  attrs: Record<string, unknown>;
}

/** Reads the Int16 array at `array` (a path inside the store, e.g. `tmean` or `preview/tmean`) of `store`. */
export function readZarrInt16(store: string, array: string): ZarrArrayData {
  const meta = JSON.parse(readFileSync(join(store, array, '.zarray'), 'utf8')) as {
    shape: number[];
    chunks: number[];
    dtype: string;
    fill_value: number;
    order: string;
    compressor: { id: string } | null;
    filters: Array<{ id: string; dtype: string }> | null;
  };
  const attrsPath = join(store, array, '.zattrs');
  const attrs = existsSync(attrsPath) ? (JSON.parse(readFileSync(attrsPath, 'utf8')) as Record<string, unknown>) : {};
  if (meta.dtype !== '<i2' || meta.order !== 'C')
    throw new Error(`${array}: ${meta.dtype} ${meta.order} is not read here`);
  const { shape, chunks } = meta;
  const strides = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
  const data = new Int16Array(shape.reduce((a, b) => a * b, 1)).fill(meta.fill_value);
  const counts = shape.map((n, i) => Math.ceil(n / chunks[i]!));
  const chunkSize = chunks.reduce((a, b) => a * b, 1);
  const index = counts.map(() => 0);
  for (;;) {
    const file = join(store, array, index.join('.'));
    if (existsSync(file)) {
      let bytes: Buffer = readFileSync(file);
      if (meta.compressor?.id === 'zlib') bytes = inflateSync(bytes);
      else if (meta.compressor) throw new Error(`compressor ${meta.compressor.id} is not read here`);
      const values = new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      if (values.length !== chunkSize) throw new Error(`${file} holds ${values.length} values, not ${chunkSize}`);
      for (const f of [...(meta.filters ?? [])].reverse()) {
        if (f.id !== 'delta') throw new Error(`filter ${f.id} is not read here`);
        for (let i = 1; i < values.length; i++) values[i] = values[i]! + values[i - 1]!;
      }
      // Copy the chunk's values that fall inside the array.
      const local = chunks.map(() => 0);
      for (let k = 0; k < chunkSize; k++) {
        let at = 0;
        let inside = true;
        for (let d = 0; d < shape.length; d++) {
          const g = index[d]! * chunks[d]! + local[d]!;
          if (g >= shape[d]!) inside = false;
          at += g * strides[d]!;
        }
        if (inside) data[at] = values[k]!;
        for (let d = shape.length - 1; d >= 0; d--) {
          if (++local[d]! < chunks[d]!) break;
          local[d] = 0;
        }
      }
    }
    let d = shape.length - 1;
    for (; d >= 0; d--) {
      if (++index[d]! < counts[d]!) break;
      index[d] = 0;
    }
    if (d < 0) break;
  }
  return { shape, data, fill: meta.fill_value, attrs };
}

/** Reads a 1-D coordinate array written raw (no compressor): `<f8` or `<i4`. */
export function readZarrCoordinate(store: string, array: string): number[] {
  const meta = JSON.parse(readFileSync(join(store, array, '.zarray'), 'utf8')) as {
    dtype: string;
    compressor: unknown;
  };
  if (meta.compressor) throw new Error(`${array} is compressed`);
  const bytes = readFileSync(join(store, array, '0'));
  const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  if (meta.dtype === '<f8') return [...new Float64Array(buf)];
  if (meta.dtype === '<i4') return [...new Int32Array(buf)];
  throw new Error(`${array}: dtype ${meta.dtype} is not read here`);
}
