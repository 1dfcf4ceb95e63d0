/**
 * The codecs of a published Zarr v2 array (`.zarray` `compressor` and `filters`) and its dtypes:
 * a chunk's stored bytes into its values. Every decoder is told the size the chunk must have and
 * refuses more (a hostile chunk cannot make a reader allocate what it claims). Decoders load when
 * a store needs them: Blosc (numcodecs' WebAssembly build, ≈ 600 KB) never reaches a page whose
 * dataset has no Blosc store. Free of node:* imports: it is bundled for the browser.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import { inflateExactly } from '../io/inflate.ts';

import { STORE_COMPRESSORS, STORE_DTYPE, STORE_FILTERS } from '../dataset/catalog.ts';

/** Compressors, filters and dtypes this reads (described with the catalog's store entry). */
export const ZARR_COMPRESSORS = STORE_COMPRESSORS;
export const ZARR_FILTERS = STORE_FILTERS;
export const ZARR_DTYPE = STORE_DTYPE;

/** Bytes one element of `dtype` takes. */
export function dtypeBytes(dtype: string): number {
  const m = ZARR_DTYPE.exec(dtype);
  if (!m || (m[1] === 'f' && (m[2] === '1' || m[2] === '2'))) throw new RangeError(`dtype ${dtype}`);
  return Number(m[2]);
}

function damaged(what: string, why: string, cause?: unknown): ClimateQueryError {
  return new ClimateQueryError('dataset_unavailable', `${what} is damaged: ${why}; copy the store to the host again.`, {
    ...(cause !== undefined ? { cause } : {}),
  });
}

/** Refuses a frame whose header (a little-endian u32 at `at`, in its first `header` bytes) claims other than `size` bytes. */
function claimedSize(bytes: Uint8Array, at: number, header: number, size: number, codec: string, what: string): void {
  if (bytes.length < header) throw damaged(what, `its ${codec} header is cut`);
  const n = new DataView(bytes.buffer, bytes.byteOffset, header).getUint32(at, true);
  if (n !== size) throw damaged(what, `its ${codec} header says ${n} bytes, not the ${size} of its chunk`);
}

/** The `size` bytes a chunk stored with `compressor` holds. */
export async function decompress(
  compressor: { id: string; [k: string]: unknown } | null,
  bytes: Uint8Array,
  size: number,
  what: string,
): Promise<Uint8Array> {
  if (compressor === null) {
    if (bytes.length !== size) throw damaged(what, `it holds ${bytes.length} bytes, not the ${size} of its chunk`);
    return bytes;
  }
  let out: Uint8Array;
  try {
    switch (compressor.id) {
      case 'zlib':
        return await inflateExactly(bytes, size, what);
      case 'gzip':
        return await inflateExactly(bytes, size, what, 'gzip');
      case 'zstd': {
        // Into a buffer of the chunk's size: a frame claiming more fails rather than allocating it.
        const { decompress: unzstd } = await import('fzstd');
        out = unzstd(bytes, new Uint8Array(size));
        break;
      }
      case 'blosc': {
        // The header says what the frame decodes to (bytes 4–7): bounded before anything is allocated.
        claimedSize(bytes, 4, 16, size, 'Blosc', what);
        const { default: Blosc } = await import('numcodecs/blosc');
        out = await Blosc.fromConfig({ id: 'blosc' }).decode(bytes);
        break;
      }
      case 'lz4': {
        // numcodecs' LZ4 frames start with the decoded size.
        claimedSize(bytes, 0, 4, size, 'LZ4', what);
        const { default: LZ4 } = await import('numcodecs/lz4');
        out = await LZ4.fromConfig({ id: 'lz4' }).decode(bytes);
        break;
      }
      default:
        throw new ClimateQueryError(
          'dataset_unavailable',
          `${what} is compressed with "${compressor.id}", which this version does not read (${ZARR_COMPRESSORS.join(', ')}).`,
        );
    }
  } catch (err) {
    if (err instanceof ClimateQueryError) throw err;
    throw damaged(what, `it does not decode (${err instanceof Error ? err.message : String(err)})`, err);
  }
  if (out.length !== size) throw damaged(what, `it decodes to ${out.length} bytes, not the ${size} of its chunk`);
  return out;
}

/** The elements of `bytes` as numbers (`dtype`, any byte order). */
export function elements(bytes: Uint8Array, dtype: string): Float64Array {
  const m = ZARR_DTYPE.exec(dtype)!;
  const size = Number(m[2]);
  const little = dtype[0] !== '>';
  const n = Math.floor(bytes.length / size);
  const view = new DataView(bytes.buffer, bytes.byteOffset, n * size);
  const out = new Float64Array(n);
  const kind = m[1];
  for (let i = 0; i < n; i++) {
    const at = i * size;
    if (kind === 'f') out[i] = size === 4 ? view.getFloat32(at, little) : view.getFloat64(at, little);
    else if (kind === 'i')
      out[i] =
        size === 1
          ? view.getInt8(at)
          : size === 2
            ? view.getInt16(at, little)
            : size === 4
              ? view.getInt32(at, little)
              : Number(view.getBigInt64(at, little));
    else
      out[i] =
        size === 1
          ? view.getUint8(at)
          : size === 2
            ? view.getUint16(at, little)
            : size === 4
              ? view.getUint32(at, little)
              : Number(view.getBigUint64(at, little));
  }
  return out;
}

/** The dtype a chunk's stored bytes have: the last filter's `astype`, else the array's. */
export function storedDtype(
  dtype: string,
  filters: ReadonlyArray<{ id: string; [k: string]: unknown }> | null,
): string {
  const last = filters?.filter((f) => f.id !== 'shuffle').at(-1);
  return typeof last?.astype === 'string' ? last.astype : dtype;
}

/**
 * Undoes a byte `shuffle` filter (the last of `filters`, if any) on a chunk's decompressed bytes:
 * byte k of every element was stored together, k = 0 … elementsize−1 (numcodecs' Shuffle, HDF5's).
 */
export function unshuffle(
  bytes: Uint8Array,
  filters: ReadonlyArray<{ id: string; [k: string]: unknown }> | null,
): Uint8Array {
  const last = filters?.at(-1);
  if (last?.id !== 'shuffle') return bytes;
  const size = Number(last.elementsize ?? 4);
  if (!(Number.isInteger(size) && size >= 1 && size <= 8))
    throw new ClimateQueryError(
      'dataset_unavailable',
      `A shuffle filter of ${String(last.elementsize)}-byte elements is not one this reads (1 to 8).`,
    );
  const n = Math.floor(bytes.length / size);
  const out = new Uint8Array(bytes.length);
  for (let k = 0; k < size; k++) for (let i = 0; i < n; i++) out[i * size + k] = bytes[k * n + i]!;
  // Bytes past the last whole element are stored as they are.
  out.set(bytes.subarray(n * size), n * size);
  return out;
}

/** Undoes `filters` (applied on writing in their order) on `values`, in place. */
export function unfilter(
  values: Float64Array,
  filters: ReadonlyArray<{ id: string; [k: string]: unknown }> | null,
): void {
  for (const f of [...(filters ?? [])].reverse()) {
    // Undone on the bytes, before they became values (unshuffle).
    if (f.id === 'shuffle') continue;
    if (f.id === 'delta') {
      for (let i = 1; i < values.length; i++) values[i] = values[i]! + values[i - 1]!;
    } else if (f.id === 'fixedscaleoffset') {
      const scale = Number(f.scale);
      const offset = Number(f.offset ?? 0);
      for (let i = 0; i < values.length; i++) values[i] = values[i]! / scale + offset;
    } else {
      throw new ClimateQueryError(
        'dataset_unavailable',
        `A filter "${f.id}" is not one this version reads (${ZARR_FILTERS.join(', ')}).`,
      );
    }
  }
}
