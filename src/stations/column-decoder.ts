/**
 * Decodes one column of one row group of a station file, from bytes already
 * fetched (the archive prefetches every planned range first, read-plan.ts):
 * the one place the station reader calls the Parquet decoder.
 *
 * Station columns are flat numbers (times and doubles, optional), and the
 * answer wants them as numbers, NaN where there is none. hyparquet's reader
 * gives rows as JavaScript arrays holding `null` and one boxed number per
 * value (its list assembly runs for every optional column); for a cold
 * 10-station hourly year that assembly and the garbage it made were a third
 * of the engine Worker's time. So such columns are decoded page by page
 * with hyparquet's own page functions (headers, decompression, levels,
 * encodings) straight into a Float64Array; any other column goes through
 * `parquetRead`, the same values either way (test/stations/column-decoder.int.test.ts).
 */
import { parquetRead, parquetSchema, type AsyncBuffer, type FileMetaData, type ParquetParsers } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { decompressPage, readDataPage, readDataPageV2 } from 'hyparquet/src/datapage.js';
import { readPlain } from 'hyparquet/src/plain.js';
import { getTreePath } from 'hyparquet/src/schema.js';
import type { ColumnDecoder, DecodedArray } from 'hyparquet/src/types.js';
import { codecs, codecsFor } from './parquet-codecs.ts';

/**
 * Times decoded as epoch milliseconds (numbers), not Date objects: a cold
 * 10-station hourly year decodes 87,600 times, and the Dates and BigInt
 * divisions of hyparquet's defaults were a tenth of that query's CPU time.
 * Same values as the defaults (truncating division), exact while the
 * microseconds fit a double (until the year 2255); nanoseconds keep BigInt.
 */
const TIME_AS_MS = {
  timestampFromMilliseconds: (ms: bigint) => Number(ms),
  timestampFromMicroseconds: (us: bigint) => {
    const n = Number(us);
    return Number.isSafeInteger(n) ? Math.trunc(n / 1000) : Number(us / 1000n);
  },
  timestampFromNanoseconds: (ns: bigint) => Number(ns / 1_000_000n),
  dateFromDays: (days: number) => days * 86_400_000,
} satisfies Partial<ParquetParsers>;

/** A row group to decode: its index in the file, its first row and its row count. */
export interface RowSpan {
  index: number;
  start: number;
  rows: number;
}

/**
 * Every value of `column` in the row group `g`, in row order, as numbers: times as epoch
 * milliseconds, NaN where a value is missing or not a finite number. Throws when the file gives
 * another number of values than the group holds.
 */
export async function decodeColumn(
  file: AsyncBuffer,
  metadata: FileMetaData,
  column: string,
  g: RowSpan,
): Promise<Float64Array> {
  const loading = codecsFor(metadata);
  if (loading) await loading;
  const flat = flatColumn(metadata, column, g.index);
  return flat ? decodeFlat(file, flat, g) : decodeWithReader(file, metadata, column, g);
}

/** What the page loop needs of a flat numeric column chunk. */
interface FlatColumn {
  decoder: ColumnDecoder;
  /** Definition level of a present value: 1 for an optional column, 0 for a required one. */
  maxDefinition: number;
  /** The chunk's bytes in the file: [start, end). */
  range: [number, number];
  /** A page's (or the dictionary's) stored values as numbers, NaN where not finite. */
  toNumbers: (values: DecodedArray) => Float64Array;
}

const schemas = new WeakMap<FileMetaData, ReturnType<typeof parquetSchema>>();

/** `column` of row group `group` when it is a top-level number or time this module decodes itself; else null. */
function flatColumn(metadata: FileMetaData, column: string, group: number): FlatColumn | null {
  const chunk = metadata.row_groups[group]?.columns.find(
    (c) => c.meta_data?.path_in_schema.length === 1 && c.meta_data.path_in_schema[0] === column,
  )?.meta_data;
  if (!chunk) return null;
  let schema = schemas.get(metadata);
  if (!schema) {
    schema = parquetSchema(metadata);
    schemas.set(metadata, schema);
  }
  const schemaPath = getTreePath(schema, [column]);
  const leaf = schemaPath[schemaPath.length - 1];
  if (schemaPath.length !== 2 || !leaf || leaf.children.length > 0) return null;
  const element = leaf.element;
  const repetition = element.repetition_type;
  if (repetition !== 'OPTIONAL' && repetition !== 'REQUIRED') return null;
  const toNumbers = numbersOf(element);
  if (!toNumbers) return null;
  const start = Number(chunk.dictionary_page_offset || chunk.data_page_offset);
  return {
    decoder: {
      pathInSchema: chunk.path_in_schema,
      type: chunk.type,
      element,
      schemaPath,
      codec: chunk.codec,
      parsers: TIME_AS_MS as unknown as ParquetParsers,
      compressors: codecs,
    },
    maxDefinition: repetition === 'OPTIONAL' ? 1 : 0,
    range: [start, start + Number(chunk.total_compressed_size)],
    toNumbers,
  };
}

/**
 * How the stored values of `element` become numbers, or null for a type left to `parquetRead`.
 * One loop per stored form, each in a function of its own: a cold query decodes some 200 chunks,
 * and a single loop converting every form (a call per value through a different function per
 * column) was deoptimized and compiled again several times over (V8's --trace-deopt: "wrong call
 * target"), running in the interpreter meanwhile.
 */
function numbersOf(element: ColumnDecoder['element']): ((values: DecodedArray) => Float64Array) | null {
  const { type, converted_type: converted, logical_type: logical } = element;
  if (type === 'DOUBLE' || type === 'FLOAT') return logical || converted ? null : finiteNumbers;
  // Signed integers of any width are the numbers they store (unsigned ones and decimals are left to parquetRead).
  const signed =
    (converted === undefined || /^INT_(8|16|32|64)$/.test(converted)) &&
    (!logical || (logical.type === 'INTEGER' && logical.isSigned));
  if (type === 'INT32') {
    if (converted === 'DATE' || logical?.type === 'DATE') return daysAsMs;
    return signed ? int32Numbers : null;
  }
  if (type === 'INT64') {
    const unit =
      logical?.type === 'TIMESTAMP'
        ? logical.unit
        : converted === 'TIMESTAMP_MICROS'
          ? 'MICROS'
          : converted === 'TIMESTAMP_MILLIS'
            ? 'MILLIS'
            : signed
              ? 'NONE'
              : null;
    if (unit === 'MILLIS') return millisAsMs;
    if (unit === 'MICROS') return microsAsMs;
    if (unit === 'NANOS') return nanosAsMs;
    if (unit === 'NONE') return int64Numbers;
    return null;
  }
  return null;
}

/** Doubles and floats as they are, NaN for a NaN or an infinity. */
function finiteNumbers(values: DecodedArray): Float64Array {
  const v = values as Float64Array | Float32Array;
  const out = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    out[i] = x - x === 0 ? x : NaN;
  }
  return out;
}

function int32Numbers(values: DecodedArray): Float64Array {
  return Float64Array.from(values as ArrayLike<number>);
}

function daysAsMs(values: DecodedArray): Float64Array {
  const v = values as ArrayLike<number>;
  const out = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = TIME_AS_MS.dateFromDays(v[i]!);
  return out;
}

function int64Numbers(values: DecodedArray): Float64Array {
  const v = values as ArrayLike<bigint>;
  const out = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = Number(v[i]!);
  return out;
}

function millisAsMs(values: DecodedArray): Float64Array {
  const v = values as ArrayLike<bigint>;
  const out = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = TIME_AS_MS.timestampFromMilliseconds(v[i]!);
  return out;
}

function microsAsMs(values: DecodedArray): Float64Array {
  const v = values as ArrayLike<bigint>;
  const out = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = TIME_AS_MS.timestampFromMicroseconds(v[i]!);
  return out;
}

function nanosAsMs(values: DecodedArray): Float64Array {
  const v = values as ArrayLike<bigint>;
  const out = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = TIME_AS_MS.timestampFromNanoseconds(v[i]!);
  return out;
}

/** Dictionary entries by index; throws at an index past the dictionary. */
function lookUp(dictionary: Float64Array, indices: ArrayLike<number>, column: string): Float64Array {
  const out = new Float64Array(indices.length);
  const size = dictionary.length;
  for (let i = 0; i < indices.length; i++) {
    const k = indices[i]!;
    if (!(k < size)) throw new Error(`column "${column}" refers past its dictionary`);
    out[i] = dictionary[k]!;
  }
  return out;
}

/**
 * The page's present values put at their rows from `at` (NaN where the definition level says
 * none); returns how many rows the levels say are present (the caller checks it against the values).
 */
function spread(
  out: Float64Array,
  at: number,
  count: number,
  present: Float64Array,
  levels: ArrayLike<number>,
  maxDefinition: number,
): number {
  let v = 0;
  for (let i = 0; i < count; i++) {
    if (levels[i] === maxDefinition) {
      out[at + i] = v < present.length ? present[v]! : NaN;
      v++;
    } else out[at + i] = NaN;
  }
  return v;
}

/** The chunk's bytes, then its pages decoded. */
async function decodeFlat(file: AsyncBuffer, c: FlatColumn, g: RowSpan): Promise<Float64Array> {
  return decodePages(await file.slice(c.range[0], c.range[1]), c, g);
}

/**
 * The page loop: dictionary, then data pages (v1 or v2) until the group's rows are read. A plain
 * function, not part of the async one above: V8 optimizes a hot loop inside an async function
 * late or not at all, and a cold query runs this loop once per chunk.
 */
function decodePages(bytes: ArrayBuffer, c: FlatColumn, g: RowSpan): Float64Array {
  const reader = { view: new DataView(bytes), offset: 0 };
  const out = new Float64Array(g.rows);
  const { decoder, maxDefinition, toNumbers } = c;
  const column = String(decoder.pathInSchema[0]);
  let dictionary: Float64Array | null = null;
  let filled = 0;
  while (filled < g.rows && reader.offset < reader.view.byteLength - 1) {
    const header = parquetHeader(reader);
    const page = new Uint8Array(bytes, reader.offset, header.compressed_page_size);
    reader.offset += header.compressed_page_size;
    if (header.type === 'DICTIONARY_PAGE') {
      const count = header.dictionary_page_header?.num_values ?? 0;
      const plain = decompressPage(page, header.uncompressed_page_size, decoder.codec, codecs);
      const raw = readPlain(
        { view: new DataView(plain.buffer, plain.byteOffset, plain.byteLength), offset: 0 },
        decoder.type,
        count,
        decoder.element.type_length,
      );
      dictionary = toNumbers(raw);
      continue;
    }
    let levels: number[] | undefined;
    let data: DecodedArray;
    let encoding: string;
    let count: number;
    if (header.type === 'DATA_PAGE' && header.data_page_header) {
      const h = header.data_page_header;
      const plain = decompressPage(page, header.uncompressed_page_size, decoder.codec, codecs);
      const read = readDataPage(plain, h, decoder);
      levels = read.definitionLevels;
      data = read.dataPage;
      encoding = h.encoding;
      count = h.num_values;
    } else if (header.type === 'DATA_PAGE_V2' && header.data_page_header_v2) {
      const h = header.data_page_header_v2;
      const read = readDataPageV2(page, header, decoder);
      levels = read.definitionLevels;
      data = read.dataPage;
      encoding = h.encoding;
      count = h.num_values;
    } else {
      continue; // an index page: nothing to decode
    }
    if (filled + count > g.rows) throw new Error(`column "${column}" has more values than its row group`);
    const useDictionary = encoding.endsWith('_DICTIONARY');
    if (useDictionary && !dictionary) throw new Error(`column "${column}" has a dictionary page missing`);
    const present = useDictionary ? lookUp(dictionary!, data as ArrayLike<number>, column) : toNumbers(data);
    // No levels (a required column, or a page without nulls): every row has a value.
    const allPresent = maxDefinition === 0 || !levels || levels.length === 0;
    let placed = present.length;
    if (allPresent && present.length === count) out.set(present, filled);
    else if (allPresent) placed = -1;
    else if (levels!.length < count) placed = -1;
    else placed = spread(out, filled, count, present, levels!, maxDefinition);
    if (placed !== present.length)
      throw new Error(
        `column "${column}" page gave ${present.length} values for ${allPresent ? count : placed} present`,
      );
    filled += count;
  }
  if (filled !== g.rows)
    throw new Error(
      `column "${decoder.pathInSchema[0]}" gave ${filled} of the ${g.rows} values of row group at row ${g.start}`,
    );
  return out;
}

/** Any other column, through hyparquet's reader, its values made numbers the same way. */
async function decodeWithReader(
  file: AsyncBuffer,
  metadata: FileMetaData,
  column: string,
  g: RowSpan,
): Promise<Float64Array> {
  const values = new Float64Array(g.rows).fill(NaN);
  let filled = 0;
  await parquetRead({
    file,
    metadata,
    columns: [column],
    rowStart: g.start,
    rowEnd: g.start + g.rows,
    compressors: codecs,
    parsers: TIME_AS_MS,
    onChunk: ({ columnData, rowStart: at }) => {
      const offset = at - g.start;
      for (let i = 0; i < columnData.length; i++) {
        if (offset + i >= 0 && offset + i < g.rows) {
          values[offset + i] = asNumber(columnData[i]);
          filled++;
        }
      }
    },
  });
  if (filled !== g.rows)
    throw new Error(`column "${column}" gave ${filled} of the ${g.rows} values of row group at row ${g.start}`);
  return values;
}

/** A decoded value as a number: NaN where it is missing or not a finite number. */
function asNumber(v: unknown): number {
  const n = typeof v === 'bigint' ? Number(v) : v instanceof Date ? v.getTime() : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : NaN;
}
