/**
 * A kerchunk reference in its Parquet form (fsspec's LazyReferenceMapper, kerchunk's
 * `refs_to_dataframe`): a folder whose `.zmetadata` holds the metadata documents and
 * `record_size`, and per array `<array>/refs.<n>.parq` files of `record_size` rows each, one row
 * per chunk in C order over the chunk grid, columns `path`, `offset`, `size` and `raw` (a chunk
 * held inline). A record file is read whole (bounded) the first time one of its chunks is asked,
 * through hyparquet with the station reader's codecs, and kept. Free of node:* imports.
 */
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { codecs, codecsFor } from '../stations/parquet-codecs.ts';
import type { KerchunkRef, KerchunkRefs } from './kerchunk-refs.ts';

/** Most bytes one record file may hold, and most rows a reference's `record_size` may say. */
export const MAX_RECORD_FILE_BYTES = 64 * 1024 * 1024;
export const MAX_RECORD_SIZE = 1_000_000;

/** Whether `json` (a parsed `.zmetadata`) is a Parquet reference's rather than a Zarr store's. */
export function isParquetReference(json: unknown): boolean {
  return typeof json === 'object' && json !== null && 'record_size' in json && 'metadata' in json;
}

interface Row {
  path: string | null;
  offset: number | bigint | null;
  size: number | bigint | null;
  raw: Uint8Array | string | null;
}

/**
 * The reference whose `.zmetadata` is `json`; `read(relPath, max)` reads one of its files whole
 * (undefined where there is none), `bad` makes the error naming what is wrong.
 */
export function parseParquetKerchunk(
  json: unknown,
  read: (relPath: string, max: number) => Promise<Uint8Array | undefined>,
  bad: (why: string) => Error,
): KerchunkRefs {
  const z = json as { metadata?: unknown; record_size?: unknown };
  const recordSize = z.record_size;
  if (
    typeof recordSize !== 'number' ||
    !Number.isSafeInteger(recordSize) ||
    recordSize < 1 ||
    recordSize > MAX_RECORD_SIZE
  )
    throw bad(
      `says record_size ${JSON.stringify(recordSize)}; it must be a whole number from 1 to ${MAX_RECORD_SIZE}.`,
    );
  if (typeof z.metadata !== 'object' || z.metadata === null) throw bad('has no "metadata".');
  const metadata = z.metadata as Record<string, unknown>;
  const text = new TextEncoder();
  const doc = (v: unknown) => text.encode(typeof v === 'string' ? v : JSON.stringify(v));
  const records = new Map<string, Promise<Row[] | undefined>>();

  /** The rows of record file `n` of `array`, read once. */
  const recordFile = (array: string, n: number) => {
    const key = `${array}/refs.${n}.parq`;
    let p = records.get(key);
    if (!p) {
      p = (async () => {
        const bytes = await read(key, MAX_RECORD_FILE_BYTES);
        if (bytes === undefined) return undefined;
        const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
        const file = { byteLength: buffer.byteLength, slice: (s: number, e?: number) => buffer.slice(s, e) };
        try {
          const meta = parquetMetadata(buffer);
          await codecsFor(meta);
          // utf8: false keeps `raw` (plain BYTE_ARRAY) as bytes; `path` is annotated as text and still comes as one.
          const rows = (await parquetReadObjects({
            file,
            metadata: meta,
            compressors: codecs,
            utf8: false,
          })) as unknown as Row[];
          if (rows.length > recordSize) throw new Error(`${rows.length} rows, more than record_size`);
          return rows;
        } catch (err) {
          throw bad(`has a record file ${key} that does not read as one (${(err as Error).message}).`);
        }
      })();
      records.set(key, p);
      p.catch(() => records.delete(key));
    }
    return p;
  };

  /** The array `key` names a chunk of, with the chunk's number in C order; null for another key. */
  const chunkOf = (key: string): { array: string; n: number } | null => {
    const slash = key.lastIndexOf('/');
    if (slash <= 0) return null;
    const array = key.slice(0, slash);
    const meta = metadata[`${array}/.zarray`];
    const z = (typeof meta === 'string' ? JSON.parse(meta) : meta) as
      | { shape?: number[]; chunks?: number[] }
      | undefined;
    if (!z || !Array.isArray(z.shape) || !Array.isArray(z.chunks)) return null;
    const idx =
      z.shape.length === 0
        ? [0]
        : key
            .slice(slash + 1)
            .split('.')
            .map(Number);
    const grid = z.shape.length === 0 ? [1] : z.shape.map((d, k) => Math.ceil(d / z.chunks![k]!));
    if (idx.length !== grid.length || idx.some((v, k) => !Number.isInteger(v) || v < 0 || v >= grid[k]!)) return null;
    let n = 0;
    for (let k = 0; k < grid.length; k++) n = n * grid[k]! + idx[k]!;
    return { array, n };
  };

  const get = async (key: string): Promise<KerchunkRef | undefined> => {
    if (Object.hasOwn(metadata, key)) return { inline: doc(metadata[key]) };
    const at = chunkOf(key);
    if (!at) return undefined;
    const rows = await recordFile(at.array, Math.floor(at.n / recordSize));
    const row = rows?.[at.n % recordSize];
    if (!row) return undefined;
    if (row.raw !== null && row.raw !== undefined)
      return { inline: typeof row.raw === 'string' ? text.encode(row.raw) : row.raw };
    if (row.path === null || row.path === undefined || row.path === '') return undefined;
    const offset = Number(row.offset ?? 0);
    const size = Number(row.size ?? 0);
    if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(size) || size < 0)
      throw bad(`places ${key} at ${String(row.offset)} + ${String(row.size)}, not a range.`);
    return { url: row.path, offset, length: size === 0 ? null : size };
  };

  return {
    keys: () => Object.keys(metadata).values(),
    get,
    async urls() {
      const out = new Set<string>();
      for (const k of Object.keys(metadata)) {
        if (!k.endsWith('/.zarray')) continue;
        const array = k.slice(0, -'/.zarray'.length);
        const z = metadata[k];
        const a = (typeof z === 'string' ? JSON.parse(z) : z) as { shape?: number[]; chunks?: number[] };
        const chunks = (a.shape ?? []).reduce((c, d, i) => c * Math.ceil(d / (a.chunks?.[i] ?? d)), 1);
        for (let n = 0; n * recordSize < chunks; n++) {
          const rows = await recordFile(array, n);
          if (!rows) break;
          for (const r of rows) if (r.path) out.add(r.path);
        }
      }
      return [...out];
    },
  };
}
