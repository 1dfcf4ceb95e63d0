/**
 * A published Zarr store's metadata, v2 or v3, in one shape for `layers add`: each array's shape,
 * chunks, dtype, codecs and key encoding, and its attributes with its dimension names. Zarr v2: the
 * consolidated `.zmetadata` (or `zmetadata`) or each array's `.zarray` and `.zattrs`. Zarr v3: the
 * root `zarr.json` with zarr-python's inline consolidated metadata, or each array's `zarr.json`; its
 * codec pipeline (transpose, bytes, blosc, gzip, zstd, crc32c, and numcodecs' zlib, lz4, delta and
 * fixedscaleoffset) is mapped onto the v2 terms the reader decodes, and `sharding_indexed` onto a
 * shard description. What this does not read is refused by name.
 */
import { MAX_TEXT_BYTES } from '../../dataset/location.ts';
import type { SourceKeys } from './source-keys.ts';

export type Attrs = Record<string, unknown>;
type Codec = { id: string; [k: string]: unknown };

/** One array's metadata, in v2's terms plus what v3 adds. */
export interface ArrayMeta {
  zarr_format: 2 | 3;
  shape: number[];
  /** The chunk grid: a sharded array's shards. */
  chunks: number[];
  dtype: string;
  compressor: Codec | null;
  filters: Codec[] | null;
  fill_value: unknown;
  order: string;
  dimension_separator?: string;
  /** v3: what a chunk's key starts with (`c/` for the default encoding). */
  keyPrefix?: string;
  /** v3: each stored chunk ends with its CRC-32C. */
  checksum?: boolean;
  /** v3: chunks inside shards. */
  shard?: { chunks: number[]; indexAt: 'start' | 'end'; indexChecksum: boolean };
}

/** A store's arrays, their metadata and attributes. */
export interface StoreMeta {
  format: 2 | 3;
  /** Its arrays: listed by its consolidated metadata or its folders; where neither can be read, the ones named that are there. */
  arrays: string[];
  array(name: string): Promise<ArrayMeta | undefined>;
  /** The array's attributes, with `_ARRAY_DIMENSIONS` (v3: its `dimension_names`). */
  attrs(name: string): Promise<Attrs | undefined>;
  /** The key of chunk `indexes` of array `name`, from the store's root. */
  chunkKey(name: string, meta: ArrayMeta, indexes: number[]): string;
}

const V3_TYPES: Record<string, string> = {
  int8: 'i1',
  int16: 'i2',
  int32: 'i4',
  int64: 'i8',
  uint8: 'u1',
  uint16: 'u2',
  uint32: 'u4',
  uint64: 'u8',
  float32: 'f4',
  float64: 'f8',
};
const V3_COMPRESSORS = new Set(['blosc', 'gzip', 'zstd', 'zlib', 'lz4']);
const V3_FILTERS = new Set(['delta', 'fixedscaleoffset']);
const V2_COMPRESSORS = new Set(['zlib', 'gzip', 'zstd', 'blosc', 'lz4']);

/** A metadata document of the store: undefined where there is none, refused (by `bad`) where it is not JSON. */
async function json<T>(keys: SourceKeys, key: string, bad: (why: string) => Error): Promise<T | undefined> {
  const bytes = await keys.bytes(key, MAX_TEXT_BYTES);
  if (bytes === undefined) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as T;
  } catch (err) {
    throw bad(`its ${key} is not JSON (${(err as Error).message}).`);
  }
}

/**
 * Reads the metadata of the store `keys` reads; `bad` makes the error that names what is wrong.
 * `named` are the arrays to look for where the store can be neither listed (over HTTP) nor read
 * from consolidated metadata.
 */
export async function readStoreMeta(
  keys: SourceKeys,
  bad: (why: string) => Error,
  named: string[] = [],
): Promise<StoreMeta> {
  const root = await json<{ zarr_format?: number; consolidated_metadata?: { metadata?: Record<string, unknown> } }>(
    keys,
    'zarr.json',
    bad,
  );
  if (root?.zarr_format === 3) return v3Store(keys, root.consolidated_metadata?.metadata ?? null, bad, named);
  if (root !== undefined) throw bad(`its zarr.json says Zarr format ${String(root.zarr_format)}; this reads 2 and 3.`);
  return v2Store(keys, bad, named);
}

async function v2Store(keys: SourceKeys, bad: (why: string) => Error, named: string[]): Promise<StoreMeta> {
  let consolidated: Record<string, unknown> | null = null;
  for (const key of ['.zmetadata', 'zmetadata']) {
    const doc = await json<{ metadata?: Record<string, unknown> }>(keys, key, bad);
    if (doc) {
      consolidated = doc.metadata ?? {};
      break;
    }
  }
  const meta = async <T>(key: string): Promise<T | undefined> =>
    consolidated ? (consolidated[key] as T | undefined) : json<T>(keys, key, bad);
  const arrays: string[] = consolidated
    ? Object.keys(consolidated)
        .filter((k) => k.endsWith('/.zarray'))
        .map((k) => k.slice(0, -'/.zarray'.length))
    : ((await keys.folders('.zarray')) ?? named);
  return {
    format: 2,
    arrays,
    array: async (name) => bytesCodecLast(await meta<ArrayMeta>(`${name}/.zarray`)),
    attrs: (name) => meta<Attrs>(`${name}/.zattrs`),
    chunkKey: (name, m, indexes) => `${name}/${indexes.join(m.dimension_separator === '/' ? '/' : '.')}`,
  };
}

/**
 * A v2 array whose compressor is its last filter (kerchunk describes a NetCDF-4 chunk as filters
 * [shuffle, zlib] and no compressor): the same bytes, in the reader's terms.
 */
function bytesCodecLast(m: ArrayMeta | undefined): ArrayMeta | undefined {
  const last = m?.filters?.at(-1);
  if (!m || m.compressor !== null || !last || !V2_COMPRESSORS.has(last.id)) return m;
  const filters = m.filters!.slice(0, -1);
  return { ...m, compressor: last, filters: filters.length > 0 ? filters : null };
}

interface V3Array {
  zarr_format?: number;
  node_type?: string;
  shape?: number[];
  data_type?: unknown;
  chunk_grid?: { name?: string; configuration?: { chunk_shape?: number[] } };
  chunk_key_encoding?: { name?: string; configuration?: { separator?: string } };
  fill_value?: unknown;
  codecs?: Array<{ name?: string; configuration?: Record<string, unknown> }>;
  attributes?: Attrs;
  dimension_names?: Array<string | null>;
}

async function v3Store(
  keys: SourceKeys,
  consolidated: Record<string, unknown> | null,
  bad: (why: string) => Error,
  named: string[],
): Promise<StoreMeta> {
  const raw = async (name: string) =>
    consolidated ? (consolidated[name] as V3Array | undefined) : json<V3Array>(keys, `${name}/zarr.json`, bad);
  const arrays: string[] = consolidated
    ? Object.entries(consolidated)
        .filter(([, m]) => (m as V3Array | null)?.node_type === 'array')
        .map(([k]) => k)
    : ((await keys.folders('zarr.json')) ?? named);
  return {
    format: 3,
    arrays,
    async array(name) {
      const m = await raw(name);
      return m && m.node_type === 'array' ? v3Array(m, name, bad) : undefined;
    },
    async attrs(name) {
      const m = await raw(name);
      if (!m) return undefined;
      const dims = m.dimension_names ?? (m.attributes?._ARRAY_DIMENSIONS as string[] | undefined);
      return { ...(m.attributes ?? {}), ...(dims ? { _ARRAY_DIMENSIONS: dims } : {}) };
    },
    chunkKey: (name, m, indexes) =>
      `${name}/${m.keyPrefix ?? ''}${indexes.join(m.dimension_separator === '.' ? '.' : '/')}`,
  };
}

/** A v3 array's metadata in v2's terms (plus key prefix, checksum, shards). */
function v3Array(m: V3Array, name: string, bad: (why: string) => Error): ArrayMeta {
  const at = `array ${name}`;
  if (!Array.isArray(m.shape)) throw bad(`${at} has no shape.`);
  if (m.chunk_grid?.name !== 'regular' || !Array.isArray(m.chunk_grid.configuration?.chunk_shape))
    throw bad(`${at} has a "${String(m.chunk_grid?.name)}" chunk grid; this reads regular grids.`);
  const type = typeof m.data_type === 'string' ? V3_TYPES[m.data_type] : undefined;
  if (!type) throw bad(`${at} has data type ${JSON.stringify(m.data_type)}; this reads ints, uints and float32/64.`);
  const encoding = m.chunk_key_encoding ?? { name: 'default' };
  if (encoding.name !== 'default' && encoding.name !== 'v2')
    throw bad(`${at} has chunk key encoding "${String(encoding.name)}"; this reads "default" and "v2".`);
  const separator = encoding.configuration?.separator ?? (encoding.name === 'v2' ? '.' : '/');
  if (separator !== '.' && separator !== '/') throw bad(`${at} separates chunk keys with "${separator}".`);
  let codecs = m.codecs ?? [];
  let shard: ArrayMeta['shard'];
  if (codecs[0]?.name === 'sharding_indexed') {
    if (codecs.length !== 1) throw bad(`${at} has codecs after sharding_indexed; this reads it alone.`);
    const c = codecs[0].configuration ?? {};
    const inner = c.chunk_shape as number[] | undefined;
    const indexCodecs = (c.index_codecs as V3Array['codecs']) ?? [{ name: 'bytes' }, { name: 'crc32c' }];
    const index = pipeline(indexCodecs, `${at}'s shard index`, bad);
    if (index.compressor !== null || index.filters !== null || index.endian === 'big')
      throw bad(
        `${at}'s shard index is encoded with ${JSON.stringify(indexCodecs)}; this reads bytes (little-endian) and crc32c.`,
      );
    if (c.index_location !== undefined && c.index_location !== 'start' && c.index_location !== 'end')
      throw bad(`${at}'s shard index location is ${JSON.stringify(c.index_location)}.`);
    if (!Array.isArray(inner) || inner.length !== m.shape.length)
      throw bad(`${at}'s sharding has no chunk_shape of its ${m.shape.length} dimensions.`);
    shard = {
      chunks: inner,
      indexAt: c.index_location === 'start' ? 'start' : 'end',
      indexChecksum: index.checksum,
    };
    codecs = (c.codecs as V3Array['codecs']) ?? [];
    if (codecs.some((k) => k.name === 'sharding_indexed'))
      throw bad(`${at} nests shards in shards; this reads one level.`);
  }
  const p = pipeline(codecs, at, bad);
  const size = Number(type.slice(1));
  return {
    zarr_format: 3,
    shape: m.shape,
    chunks: m.chunk_grid.configuration.chunk_shape,
    dtype: `${size === 1 ? '|' : p.endian === 'big' ? '>' : '<'}${type}`,
    compressor: p.compressor,
    filters: p.filters,
    fill_value: m.fill_value,
    order: 'C',
    dimension_separator: separator,
    keyPrefix: encoding.name === 'default' ? `c${separator}` : '',
    ...(p.checksum ? { checksum: true } : {}),
    ...(shard ? { shard } : {}),
  };
}

/** A v3 codec list (array→array, array→bytes, bytes→bytes) as v2's filters, compressor and checksum. */
function pipeline(codecs: NonNullable<V3Array['codecs']>, at: string, bad: (why: string) => Error) {
  let endian: 'little' | 'big' = 'little';
  let compressor: Codec | null = null;
  const filters: Codec[] = [];
  let checksum = false;
  let stage: 'array' | 'bytes' = 'array';
  for (const [k, c] of codecs.entries()) {
    const name = String(c.name ?? '').replace(/^numcodecs\./, '');
    const config = c.configuration ?? {};
    if (checksum) throw bad(`${at} has a codec "${name}" after crc32c; this reads crc32c last.`);
    if (name === 'transpose') {
      const order = config.order;
      const identity = order === 'C' || (Array.isArray(order) && order.every((d, i) => d === i));
      if (!identity)
        throw bad(
          `${at} is transposed (order ${JSON.stringify(order)}); this reads C order (rewrite it without transpose).`,
        );
    } else if (V3_FILTERS.has(name) && stage === 'array') {
      filters.push({ id: name, ...config });
    } else if (name === 'bytes') {
      endian = config.endian === 'big' ? 'big' : 'little';
      stage = 'bytes';
    } else if (V3_COMPRESSORS.has(name) && stage === 'bytes') {
      if (compressor) throw bad(`${at} has two compressors (${compressor.id}, ${name}); this reads one.`);
      compressor = { id: name, ...config };
    } else if (name === 'crc32c' && stage === 'bytes') {
      checksum = true;
    } else {
      throw bad(
        `${at} has a codec "${name}" at place ${k + 1}; this reads transpose (C order), delta, fixedscaleoffset, bytes, blosc, gzip, zstd, zlib, lz4 and crc32c.`,
      );
    }
  }
  if (stage !== 'bytes') throw bad(`${at} has no bytes codec.`);
  return { endian, compressor, filters: filters.length > 0 ? filters : null, checksum };
}
