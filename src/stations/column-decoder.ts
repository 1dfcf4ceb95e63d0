/**
 * Decodes one column of one row group of a station file with hyparquet, from
 * bytes already fetched (the archive prefetches every planned range first,
 * read-plan.ts): the one place the station reader calls the Parquet decoder.
 */
import { parquetRead, type AsyncBuffer, type FileMetaData, type ParquetParsers } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

/**
 * Times decoded as epoch milliseconds (numbers), not Date objects: a cold
 * 10-station hourly year decodes 87,600 times, and the Dates and BigInt
 * divisions of hyparquet's defaults were a tenth of that query's CPU time.
 * Same values as the defaults (truncating division), exact while the
 * microseconds fit a double (until the year 2255); nanoseconds keep BigInt.
 */
const TIME_AS_MS: Partial<ParquetParsers> = {
  timestampFromMilliseconds: (ms: bigint) => Number(ms),
  timestampFromMicroseconds: (us: bigint) => {
    const n = Number(us);
    return Number.isSafeInteger(n) ? Math.trunc(n / 1000) : Number(us / 1000n);
  },
  timestampFromNanoseconds: (ns: bigint) => Number(ns / 1_000_000n),
  dateFromDays: (days: number) => days * 86_400_000,
};

/** A row group to decode: its first row in the file and its row count. */
export interface RowSpan {
  start: number;
  rows: number;
}

/**
 * Every value of `column` in the row group `g`, in row order (times as epoch ms). The chunks are
 * taken as columns (onChunk), not turned into one array per row (onComplete): that made 12,000
 * small arrays per column and group, and a quarter of a cold query's time went to collecting
 * them. Throws when the decoder gives another number of values than the group holds.
 */
export async function decodeColumn(
  file: AsyncBuffer,
  metadata: FileMetaData,
  column: string,
  g: RowSpan,
): Promise<unknown[]> {
  const values = new Array<unknown>(g.rows);
  let filled = 0;
  await parquetRead({
    file,
    metadata,
    columns: [column],
    rowStart: g.start,
    rowEnd: g.start + g.rows,
    compressors,
    parsers: TIME_AS_MS,
    onChunk: ({ columnData, rowStart: at }) => {
      const offset = at - g.start;
      for (let i = 0; i < columnData.length; i++) {
        if (offset + i >= 0 && offset + i < g.rows) {
          values[offset + i] = columnData[i];
          filled++;
        }
      }
    },
  });
  if (filled !== g.rows)
    throw new Error(`column "${column}" gave ${filled} of the ${g.rows} values of row group at row ${g.start}`);
  return values;
}
