// The station reader's column decoder against native DuckDB: files written by DuckDB in every form
// a station file could take (Parquet v1 and v2 pages, ZSTD, Snappy, GZIP, Brotli, LZ4 and no compression, dictionary
// and plain values, optional and required columns, nulls, NaN and infinities, times in ms, µs and
// ns, dates, signed and unsigned integers), several row groups and pages; every value of every row group as the
// decoder gives it equals what DuckDB reads from the same file (NaN where DuckDB reads NULL, NaN
// or an infinity). Columns it leaves to hyparquet's reader (decimals, strings) are checked too.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetMetadata } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeColumn } from '../../src/stations/column-decoder.ts';

let dir: string;
let db: DuckDBInstance;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cq-column-decoder-'));
  db = await DuckDBInstance.create(':memory:');
});
afterAll(async () => {
  db?.closeSync();
  await rm(dir, { recursive: true, force: true });
});

/** Rows: a time every hour from 2023-01-01, values with nulls, repeats (dictionary) and odd values. */
const SOURCE = `
  SELECT
    TIMESTAMP '2023-01-01' + INTERVAL (i) HOUR AS time,
    CAST(TIMESTAMP '2023-01-01' + INTERVAL (i) HOUR AS TIMESTAMP_MS) AS time_ms,
    CAST(TIMESTAMP '2023-01-01' + INTERVAL (i) HOUR AS TIMESTAMP_NS) AS time_ns,
    CAST(DATE '2000-01-01' + INTERVAL (i) DAY AS DATE) AS day,
    CASE WHEN i % 17 = 3 THEN NULL ELSE round(sin(i / 24.0) * 20 + 15, 1) END AS temperature,
    CASE WHEN i % 5 = 0 THEN NULL WHEN i % 101 = 7 THEN 'NaN'::DOUBLE WHEN i % 211 = 9 THEN 'inf'::DOUBLE
         WHEN i % 223 = 11 THEN '-inf'::DOUBLE ELSE sqrt(i) * 1.000001 END AS plainish,
    CAST(i % 7 AS DOUBLE) AS required_double,
    CAST(i % 13 AS FLOAT) / 4 AS single,
    CASE WHEN i % 9 = 0 THEN NULL ELSE CAST(i AS INTEGER) - 5000 END AS int32,
    CAST(i AS BIGINT) * 1000003 - 7 AS int64,
    CAST(i % 200 - 100 AS TINYINT) AS int8,
    CAST(i % 30000 - 15000 AS SMALLINT) AS int16,
    -- Below 2^31: above it hyparquet 1.31.5's own reader (which unsigned columns go through) gave
    -- values 2^31 low from DuckDB's v2 pages. Station files hold doubles and times, never UINTEGER.
    CAST(i AS UINTEGER) * 178956 AS uint32,
    CAST(i AS UBIGINT) * 1537228672809129 AS uint64,
    CAST(i % 1000 AS DECIMAL(9, 2)) / 8 AS dec,
    'station-' || (i % 3) AS label
  FROM range(0, 12000) t(i)`;

const NUMERIC = [
  'time',
  'time_ms',
  'time_ns',
  'day',
  'temperature',
  'plainish',
  'required_double',
  'single',
  'int32',
  'int64',
  'int8',
  'int16',
  'uint32',
  'uint64',
  'dec',
];

/** What DuckDB reads of `column`, as the decoder should give it: epoch ms for times, NaN for none. */
function expected(column: string): string {
  if (column.startsWith('time') || column === 'day') return `epoch_ms(CAST(${column} AS TIMESTAMP))::DOUBLE`;
  return `CASE WHEN isfinite(${column}::DOUBLE) THEN ${column}::DOUBLE END`;
}

const FORMS = [
  { name: 'v2-zstd', options: 'COMPRESSION zstd, PARQUET_VERSION v2, ROW_GROUP_SIZE 4096' },
  { name: 'v1-zstd', options: 'COMPRESSION zstd, PARQUET_VERSION v1, ROW_GROUP_SIZE 4096' },
  { name: 'v1-snappy', options: 'COMPRESSION snappy, ROW_GROUP_SIZE 3000' },
  // Codecs other writers use, loaded on first need (src/stations/parquet-codecs.ts).
  { name: 'v1-gzip', options: 'COMPRESSION gzip, ROW_GROUP_SIZE 4096' },
  { name: 'v2-brotli', options: 'COMPRESSION brotli, PARQUET_VERSION v2, ROW_GROUP_SIZE 4096' },
  { name: 'v1-lz4', options: 'COMPRESSION lz4, ROW_GROUP_SIZE 4096' },
  {
    name: 'v2-uncompressed-large-groups',
    options: 'COMPRESSION uncompressed, PARQUET_VERSION v2, ROW_GROUP_SIZE 12000',
  },
  {
    name: 'v2-no-dictionary',
    options: 'COMPRESSION zstd, PARQUET_VERSION v2, DICTIONARY_SIZE_LIMIT 1, ROW_GROUP_SIZE 5000',
  },
];

describe('decodeColumn', () => {
  for (const form of FORMS) {
    it(`gives every value DuckDB reads (${form.name})`, async () => {
      const con = await db.connect();
      const path = join(dir, `${form.name}.parquet`);
      await con.run(`COPY (${SOURCE}) TO '${path}' (FORMAT parquet, ${form.options})`);
      const bytes = await readFile(path);
      const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
      const metadata = parquetMetadata(buffer);
      const file = { byteLength: buffer.byteLength, slice: (a: number, b?: number) => buffer.slice(a, b) };
      const truth = (
        await con.runAndReadAll(`SELECT ${NUMERIC.map((c) => `${expected(c)} AS "${c}"`).join(', ')} FROM '${path}'`)
      ).getRowObjectsJS() as Record<string, number | null>[];
      expect(truth.length).toBe(12000);
      expect(metadata.row_groups.length).toBeGreaterThan(form.name.includes('large') ? 0 : 1);
      let start = 0;
      let compared = 0;
      let missing = 0;
      for (const [index, group] of metadata.row_groups.entries()) {
        const rows = Number(group.num_rows);
        for (const column of NUMERIC) {
          const got = await decodeColumn(file, metadata, column, { index, start, rows });
          expect(got).toBeInstanceOf(Float64Array);
          expect(got.length).toBe(rows);
          for (let i = 0; i < rows; i++) {
            const want = truth[start + i]![column];
            if (want === null || want === undefined) {
              expect(Number.isNaN(got[i]), `${column} row ${start + i}`).toBe(true);
              missing++;
            } else expect(got[i], `${column} row ${start + i}`).toBe(want);
            compared++;
          }
        }
        start += rows;
      }
      expect(compared).toBe(12000 * NUMERIC.length);
      // The nulls, NaNs and infinities above were met (not a file that lost them).
      expect(missing).toBeGreaterThan(2400 + 1300 + 700);
      con.closeSync();
    });
  }

  it('gives NaN for text, and throws when a chunk holds fewer rows than asked', async () => {
    const con = await db.connect();
    const path = join(dir, 'text.parquet');
    await con.run(`COPY (${SOURCE}) TO '${path}' (FORMAT parquet, ROW_GROUP_SIZE 4096)`);
    const bytes = await readFile(path);
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const metadata = parquetMetadata(buffer);
    const file = { byteLength: buffer.byteLength, slice: (a: number, b?: number) => buffer.slice(a, b) };
    const rows = Number(metadata.row_groups[0]!.num_rows);
    const label = await decodeColumn(file, metadata, 'label', { index: 0, start: 0, rows });
    expect(label.every((v) => Number.isNaN(v))).toBe(true);
    // A row group claimed larger than its chunk: the decoder says so rather than pad it.
    await expect(decodeColumn(file, metadata, 'temperature', { index: 0, start: 0, rows: rows + 10 })).rejects.toThrow(
      /gave \d+ of the \d+ values/,
    );
    con.closeSync();
  });
});
