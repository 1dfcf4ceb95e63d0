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
 * `parquetRead`, the same values either way (test/stations/column-decoder.test.ts).
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
  /** A stored value (after the dictionary) as a number. */
  toNumber: (v: unknown) => number;
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
  const toNumber = numberOf(element);
  if (!toNumber) return null;
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
    toNumber,
  };
}

/** How a stored value of `element` becomes a number, or null for a type left to `parquetRead`. */
function numberOf(element: ColumnDecoder['element']): ((v: unknown) => number) | null {
  const { type, converted_type: converted, logical_type: logical } = element;
  const finite = (n: number) => (Number.isFinite(n) ? n : NaN);
  if (type === 'DOUBLE' || type === 'FLOAT') {
    return logical || converted ? null : (v) => finite(v as number);
  }
  // Signed integers of any width are the numbers they store (unsigned ones and decimals are left to parquetRead).
  const signed =
    (converted === undefined || /^INT_(8|16|32|64)$/.test(converted)) &&
    (!logical || (logical.type === 'INTEGER' && logical.isSigned));
  if (type === 'INT32') {
    if (converted === 'DATE' || logical?.type === 'DATE') return (v) => TIME_AS_MS.dateFromDays(v as number);
    return signed ? (v) => v as number : null;
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
    if (unit === 'MILLIS') return (v) => TIME_AS_MS.timestampFromMilliseconds(v as bigint);
    if (unit === 'MICROS') return (v) => TIME_AS_MS.timestampFromMicroseconds(v as bigint);
    if (unit === 'NANOS') return (v) => TIME_AS_MS.timestampFromNanoseconds(v as bigint);
    if (unit === 'NONE') return (v) => finite(Number(v as bigint));
    return null;
  }
  return null;
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
  const { decoder, maxDefinition, toNumber } = c;
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
      dictionary = Float64Array.from(raw as ArrayLike<unknown>, toNumber);
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
    if (filled + count > g.rows)
      throw new Error(`column "${decoder.pathInSchema[0]}" has more values than its row group`);
    const useDictionary = encoding.endsWith('_DICTIONARY');
    if (useDictionary && !dictionary)
      throw new Error(`column "${decoder.pathInSchema[0]}" has a dictionary page missing`);
    // No levels (a required column, or a page without nulls): every row has a value.
    const allPresent = maxDefinition === 0 || !levels || levels.length === 0;
    let v = 0;
    for (let i = 0; i < count; i++) {
      if (allPresent || levels![i] === maxDefinition) {
        if (useDictionary) {
          const k = data[v++] as number;
          if (!(k < dictionary!.length))
            throw new Error(`column "${decoder.pathInSchema[0]}" refers past its dictionary`);
          out[filled + i] = dictionary![k]!;
        } else out[filled + i] = toNumber(data[v++]);
      } else out[filled + i] = NaN;
    }
    if (v !== data.length)
      throw new Error(`column "${decoder.pathInSchema[0]}" page gave ${data.length} values for ${v} present`);
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
